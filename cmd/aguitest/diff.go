package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/golden"
	"github.com/aguitest/aguitest/internal/words"
)

const diffUsage = `usage: aguitest diff [--view merged|wire] [--client VERSION] A B

Compares two recordings or AG-UI streams (any mix of recordings, JSON
arrays, JSON Lines, server-sent events and protobuf frames; "-" reads
standard input) after normalising them as goldens are: ids become
placeholders numbered by first appearance, timestamps are dropped. The
merged view (default) joins each message's text and each call's arguments
and puts parallel calls in a canonical order, so two runs that fragment or
interleave differently compare equal; the wire view compares every
fragment. Each differing event is printed with its number (from 1), type
and ids, then its two JSON lines (-want +got, where want is A and got is B)
and, one per line, each value that differs, by its path: ".args.unit: got
"F", want none". The events of all runs of a recording are compared in
order.

Flags (before or after the files):
  --view V       merged (default) or wire
  --client VERSION
                 read the streams as this @ag-ui/client version does (its
                 chunk expansion): 1.0.0 (default) or 0.0.59 (pinned by
                 CopilotKit 1.74/1.75)

Example:
  aguitest diff prod-run.jsonl rerun.sse
  aguitest diff --view wire old/recording.jsonl new/recording.jsonl

Exit status: 0 the same, 1 they differ, 2 bad usage or unreadable input.
`

func cmdDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	view := fs.String("view", "merged", "merged or wire")
	client := fs.String("client", "", "the @ag-ui/client version")
	if code := parseFlags(fs, args, diffUsage, stdout, stderr); code >= 0 {
		return code
	}
	var v golden.View
	switch *view {
	case "merged":
		v = golden.Merged
	case "wire":
		v = golden.Wire
	default:
		fmt.Fprintf(stderr, "aguitest diff: --view must be merged or wire, not %q\n", *view)
		return 2
	}
	var opt agui.Options
	if *client != "" {
		c, err := agui.ParseClient(*client)
		if err != nil {
			fmt.Fprintf(stderr, "aguitest diff: --client: %v\n", err)
			return 2
		}
		opt.Client = c
	}
	if fs.NArg() != 2 {
		fmt.Fprintf(stderr, "aguitest diff: want two files A and B, got %s\n\n%s", plural(fs.NArg(), "argument"), diffUsage)
		return 2
	}
	if fs.Arg(0) == "-" && fs.Arg(1) == "-" {
		fmt.Fprintf(stderr, "aguitest diff: only one of A and B can be standard input\n")
		return 2
	}
	var entries [2][]golden.Entry
	for i, name := range fs.Args() {
		// The view is the golden's, built from the events as they are
		// read: what is held is the client's view and the entries, not
		// the events.
		norm := golden.Normalizer{Client: opt.Client}.NewStream(v)
		src, err := streamEvents(name, stdin, norm.Push)
		if err != nil {
			fmt.Fprintf(stderr, "aguitest diff: %v\n", err)
			return 2
		}
		for _, p := range src.problems {
			fmt.Fprintf(stderr, "aguitest diff: warning: %s\n", p)
		}
		if src.sunk == 0 {
			// Two streams of nothing are not "the same stream".
			fmt.Fprintf(stderr, "aguitest diff: %s: no AG-UI events to compare: %s\n", src.name, src.head)
			return 2
		}
		entries[i] = norm.Entries()
	}
	a, b := fs.Arg(0), fs.Arg(1)
	diffs := golden.Compare(entries[0], entries[1])
	if len(diffs) == 0 {
		fmt.Fprintf(stdout, "same: %s and %s are equal in the %s view (%s)\n", a, b, v, nEntries(len(entries[0])))
		return 0
	}
	pal := colorFor(stdout)
	fmt.Fprintf(stdout, "--- %s\n+++ %s\n", term(a), term(b))
	for _, line := range strings.Split(strings.TrimRight(golden.Report(diffs), "\n"), "\n") {
		line = termLine(line)
		t := strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(t, "-"):
			line = pal.red(line)
		case strings.HasPrefix(t, "+"):
			line = pal.green(line)
		}
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "differ: %s of %d and %d (%s view, -%s +%s)\n", nEntries(len(diffs)), len(entries[0]), len(entries[1]), v, a, b)
	return 1
}

func nEntries(n int) string { return words.Count(n, "entry", "entries") }
