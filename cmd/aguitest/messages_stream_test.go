package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// wholeMessages is show --messages as it was before it streamed: the
// input read whole (readSource), the client run over its runs (assemble).
func wholeMessages(name string) (string, error) {
	src, err := readSource(name, nil, agui.Options{})
	if err != nil {
		return "", err
	}
	assemble(src)
	var b bytes.Buffer
	err = writeMessages(&b, src)
	return b.String(), err
}

// sameMessages checks that show --messages streaming prints what it
// prints of the input read whole, or fails alike.
func sameMessages(t *testing.T, name string) {
	t.Helper()
	want, wantErr := wholeMessages(name)
	var b bytes.Buffer
	gotErr := streamMessages(name, nil, &b, "")
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%s: got error %v, want %v", name, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("%s: show --messages streaming (-whole +streamed):\n%s", name, diff)
	}
}

var messagesStreamSeeds = []string{
	`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"hi"}
{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
{"type":"TEXT_MESSAGE_START","messageId":"m2"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"x"}
{"type":"TEXT_MESSAGE_END","messageId":"m2"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}
`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m1"}
{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}
{"type":"RUN_STARTED","threadId":"t","runId":""}
{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}
{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":"ok"}
`,
	`{"type":"TOOL_CALL_CHUNK"}
{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1}]}
{"type":"RUN_ERROR","message":"boom"}
{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
`,
	`[]`,
	`{"type":"NOT_A_TYPE"}
`,
}

func TestShowMessagesStreamsAsRead(t *testing.T) {
	var names []string
	for _, pat := range []string{"../../agui/testdata/streams/*", "testdata/show/*.jsonl", "../../recorder/testdata/*.jsonl"} {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		names = append(names, m...)
	}
	dir := t.TempDir()
	for i, s := range messagesStreamSeeds {
		p := filepath.Join(dir, "seed"+string(rune('a'+i))+".jsonl")
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		names = append(names, p)
	}
	require.NotEmpty(t, names)
	for _, name := range names {
		sameMessages(t, name)
	}
}

// addShowSeeds seeds a fuzz target of show with streams and recordings.
func addShowSeeds(f *testing.F) {
	for _, s := range messagesStreamSeeds {
		f.Add([]byte(s))
	}
	for _, name := range []string{"../../agui/testdata/streams/parallel.sse", "testdata/show/faults.jsonl", "../../recorder/testdata/weather.jsonl"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
}

func FuzzShowMessagesStream(f *testing.F) {
	addShowSeeds(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "in")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		sameMessages(t, p)
	})
}
