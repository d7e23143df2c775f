package recorder

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

func sameJSON(a, b []byte) bool {
	var x, y any
	return jsonUnmarshal(a, &x) == nil && jsonUnmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// protoAgent serves evs as protobuf frames, each written in two pieces,
// then the extra frames (raw messages) before the last event.
func protoAgent(t *testing.T, evs []agui.Event, extra [][]byte, contentType string) http.Handler {
	t.Helper()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		var b bytes.Buffer
		enc := agui.NewProtoEncoder(&b)
		for i, e := range evs {
			if i == len(evs)-1 {
				for _, x := range extra {
					enc.EncodeFrame(x)
				}
			}
			if err := enc.Encode(e); err != nil {
				t.Error(err)
			}
		}
		data := b.Bytes()
		for len(data) > 0 {
			n := min(len(data), 7)
			w.Write(data[:n])
			w.(http.Flusher).Flush()
			data = data[n:]
		}
	})
}

func TestMiddlewareRecordsProtobuf(t *testing.T) {
	evs := streamEvents("r1", 20)
	// A frame with a field the JSON form cannot hold, and one holding an
	// event of a later protocol version.
	lossy, _, _ := agui.MarshalProto(agui.NewTextMessageContent("m1", "x"))
	lossy = append(lossy[:1:1], append([]byte{lossy[1] + 3}, append(lossy[2:], 0xf8, 0x03, 0x01)...)...)
	future := []byte{0xfa, 0x03, 0x02, 0x08, 0x01}
	for _, ct := range []string{agui.MediaTypeProto, ""} {
		t.Run("content type "+ct, func(t *testing.T) {
			var file bytes.Buffer
			w, _ := NewWriter(&file, Header{})
			h := Middleware(protoAgent(t, evs, [][]byte{lossy, future}, ct), Config{Writer: w})
			srv := httptest.NewServer(h)
			body := post(t, srv.URL, `{"runId":"r1"}`, http.Header{"Accept": {agui.MediaTypeProto}})
			srv.Close()
			h.Wait()

			recs, errs := readAll(t, NewReader(&file, "rec"))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var got []agui.Event
			var frames [][]byte
			for _, r := range recs {
				if r.Kind != KindEvent {
					continue
				}
				if r.Frame != nil {
					frames = append(frames, r.Frame)
				}
				if e, err := r.EventOf(); err == nil {
					got = append(got, e)
				}
			}
			// Every event as the client decodes it: the lossy frame's too.
			want, err := agui.ReadEvents(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(want) != len(evs)+1 {
				t.Fatalf("recorded %d events, the client reads %d, the agent sent %d+1", len(got), len(want), len(evs))
			}
			for i := range want {
				if !bytes.Equal(got[i].Raw(), want[i].Raw()) {
					t.Errorf("event %d: recorded %s, the client reads %s", i, got[i].Raw(), want[i].Raw())
				}
			}
			if len(frames) != 2 || !bytes.Equal(frames[0], lossy) || !bytes.Equal(frames[1], future) {
				t.Errorf("kept frames %x, want the lossy one and the future one", frames)
			}
			end := endOf(t, recs)
			if end.Outcome != OutcomeFinished || end.Events != int64(len(evs)+2) || end.Bytes != int64(len(body)) {
				t.Errorf("end = %+v", end)
			}
			if ct != "" && end.ContentType != ct {
				t.Errorf("content type %q, want %q", end.ContentType, ct)
			}
		})
	}
}

func TestProxyRecordsProtobuf(t *testing.T) {
	evs := streamEvents("r2", 5)
	var accept string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		ct := agui.Negotiate(accept)
		w.Header().Set("Content-Type", ct.ContentType())
		enc := agui.NewEncoder(w, ct)
		for _, e := range evs {
			enc.Encode(e)
		}
	}))
	defer up.Close()
	target, _ := url.Parse(up.URL)
	var file bytes.Buffer
	w, _ := NewWriter(&file, Header{})
	p := Proxy(target, Config{Writer: w})
	srv := httptest.NewServer(p)
	body := post(t, srv.URL, `{"runId":"r2"}`, http.Header{"Accept": {agui.MediaTypeProto}})
	srv.Close()
	p.Wait()
	if accept != agui.MediaTypeProto || len(body) == 0 || body[0] != 0 {
		t.Fatalf("upstream got Accept %q and answered %q", accept, body)
	}
	recs, errs := readAll(t, NewReader(&file, "rec"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := eventsOf(t, recs)
	if len(got) != len(evs) {
		t.Fatalf("recorded %d events, want %d", len(got), len(evs))
	}
	for i := range evs {
		if !sameJSON(got[i].Raw(), evs[i].Raw()) {
			t.Errorf("event %d: recorded %s, sent %s", i, got[i].Raw(), evs[i].Raw())
		}
	}
	if end := endOf(t, recs); end.ContentType != agui.MediaTypeProto {
		t.Errorf("end = %+v", end)
	}
}

func TestMiddlewareProtobufCutAndRedacted(t *testing.T) {
	evs := []agui.Event{agui.NewRunStarted("t", "r3"), agui.NewTextMessageContent("m", "secret-token-123")}
	var file bytes.Buffer
	w, _ := NewWriter(&file, Header{})
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", agui.MediaTypeProto)
		enc := agui.NewProtoEncoder(w)
		for _, e := range evs {
			enc.Encode(e)
		}
		msg, _, _ := agui.MarshalProto(agui.NewRunFinished("t", "r3"))
		w.Write(binary.BigEndian.AppendUint32(nil, uint32(len(msg)))) // and no message
	}), Config{Writer: w, Redact: Redact{Patterns: []*regexp.Regexp{regexp.MustCompile(`secret-token-\d+`)}}})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"r3"}`)))
	h.Wait()
	if strings.Contains(file.String(), "secret-token") {
		t.Errorf("the secret was recorded:\n%s", file.String())
	}
	recs, errs := readAll(t, NewReader(&file, "rec"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	last := recs[len(recs)-2]
	if last.Kind != KindEvent || !strings.Contains(last.Data, "ends inside a protobuf frame") {
		t.Errorf("the cut frame was recorded as %+v", last)
	}
	if end := endOf(t, recs); end.Outcome != OutcomeTruncated {
		t.Errorf("end = %+v", end)
	}
}
