package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// A message streamed under one id in three spans, with calls between (as
// Mastra streams text), is one lane: one row of the timeline with three
// spans, one line of the transcript with the client's whole text.
func TestShowOneLanePerMessage(t *testing.T) {
	page := newHTMLBudget("page.html")
	var out bytes.Buffer
	if err := showInput("testdata/show/reopened.jsonl", nil, agui.Options{}, &transcript{w: &out, page: page}, page); err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := page.write(&html); err != nil {
		t.Fatal(err)
	}
	lanes := regexp.MustCompile(`(?s)<g class="lane lane-message[^"]*" data-id="([^"]+)">(.*?)</g>`).FindAllStringSubmatch(html.String(), -1)
	spans := map[string]int{}
	for _, l := range lanes {
		spans[l[1]] += strings.Count(l[2], `class="span"`)
	}
	if len(lanes) != 2 || spans["msg-1"] != 3 || spans["msg-2"] != 1 {
		t.Errorf("message lanes and their spans: got %d lanes, %v; want msg-1 with 3 spans and msg-2 with 1", len(lanes), spans)
	}
	if n := strings.Count(out.String(), "assistant msg-1:"); n != 1 {
		t.Errorf("msg-1 has %d transcript lines, want 1:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), `assistant msg-1: "Let me look up the weather and the time."  [3 fragments, 3 spans under one id, calls call-w, call-t]`) {
		t.Errorf("the transcript lacks msg-1 as the client holds it:\n%s", out.String())
	}
}
