package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	broken := write("broken.jsonl", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`)
	// valid for the reference verifier, truncated for the strict profile
	open := write("open.jsonl", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
`)
	bad := write("bad.jsonl", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START",
`)
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantOut    []string
		wantErr    []string
		notWantOut []string
	}{
		{
			name:     "shipped stream conforms",
			args:     []string{"verify", "../../agui/testdata/streams/parallel.sse"},
			wantCode: 0,
			wantOut:  []string{"parallel.sse: ok: 13 events in 1 run conform to the strict profile"},
		},
		{
			name:     "violation names file, line, index, ids and rule",
			args:     []string{"verify", broken},
			wantCode: 1,
			wantOut: []string{
				"broken.jsonl:2: event 2 TOOL_CALL_ARGS [toolCallId=c1]: tool-call-not-open: Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID 'c1'.",
				"broken.jsonl: 1 violation in 3 events",
			},
		},
		{
			name:     "strict reports truncation, reference does not",
			args:     []string{"verify", open},
			wantCode: 1,
			wantOut:  []string{"end of stream after 2 events: truncated", "unclosed: text message 'm1' was never closed"},
		},
		{
			name:     "reference profile",
			args:     []string{"verify", "--profile", "reference", open},
			wantCode: 0,
			wantOut:  []string{"conform to the reference profile"},
		},
		{
			name:     "stdin",
			args:     []string{"verify", "-"},
			stdin:    "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
			wantCode: 0,
			wantOut:  []string{"<stdin>: ok: 2 events in 1 run"},
		},
		{
			name:     "unreadable input names file and line",
			args:     []string{"verify", bad},
			wantCode: 2,
			wantErr:  []string{"bad.jsonl:2:"},
		},
		{
			name:     "missing file",
			args:     []string{"verify", filepath.Join(dir, "nope.jsonl")},
			wantCode: 2,
			wantErr:  []string{"nope.jsonl"},
		},
		{
			name:     "worst status wins over several files",
			args:     []string{"verify", broken, bad},
			wantCode: 2,
		},
		{
			name:     "no files",
			args:     []string{"verify"},
			wantCode: 2,
			wantErr:  []string{"no input files", "usage: aguitest verify"},
		},
		{
			name:     "bad profile",
			args:     []string{"verify", "--profile", "lax", open},
			wantCode: 2,
			wantErr:  []string{`unknown profile "lax"`},
		},
		{
			name:     "help",
			args:     []string{"verify", "--help"},
			wantCode: 0,
			wantOut:  []string{"usage: aguitest verify", "Example:"},
		},
		{
			name:     "unknown command",
			args:     []string{"frobnicate"},
			wantCode: 2,
			wantErr:  []string{`unknown command "frobnicate"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.stdin, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code: got %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

func TestVerifyCommandJSON(t *testing.T) {
	code, out, _ := runCmd(t, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"STEP_FINISHED","stepName":"plan"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`, "verify", "--json", "-")
	if code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	var rep struct {
		File       string
		Events     int
		Violations []struct {
			Line    int
			Index   int
			Rule    string
			Message string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if rep.Events != 3 || len(rep.Violations) != 1 {
		t.Fatalf("got %+v", rep)
	}
	v := rep.Violations[0]
	if v.Line != 2 || v.Index != 1 || v.Rule != "step-not-started" || v.Message != `Cannot send 'STEP_FINISHED' for step "plan" that was not started` {
		t.Errorf("violation: got %+v", v)
	}
}

// TestVerifyNeverASilentPass: a megabyte of random bytes given as a
// server-sent event stream and an empty directory are failures (both
// exited 0 once: 0 events "conformed", nothing verified passed).
func TestVerifyNeverASilentPass(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(r.Uint64())
	}
	b[0] = 'x' // not a protobuf frame's zero byte
	random := filepath.Join(dir, "random.sse")
	os.WriteFile(random, b, 0o644)
	for _, p := range []string{"reference", "strict"} {
		code, out, errOut := runCmd(t, "", "verify", "--profile", p, random)
		if code != 1 || !strings.Contains(out, "no-events") {
			t.Errorf("%s profile: random bytes: exit %d\n%s%s", p, code, out, errOut)
		}
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if code, _, errOut := runCmd(t, "", "verify", empty); code != 2 || !strings.Contains(errOut, "no *.jsonl") {
		t.Errorf("an empty directory: exit %d %s", code, errOut)
	}
}
