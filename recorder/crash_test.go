package recorder

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aguitest/aguitest/agui"
)

const crashEnv = "AGUITEST_RECORDER_CRASH_DIR"

// TestCrashChild is the child of TestKilledWhileRecording: it records
// runs through the middleware into a directory until it is killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestKilledWhileRecording")
	}
	big := strings.Repeat("x", 256<<10)
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		enc := agui.NewSSEEncoder(w)
		enc.Encode(agui.NewRunStarted("t", "r"))
		enc.Encode(agui.NewTextMessageStart("m"))
		for i := 0; ; i++ {
			d := fmt.Sprintf("chunk %d ", i)
			if i%50 == 0 {
				d += big // large records make a cut line likely
			}
			enc.Encode(agui.NewTextMessageContent("m", d))
		}
	}), Config{Dir: dir})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(`{"runId":"r"}`)))
}

func TestKilledWhileRecording(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("in the child")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Wait, boundedly, until the child has written a few megabytes.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var file string
	for i := 0; ; i++ {
		if i == 4000 {
			t.Fatal("the child wrote no recording within 20s")
		}
		<-tick.C
		m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(m) == 1 {
			if fi, err := os.Stat(m[0]); err == nil && fi.Size() > 4<<20 {
				file = m[0]
				break
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	r, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []Record
	var errs []error
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec)
	}
	if len(errs) > 1 || (len(errs) == 1 && !r.Truncated()) {
		t.Fatalf("got errors %v, want at most the cut last line", errs)
	}
	if len(recs) < 10 || recs[0].Kind != KindHeader || recs[1].Kind != KindRequest {
		t.Fatalf("got %d records", len(recs))
	}
	for i, rec := range recs[2:] {
		if rec.Kind == KindGap {
			continue // storage fell behind the child's stream
		}
		if rec.Kind != KindEvent {
			t.Fatalf("record %d is %s", i+2, rec.Kind)
		}
		if _, err := rec.EventOf(); err != nil {
			t.Fatalf("line %d: %v", rec.Line, err)
		}
	}
	t.Logf("%d records readable, last line cut: %v", len(recs), r.Truncated())
}
