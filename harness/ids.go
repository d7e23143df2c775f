package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// ids mints the ids the client gives a case's thread, runs and messages.
// Real frontends mint UUIDs (HttpAgent of @ag-ui/client a version 4 UUID
// for its thread and each run, CopilotKit one for each message it adds),
// and servers rely on it: LangGraph's API refuses a thread id that is not
// a UUID, and keeps threads on the server, so two cases (or two plans of
// one case) that share a thread id see each other's conversation. The
// harness mints UUIDs too, in the version 4 form, but drawn from the case's
// name and plan instead of at random: distinct per case and plan, the same
// on every machine and every run of the same case.
type ids struct {
	base   string
	thread string
	runs   map[int]string // runs whose id the case set (Input.RunAgentInput)
	msgs   int            // messages minted so far
}

// newIDs returns the ids of case name under plan ("" for the case's own
// plan).
func newIDs(name, plan string) *ids {
	g := &ids{base: name + "\x00" + plan, runs: map[int]string{}}
	g.thread = g.uuid("thread")
	return g
}

// run returns the id of run n, numbered from 1.
func (g *ids) run(n int) string {
	if id, ok := g.runs[n]; ok {
		return id
	}
	return g.uuid("run", strconv.Itoa(n))
}

// message returns a new message id.
func (g *ids) message() string {
	g.msgs++
	return g.uuid("message", strconv.Itoa(g.msgs))
}

// uuid returns a version 4 UUID drawn from the ids' base and parts.
func (g *ids) uuid(parts ...string) string {
	return UUID(append([]string{g.base}, parts...)...)
}

// UUID returns a UUID in the version 4 form (random bits, version and
// variant set) drawn from parts instead of at random: the same parts give
// the same UUID. It is how the harness mints the ids of a case's thread,
// runs and messages.
func UUID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant 10
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:16])
	return string(out[:])
}

// fill gives every message without an id a new one, as a frontend does
// for the messages it adds.
func (g *ids) fill(msgs []agui.Message) []agui.Message {
	var out []agui.Message
	for i, m := range msgs {
		if m.ID == "" {
			if out == nil {
				out = append([]agui.Message(nil), msgs...)
			}
			out[i].ID = g.message()
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

// placeholderID is a golden placeholder of the case's thread or a run in
// a script's expectations: "thread-1", "run-2", also as the start of an id
// an agent makes from it ("run-1-call-1").
var placeholderID = regexp.MustCompile(`\b(thread|run)-([0-9]+)\b`)

// resolve returns the script with the placeholders of its expectations'
// tool result ids replaced by the ids the client gives the thread and the
// runs: in a script, as in a golden file, "run-2" is the case's second
// run, so that "run-1-call-1" names the first call of an agent that names
// calls after its run, whatever id the run has.
func (g *ids) resolve(s scripted.Script) scripted.Script {
	changed := false
	for _, t := range s.Turns {
		for _, id := range t.Expect.ToolResults {
			if placeholderID.MatchString(id) {
				changed = true
			}
		}
	}
	if !changed {
		return s
	}
	s = s.Clone()
	for i := range s.Turns {
		e := &s.Turns[i].Expect
		for j, id := range e.ToolResults {
			e.ToolResults[j] = placeholderID.ReplaceAllStringFunc(id, func(m string) string {
				kind, num, _ := strings.Cut(m, "-")
				n, err := strconv.Atoi(num)
				switch {
				case err != nil || n < 1:
					return m
				case kind == "thread":
					if n != 1 {
						return m // a case has one thread
					}
					return g.thread
				}
				return g.run(n)
			})
		}
	}
	return s
}
