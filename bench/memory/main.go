// Command memory-bench measures the peak memory (RSS) of the aguitest
// command on large inputs: it writes JSON Lines of events and a recording
// of about -size bytes each (many runs), and JSON Lines of one run of that
// size (one long message, then many short ones), and runs aguitest show,
// show --html and verify on each, and serve on the recording (its
// loading, until it listens), under
// /usr/bin/time -v, printing the "Maximum resident set size" it reports.
//
// Usage (from the repository root):
//
//	go run ./bench/memory [-size 1e9] [-keep DIR]
//
// It writes its inputs to a temporary directory (or DIR) and removes them
// at the end unless -keep is given. Memory is measured here, never in
// tests.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/recorder"
)

func main() {
	size := flag.Float64("size", 1e9, "bytes of each input")
	keep := flag.String("keep", "", "write the inputs to this directory and keep them")
	flag.Parse()
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "aguitest-memory")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	bin := filepath.Join(dir, "aguitest")
	build := exec.Command("go", "build", "-o", bin, "./cmd/aguitest")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		log.Fatalf("building aguitest: %v", err)
	}

	inputs := []struct {
		name  string
		write func(w io.Writer, size int64) error
	}{
		{"runs.jsonl", writeRuns},
		{"runs.recording.jsonl", writeRecording},
		{"onerun.jsonl", writeOneRun},
	}
	fmt.Printf("%-22s %-14s %10s %12s %10s  %s\n", "input", "command", "size", "peak RSS", "wall", "exit")
	for _, in := range inputs {
		path := filepath.Join(dir, in.name)
		if err := writeFile(path, int64(*size), in.write); err != nil {
			log.Fatal(err)
		}
		st, _ := os.Stat(path)
		for _, c := range []struct {
			name string
			args []string
		}{
			{"show", []string{"show", path}},
			{"show --html", []string{"show", "--html", filepath.Join(dir, "page.html"), path}},
			{"verify", []string{"verify", path}},
			{"serve (load)", []string{"serve", path}},
		} {
			if c.name == "serve (load)" && !strings.Contains(in.name, "recording") {
				continue
			}
			rss, wall, exit := measure(bin, c.args)
			fmt.Printf("%-22s %-14s %8.2fGB %9.1f MiB %9.1fs  %s\n", in.name, c.name, float64(st.Size())/1e9, float64(rss)/1024, wall.Seconds(), exit)
		}
		if *keep == "" {
			os.Remove(path)
		}
	}
}

var maxRSS = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)

// measure runs aguitest under /usr/bin/time -v, its output discarded, and
// returns its peak RSS in KiB. A server ("serve") is measured from its
// start until it listens, then stopped with SIGINT.
func measure(bin string, args []string) (int64, time.Duration, string) {
	cmd := exec.Command("/usr/bin/time", append([]string{"-v", bin}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	server := args[0] == "serve"
	var out io.ReadCloser
	if server {
		out, _ = cmd.StdoutPipe()
		// time ignores SIGINT; the signal goes to its group.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	if server {
		// It prints its URL once it listens: loading is done.
		br := bufio.NewReader(out)
		for {
			line, err := br.ReadString('\n')
			if strings.Contains(line, "http://") || err != nil {
				break
			}
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		go io.Copy(io.Discard, br)
	}
	err := cmd.Wait()
	wall := time.Since(start)
	exit := "0"
	if err != nil {
		exit = err.Error()
	}
	m := maxRSS.FindSubmatch(stderr.Bytes())
	if m == nil {
		log.Fatalf("aguitest %s: no peak RSS in /usr/bin/time's report:\n%s", strings.Join(args, " "), stderr.Bytes())
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n, wall, exit
}

func writeFile(path string, size int64, write func(io.Writer, int64) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw, size); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// countingWriter counts what goes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// run returns the events of run i: a message streamed in 20 pieces, a
// tool call with its arguments in 5 pieces and its result, a state
// snapshot, a second message (about 3 KB in all).
func run(i int) []string {
	r := fmt.Sprintf("run-%d", i)
	m := fmt.Sprintf("msg-%d", i)
	c := fmt.Sprintf("call-%d", i)
	evs := []string{
		`{"type":"RUN_STARTED","threadId":"thread-1","runId":"` + r + `"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"` + m + `","role":"assistant"}`,
	}
	for k := range 20 {
		evs = append(evs, fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"%s","delta":"part %d of a reply about the weather in Paris, "}`, m, k))
	}
	evs = append(evs,
		`{"type":"TEXT_MESSAGE_END","messageId":"`+m+`"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"`+c+`","toolCallName":"get_weather","parentMessageId":"`+m+`"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"`+c+`","delta":"{\"city\":"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"`+c+`","delta":"\"Paris\","}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"`+c+`","delta":"\"unit\":"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"`+c+`","delta":"\"C\""}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"`+c+`","delta":"}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"`+c+`"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"res-`+c+`","toolCallId":"`+c+`","content":"{\"temp\":21,\"sky\":\"clear\"}"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"city":"Paris","turn":`+strconv.Itoa(i)+`}}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"`+m+`b","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"`+m+`b","delta":"It is 21 degrees and clear."}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"`+m+`b"}`,
		`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"`+r+`"}`,
	)
	return evs
}

// writeRuns writes JSON Lines of runs until size bytes.
func writeRuns(w io.Writer, size int64) error {
	cw := &countingWriter{w: w}
	for i := 1; cw.n < size; i++ {
		for _, e := range run(i) {
			if _, err := io.WriteString(cw, e+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeRecording writes a recording of runs (a request, the events, an
// end record each) until size bytes.
func writeRecording(w io.Writer, size int64) error {
	cw := &countingWriter{w: w}
	rw, err := recorder.NewWriter(cw, recorder.Header{Source: "memory-bench"})
	if err != nil {
		return err
	}
	for i := 1; cw.n < size; i++ {
		id := fmt.Sprintf("run-%d", i)
		in := []byte(`{"threadId":"thread-1","runId":"` + id + `","messages":[{"id":"u1","role":"user","content":"Weather in Paris?"}],"tools":[],"context":[],"state":{},"forwardedProps":{}}`)
		if err := rw.Write(recorder.Record{Kind: recorder.KindRequest, Run: id, Request: &recorder.Request{Method: "POST", Path: "/agent", Input: in}}); err != nil {
			return err
		}
		evs := run(i)
		for k, e := range evs {
			if err := rw.Write(recorder.Record{Kind: recorder.KindEvent, Run: id, Offset: time.Duration(k) * time.Millisecond, Event: []byte(e)}); err != nil {
				return err
			}
		}
		end := &recorder.End{Outcome: recorder.OutcomeFinished, Status: 200, ContentType: "text/event-stream", Events: int64(len(evs))}
		if err := rw.Write(recorder.Record{Kind: recorder.KindEnd, Run: id, Offset: time.Duration(len(evs)) * time.Millisecond, End: end}); err != nil {
			return err
		}
	}
	return nil
}

// writeOneRun writes one run of size bytes: a message streamed in pieces
// over half of it, then messages of 20 pieces each.
func writeOneRun(w io.Writer, size int64) error {
	cw := &countingWriter{w: w}
	line := func(s string) error {
		_, err := io.WriteString(cw, s+"\n")
		return err
	}
	if err := line(`{"type":"RUN_STARTED","threadId":"thread-1","runId":"one"}`); err != nil {
		return err
	}
	_ = line(`{"type":"TEXT_MESSAGE_START","messageId":"long","role":"assistant"}`)
	for k := 0; cw.n < size/2; k++ {
		if err := line(fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"long","delta":"piece %d of a very long reply, "}`, k)); err != nil {
			return err
		}
	}
	_ = line(`{"type":"TEXT_MESSAGE_END","messageId":"long"}`)
	for m := 0; cw.n < size; m++ {
		id := fmt.Sprintf("m%d", m)
		_ = line(`{"type":"TEXT_MESSAGE_START","messageId":"` + id + `","role":"assistant"}`)
		for k := range 20 {
			if err := line(fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"%s","delta":"piece %d, "}`, id, k)); err != nil {
				return err
			}
		}
		_ = line(`{"type":"TEXT_MESSAGE_END","messageId":"` + id + `"}`)
	}
	return line(`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"one"}`)
}
