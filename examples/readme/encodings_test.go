package readme_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/taskboard"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/scripted"
)

// respond is docs/encodings.md's snippet for a Go agent answering in the
// encoding its client asks for.
func respond(w http.ResponseWriter, r *http.Request, events []agui.Event) {
	encoding := agui.Negotiate(r.Header.Get("Accept")) // SSE unless protobuf is preferred
	w.Header().Set("Content-Type", encoding.ContentType())
	enc := agui.NewEncoder(w, encoding)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			return // the client has gone
		}
	}
}

func TestRespond(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		respond(w, r, []agui.Event{agui.NewRunStarted("t", "r"), agui.NewRunFinished("t", "r")})
	}))
	defer srv.Close()
	for _, accept := range []string{"*/*", agui.MediaTypeProto} {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader("{}"))
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := agui.NewReader(resp.Body, "agent")
		r.ContentType = resp.Header.Get("Content-Type")
		evs := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			evs++
		}
		resp.Body.Close()
		if want := map[string]string{"*/*": agui.FormatSSE, agui.MediaTypeProto: agui.FormatProto}[accept]; r.Format() != want || evs != 2 {
			t.Errorf("Accept %q: read %d events as %q", accept, evs, r.Format())
		}
	}
}

func TestAgentOverProtobuf(t *testing.T) {
	agent := harness.Handler(func(env harness.Env) http.Handler {
		return taskboard.New(taskboard.Options{BaseURL: env.BaseURL, APIKey: env.APIKey})
	})
	cases := []harness.Case{{
		Name:     "answers",
		Input:    harness.User("What is on the board?"),
		Script:   scripted.Script{Turns: []scripted.Turn{{Text: "Three tasks."}}},
		NoGolden: true,
	}}
	harness.Run(t, agent, cases, harness.Options{Accept: agui.MediaTypeProto})
}
