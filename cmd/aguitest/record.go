package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/recorder"
)

const recordUsage = `usage: aguitest record --target URL [--listen 127.0.0.1:0] --out DIR

Runs a recording reverse proxy: clients talk to the listen address as they
would to the AG-UI server at URL; every request and its response stream pass
through untouched, and each run is written to its own recording in DIR.
Prints the proxy's URL as the first line of standard output: a request to
it goes to URL itself, a request to a path below it to that path below
URL's. On SIGINT or SIGTERM it lets open streams finish (up to --grace),
writes their recordings and exits.

Flags:
  --target URL       the AG-UI endpoint to forward to (required)
  --listen ADDR      listen address (default 127.0.0.1:0, a free loopback port)
  --out DIR          where recordings go (created if missing; required)
  --max-run-bytes N  stop recording a run's events past N bytes (0: no limit)
  --grace D          how long open streams may finish on shutdown (default 10s)

%s
Example:
  $ aguitest record --target http://localhost:8000/agent --out recordings
  http://127.0.0.1:40123/
  (point the frontend at http://127.0.0.1:40123/, use it, press Ctrl-C)
  $ aguitest verify recordings/*.jsonl

Exit codes: 0 after a clean shutdown, 1 when storage failed, 2 bad usage.
`

// cmdRecord runs "aguitest record"; it serves until SIGINT or SIGTERM.
func cmdRecord(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runRecord(ctx, args, stdout, stderr)
}

// runRecord is cmdRecord with the context that ends serving.
func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	target := fs.String("target", "", "AG-UI server URL")
	listen := fs.String("listen", "127.0.0.1:0", "listen address")
	out := fs.String("out", "", "recording directory")
	maxRun := fs.Int64("max-run-bytes", 0, "per-run size limit")
	grace := fs.Duration("grace", 10*time.Second, "shutdown grace period")
	redaction := redactFlags(fs)
	usage := fmt.Sprintf(recordUsage, redactUsage())
	if code := parseFlags(fs, args, usage, stdout, stderr); code >= 0 {
		return code
	}
	if *target == "" || *out == "" || fs.NArg() != 0 {
		fmt.Fprintf(stderr, "aguitest record: --target and --out are required, and no arguments\n\n%s", usage)
		return 2
	}
	u, err := url.Parse(*target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(stderr, "aguitest record: --target %q is not an http(s) URL\n", *target)
		return 2
	}
	rd, err := redaction()
	if err != nil {
		fmt.Fprintf(stderr, "aguitest record: %v\n", err)
		return 2
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "aguitest record: %v\n", err)
		return 2
	}
	warnNotLoopback(stderr, "record", *listen)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest record: %v\n", err)
		return 2
	}
	h := recorder.Proxy(u, recorder.Config{
		Dir:         *out,
		MaxRunBytes: *maxRun,
		Redact:      rd,
		OnError:     func(err error) { fmt.Fprintf(stderr, "aguitest record: %v\n", err) },
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(stdout, "http://%s/\n", ln.Addr())
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	h.Wait()
	s := h.Stats()
	fmt.Fprintf(stderr, "aguitest record: %s, %d recorded in %s (%d client gone, %d bytes dropped, %d storage errors)\n",
		plural(int(s.Runs), "run"), s.Runs-s.StorageErrors, *out, s.ClientGone, s.DroppedBytes, s.StorageErrors)
	if s.StorageErrors > 0 {
		return 1
	}
	return 0
}
