package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
)

const verifyUsage = `usage: aguitest verify [--profile strict|reference] [--json] FILE|DIR...

Checks the event ordering of AG-UI streams. A FILE is a JSON array of
events, JSON Lines of events, a server-sent event stream, or a recording
made by aguitest record or the recorder package (detected); "-" reads
standard input. A DIR stands for its *.jsonl, *.json and *.sse files, sorted.
Every violation is printed with the file, line, event index, rule, ids and
message; each run of a recording is verified on its own, and lines of a
recording that cannot be read (corrupt, cut short) are reported too.

Profiles:
  strict     (default) the reference rules plus: the stream must end its run,
             tool results follow the call's end, arguments parse as JSON,
             no id is reopened within a run
  reference  exactly what @ag-ui/client 1.0.0's verifier accepts

Example:
  aguitest verify agui/testdata/streams/parallel.sse
  aguitest verify recordings/
  curl -sN -X POST localhost:8000/agent -d @input.json | aguitest verify -

Exit status: 0 every stream conforms, 1 violations found, 2 bad usage or
unreadable input.
`

// fileReport is what verify found in one input, as printed by --json.
type fileReport struct {
	File       string          `json:"file"`
	Events     int             `json:"events"`
	Runs       int             `json:"runs"`
	Format     string          `json:"format,omitempty"`
	Violations []violationJSON `json:"violations"`
	// Problems are unreadable lines of a recording, each "file:line: ...".
	Problems []string `json:"problems,omitempty"`
	Error    string   `json:"error,omitempty"`
}

type violationJSON struct {
	Line int `json:"line,omitempty"`
	// Run names the run of a recording the violation belongs to.
	Run string `json:"run,omitempty"`
	agui.Violation
}

func cmdVerify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	profile := fs.String("profile", "strict", "strict or reference")
	asJSON := fs.Bool("json", false, "print one JSON report per file")
	if code := parseFlags(fs, args, verifyUsage, stdout, stderr); code >= 0 {
		return code
	}
	p, err := agui.ParseProfile(*profile)
	if err != nil {
		fmt.Fprintf(stderr, "aguitest verify: %v\n", err)
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "aguitest verify: no input files\n\n%s", verifyUsage)
		return 2
	}
	status := 0
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, name := range expandDirs(fs.Args()) {
		rep := verifyFile(name, stdin, stderr, p)
		switch {
		case rep.Error != "":
			status = 2
		case (len(rep.Violations) > 0 || len(rep.Problems) > 0) && status == 0:
			status = 1
		}
		if *asJSON {
			if rep.Violations == nil {
				rep.Violations = []violationJSON{}
			}
			if err := enc.Encode(rep); err != nil {
				fmt.Fprintf(stderr, "aguitest verify: %v\n", err)
				return 2
			}
			continue
		}
		printReport(stdout, stderr, rep, p)
	}
	return status
}

func printReport(stdout, stderr io.Writer, rep fileReport, p agui.Profile) {
	for _, pr := range rep.Problems {
		fmt.Fprintln(stdout, pr)
	}
	for _, v := range rep.Violations {
		where := rep.File
		if v.Line > 0 {
			where = fmt.Sprintf("%s:%d", rep.File, v.Line)
		}
		if v.Run != "" {
			where += ": run " + v.Run
		}
		if v.Type == "" {
			fmt.Fprintf(stdout, "%s: end of stream after %d events: %s: %s\n", where, v.Index, v.Rule, v.Message)
			continue
		}
		fmt.Fprintf(stdout, "%s: event %d %s%s: %s: %s\n", where, v.Index, v.Type, idsOf(v.Violation), v.Rule, v.Message)
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "aguitest verify: %s\n", rep.Error)
		return
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(stdout, "%s: %s, %s in %s\n", rep.File, plural(len(rep.Problems), "unreadable line"), plural(len(rep.Violations), "violation"), plural(rep.Events, "event"))
	} else if len(rep.Violations) == 0 {
		fmt.Fprintf(stdout, "%s: ok: %s in %s conform to the %s profile\n", rep.File, plural(rep.Events, "event"), plural(rep.Runs, "run"), p)
	} else {
		fmt.Fprintf(stdout, "%s: %s in %s\n", rep.File, plural(len(rep.Violations), "violation"), plural(rep.Events, "event"))
	}
}

// idsOf returns a violation's ids as " [k=v ...]", or "".
func idsOf(v agui.Violation) string {
	if ids := v.IDs(); ids != "" {
		return " [" + ids + "]"
	}
	return ""
}

// verifyFile streams one input through the verifier. A large file on a
// terminal gets a progress bar on stderr.
func verifyFile(name string, stdin io.Reader, stderr io.Writer, p agui.Profile) fileReport {
	rep := fileReport{File: name}
	var in io.Reader
	if name == "-" {
		rep.File = "<stdin>"
		in = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
		defer f.Close()
		in = f
		if fi, err := f.Stat(); err == nil {
			bar := newProgress(stderr, fi.Size())
			in = bar.Reader(f, name)
			defer bar.Done()
		}
	}
	br := bufio.NewReaderSize(in, 64<<10)
	if head, _ := br.Peek(4096); recorder.IsRecording(head) {
		return verifyRecording(rep, br, p)
	}
	in = br
	r := agui.NewReader(in, rep.File)
	v := agui.NewVerifier(agui.Options{Profile: p})
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rep.Error = err.Error()
			rep.Format = r.Format()
			return rep
		}
		rep.Events++
		if e.Type() == agui.RunStarted {
			rep.Runs++
		}
		for _, vi := range v.Push(e) {
			rep.Violations = append(rep.Violations, violationJSON{Line: r.Line(), Violation: vi})
		}
	}
	for _, vi := range v.Finish() {
		rep.Violations = append(rep.Violations, violationJSON{Violation: vi})
	}
	rep.Format = r.Format()
	return rep
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// expandDirs replaces each directory by the stream and recording files in
// it, sorted.
func expandDirs(names []string) []string {
	var out []string
	for _, name := range names {
		fi, err := os.Stat(name)
		if name == "-" || err != nil || !fi.IsDir() {
			out = append(out, name)
			continue
		}
		var files []string
		for _, pat := range []string{"*.jsonl", "*.json", "*.sse"} {
			m, _ := filepath.Glob(filepath.Join(name, pat))
			files = append(files, m...)
		}
		sort.Strings(files)
		out = append(out, files...)
	}
	return out
}

// verifyRecording verifies each run of a recording on its own, streaming:
// memory holds a verifier per run in progress.
func verifyRecording(rep fileReport, in io.Reader, p agui.Profile) fileReport {
	rep.Format = "recording"
	r := recorder.NewReader(in, rep.File)
	verifiers := map[string]*agui.Verifier{}
	var order []string
	finish := func(run string) {
		v, ok := verifiers[run]
		if !ok {
			return
		}
		for _, vi := range v.Finish() {
			rep.Violations = append(rep.Violations, violationJSON{Run: run, Violation: vi})
		}
		delete(verifiers, run)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if r.Err() != nil {
				rep.Error = err.Error()
				return rep
			}
			rep.Problems = append(rep.Problems, err.Error())
			continue
		}
		switch rec.Kind {
		case recorder.KindRequest:
			// A reused run id starts a new run.
			finish(rec.Run)
		case recorder.KindEvent:
			v, ok := verifiers[rec.Run]
			if !ok {
				v = agui.NewVerifier(agui.Options{Profile: p})
				verifiers[rec.Run] = v
				order = append(order, rec.Run)
				rep.Runs++
			}
			e, err := rec.EventOf()
			if err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s:%d: run %s: recorded data is not an AG-UI event: %v", rep.File, rec.Line, rec.Run, err))
				continue
			}
			rep.Events++
			for _, vi := range v.Push(e) {
				rep.Violations = append(rep.Violations, violationJSON{Line: rec.Line, Run: rec.Run, Violation: vi})
			}
		case recorder.KindEnd:
			finish(rec.Run)
		}
	}
	for _, run := range order {
		finish(run)
	}
	return rep
}
