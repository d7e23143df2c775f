// Command aguitest checks, records, replays and serves AG-UI streams and
// scripted LLM responses.
//
// Usage:
//
//	aguitest <command> [flags] [args]
//
// The commands:
//
//	demo       run the task-board example agent against a scripted LLM, record and verify it
//	verify     check the event ordering of AG-UI streams and recordings
//	show       print a transcript of a recording or stream; --html writes a timeline page,
//	           --messages the messages and state the client holds after each run
//	diff       compare two recordings or streams after normalisation
//	serve      serve recordings (files, a directory of them, patterns) as an AG-UI endpoint
//	record     a recording proxy in front of an AG-UI server
//	llm serve  serve a scripted fake LLM on every provider wire (OpenAI, Anthropic, Gemini)
//	llm record a recording proxy in front of an LLM provider
//	llm replay serve a recording's provider exchanges to an agent
//	explore    run a scripted LLM file against an agent in any language under many stream
//	           shapes, and shrink a failing one to the smallest script
//	conform    run the conformance battery against an AG-UI server
//	test       run a file of cases against an AG-UI agent in any language
//
// "aguitest <command> --help" prints a command's flags and an example.
// Flags go before or after a command's arguments ("--" ends them).
// explore, conform and test take the agent under test, its checks and
// their machine reports (--json FILE, --junit FILE) by the same flags.
// Errors go to standard error and name the file and line. Colour is used
// only when standard output is a terminal and NO_COLOR is not set.
//
// Exit codes: 0 success, 1 the checked input does not conform (or differs),
// 2 bad usage or unreadable input, 3 (verify) nothing wrong in what was
// recorded but a recording is incomplete, 130 a server interrupted before it
// served.
//
// What the commands print of their inputs (ids, names, text, file names)
// has its control characters escaped, so that it cannot drive a terminal
// or forge a line of a log.
package main

import (
	"fmt"
	"io"
	"os"
)

type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"demo", "run an example agent against a scripted LLM, record and verify it", cmdDemo},
		{"verify", "check the event ordering of AG-UI streams", cmdVerify},
		{"show", "print a transcript of a recording or stream (--html: a timeline; --messages: the client's messages and state)", cmdShow},
		{"diff", "compare two recordings or streams after normalisation", cmdDiff},
		{"llm", "a scripted, recorded or replayed LLM on every provider wire (llm serve|record|replay)", cmdLLM},
		{"serve", "serve recordings (files, directories, patterns) as an AG-UI endpoint", cmdServe},
		{"record", "record runs through a proxy to an AG-UI server", cmdRecord},
		{"explore", "run a script against an agent under many stream shapes; shrink a failure", cmdExplore},
		{"conform", "run the conformance battery against an AG-UI server", cmdConform},
		{"test", "run a file of cases (input, script, expectations, goldens) against an AG-UI agent", cmdTest},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	// What the commands print of their inputs must not drive the
	// terminal (see escape.go).
	errW := &safeWriter{w: stderr}
	defer errW.flush()
	stderr = errW
	if !colorFor(stdout).on {
		outW := &safeWriter{w: stdout}
		defer outW.flush()
		stdout = outW
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "aguitest: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: aguitest <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'aguitest <command> --help' for a command's flags and an example.")
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 violations or differences found, 2 bad usage or unreadable input,")
	fmt.Fprintln(w, "3 (verify) a recording is incomplete, 130 a server interrupted before serving.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Example:")
	fmt.Fprintln(w, "  aguitest demo")
	fmt.Fprintln(w, "  aguitest show --html run.html recording.jsonl")
}
