package agui

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/internal/aguipb"
	"github.com/aguitest/aguitest/internal/jsvalue"
	"github.com/aguitest/aguitest/internal/oracle"
)

// The protobuf differential test: @ag-ui/encoder encodes generated events
// (the verifier's stream corpus, enriched with every field protobuf
// carries), @ag-ui/proto decodes its own frames, and this package must
// agree with both: the same events from the reference's frames (JSON byte
// for byte), the same frames from the events the reference's schema
// accepts, and losses naming exactly what the reference's round trip
// changed. Mutated frames must be accepted or rejected as the reference
// does.

const protoSeed = 20261213

type protoOracleResult struct {
	Frame       []byte  `json:"frame"` // length prefix included
	EncodeError string  `json:"encodeError"`
	Warned      bool    `json:"warned"`
	Decoded     *string `json:"decoded"`
	DecodeError string  `json:"decodeError"`
	Future      bool    `json:"future"`
}

// runProtoOracle feeds proto.mjs one input per line.
func runProtoOracle(t testing.TB, dir string, inputs [][]byte) []protoOracleResult {
	t.Helper()
	return oracle.Run[protoOracleResult](t, dir, "proto.mjs", inputs)
}

// protoCorpus returns n generated streams, their events enriched.
func protoCorpus(n int) [][]obj {
	out := make([][]obj, n)
	for i := range out {
		s := genStream(corpusSeed, i)
		r := rand.New(rand.NewPCG(protoSeed, uint64(i)))
		for j := range s {
			s[j] = enrich(r, s[j])
		}
		out[i] = s
	}
	return out
}

func TestProtoAgainstReference(t *testing.T) {
	t.Parallel()
	dir := needOracle(t)
	n := 1200
	if testing.Short() {
		n = 120
	}
	streams := protoCorpus(n)
	var (
		inputs [][]byte
		events []Event
		where  []string
	)
	for i, s := range streams {
		for j, o := range s {
			b, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			e, err := ParseEvent(b)
			if err != nil {
				t.Fatalf("stream %d event %d: %v", i, j, err)
			}
			inputs = append(inputs, append(append([]byte(`{"event":`), b...), '}'))
			events = append(events, e)
			where = append(where, fmt.Sprintf("stream %d event %d", i, j))
		}
	}
	results := runProtoOracle(t, dir, inputs)

	types := map[EventType]int{}
	var st struct{ valid, warned, lossy, encodeFailed, decodeFailed, sameBytes int }
	failures := 0
	fail := func(format string, args ...any) {
		failures++
		if failures <= 15 {
			t.Errorf(format, args...)
		}
	}
	var frames []byte // every frame the reference wrote, as one stream
	var want []string // and the events it decodes them to
	for i, res := range results {
		e := events[i]
		gotBytes, losses, gerr := MarshalProto(e)
		if res.Frame == nil {
			st.encodeFailed++
			if gerr == nil && e.Type().Known() && !res.Warned {
				fail("%s: the reference cannot encode it (%s), we can\nevent: %s", where[i], res.EncodeError, e.Raw())
			}
			continue
		}
		types[e.Type()]++
		msg := res.Frame[4:]
		checkFlatIndex(t, msg)
		// Our decoder on the reference's frame.
		got, _, derr := UnmarshalProto(msg)
		switch {
		case res.Decoded == nil && derr == nil:
			fail("%s: the reference cannot decode its frame (%s), we decode %s", where[i], res.DecodeError, got.Raw())
		case res.Decoded != nil && derr != nil:
			fail("%s: the reference decodes its frame, we fail: %v", where[i], derr)
		case res.Decoded != nil && string(got.Raw()) != *res.Decoded:
			fail("%s: decoded events differ\n  reference: %s\n  ours:      %s", where[i], *res.Decoded, got.Raw())
		}
		if res.Decoded == nil {
			st.decodeFailed++
			continue
		}
		frames = append(frames, res.Frame...)
		want = append(want, *res.Decoded)
		if res.Warned {
			// The reference encodes what its schema rejects "as given",
			// in ways that are not worth copying (an absent required
			// string becomes "undefined"). Our losses must still name
			// every difference between the event and our round trip,
			// which MarshalProto guarantees by construction.
			st.warned++
			continue
		}
		st.valid++
		if gerr != nil {
			fail("%s: we cannot encode what the reference encodes: %v", where[i], gerr)
			continue
		}
		if !bytes.Equal(gotBytes, msg) {
			fail("%s: frames differ\n  event:     %s\n  reference: %x\n  ours:      %x", where[i], e.Raw(), msg, gotBytes)
		} else {
			st.sameBytes++
		}
		// Our losses must be exactly what the reference's round trip
		// changed.
		wantLoss := fromPB(aguipb.Diff("", jsvalue.ParseUTF8(e.Raw()), jsvalue.ParseUTF8([]byte(*res.Decoded)), nil))
		if d := lossPaths(wantLoss) + "|"; d != lossPaths(losses)+"|" {
			fail("%s: losses differ\n  event:     %s\n  decoded:   %s\n  reference changed: %s\n  we report:         %s", where[i], e.Raw(), *res.Decoded, lossPaths(wantLoss), lossPaths(losses))
		}
		if len(losses) > 0 {
			st.lossy++
		}
	}
	// The frames as one stream, through the Reader.
	r := NewReader(bytes.NewReader(frames), "corpus")
	for i := 0; ; i++ {
		e, err := r.Next()
		if err != nil {
			if i != len(want) || err.Error() != "EOF" {
				fail("the corpus as one stream: event %d of %d: %v", i, len(want), err)
			}
			break
		}
		if i >= len(want) || string(e.Raw()) != want[i] {
			fail("the corpus as one stream: event %d differs", i)
			break
		}
	}
	if r.Format() != FormatProto {
		t.Errorf("the corpus as one stream read as %q", r.Format())
	}
	if failures > 0 {
		t.Errorf("%d disagreements with @ag-ui/proto over %d events", failures, len(results))
	}
	t.Logf("%d streams, %d events: %d accepted by the reference's schema (%d byte-identical frames, %d with losses), %d encoded with a warning, %d not encodable, %d not decodable",
		len(streams), len(results), st.valid, st.sameBytes, st.lossy, st.warned, st.encodeFailed, st.decodeFailed)
	for _, typ := range EventTypes {
		if types[typ] == 0 {
			t.Errorf("the corpus has no %s event", typ)
		}
	}
	if st.valid < len(results)/2 || st.lossy == 0 || st.warned == 0 {
		t.Errorf("the corpus is unbalanced: %+v", st)
	}
}

func lossPaths(ls []Loss) string {
	var p []string
	for _, l := range ls {
		p = append(p, l.Path)
	}
	sort.Strings(p)
	return strings.Join(p, " ")
}

// TestProtoMutatedFrames corrupts the reference's frames and checks that
// our decoder accepts and rejects them as @ag-ui/proto does, and decodes
// the accepted ones to the same events.
func TestProtoMutatedFrames(t *testing.T) {
	t.Parallel()
	dir := needOracle(t)
	streams := protoCorpus(150)
	var msgs [][]byte
	for _, s := range streams {
		for _, o := range s {
			b, _ := json.Marshal(o)
			e, err := ParseEvent(b)
			if err != nil {
				t.Fatal(err)
			}
			if m, _, err := MarshalProto(e); err == nil {
				msgs = append(msgs, m)
			}
		}
	}
	r := rand.New(rand.NewPCG(protoSeed, 1))
	var inputs [][]byte
	var frames [][]byte
	for _, m := range msgs {
		f := m
		for range 1 + r.IntN(3) {
			f = mutateFrame(r, f)
		}
		frames = append(frames, f)
		b, _ := json.Marshal(map[string][]byte{"frame": f})
		inputs = append(inputs, b)
	}
	results := runProtoOracle(t, dir, inputs)
	failures, accepted, future := 0, 0, 0
	for i, res := range results {
		got, _, err := UnmarshalProto(frames[i])
		var bad string
		switch {
		case res.Future != (err == ErrFutureEvent):
			bad = fmt.Sprintf("future event: reference %v, ours %v", res.Future, err)
		case res.Decoded == nil && err == nil:
			bad = fmt.Sprintf("the reference rejects it (%s), we decode %s", res.DecodeError, got.Raw())
		case res.Decoded != nil && err != nil:
			bad = fmt.Sprintf("the reference decodes %s, we fail: %v", *res.Decoded, err)
		case res.Decoded != nil && string(got.Raw()) != *res.Decoded:
			bad = fmt.Sprintf("decoded events differ\n  reference: %s\n  ours:      %s", *res.Decoded, got.Raw())
		}
		if res.Decoded != nil {
			accepted++
		}
		if res.Future {
			future++
		}
		if bad != "" {
			failures++
			if failures <= 15 {
				t.Errorf("mutated frame %d (%x): %s", i, frames[i], bad)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d mutated frames judged differently from @ag-ui/proto", failures, len(frames))
	}
	t.Logf("%d mutated frames: the reference accepts %d, drops %d as events of a later version, rejects the rest", len(frames), accepted, future)
	if accepted < len(frames)/10 || accepted > len(frames)*9/10 {
		t.Errorf("the mutations are unbalanced: %d of %d accepted", accepted, len(frames))
	}
}

// mutateFrame damages a message in one of the ways a broken producer or
// transport would.
func mutateFrame(r *rand.Rand, m []byte) []byte {
	m = bytes.Clone(m)
	if len(m) == 0 {
		return []byte{0x0a, 0x00}
	}
	switch r.IntN(12) {
	case 0: // flip a bit
		i := r.IntN(len(m))
		m[i] ^= 1 << r.IntN(8)
	case 1: // cut
		m = m[:r.IntN(len(m))]
	case 2: // drop a byte
		i := r.IntN(len(m))
		m = append(m[:i], m[i+1:]...)
	case 3: // insert a byte
		i := r.IntN(len(m) + 1)
		m = append(m[:i], append([]byte{byte(r.IntN(256))}, m[i:]...)...)
	case 4: // append an unknown field of the envelope or of the event
		f := []byte{0xf8, 0x03, 0x2a} // field 63, varint 42
		if r.IntN(2) == 0 {
			f = []byte{0xfa, 0x03, 0x02, 0x08, 0x01} // field 63, a message
		}
		m = append(m, f...)
	case 5: // the event twice (a repeated envelope arm merges)
		m = append(m, m...)
	case 6: // an event of a later version alone
		m = []byte{0xfa, 0x03, 0x04, 0x0a, 0x02, 0x08, 0x01}
	case 7: // a second, different arm
		m = append(m, 0x1a, 0x02, 0x0a, 0x00)
	case 8: // a field 0, a group, or a stray end-group
		tails := [][]byte{{0x00}, {0x0b, 0x0c}, {0x0b, 0x14}, {0x0c}, {0x0f}}
		m = append(m, tails[r.IntN(len(tails))]...)
	case 9: // change the declared type
		if i := bytes.Index(m, []byte{0x0a, 0x02, 0x08}); i >= 0 && i+3 < len(m) {
			m[i+3] = byte(r.IntN(40))
		} else {
			m = append(m, 0x00)
		}
	case 10: // an overlong varint in the base event's type
		if i := bytes.Index(m, []byte{0x0a, 0x02, 0x08}); i >= 0 && i+3 < len(m) {
			ov := []byte{m[i+3] | 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}
			n := append(append(append([]byte{}, m[:i+1]...), byte(1+len(ov))), 0x08)
			m = append(append(n, ov...), m[i+4:]...)
		}
	default: // garbage
		m = make([]byte, 1+r.IntN(12))
		for i := range m {
			m[i] = byte(r.IntN(256))
		}
	}
	return m
}

// TestProtoLengthPrefix checks the frames the reference wrote carry their
// message's length, big-endian.
func TestProtoLengthPrefix(t *testing.T) {
	dir := needOracle(t)
	in := [][]byte{[]byte(`{"event":{"type":"RUN_STARTED","threadId":"t","runId":"` + strings.Repeat("r", 300) + `"}}`)}
	res := runProtoOracle(t, dir, in)
	f := res[0].Frame
	if n := binary.BigEndian.Uint32(f); int(n) != len(f)-4 {
		t.Errorf("prefix %d, message %d bytes", n, len(f)-4)
	}
	var buf bytes.Buffer
	if err := NewProtoEncoder(&buf).Encode(NewEvent(RunStarted, "threadId", "t", "runId", strings.Repeat("r", 300))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), f) {
		t.Errorf("frames differ:\n reference %x\n ours      %x", f, buf.Bytes())
	}
}

// TestEncoderContentTypeTrap reproduces a trap in @ag-ui/encoder 1.0.0:
// EventEncoder negotiates protobuf for any Accept header that admits it,
// "*/*" (curl's default) included, but its encode() always writes
// server-sent events; only encodeBinary() writes what getContentType()
// announces. A server pairing getContentType() with encode(), as this
// repository's TypeScript example did, answers SSE bytes under the
// protobuf Content-Type, which no client can read. The Reader, reading
// by Content-Type as HttpAgent does, says so.
func TestEncoderContentTypeTrap(t *testing.T) {
	dir := needOracle(t)
	cmd := exec.Command("node", "--input-type=module", "-e", `
import { EventEncoder } from "@ag-ui/encoder";
const out = {};
for (const accept of ["*/*", "application/vnd.ag-ui.event+proto", "text/event-stream"]) {
  const enc = new EventEncoder({ accept });
  out[accept] = { contentType: enc.getContentType(), body: enc.encode({ type: "RUN_STARTED", threadId: "t", runId: "r" }) };
}
console.log(JSON.stringify(out));
`)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]struct{ ContentType, Body string }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	for _, accept := range []string{"*/*", MediaTypeProto} {
		r := res[accept]
		if r.ContentType != MediaTypeProto || !strings.HasPrefix(r.Body, "data: ") {
			t.Fatalf("Accept %q: the encoder announces %q and writes %q; the trap is gone, update this test and the docs", accept, r.ContentType, r.Body)
		}
		rd := NewReader(strings.NewReader(r.Body), "encoder")
		rd.ContentType = r.ContentType
		if _, err := rd.Next(); err == nil || !strings.Contains(err.Error(), `frame-size: Protobuf message size exceeded maximum limit of 10485760 bytes (a frame of 1684108385 bytes); the bytes read as the text "data": is this server-sent events?`) {
			t.Errorf("Accept %q: reading the body: %v", accept, err)
		}
	}
	if r := res["text/event-stream"]; r.ContentType != MediaTypeSSE {
		t.Errorf("Accept text/event-stream: %q", r.ContentType)
	}
}

// TestReferenceProtoSilentChanges reproduces what @ag-ui/proto 1.0.0
// changes without a word on its way through protobuf, where this package
// reports a loss: a required string the event lacks is encoded as the
// text "undefined" (the encoder only warns that the schema rejected the
// event), and a "__proto__" key of any object is dropped (assigned to a
// plain object it sets the prototype), though the same event over
// server-sent events keeps it.
func TestReferenceProtoSilentChanges(t *testing.T) {
	dir := needOracle(t)
	for _, tt := range []struct {
		event, decoded, loss string
	}{
		{`{"type":"TEXT_MESSAGE_CONTENT","delta":"x"}`, `{"messageId":"undefined","delta":"x","type":"TEXT_MESSAGE_CONTENT"}`, `/messageId: added as ""`},
		{`{"type":"CUSTOM","name":"n","value":{"__proto__":1,"a":2}}`, `{"name":"n","value":{"a":2},"type":"CUSTOM"}`, `/value/__proto__: not carried (was 1)`},
	} {
		res := runProtoOracle(t, dir, [][]byte{[]byte(`{"event":` + tt.event + `}`)})[0]
		if res.Decoded == nil || *res.Decoded != tt.decoded {
			t.Errorf("the reference's round trip of %s: got %v (%s), want %s; update this test and the report", tt.event, res.Decoded, res.DecodeError, tt.decoded)
		}
		e, _ := ParseEvent([]byte(tt.event))
		_, losses, err := MarshalProto(e)
		if err != nil || len(losses) != 1 || losses[0].String() != tt.loss {
			t.Errorf("MarshalProto(%s): %v %v, want the loss %s", tt.event, losses, err, tt.loss)
		}
	}
}

// TestClientConformanceProto is TestClientConformance over the protobuf
// encoding: HttpAgent receives the same bodies, each event a frame (now and
// then a damaged one), under Content-Type application/vnd.ag-ui.event+proto,
// and this package reads the same bytes with the Reference profile. Both
// must accept and reject the same bodies for the same reason.
func TestClientConformanceProto(t *testing.T) {
	t.Parallel()
	dir := needOracle(t)
	n := 1000
	if testing.Short() {
		n = 80
	}
	ct := MediaTypeProto
	bodies := make([][]byte, n)
	cases := make([]httpCase, n)
	damaged := 0
	for i := range bodies {
		g := &gen{r: rand.New(rand.NewPCG(protoSeed, uint64(i)))}
		s := genStream(protoSeed^0x5eed, i)
		if g.chance(0.5) {
			s, _ = g.schemaMutate(s)
		}
		var body bytes.Buffer
		enc := NewProtoEncoder(&body)
		for _, o := range s {
			raw, _ := json.Marshal(o)
			e, err := ParseEvent(raw)
			if err != nil {
				continue
			}
			if g.chance(0.01) {
				m, _, err := MarshalProto(e)
				if err == nil {
					enc.EncodeFrame(mutateFrame(g.r, m))
					damaged++
					continue
				}
			}
			enc.Encode(e) // events with no protobuf form are not sent
		}
		bodies[i] = body.Bytes()
		cases[i] = httpCase{Body: base64.StdEncoding.EncodeToString(bodies[i]), ContentType: &ct}
	}
	results := runHTTPAgent(t, dir, cases)
	failures, accepted := 0, 0
	byRule := map[Rule]int{}
	for i, res := range results {
		r := NewReader(bytes.NewReader(bodies[i]), "body")
		r.ContentType = ct
		v := NewVerifier(Options{Profile: Reference})
		readErr := readInto(r, v)
		v.Finish()
		ours := clientViolation(v)
		if res.OK {
			accepted++
		} else if ours != nil {
			byRule[ours.Rule]++
		}
		var bad error
		switch {
		case readErr != nil:
			bad = fmt.Errorf("aguitest cannot read it: %v", readErr)
		case !res.OK && strings.HasPrefix(res.Error, "Failed to decode protocol buffer message"),
			!res.OK && strings.HasPrefix(res.Error, "The binary stream ended mid-frame"):
			if ours == nil || ours.Rule != RuleFrameProto {
				bad = fmt.Errorf("the client fails to decode a frame (%s); aguitest reports %v", res.Error, ours)
			}
		default:
			bad = sameVerdict(res, ours)
		}
		if bad != nil {
			failures++
			if failures <= 15 {
				t.Errorf("body %d (seed %d): %v\nbody: %x", i, protoSeed, bad, clipBytes(bodies[i]))
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d protobuf bodies disagree with HttpAgent", failures, n)
	}
	t.Logf("%d protobuf bodies (%d damaged frames): HttpAgent accepts %d, rejects %d; first violations by rule: %v", n, damaged, accepted, n-accepted, byRule)
	if n >= 1000 && (byRule[RuleFrameProto] == 0 || byRule[RuleSchema] == 0 || accepted < n/5) {
		t.Errorf("the corpus does not reach every stage: %d accepted, %v", accepted, byRule)
	}
}

func clipBytes(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}
