package golden

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	golden := "{\"type\":\"RUN_STARTED\",\"threadId\":\"thread-1\",\"runId\":\"run-2\"}\n" +
		"{\"type\":\"TEXT_MESSAGE\",\"messageId\":\"msg-3\",\"text\":\"hi\"}\n" +
		"{\"type\":\"RUN_FINISHED\",\"threadId\":\"thread-1\",\"runId\":\"run-2\"}\n"
	changed := strings.Replace(golden, `"hi"`, `"bye"`, 1)
	tests := []struct {
		name    string
		file    *string // nil: no golden file
		got     string
		update  bool
		wantErr []string // substrings of the error; nil: no error
		is      error
		written string // the file's content afterwards, when not ""
	}{
		{name: "missing", got: golden, wantErr: []string{"case.golden", "-update"}, is: ErrMissing},
		{name: "missing, update writes it", got: golden, update: true, written: golden},
		{name: "equal", file: &golden, got: golden},
		{name: "mismatch names the event and ids", file: &golden, got: changed,
			wantErr: []string{"case.golden: 1 event differs (-want the golden file, +got the new stream", "-update",
				"\nevent 2 (TEXT_MESSAGE msg-3): (-want +got)\n\t- " + `{"type":"TEXT_MESSAGE","messageId":"msg-3","text":"hi"}` + "\n\t+ ", `.text: got "bye", want "hi"`}, written: golden},
		{name: "mismatch, update rewrites", file: &golden, got: changed, update: true, written: changed},
		{name: "formatting only", file: ptr(strings.ReplaceAll(golden, "\n", "\n\n")), got: golden,
			wantErr: []string{"only in formatting"}},
		{name: "a corrupt golden names its line", file: ptr(golden + "{oops\n"), got: golden,
			wantErr: []string{"case.golden:4:", "-update"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "testdata")
			path := filepath.Join(dir, "case.golden")
			assert.Equal(t, path, Path(dir, "case"))
			if tt.file != nil {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.WriteFile(path, []byte(*tt.file), 0o644))
			}
			err := Check(dir, "case", []byte(tt.got), tt.update)
			if tt.wantErr == nil {
				assert.NoError(t, err)
			}
			for _, s := range tt.wantErr {
				assert.ErrorContains(t, err, s)
			}
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			if tt.written != "" {
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Equal(t, tt.written, string(b), "the golden file afterwards")
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestMismatchError(t *testing.T) {
	dir := t.TempDir()
	if err := Check(dir, "x", []byte("{\"type\":\"A\",\"n\":1}\n"), true); err != nil {
		t.Fatal(err)
	}
	err := Check(dir, "x", []byte("{\"type\":\"A\",\"n\":2}\n"), false)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("Check: got %v, want a *MismatchError", err)
	}
	if me.File != filepath.Join(dir, "x.golden") || len(me.Differences) != 1 || me.Differences[0].Index != 0 {
		t.Errorf("MismatchError = %+v", me)
	}
}

// TestUpdateFlag checks that Update reads the -update flag that every test
// binary linking this package has, the one "go test ./... -update" sets.
func TestUpdateFlag(t *testing.T) {
	f := flag.Lookup("update")
	if f == nil {
		t.Fatal("no -update flag registered")
	}
	old := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(old) })
	for _, v := range []string{"true", "false"} {
		if err := f.Value.Set(v); err != nil {
			t.Fatal(err)
		}
		if got := Update(); (v == "true") != got {
			t.Errorf("with -update=%s, Update() = %v", v, got)
		}
	}
}
