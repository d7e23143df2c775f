// Command proto-bench decodes the same agent-like stream from protobuf
// frames and from server-sent events with aguitest's Reader, and from
// protobuf frames with @ag-ui/proto's decode under Node, in one run, and
// prints the throughputs.
//
// Usage (from the repository root, after npm ci --prefix internal/oracle):
//
//	go run ./bench/proto [-events 200000]
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
	"time"

	"github.com/aguitest/aguitest/agui"
)

func main() {
	n := flag.Int("events", 200_000, "number of events in the stream")
	oracle := flag.String("oracle", "internal/oracle", "directory of the reference client's npm packages")
	flag.Parse()

	var pb, sse bytes.Buffer
	pe, se := agui.NewProtoEncoder(&pb), agui.NewSSEEncoder(&sse)
	count := 0
	for r := 0; count < *n; r++ {
		for _, e := range run(r) {
			if err := pe.Encode(e); err != nil {
				log.Fatal(err)
			}
			if err := se.Encode(e); err != nil {
				log.Fatal(err)
			}
			count++
		}
	}
	dir, err := os.MkdirTemp("", "proto-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "stream.pb")
	if err := os.WriteFile(file, pb.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("stream: %d events; %.1f MB as protobuf, %.1f MB as server-sent events\n",
		count, float64(pb.Len())/1e6, float64(sse.Len())/1e6)

	// The best of three passes, reading into Events.
	read := func(stream []byte) time.Duration {
		best := time.Duration(math.MaxInt64)
		for range 3 {
			start := time.Now()
			r := agui.NewReader(bufio.NewReaderSize(bytes.NewReader(stream), 1<<20), "bench")
			got := 0
			for {
				if _, err := r.Next(); err != nil {
					if err != io.EOF {
						log.Fatal(err)
					}
					break
				}
				got++
			}
			if got != count {
				log.Fatalf("read %d events of %d", got, count)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	ourProto, ourSSE := read(pb.Bytes()), read(sse.Bytes())

	cmd := exec.Command("node", "proto-bench.mjs", file)
	cmd.Dir = *oracle
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("node: %v", err)
	}
	var ref struct {
		Events  int
		Seconds float64
		Error   string
	}
	if err := json.Unmarshal(out, &ref); err != nil || ref.Error != "" || ref.Events != count {
		log.Fatalf("reference: %s %v", out, err)
	}

	row := func(name string, bytes int, s float64) {
		fmt.Printf("%-34s %9.0f MB/s %11.0f events/s\n", name, float64(bytes)/1e6/s, float64(count)/s)
	}
	row("aguitest, protobuf", pb.Len(), ourProto.Seconds())
	row("aguitest, server-sent events", sse.Len(), ourSSE.Seconds())
	row("@ag-ui/proto decode, protobuf", pb.Len(), ref.Seconds)
	fmt.Printf("aguitest decodes protobuf %.1fx as fast as @ag-ui/proto\n", ref.Seconds/ourProto.Seconds())
}

// run is one agent-like run with unique ids: text in 40 fragments, three
// interleaved parallel calls of 20 argument fragments, results, a step and
// a state delta.
func run(r int) []agui.Event {
	run, msg := fmt.Sprintf("run-%d", r), fmt.Sprintf("msg-%d", r)
	evs := []agui.Event{agui.NewRunStarted("thread-1", run), agui.NewStepStarted("answer"), agui.NewTextMessageStart(msg)}
	for i := range 40 {
		evs = append(evs, agui.NewTextMessageContent(msg, fmt.Sprintf("word %d ", i)))
	}
	evs = append(evs, agui.NewTextMessageEnd(msg))
	calls := []string{"a", "b", "c"}
	for _, c := range calls {
		evs = append(evs, agui.NewToolCallStart(fmt.Sprintf("call-%d-%s", r, c), "move_task", msg))
	}
	for i := range 20 {
		for _, c := range calls {
			d := `"x":1,`
			switch i {
			case 0:
				d = `{`
			case 19:
				d = `"y":2}`
			}
			evs = append(evs, agui.NewToolCallArgs(fmt.Sprintf("call-%d-%s", r, c), d))
		}
	}
	for _, c := range calls {
		id := fmt.Sprintf("call-%d-%s", r, c)
		evs = append(evs, agui.NewToolCallEnd(id), agui.NewToolCallResult("res-"+id, id, "ok"))
	}
	return append(evs, agui.NewStateDelta([]any{map[string]any{"op": "add", "path": "/n", "value": r}}),
		agui.NewStepFinished("answer"), agui.NewRunFinished("thread-1", run))
}
