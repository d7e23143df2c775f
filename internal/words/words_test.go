package words

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "0 entries"},
		{1, "1 entry"},
		{2, "2 entries"},
		{-1, "-1 entry"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Count(tt.n, "entry", "entries"))
	}
}

func TestNearest(t *testing.T) {
	fields := []string{"toolCallId", "toolCallName", "parentMessageId", "type", "timestamp"}
	types := []string{"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK"}
	tests := []struct {
		name, word string
		cands      []string
		want       string
	}{
		{"case", "parentMessageID", fields, "parentMessageId"},
		{"extra letter", "TEXT_MESSAGE_CHUNKS", types, "TEXT_MESSAGE_CHUNK"},
		{"swap", "toolCalId", fields, "toolCallId"},
		{"transposition", "tpye", fields, "type"},
		{"short word, one edit", "typ", fields, "type"},
		{"short word, two edits", "tp", fields, ""},
		{"far", "weather", fields, ""},
		{"itself", "type", fields, ""},
		{"snake case", "tool_call_id", fields, "toolCallId"},
		{"empty", "", fields, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Nearest(tt.word, tt.cands); got != tt.want {
				t.Errorf("Nearest(%q) = %q, want %q", tt.word, got, tt.want)
			}
		})
	}
}

func TestDidYouMean(t *testing.T) {
	if got, want := DidYouMean("tool", []string{"tools", "name"}), " (did you mean tools?)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := DidYouMean("zzz", []string{"tools"}); got != "" {
		t.Errorf("got %q, want none", got)
	}
}
