package agent

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/aguitest/aguitest/agui"
)

// Func is an agent: it is called once per run, emits the run's events
// through run, and returns. The handler ends the run for it (Run.End):
// RUN_FINISHED when it returns nil, RUN_ERROR otherwise. It should return
// when ctx ends: the client has gone.
type Func func(ctx context.Context, run *Run) error

// Handler returns an http.Handler serving f over AG-UI: a POST of a
// RunAgentInput is answered with the run's events, each flushed as it is
// sent, as server-sent events. The run is checked as Options says. When
// the client goes, the context f gets ends and nothing more is sent.
func Handler(f Func, opt Options) http.Handler { return handler{f, opt} }

type handler struct {
	f   Func
	opt Options
}

// maxInput bounds the body of a request.
const maxInput = 64 << 20

func (h handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST a RunAgentInput", http.StatusMethodNotAllowed)
		return
	}
	var in agui.RunAgentInput
	if err := json.NewDecoder(http.MaxBytesReader(w, req.Body, maxInput)).Decode(&in); err != nil {
		http.Error(w, "the body is not a RunAgentInput: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	contentType, encode := encoder(w, req.Header.Get("Accept"))
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	send := func(e agui.Event) error {
		if err := encode(e); err != nil {
			cancel() // the client has gone: stop the agent
			return err
		}
		return nil
	}
	run, err := Start(in, send, h.opt)
	if err != nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			// The client hears that the run failed rather than a cut
			// stream; net/http reports the panic.
			_ = run.Fail("the agent failed", "PANIC")
			panic(p)
		}
	}()
	err = h.f(ctx, run)
	if ctx.Err() != nil {
		return // nobody is listening
	}
	_ = run.End(err)
}

// encoder chooses the encoding of a response from the request's Accept
// header and returns its Content-Type and the function that writes and
// flushes one event.
func encoder(w http.ResponseWriter, accept string) (contentType string, encode func(agui.Event) error) {
	e := agui.Negotiate(accept)
	return e.ContentType(), agui.NewEncoder(w, e).Encode
}
