package golden

import (
	"bytes"
	"testing"

	"github.com/aguitest/aguitest/agui"
)

// FuzzNormalize turns arbitrary event sequences (one JSON object per line)
// into both views, as each client version reads them. Nothing may panic; the golden text reads back; the
// merged view is the same on a second pass.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" +
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}` + "\n" +
			`{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","parentMessageId":"m","delta":"{}"}` + "\n" +
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"b"}` + "\n" +
			`{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":"ok"}` + "\n" +
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1}]}` + "\n" +
			`{"type":"STATE_SNAPSHOT","snapshot":{"a":[1]}}` + "\n" +
			`{"type":"STATE_DELTA","delta":[{"op":"move","from":"","path":"/a/0"}]}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"x"}]}}` + "\n" +
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{"}}]}]}` + "\n" +
			`{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"g"}` + "\n" +
			`{"type":"TOOL_CALL_RESULT","messageId":"c2","toolCallId":"c","content":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var evs []agui.Event
		for _, line := range bytes.Split(data, []byte("\n")) {
			if e, err := agui.ParseEvent(line); err == nil {
				evs = append(evs, e)
			}
		}
		for _, c := range []agui.Client{agui.ClientV100, agui.ClientV0059} {
			n := Normalizer{Client: c}
			for _, v := range []View{Wire, Merged} {
				text := Marshal(n.Normalize(evs, v))
				if _, err := Parse(text); err != nil {
					t.Fatalf("%s view, client %s: the golden text does not read back: %v\n%s", v, c, err, text)
				}
				if again := Marshal(n.Normalize(evs, v)); !bytes.Equal(text, again) {
					t.Fatalf("%s view, client %s, is not deterministic:\n%s\n%s", v, c, text, again)
				}
			}
		}
	})
}
