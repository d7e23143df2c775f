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
	"strings"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/clock"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
	"github.com/aguitest/aguitest/scripted"
)

// The usages of the llm subcommands; "aguitest llm --help" prints them
// all.
const (
	llmServeUsage = `usage: aguitest llm serve [--addr ADDR] [--realtime] [--requests FILE] SCRIPT

Serves SCRIPT (a YAML or JSON scripted LLM file) and prints one base URL
as the first line of standard output. That URL serves every provider
wire: OpenAI Chat Completions and Responses, Anthropic Messages, Gemini,
Azure OpenAI, Vertex AI Gemini, Bedrock Converse and Ollama (the path
tells them apart, whatever prefix a client adds), so point any LLM
client at it. The server
answers one conversation, one turn per request, until SIGINT or SIGTERM;
it then reports turns left unused, requests that did not match, and
requests the provider would have refused. A script is at most 64 MiB;
requests over 32 MiB are refused. No request is kept in memory:
--requests writes each as it comes.

Flags:
  --addr ADDR       listen address (default 127.0.0.1:0, a free loopback port)
  --realtime        sleep the script's delays for real (default: virtual
                    clock, delays are skipped)
  --requests FILE   write every request received as one JSON line: the
                    wire, model, system, messages, tools, options and the
                    raw body; "-" writes them to standard output

Example:
  $ aguitest llm serve --requests requests.jsonl weather.yaml
  http://127.0.0.1:40123/v1
  $ OPENAI_BASE_URL=http://127.0.0.1:40123/v1 ANTHROPIC_BASE_URL=http://127.0.0.1:40123 python agent.py
`
	llmRecordUsage = `usage: aguitest llm record --target URL --out FILE [--addr ADDR]

A recording proxy in front of an LLM provider: prints a base URL to give
the agent's LLM client instead of the provider's, forwards every request
to URL and records each exchange, chunk by chunk with its timing, to
FILE, until SIGINT or SIGTERM; Bedrock's event streams a message a
chunk, decoded. Credentials are redacted (see below).

Flags:
  --addr ADDR       listen address (default 127.0.0.1:0, a free loopback port)
  --target URL      the provider, e.g. https://api.anthropic.com
  --out FILE        the recording to write

%s
Example:
  $ aguitest llm record --target https://api.openai.com --out llm.jsonl
  http://127.0.0.1:40123/v1
`
	llmReplayUsage = `usage: aguitest llm replay [--addr ADDR] [--speed X] RECORDING...

Serves the provider exchanges of recordings (from "llm record", a harness
RecordDir, the recorder's middleware or Transport) to an agent in any
language, each request matched with the next recorded exchange of its
wire; prints the base URL; at SIGINT or SIGTERM reports requests that did
not match and exchanges never requested.

Flags:
  --addr ADDR       listen address (default 127.0.0.1:0, a free loopback port)
  --speed X         timing factor: 1 as recorded, 0 (default) no waiting
  --max-request-bytes N
                    refuse (413) request bodies larger than N bytes
                    (default 8 MiB)

Example:
  $ aguitest llm replay recordings/run.jsonl
`
	llmExit = `
Exit codes: 0 every turn or exchange was used and every request matched,
1 otherwise, 2 bad usage, an invalid script or an unreadable recording,
130 interrupted (SIGINT, SIGTERM) before serving.
`
)

// llmHelp is the usage of "aguitest llm": its subcommands'.
func llmHelp() string {
	return llmServeUsage + "\n" + llmRecordHelp() + "\n" + llmReplayUsage + llmExit
}

// llmRecordHelp is the usage of llm record, with its redaction flags.
func llmRecordHelp() string { return fmt.Sprintf(llmRecordUsage, redactUsage()) }

// cmdLLM runs "aguitest llm"; it serves until SIGINT or SIGTERM.
func cmdLLM(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runLLM(ctx, args, stdout, stderr)
}

// runLLM is cmdLLM with the context that ends serving.
func runLLM(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, llmHelp())
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, llmHelp())
		return 0
	case "serve":
		return llmServe(ctx, args[1:], stdout, stderr)
	case "record":
		return llmRecord(ctx, args[1:], stdout, stderr)
	case "replay":
		return llmReplay(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "aguitest llm: unknown subcommand %q\n\n%s", args[0], llmHelp())
	return 2
}

// warnAddr warns on standard error when addr is not a loopback address.
func warnAddr(stderr io.Writer, name, addr string) {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			fmt.Fprintf(stderr, "aguitest %s: warning: listening on %s, not a loopback address\n", name, addr)
		}
	}
}

func llmServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llm serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	realtime := fs.Bool("realtime", false, "sleep delays for real")
	requests := fs.String("requests", "", "write every request as JSON Lines")
	if code := parseFlags(fs, args, llmServeUsage+llmExit, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "aguitest llm serve: want one SCRIPT, got %s\n\n%s", plural(fs.NArg(), "argument"), llmServeUsage+llmExit)
		return 2
	}
	script, err := loadScript(ctx, fs.Arg(0))
	if err == errInterrupted {
		fmt.Fprintf(stderr, "aguitest llm serve: interrupted while reading %s\n", fs.Arg(0))
		return exitInterrupted
	}
	if err != nil {
		fmt.Fprintf(stderr, "aguitest llm serve: %v\n", err)
		return 2
	}
	if *realtime {
		script.Clock = clock.Real{}
	}
	warnAddr(stderr, "llm serve", *addr)
	var log io.Writer
	switch *requests {
	case "":
	case "-":
		log = stdout
	default:
		f, err := os.Create(*requests)
		if err != nil {
			fmt.Fprintf(stderr, "aguitest llm serve: %v\n", err)
			return 2
		}
		defer f.Close()
		log = f
	}
	srv, err := scripted.Listen(*addr, script)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest llm serve: %v\n", err)
		return 2
	}
	// Requests are logged as they come (--requests) and counted; none is
	// kept for the life of the server.
	srv.Model().RetainRequests(0)
	if log != nil {
		srv.Model().LogRequests(log)
	}
	fmt.Fprintln(stdout, srv.URL)
	<-ctx.Done()

	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	used, total := srv.Model().Used(), len(script.Turns)
	fmt.Fprintf(stderr, "aguitest llm serve: %s, %d of %s used\n", plural(srv.Model().Received(), "request"), used, plural(total, "turn"))
	if err := srv.Check(); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}

func llmRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llm record", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	target := fs.String("target", "", "the provider's URL")
	out := fs.String("out", "", "the recording to write")
	redaction := redactFlags(fs)
	if code := parseFlags(fs, args, llmRecordHelp()+llmExit, stdout, stderr); code >= 0 {
		return code
	}
	rd, err := redaction()
	if err != nil {
		fmt.Fprintf(stderr, "aguitest llm record: %v\n", err)
		return 2
	}
	if *target == "" || *out == "" || fs.NArg() != 0 {
		fmt.Fprintf(stderr, "aguitest llm record: want --target URL and --out FILE and no arguments\n\n%s", llmRecordHelp()+llmExit)
		return 2
	}
	u, perr := url.Parse(*target)
	if perr != nil || u.Scheme == "" || u.Host == "" {
		fmt.Fprintf(stderr, "aguitest llm record: --target %q is not an absolute URL\n", *target)
		return 2
	}
	w, err := recorder.Create(*out, recorder.Header{Source: "llm-proxy"})
	if err != nil {
		fmt.Fprintf(stderr, "aguitest llm record: %v\n", err)
		return 2
	}
	warnAddr(stderr, "llm record", *addr)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		w.Close()
		fmt.Fprintf(stderr, "aguitest llm record: %v\n", err)
		return 2
	}
	tr := &recorder.Transport{Writer: w, Run: "llm", Redact: rd}
	hs := &http.Server{Handler: recorder.ProviderProxy(u, tr), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	fmt.Fprintf(stdout, "http://%s/v1\n", ln.Addr())
	<-ctx.Done()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
	}
	<-done
	if err := w.Close(); err != nil {
		fmt.Fprintf(stderr, "aguitest llm record: %s: %v\n", *out, err)
		return 1
	}
	fmt.Fprintf(stderr, "aguitest llm record: wrote %s\n", *out)
	return 0
}

func llmReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llm replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	speed := fs.Float64("speed", 0, "timing factor")
	maxReq := fs.Int64("max-request-bytes", replay.DefaultMaxRequestBytes, "request body limit")
	if code := parseFlags(fs, args, llmReplayUsage+llmExit, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "aguitest llm replay: want at least one RECORDING\n\n%s", llmReplayUsage+llmExit)
		return 2
	}
	if *speed < 0 {
		fmt.Fprintf(stderr, "aguitest llm replay: --speed %v is negative\n", *speed)
		return 2
	}
	var exs []replay.Exchange
	for _, path := range fs.Args() {
		rec, err := loadRecording(ctx, path)
		if err == errInterrupted {
			fmt.Fprintf(stderr, "aguitest llm replay: interrupted while reading %s\n", path)
			return exitInterrupted
		}
		if err != nil {
			fmt.Fprintf(stderr, "aguitest llm replay: %v\n", err)
			return 2
		}
		exs = append(exs, rec.Exchanges()...)
	}
	if len(exs) == 0 {
		fmt.Fprintf(stderr, "aguitest llm replay: %s: no provider exchanges recorded\n", strings.Join(fs.Args(), ", "))
		return 2
	}
	warnAddr(stderr, "llm replay", *addr)
	p, err := replay.ListenProvider(*addr, exs, replay.ProviderOptions{Speed: *speed, MaxRequestBytes: *maxReq})
	if err != nil {
		fmt.Fprintf(stderr, "aguitest llm replay: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, p.URL+"/v1")
	<-ctx.Done()
	p.Close()
	fmt.Fprintf(stderr, "aguitest llm replay: %d requests, %d of %d exchanges used\n", p.Requests(), p.Used(), len(exs))
	if err := p.Check(); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}
