package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/examples/claude"
)

// weatherDesk serves examples/claude, the weather desk on
// anthropic-sdk-go, as a program the conform scripts start with --cmd:
// on $PORT, its model at $ANTHROPIC_BASE_URL. With -drop-tool-errors it
// has a bug: the error of a client's tool that failed never reaches it.
func weatherDesk(args []string) int {
	fs := flag.NewFlagSet("weatherdesk", flag.ContinueOnError)
	dropErrors := fs.Bool("drop-tool-errors", false, "clear the errors of the tool messages it is posted")
	path := fs.String("path", "", "serve AG-UI at this path alone, 404 elsewhere")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var h http.Handler = claude.New(claude.Options{
		BaseURL: os.Getenv("ANTHROPIC_BASE_URL"), APIKey: os.Getenv("ANTHROPIC_API_KEY"), Model: "claude-test",
	})
	if *dropErrors {
		h = dropToolErrors(h)
	}
	if *path != "" {
		mux := http.NewServeMux()
		mux.Handle(*path, h)
		h = mux
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := &http.Server{Handler: h}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	_ = srv.Serve(l)
	return 0
}

// dropToolErrors clears the error of every tool message of the input it
// passes on.
func dropToolErrors(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in agui.RunAgentInput
		if json.Unmarshal(body, &in) == nil {
			for i := range in.Messages {
				in.Messages[i].Error = ""
			}
			body, _ = json.Marshal(in)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	})
}
