package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/scripted"
)

const llmUsage = `usage: aguitest llm serve [--addr 127.0.0.1:0] [--realtime] SCRIPT

Serves SCRIPT (a YAML or JSON scripted LLM file) as an OpenAI-compatible
chat completions endpoint and prints its base URL as the first line of
standard output. Point an agent's OpenAI client at that URL. The server
answers one conversation, one turn per request, until SIGINT or SIGTERM;
it then reports turns left unused and requests that did not match.

Flags:
  --addr ADDR   listen address (default 127.0.0.1:0, a free loopback port)
  --realtime    sleep the script's delays for real (default: virtual clock,
                delays are skipped)

Example:
  $ aguitest llm serve weather.yaml
  http://127.0.0.1:40123/v1
  $ OPENAI_BASE_URL=http://127.0.0.1:40123/v1 OPENAI_API_KEY=x python agent.py

Exit codes: 0 every turn was used and every request matched, 1 otherwise,
2 bad usage or an invalid script.
`

// cmdLLM runs "aguitest llm"; it serves until SIGINT or SIGTERM.
func cmdLLM(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runLLM(ctx, args, stdout, stderr)
}

// runLLM is cmdLLM with the context that ends serving.
func runLLM(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, llmUsage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, llmUsage)
		return 0
	case "serve":
	default:
		fmt.Fprintf(stderr, "aguitest llm: unknown subcommand %q\n\n%s", args[0], llmUsage)
		return 2
	}
	fs := flag.NewFlagSet("llm serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	realtime := fs.Bool("realtime", false, "sleep delays for real")
	if code := parseFlags(fs, args[1:], llmUsage, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "aguitest llm serve: want one SCRIPT, got %s\n\n%s", plural(fs.NArg(), "argument"), llmUsage)
		return 2
	}
	script, err := scripted.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "aguitest llm serve: %v\n", err)
		return 2
	}
	if *realtime {
		script.Clock = scripted.RealClock{}
	}
	if host, _, err := net.SplitHostPort(*addr); err == nil {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			fmt.Fprintf(stderr, "aguitest llm serve: warning: listening on %s, not a loopback address\n", *addr)
		}
	}
	srv, err := scripted.Listen(*addr, script)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest llm serve: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, srv.URL)
	<-ctx.Done()

	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	used, total := srv.Model().Used(), len(script.Turns)
	fmt.Fprintf(stderr, "aguitest llm serve: %s, %d of %s used\n", plural(len(srv.Requests()), "request"), used, plural(total, "turn"))
	if err := srv.Check(); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}
