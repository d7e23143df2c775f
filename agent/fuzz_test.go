package agent_test

import (
	"testing"

	"github.com/aguitest/aguitest/agent"
	"github.com/aguitest/aguitest/agui"
)

// FuzzTurn feeds a Turn arbitrary provider deltas (text, reasoning, call
// deltas with any index, id and argument bytes, calls completed or not) in
// either mode, and ends the run as an agent would: Finish when the turn
// completed, Fail otherwise. Whatever happened, nothing panics and the
// events sent, ended that way, conform to the Strict profile.
func FuzzTurn(f *testing.F) {
	f.Add([]byte("\x00hi\x02\x00g\x03{\"a\"\x02\x01r\x03:1}\x04\x00"), false)
	f.Add([]byte("\x01think\x02\x00a\x03{\x02\x01b\x03[\x02\x00\x00\x03}\x02\x01\x00\x03]"), true)
	f.Add([]byte("\x00\xe6\x9d\x02\x00x\x03\"\xe4\xba\x00\xac\""), false)
	f.Fuzz(func(t *testing.T, script []byte, buffered bool) {
		var events []agui.Event
		run, err := agent.Start(agui.RunAgentInput{ThreadID: "t", RunID: "r"}, func(e agui.Event) error {
			events = append(events, e)
			return nil
		}, agent.Options{})
		if err != nil {
			t.Fatal(err)
		}
		turn := run.Turn(agent.TurnOptions{Buffered: buffered, ProviderIDs: len(script)%3 == 0})
		failed := false
		// The script is a sequence of ops: an op byte, then for calls an
		// index byte (0xff: none) and an id byte, then text up to the
		// next byte below 0x05.
		for len(script) > 0 && !failed {
			op := script[0] % 5
			script = script[1:]
			index, id := -1, ""
			if op >= 2 && len(script) >= 2 {
				if script[0] != 0xff {
					index = int(script[0] % 4)
				}
				if script[1]%2 == 1 {
					id = "id" + string('a'+rune(script[1]%4))
				}
				script = script[2:]
			}
			n := 0
			for n < len(script) && script[n] >= 0x05 {
				n++
			}
			text := string(script[:n])
			script = script[n:]
			switch op {
			case 0:
				err = turn.Text(text)
			case 1:
				err = turn.Reasoning(text)
			case 2, 3:
				err = turn.Call(agent.CallDelta{Index: index, ID: id, Name: "tool", Args: text})
			case 4:
				err = turn.CallDone(agent.CallDelta{Index: index, ID: id})
			}
			failed = err != nil
		}
		if !failed {
			_, err = turn.End()
			failed = err != nil
		}
		if !failed {
			failed = run.Finish() != nil
		}
		if failed {
			if err := run.Fail("the answer could not be sent", ""); err != nil && !run.Ended() {
				t.Fatalf("Fail: %v", err)
			}
		}
		if vs := agui.Verify(events, agui.Options{}); len(vs) > 0 {
			t.Errorf("the events sent do not conform: %v\n%v", vs, events)
		}
	})
}
