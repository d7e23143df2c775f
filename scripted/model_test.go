package scripted

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/aguitest/aguitest/clock"
)

func TestNativePlans(t *testing.T) {
	for _, tc := range planCases() {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModel(oneTurn(tc.plan))
			got, chunks := collect(t, m, userRequest("weather?"))
			if tc.noIndex {
				// Keyed by id in first-appearance order.
				got.Calls = sortByID(got.Calls)
			}
			if d := cmp.Diff(wantJoined(tc.plan), got); d != "" {
				t.Errorf("plan %s: reassembled (-want +got):\n%s", tc.plan, d)
			}
			last := chunks[len(chunks)-1]
			if last.Usage == nil || last.Usage.TotalTokens == 0 {
				t.Errorf("plan %s: last chunk %+v, want usage", tc.plan, last)
			}
			if err := m.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

func sortByID(calls []Call) []Call {
	out := append([]Call(nil), calls...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].ID < out[i].ID {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestNativeMidRune: the Go-native stream delivers fragments cut inside a
// character, which a JSON wire cannot.
func TestNativeMidRune(t *testing.T) {
	m := NewModel(Script{Turns: []Turn{{Text: "é😀", Plan: Plan{Split: Split{Size: 1, MidRune: true}}}}})
	_, chunks := collect(t, m, userRequest("x"))
	var texts []string
	for _, c := range chunks {
		if c.Text != "" {
			texts = append(texts, c.Text)
		}
	}
	if len(texts) != 6 || utf8.ValidString(texts[0]) {
		t.Errorf("fragments %q, want 6 single bytes", texts)
	}
}

func TestDefaultIDs(t *testing.T) {
	s := Script{Turns: []Turn{{Text: "a"}, {Calls: []Call{{Name: "f"}, {Name: "g"}}}}}
	m := NewModel(s)
	collect(t, m, userRequest("1"))
	got, _ := collect(t, m, userRequest("2"))
	want := []Call{{ID: "call_2_1", Name: "f", Args: "{}"}, {ID: "call_2_2", Name: "g", Args: "{}"}}
	if d := cmp.Diff(want, got.Calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
}

func TestExpect(t *testing.T) {
	tools := []Tool{{Name: "get_weather"}, {Name: "search"}}
	req := Request{
		Tools: tools,
		Messages: []Message{
			{Role: "user", Content: "weather in Paris?"},
			{Role: "assistant", Calls: []Call{{ID: "c1", Name: "get_weather"}}},
			{Role: "tool", ToolCallID: "c1", Content: "18C"},
		},
	}
	tests := []struct {
		name   string
		expect Expect
		want   []string // in the error; none means a match
	}{
		{name: "zero", expect: Expect{}},
		{name: "all match", expect: Expect{Messages: 3, LastUser: "Paris", ToolResults: []string{"c1"}, Tools: []string{"search"}}},
		{name: "messages", expect: Expect{Messages: 5}, want: []string{"turn 1: the request does not match the turn's expect:\n\tmessages: got 3, want 5"}},
		{name: "last user", expect: Expect{LastUser: "Rome"}, want: []string{`last_user: got "weather in Paris?", want one containing "Rome"`}},
		{name: "tool result", expect: Expect{ToolResults: []string{"c1", "c2"}}, want: []string{`tool_results: got ["c1"], want ["c1","c2"] among them`}},
		{name: "tool offered", expect: Expect{Tools: []string{"calendar"}}, want: []string{`tools: got ["get_weather","search"], want ["calendar"] among them`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewModel(Script{Turns: []Turn{{Text: "ok", Expect: tt.expect}}})
			_, err := m.Stream(t.Context(), req)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Stream succeeded, want a mismatch")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%s\ndoes not contain %q", err, w)
				}
			}
			if cerr := m.Check(); cerr == nil || !strings.Contains(cerr.Error(), err.Error()) {
				t.Errorf("Check() = %v, want it to report %v", cerr, err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	s, err := Load("testdata/weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := NewModel(s)
	if _, err := m.Stream(t.Context(), Request{Messages: []Message{{Role: "user", Content: "weather?"}}, Tools: []Tool{{Name: "get_weather"}}}); err != nil {
		t.Fatal(err)
	}
	err = m.Check()
	if err == nil || !strings.Contains(err.Error(), "testdata/weather.yaml:16: turn 2 was never used: 1 request for 2 turns") {
		t.Errorf("Check() = %v, want turn 2 unused with file:line", err)
	}

	m2 := NewModel(Script{Turns: []Turn{{Text: "only"}}})
	collect(t, m2, userRequest("one"))
	if _, err := m2.Stream(t.Context(), userRequest("two")); err == nil || !strings.Contains(err.Error(), `request 2 is unexpected: the script has 1 turn (last user message "two")`) {
		t.Errorf("extra request: %v", err)
	}
	if err := m2.Check(); err == nil || !strings.Contains(err.Error(), "request 2 is unexpected") {
		t.Errorf("Check() = %v, want the unexpected request", err)
	}
}

// TestIndependent: models from one script do not share a position.
func TestIndependent(t *testing.T) {
	s := Script{Turns: []Turn{{Text: "one"}, {Text: "two"}}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			m := NewModel(s)
			for _, want := range []string{"one", "two"} {
				seq, err := m.Stream(context.Background(), userRequest("x"))
				if err != nil {
					t.Error(err)
					return
				}
				var got string
				for c := range seq {
					got += c.Text
				}
				if got != want {
					t.Errorf("got %q, want %q", got, want)
				}
			}
			if err := m.Check(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func TestNativeFaults(t *testing.T) {
	turn := func(f Fault) Script {
		return Script{Turns: []Turn{{Text: "abcdefghijklmnop", Fault: &f}}} // 2 text chunks, finish, usage
	}
	t.Run("status", func(t *testing.T) {
		m := NewModel(turn(Fault{Kind: FaultStatus, Status: 429, RetryAfter: "3"}))
		_, err := m.Stream(t.Context(), userRequest("x"))
		var se *StatusError
		if !errors.As(err, &se) || se.Status != 429 || se.RetryAfter != "3" || !strings.Contains(string(se.Body), `"code":"rate_limit_exceeded"`) {
			t.Errorf("err = %v, want a 429 StatusError", err)
		}
	})
	run := func(t *testing.T, ctx context.Context, f Fault) (texts []string, errs []error) {
		m := NewModel(turn(f))
		seq, err := m.Stream(ctx, userRequest("x"))
		if err != nil {
			t.Fatal(err)
		}
		for c, err := range seq {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			texts = append(texts, c.Text)
		}
		return texts, errs
	}
	t.Run("disconnect", func(t *testing.T) {
		texts, errs := run(t, t.Context(), Fault{Kind: FaultDisconnect, After: 1})
		if len(texts) != 1 || len(errs) != 1 || !errors.Is(errs[0], io.ErrUnexpectedEOF) {
			t.Errorf("got %q and %v, want one chunk then ErrDisconnect", texts, errs)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		texts, errs := run(t, t.Context(), Fault{Kind: FaultMalformed, After: 1})
		if len(texts) != 4 || len(errs) != 1 || errs[0] != ErrMalformed {
			t.Errorf("got %q and %v, want all 4 chunks and one ErrMalformed", texts, errs)
		}
	})
	t.Run("stall", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		m := NewModel(turn(Fault{Kind: FaultStall, After: 2}))
		seq, _ := m.Stream(ctx, userRequest("x"))
		n := 0
		for _, err := range seq {
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("stall ended with %v, want context.Canceled", err)
				}
				break
			}
			n++
			if n == 2 {
				cancel() // the client gives up
			}
		}
		if n != 2 {
			t.Errorf("got %d chunks before the stall, want 2", n)
		}
	})
}

func TestVirtualClock(t *testing.T) {
	clk := new(clock.Virtual)
	s := Script{Clock: clk, Plan: Plan{First: Duration(time.Second), Every: Duration(50 * time.Millisecond)}, Turns: []Turn{{Text: "abcdefghijklmnopqrstuvwx"}}}
	m := NewModel(s)
	start := time.Now()
	_, chunks := collect(t, m, userRequest("x"))
	// 3 text chunks, finish and usage: 1s + 4*50ms.
	if got, want := clk.Elapsed(), time.Second+4*50*time.Millisecond; got != want || len(chunks) != 5 {
		t.Errorf("virtual time %v over %d chunks, want %v over 5", got, len(chunks), want)
	}
	if !clk.Now().Equal(clock.Epoch.Add(clk.Elapsed())) {
		t.Errorf("Now() = %v", clk.Now())
	}
	if real := time.Since(start); real > 500*time.Millisecond {
		t.Errorf("the virtual clock slept for real: %v", real)
	}
}

func TestNewModelPanicsOnInvalid(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "turn 1: call 1 has no name") {
			t.Errorf("recover() = %v, want a panic naming the problem", r)
		}
	}()
	NewModel(Script{Turns: []Turn{{Calls: []Call{{}}}}})
}

// TestRetainRequests: a long-running server keeps only the requests it is
// told to, and counts them all.
func TestRetainRequests(t *testing.T) {
	s := Script{Turns: []Turn{{Text: "a"}, {Text: "b"}, {Text: "c"}}}
	for _, n := range []int{0, 2, -1} {
		m := NewModel(s)
		m.RetainRequests(n)
		for i := range 3 {
			if _, err := m.take(Request{Model: fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
		}
		want := map[int]int{0: 0, 2: 2, -1: 3}[n]
		if got := m.Requests(); len(got) != want || m.Received() != 3 || (want > 0 && got[len(got)-1].Model != "2") {
			t.Errorf("RetainRequests(%d): kept %v, received %d", n, got, m.Received())
		}
		if err := m.Check(); err != nil {
			t.Errorf("RetainRequests(%d): %v", n, err)
		}
	}
}
