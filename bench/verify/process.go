package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
)

// The whole-process comparison: what a user feels. The aguitest command is
// built, then each round runs, one after another on the same file: cat (the
// floor: reading the file), aguitest verify --profile reference, and node
// running the reference client's pipeline (enforceEvents, transformChunks,
// verifyEvents; and verifyEvents alone). Each is timed from process start
// to exit, with its peak RSS.

type timing struct {
	wall time.Duration
	cpu  time.Duration // user and system time, on every core
	rss  int64         // KiB
}

// runProcess times one process from start to exit.
func runProcess(dir string, name string, args ...string) (timing, []byte) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		var ee *exec.ExitError
		if !asExit(err, &ee) {
			log.Fatalf("%s: %v", name, err)
		}
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return timing{wall, cpu, rss}, out
}

func asExit(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

func median(ts []timing) timing {
	s := slices.Clone(ts)
	slices.SortFunc(s, func(a, b timing) int { return int(a.wall - b.wall) })
	return s[len(s)/2]
}

// medianCPU is the median of the processes' CPU time, which another load
// on the machine disturbs less than their wall time.
func medianCPU(ts []timing) time.Duration {
	s := make([]time.Duration, len(ts))
	for i, t := range ts {
		s[i] = t.cpu
	}
	slices.Sort(s)
	return s[len(s)/2]
}

func best(ts []timing) timing {
	s := slices.Clone(ts)
	slices.SortFunc(s, func(a, b timing) int { return int(a.wall - b.wall) })
	return s[0]
}

// buildCommand builds the aguitest command into dir.
func buildCommand(dir string) string {
	bin := filepath.Join(dir, "aguitest")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/aguitest")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("building aguitest: %v", err)
	}
	return bin
}

// compareProcesses times the processes on file for rounds rounds and
// prints medians and ratios. withNode adds the reference client.
func compareProcesses(bin, file, oracle string, rounds int, withNode bool) {
	type entry struct {
		name string
		args []string
		dir  string
		ts   []timing
	}
	abs, _ := filepath.Abs(file)
	entries := []*entry{
		{name: "cat (the floor)", args: []string{"sh", "-c", "cat \"$0\" > /dev/null", abs}},
		{name: "aguitest verify", args: []string{bin, "verify", "--profile", "reference", abs}},
	}
	if withNode {
		entries = append(entries,
			&entry{name: "node: client pipeline", args: []string{"node", "pipeline.mjs", abs}, dir: oracle},
			&entry{name: "node: verifyEvents only", args: []string{"node", "pipeline.mjs", "--verify-only", abs}, dir: oracle},
		)
	}
	for r := range rounds {
		// Alternate the order, so that neither side always runs on a
		// warm cache left by the other.
		order := slices.Clone(entries)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, e := range order {
			t, out := runProcess(e.dir, e.args[0], e.args[1:]...)
			if e.name == "aguitest verify" && len(out) > 0 && !containsOK(out) {
				log.Fatalf("aguitest verify did not accept the stream:\n%s", out)
			}
			e.ts = append(e.ts, t)
		}
	}
	ours := median(entries[1].ts)
	fmt.Printf("%-26s %12s %12s %12s %12s  %s\n", "process, start to exit", "median", "best", "CPU (median)", "peak RSS", "aguitest is")
	for _, e := range entries {
		m := median(e.ts)
		ratio := ""
		switch {
		case e == entries[0]:
			ratio = fmt.Sprintf("%.1fx the floor", float64(ours.wall)/float64(m.wall))
		case e != entries[1]:
			ratio = fmt.Sprintf("%.1fx faster", float64(m.wall)/float64(ours.wall))
		}
		fmt.Printf("%-26s %10.0fms %10.0fms %10.0fms %9.1f MiB  %s\n", e.name, ms(m.wall), ms(best(e.ts).wall), ms(medianCPU(e.ts)), float64(m.rss)/1024, ratio)
	}
}

func containsOK(out []byte) bool {
	for i := 0; i+4 <= len(out); i++ {
		if string(out[i:i+4]) == ": ok" {
			return true
		}
	}
	return false
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeSSE writes the stream of file (JSON Lines) as server-sent events,
// repeated until it holds at least size bytes, with fresh run ids on
// every repetition.
func writeSSE(src, dst string, size int64) error {
	return repeatStream(src, dst, size, func(w *bufio.Writer) (func(line []byte) error, func() error) {
		return func(line []byte) error {
			w.WriteString("data: ")
			w.Write(line)
			_, err := w.WriteString("\n\n")
			return err
		}, func() error { return nil }
	})
}

// writeRecording writes the stream of file as a recording of its runs,
// repeated until it holds at least size bytes.
func writeRecording(src, dst string, size int64) error {
	return repeatStream(src, dst, size, func(bw *bufio.Writer) (func(line []byte) error, func() error) {
		w, err := recorder.NewWriter(bw, recorder.Header{Source: "bench"})
		if err != nil {
			log.Fatal(err)
		}
		run := ""
		n := 0
		return func(line []byte) error {
				e, err := agui.ParseEvent(append([]byte(nil), line...))
				if err != nil {
					return err
				}
				if e.Type() == agui.RunStarted {
					n++
					run = fmt.Sprintf("run-%d", n)
					in, _ := json.Marshal(agui.RunAgentInput{ThreadID: "thread-1", RunID: run})
					if err := w.Write(recorder.Record{Kind: recorder.KindRequest, Run: run, Request: &recorder.Request{Method: "POST", Path: "/agent", Input: in}}); err != nil {
						return err
					}
				}
				if err := w.Write(recorder.Record{Kind: recorder.KindEvent, Run: run, Event: e.Raw()}); err != nil {
					return err
				}
				if e.Type() == agui.RunFinished {
					return w.Write(recorder.Record{Kind: recorder.KindEnd, Run: run, End: &recorder.End{Outcome: recorder.OutcomeFinished, Status: 200, ContentType: agui.MediaTypeSSE}})
				}
				return nil
			}, func() error {
				return nil
			}
	})
}

func repeatStream(src, dst string, size int64, open func(*bufio.Writer) (func([]byte) error, func() error)) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	write, done := open(bw)
	var written int64
	for rep := 0; written < size; rep++ {
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if rep > 0 {
				line = renumber(line, rep)
			}
			if err := write(line); err != nil {
				return err
			}
		}
		in.Close()
		if err := bw.Flush(); err != nil {
			return err
		}
		st, _ := f.Stat()
		written = st.Size()
	}
	if err := done(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// renumber makes the run ids of a repetition distinct ("run-12" becomes
// "run-12r3"), so that repeated runs are new runs.
func renumber(line []byte, rep int) []byte {
	const key = `"runId":"run-`
	out := make([]byte, 0, len(line)+8)
	for {
		i := indexOf(line, key)
		if i < 0 {
			return append(out, line...)
		}
		j := i + len(key)
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		out = append(out, line[:j]...)
		out = append(out, fmt.Sprintf("r%d", rep)...)
		line = line[j:]
	}
}

func indexOf(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}
