package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/replay"
)

const serveUsage = `usage: aguitest serve [--addr 127.0.0.1:0] [--speed 1] [--loop] FILE|DIR|PATTERN...

Serves the runs of recordings as an AG-UI endpoint and prints its URL as
the first line of standard output. A DIR stands for its *.jsonl files,
sorted by name (the recorder's middleware writes one file per run, named
by its start: they come in the order they ran), and a quoted PATTERN
('recordings/20261201T*.jsonl') for the files it matches; the runs are
served in the order of the files. Each POST receives the next recorded run
(or the run whose runId the request names), with the recorded timing, in
the encoding its Accept header asks for: protobuf frames
(application/vnd.ag-ui.event+proto) when it prefers them, server-sent
events otherwise (also for */*), whatever the recording's encoding. What
an encoding cannot carry of an event is reported on standard error.
Serving stops on SIGINT or SIGTERM.

Browsers: no web page may call it unless --allow-origin names the page's
origin (requests from other origins are refused, 403), so that a page the
developer visits cannot read recordings of production traffic.

Flags:
  --addr ADDR              listen address (default 127.0.0.1:0, a free loopback port)
  --speed X                timing: 1 as recorded (default), 2 twice as fast, 0 no waits
  --loop                   start again from the first run after the last
                           (without it, a request after the last is answered 409)
  --allow-origin ORIGIN    let web pages of ORIGIN (http://localhost:3000) call it,
                           with CORS (repeatable; * allows every origin)
  --max-request-bytes N    refuse (413) request bodies larger than N bytes
                           (default 8 MiB)

Example:
  $ aguitest serve prod-run.jsonl
  http://127.0.0.1:40123/
  $ curl -sN -H 'Accept: text/event-stream' -X POST http://127.0.0.1:40123/ -d '{}' | aguitest verify -
  $ aguitest serve --speed 0 recordings/     # the middleware's directory, a run per POST

Exit codes: 0 after a clean shutdown, 2 bad usage or an unreadable recording,
130 interrupted (SIGINT, SIGTERM) before serving.
`

// cmdServe runs "aguitest serve"; it serves until SIGINT or SIGTERM.
func cmdServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runServe(ctx, args, stdout, stderr)
}

// runServe is cmdServe with the context that ends serving.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	speed := fs.Float64("speed", 1, "timing scale")
	loop := fs.Bool("loop", false, "serve the runs again after the last")
	var origins listFlag
	fs.Var(&origins, "allow-origin", "origin whose pages may call")
	maxReq := fs.Int64("max-request-bytes", replay.DefaultMaxRequestBytes, "request body limit")
	if code := parseFlags(fs, args, serveUsage, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "aguitest serve: want a FILE, DIR or PATTERN of recordings\n\n%s", serveUsage)
		return 2
	}
	if *speed < 0 {
		fmt.Fprintf(stderr, "aguitest serve: --speed must not be negative\n")
		return 2
	}
	rec, name, code := loadRecordings(ctx, fs.Args(), stderr)
	if code >= 0 {
		return code
	}
	warnNotLoopback(stderr, "serve", *addr)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest serve: %v\n", err)
		return 2
	}
	var mu sync.Mutex
	onLoss := func(run *replay.Run, i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		line := 0
		if at, ok := err.(*replay.LossAt); ok {
			line, err = at.Line, at.Err
		} else if i < len(run.Events) {
			line = run.Events[i].Line
		}
		fmt.Fprintf(stderr, "aguitest serve: warning: %s:%d: run %s: event %d: %v\n", run.File, line, run.ID, i, err)
	}
	h := replay.Handler(rec.Runs, replay.Options{Speed: *speed, Loop: *loop, OnLoss: onLoss, AllowOrigins: origins.values, MaxRequestBytes: *maxReq})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(stdout, "http://%s/\n", ln.Addr())
	fmt.Fprintf(stderr, "aguitest serve: %s from %s\n", plural(len(rec.Runs), "run"), name)
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	fmt.Fprintf(stderr, "aguitest serve: %d of %s served\n", len(rec.Runs)-len(h.Unserved()), plural(len(rec.Runs), "run"))
	return 0
}

// loadRecordings reads the recordings serve was given (files,
// directories, patterns: see inputFiles), their runs in order, and names
// them for its messages. It returns an exit code when it cannot go on,
// having said why, and -1 otherwise.
func loadRecordings(ctx context.Context, args []string, stderr io.Writer) (*replay.Recording, string, int) {
	files, err := inputFiles(args, recordingExts)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest serve: %v\n", err)
		return nil, "", 2
	}
	all := &replay.Recording{}
	for _, file := range files {
		// Indexed: each run is read from the file when it is served,
		// so that memory does not grow with the recording.
		rec, err := interruptible(ctx, func(context.Context) (*replay.Recording, error) { return replay.Index(file) })
		if err == errInterrupted {
			fmt.Fprintf(stderr, "aguitest serve: interrupted while reading %s\n", file)
			return nil, "", exitInterrupted
		}
		if err != nil {
			fmt.Fprintf(stderr, "aguitest serve: %v\n", err)
			return nil, "", 2
		}
		all.Runs = append(all.Runs, rec.Runs...)
		all.Problems = append(all.Problems, rec.Problems...)
	}
	name := inputsName(args, files)
	for _, p := range all.Problems {
		fmt.Fprintf(stderr, "aguitest serve: warning: %v\n", p)
	}
	if len(all.Runs) == 0 {
		fmt.Fprintf(stderr, "aguitest serve: %s holds no runs\n", name)
		return nil, "", 2
	}
	return all, name, -1
}

// warnNotLoopback warns when addr is not a loopback address.
func warnNotLoopback(stderr io.Writer, cmd, addr string) {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			fmt.Fprintf(stderr, "aguitest %s: warning: listening on %s, not a loopback address\n", cmd, addr)
		}
	}
}
