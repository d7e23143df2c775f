package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
)

// hostile are ids that would drive a terminal or forge log lines if
// printed raw.
var hostile = []string{
	"t\x1b]0;pwned\x07",        // sets the window title
	"m\x1b[2J\x1b[H",           // clears the screen
	"c\roverwritten",           // returns to the line's start
	"x\u009b31m",               // an 8-bit CSI
	"evil\u202egnp.exe",        // reorders what is shown
	"id\nforged: ok: 0 events", // forges a line
	"bad\xff\xfeutf8",
}

// controls reports the control characters out holds but line feeds and
// tabs.
func controls(out string) []string {
	var found []string
	for _, r := range out {
		if r != '\n' && r != '\t' && escapeRune(r, true) != "" {
			found = append(found, strings.TrimPrefix(escapeRune(r, true), `\`))
		}
	}
	if strings.Contains(out, "\xff") {
		found = append(found, "xff")
	}
	return found
}

// TestNoControlCharactersPrinted: ids, names and text holding control
// characters are printed escaped by every command that prints them:
// verify (text and --json), show, diff, and through the writers every
// command's standard output and error get. They used to be printed raw.
func TestNoControlCharactersPrinted(t *testing.T) {
	dir := t.TempDir()
	var evs []agui.Event
	for _, id := range hostile {
		evs = append(evs,
			agui.NewRunStarted(id, id),
			agui.NewTextMessageStart(id),
			agui.NewTextMessageContent(id, "text "+id),
			agui.NewToolCallArgs(id, "{"), // a violation naming the id
			agui.NewEvent(agui.StepStarted, "stepName", id),
			agui.NewEvent(agui.Custom, "name", id, "value", id),
			agui.NewEvent(agui.RunError, "message", id, "code", id))
	}
	var stream bytes.Buffer
	for _, e := range evs {
		stream.Write(e.Raw())
		stream.WriteByte('\n')
	}
	jsonl := filepath.Join(dir, "ev\x1b[2Jil.jsonl")
	os.WriteFile(jsonl, stream.Bytes(), 0o644)
	rec := filepath.Join(dir, "rec.jsonl")
	w, _ := recorder.Create(rec, recorder.Header{})
	for i, id := range hostile {
		w.Write(recorder.Record{Kind: recorder.KindRequest, Run: id, Request: &recorder.Request{Path: "/" + id}})
		for _, e := range evs[i*7 : i*7+7] {
			w.Write(recorder.EventRecord(id, 0, e))
		}
		w.Write(recorder.Record{Kind: recorder.KindEvent, Run: id, Data: "data " + id})
	}
	w.Close()

	for _, args := range [][]string{
		{"verify", jsonl},
		{"verify", "--json", jsonl},
		{"verify", rec},
		{"show", jsonl},
		{"show", rec},
		{"show", "--messages", rec},
		{"diff", jsonl, rec},
		{"verify", filepath.Join(dir, "no\x1b]0;such\x07.jsonl")},
	} {
		code, out, errOut := runCmd(t, "", args...)
		if found := controls(out + errOut); len(found) > 0 {
			t.Errorf("aguitest %q (exit %d) printed control characters %q:\n%s%s", args, code, found, out, errOut)
		}
		if strings.Contains(out, "\nforged") {
			t.Errorf("aguitest %q: a forged line:\n%s", args, out)
		}
	}
}

// TestTranscriptInColourEscapesData: on a terminal the transcript's own
// colour codes are the only escape sequences it writes.
func TestTranscriptInColourEscapesData(t *testing.T) {
	var stream bytes.Buffer
	for _, id := range hostile {
		stream.WriteString(string(agui.NewRunStarted(id, id).Raw()) + "\n")
		stream.WriteString(string(agui.NewTextMessageStart(id).Raw()) + "\n")
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, stream.Bytes(), 0o644)
	var out bytes.Buffer
	if err := showInput(path, nil, agui.Options{}, &transcript{w: &out, pal: palette{on: true}}, nil); err != nil {
		t.Fatal(err)
	}
	sgr := regexp.MustCompile(`\x1b\[[0-9;]*m`)
	if found := controls(sgr.ReplaceAllString(out.String(), "")); len(found) > 0 {
		t.Errorf("control characters %q besides colour codes:\n%q", found, out.String())
	}
}

func TestSafeWriterSplitRunes(t *testing.T) {
	var b bytes.Buffer
	w := &safeWriter{w: &b}
	in := "a\u009bb\u202ec\x1bd\né"
	for i := 0; i < len(in); i++ {
		w.Write([]byte{in[i]})
	}
	w.Write([]byte{0xe2})
	w.flush()
	if got, want := b.String(), `a\u009bb\u202ec\u001bd`+"\né"+`\xe2`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The safe writer's fast path writes as they are only bytes its escaping
// keeps as they are, and takes all of those.
func TestSafeWriterPlainIsKept(t *testing.T) {
	var ins []string
	for c := range 256 {
		ins = append(ins, string([]byte{'a', byte(c), 'b'}))
	}
	for r := rune(0x80); r < 0x3000; r++ {
		ins = append(ins, "x"+string(r))
	}
	ins = append(ins, "\uFFFD", "┆ parallel", "🙂", "\xe2\x94", "a\xf0\x9f\x99")
	for _, in := range ins {
		var b strings.Builder
		appendEscaped(&b, in, true)
		if same := b.String() == in; kept(in, true) != same {
			t.Errorf("%q: kept is %v, but the escaping gives %q", in, kept(in, true), b.String())
		}
	}
}
