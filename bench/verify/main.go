// Command verify-bench runs aguitest's verifier and the reference client
// (@ag-ui/client 1.0.0 under Node) on the same streams of a million
// events, in two shapes: many short runs, and one long run
// (internal/longrun: the run a long agent session produces, whose ids the
// client holds to its end). For each it prints both throughputs and their
// ratios: in process (parse + verify, verify alone), and as whole
// processes from start to exit next to cat of the same file (-process).
// With -big SIZE it also writes an SSE file and a recording of about SIZE
// bytes of the short runs and times aguitest verify and cat on them, with
// peak memory.
//
// Usage (from the repository root, after npm ci --prefix internal/oracle):
//
//	go run ./bench/verify [-events 1000000] [-shape short,long] [-process -rounds 5] [-big 1e9]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/longrun"
)

func main() {
	n := flag.Int("events", 1_000_000, "number of events in the stream")
	oracle := flag.String("oracle", "internal/oracle", "directory of the reference client's npm packages")
	process := flag.Bool("process", false, "time whole processes: aguitest verify, node, cat")
	rounds := flag.Int("rounds", 5, "rounds of the process comparison")
	big := flag.Float64("big", 0, "also time an SSE file and a recording of about this many bytes")
	keep := flag.String("keep", "", "write the files into this directory and keep them (to profile or rerun)")
	shapes := flag.String("shape", "short,long", "the streams' shapes, comma separated: short (many short runs), long (one run)")
	flag.Parse()

	dir := *keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "verify-bench")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	type stream struct {
		file  string
		count int
	}
	var streams []stream
	var file string // the short runs, for -big
	for _, shape := range strings.Split(*shapes, ",") {
		var st stream
		switch strings.TrimSpace(shape) {
		case "short":
			st.file = filepath.Join(dir, "stream.jsonl")
			size, count, err := writeStream(st.file, *n)
			if err != nil {
				log.Fatal(err)
			}
			st.count, file = count, st.file
			fmt.Printf("short runs: %d events, %.1f MB, %d-event runs (text, 3 interleaved parallel calls, results, a step, state)\n",
				count, float64(size)/1e6, len(run(0)))
		case "long":
			st.file = filepath.Join(dir, "longrun.jsonl")
			size, count, err := writeLongRun(st.file, *n)
			if err != nil {
				log.Fatal(err)
			}
			st.count = count
			fmt.Printf("one long run: %d events, %.1f MB (internal/longrun: steps of a text message, 3 interleaved parallel calls, their results and a state delta)\n",
				count, float64(size)/1e6)
		default:
			log.Fatalf("-shape: unknown shape %q (short or long)", shape)
		}
		streams = append(streams, st)
	}
	if *big > 0 && file == "" {
		log.Fatal("-big writes the short runs: give -shape short")
	}
	if *process || *big > 0 {
		bin := buildCommand(dir)
		if *process {
			for _, st := range streams {
				fmt.Printf("\n%s, JSON Lines, %d rounds:\n", filepath.Base(st.file), *rounds)
				compareProcesses(bin, st.file, *oracle, *rounds, true)
			}
		}
		if *big > 0 {
			for _, kind := range []string{"sse", "recording"} {
				path := filepath.Join(dir, "big."+kind)
				write := writeSSE
				if kind == "recording" {
					write = writeRecording
				}
				if err := write(file, path, int64(*big)); err != nil {
					log.Fatal(err)
				}
				st, _ := os.Stat(path)
				fmt.Printf("\n%s, %.2f GB, %d rounds:\n", kind, float64(st.Size())/1e9, max(1, *rounds/2))
				compareProcesses(bin, path, *oracle, max(1, *rounds/2), false)
				if *keep == "" {
					os.Remove(path)
				}
			}
		}
		return
	}

	for _, st := range streams {
		fmt.Printf("\n%s, in process:\n", filepath.Base(st.file))
		inProcess(st.file, st.count, *oracle)
	}
}

// inProcess times our parse and verify, and verify alone, against the
// reference client's (node bench.mjs) on file, and prints the ratios.
func inProcess(file string, count int, oracle string) {
	// ours: parse and verify, streaming from the file
	start := time.Now()
	f, err := os.Open(file)
	if err != nil {
		log.Fatal(err)
	}
	r := agui.NewReader(bufio.NewReaderSize(f, 1<<20), file)
	v := agui.NewVerifier(agui.Options{Profile: agui.Reference, NoChunkExpansion: true})
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		if vs := v.Push(e); vs != nil {
			log.Fatalf("our verifier rejects the stream: %v", vs[0])
		}
	}
	f.Close()
	ourAll := time.Since(start)

	data, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	evs, err := agui.ReadEvents(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}

	// ours: verify only, events already parsed
	// verify only: the best of three passes over the parsed events
	ourVerify := time.Duration(math.MaxInt64)
	for range 3 {
		start = time.Now()
		if vs := agui.Verify(evs, agui.Options{Profile: agui.Reference, NoChunkExpansion: true}); vs != nil {
			log.Fatalf("our verifier rejects the stream: %v", vs[0])
		}
		ourVerify = min(ourVerify, time.Since(start))
	}

	cmd := exec.Command("node", "bench.mjs", file)
	cmd.Dir = oracle
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("node: %v", err)
	}
	var ref struct {
		Events                int
		ParseAndVerifySeconds float64
		VerifySeconds         float64
		Error                 string
	}
	if err := json.Unmarshal(out, &ref); err != nil {
		log.Fatalf("node output %q: %v", out, err)
	}
	if ref.Error != "" || ref.Events != count {
		log.Fatalf("reference: %d events, error %q", ref.Events, ref.Error)
	}

	rate := func(d float64) float64 { return float64(count) / d }
	fmt.Printf("%-22s %14s %14s %7s\n", "", "aguitest", "@ag-ui/client", "ratio")
	fmt.Printf("%-22s %11.0f /s %11.0f /s %6.1fx\n", "parse + verify", rate(ourAll.Seconds()), rate(ref.ParseAndVerifySeconds), ref.ParseAndVerifySeconds/ourAll.Seconds())
	fmt.Printf("%-22s %11.0f /s %11.0f /s %6.1fx\n", "verify, best of 3", rate(ourVerify.Seconds()), rate(ref.VerifySeconds), ref.VerifySeconds/ourVerify.Seconds())
}

// writeLongRun writes one run of about n events (internal/longrun).
func writeLongRun(path string, n int) (int64, int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	count, err := longrun.Write(f, n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, err
	}
	return st.Size(), count, nil
}

func writeStream(path string, n int) (int64, int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriter(f)
	count := 0
	for r := 0; count < n; r++ {
		for _, line := range run(r) {
			w.WriteString(line)
			w.WriteByte('\n')
			count++
		}
	}
	if err := w.Flush(); err != nil {
		return 0, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	return st.Size(), count, f.Close()
}

// run is one agent-like run with unique ids.
func run(r int) []string {
	var b bytes.Buffer
	var s []string
	add := func(format string, args ...any) {
		b.Reset()
		fmt.Fprintf(&b, format, args...)
		s = append(s, b.String())
	}
	add(`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-%d"}`, r)
	add(`{"type":"STEP_STARTED","stepName":"answer"}`)
	add(`{"type":"TEXT_MESSAGE_START","messageId":"msg-%d","role":"assistant"}`, r)
	for i := range 40 {
		add(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-%d","delta":"word %d "}`, r, i)
	}
	add(`{"type":"TEXT_MESSAGE_END","messageId":"msg-%d"}`, r)
	calls := []string{"a", "b", "c"}
	for _, c := range calls {
		add(`{"type":"TOOL_CALL_START","toolCallId":"call-%d-%s","toolCallName":"move_task","parentMessageId":"msg-%d"}`, r, c, r)
	}
	for i := range 20 {
		for _, c := range calls {
			d := `\"x\":1,`
			switch i {
			case 0:
				d = `{`
			case 19:
				d = `\"y\":2}`
			}
			add(`{"type":"TOOL_CALL_ARGS","toolCallId":"call-%d-%s","delta":"%s"}`, r, c, d)
		}
	}
	for _, c := range calls {
		add(`{"type":"TOOL_CALL_END","toolCallId":"call-%d-%s"}`, r, c)
		add(`{"type":"TOOL_CALL_RESULT","messageId":"res-%d-%s","toolCallId":"call-%d-%s","content":"ok"}`, r, c, r, c)
	}
	add(`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":%d}]}`, r)
	add(`{"type":"STEP_FINISHED","stepName":"answer"}`)
	add(`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-%d"}`, r)
	return s
}
