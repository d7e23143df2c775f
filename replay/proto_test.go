package replay

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

func TestHandlerServesProtobuf(t *testing.T) {
	future := []byte{0xfa, 0x03, 0x02, 0x08, 0x01}
	run := &Run{ID: "r", Events: []Event{
		{Event: agui.NewRunStarted("t", "r")},
		{Event: agui.NewEvent(agui.TextMessageStart, "messageId", "m", "extra", 1)},
		{Data: "not an event"},
		{Frame: future},
		{Event: agui.NewEvent(agui.ThinkingStart)},
		{Event: agui.NewRunFinished("t", "r")},
	}}
	var mu sync.Mutex
	var lost []string
	opt := Options{Loop: true, OnLoss: func(_ *Run, i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		lost = append(lost, err.Error())
	}}
	srv := httptest.NewServer(Handler([]*Run{run}, opt))
	defer srv.Close()
	get := func(accept string) (string, []byte) {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{}`))
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Type"), b
	}

	ct, body := get(agui.MediaTypeProto)
	if ct != agui.MediaTypeProto {
		t.Fatalf("Content-Type %q", ct)
	}
	if !bytes.Contains(body, future) {
		t.Error("the recorded frame was not sent as it came")
	}
	r := agui.NewReader(bytes.NewReader(body), "proto")
	r.ContentType = ct
	var types []agui.EventType
	var skipped int
	for {
		e, err := r.Next()
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		skipped += len(r.Losses())
		types = append(types, e.Type())
	}
	if want := []agui.EventType{agui.RunStarted, agui.TextMessageStart, agui.RunFinished}; !equalTypes(types, want) || skipped != 1 {
		t.Errorf("got %v (%d frames skipped), want %v and the future frame skipped", types, skipped, want)
	}
	wantLost := []string{
		"TEXT_MESSAGE_START: protobuf cannot carry all of it: /extra: not carried (was 1)",
		"recorded data that is not an AG-UI event: not sent in protobuf",
		"THINKING_START: the event type has no protobuf form",
	}
	if strings.Join(lost, "\n") != strings.Join(wantLost, "\n") {
		t.Errorf("losses:\n%s\nwant:\n%s", strings.Join(lost, "\n"), strings.Join(wantLost, "\n"))
	}

	lost = nil
	ct, body = get("*/*")
	if ct != "text/event-stream" || !bytes.Contains(body, []byte("data: not an event")) || !bytes.Contains(body, []byte(`"extra":1`)) {
		t.Errorf("SSE answer: %q %q", ct, body)
	}
	if len(lost) != 1 || !strings.Contains(lost[0], "holds no event") {
		t.Errorf("SSE losses: %q", lost)
	}
}

func equalTypes(a, b []agui.EventType) bool {
	return strings.Join(typeStrings(a), ",") == strings.Join(typeStrings(b), ",")
}

func typeStrings(ts []agui.EventType) []string {
	var s []string
	for _, t := range ts {
		s = append(s, string(t))
	}
	return s
}
