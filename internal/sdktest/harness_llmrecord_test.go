package sdktest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/harness"
	"github.com/aguitest/aguitest/replay"
	"github.com/aguitest/aguitest/scripted"
)

// anthropicEcho is an AG-UI agent on anthropic-sdk-go: it streams what the
// model says as one text message.
func anthropicEcho(baseURL string) http.Handler {
	client := anthropic.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in agui.RunAgentInput
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewSSEEncoder(w)
		enc.Encode(agui.NewRunStarted(in.ThreadID, in.RunID))
		stream := client.Messages.NewStreaming(r.Context(), anthropic.MessageNewParams{
			Model: "claude-test", MaxTokens: 100,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
		})
		id := "msg-" + in.RunID
		enc.Encode(agui.NewTextMessageStart(id))
		for stream.Next() {
			if ev := stream.Current(); ev.Type == "content_block_delta" && ev.Delta.Text != "" {
				enc.Encode(agui.NewTextMessageContent(id, ev.Delta.Text))
			}
		}
		enc.Encode(agui.NewTextMessageEnd(id))
		if err := stream.Err(); err != nil {
			enc.Encode(agui.NewRunError(err.Error(), ""))
			return
		}
		enc.Encode(agui.NewRunFinished(in.ThreadID, in.RunID))
	})
}

// TestRecordDirHoldsModelExchanges: a recorded case holds each run's
// provider exchanges, on the agent's wire; the provider replay serves them
// to the same agent, which emits the same events again, offline.
func TestRecordDirHoldsModelExchanges(t *testing.T) {
	recDir := t.TempDir()
	var got *harness.Result
	harness.Run(t, harness.Handler(func(env harness.Env) http.Handler {
		return anthropicEcho(env.BaseURL)
	}), []harness.Case{{
		Name:     "echo",
		Input:    harness.User("hi"),
		Script:   scripted.Script{Turns: []scripted.Turn{{Text: "Hello from Claude.", Plan: scripted.Plan{Split: scripted.Split{By: scripted.Words}}}}},
		NoGolden: true,
		Check:    func(t harness.T, r *harness.Result) { got = r },
	}}, harness.Options{RecordDir: recDir})
	require.NotNil(t, got)
	assert.Equal(t, scripted.WireAnthropic, got.Requests[0].Wire)

	rec, err := replay.Load(filepath.Join(recDir, t.Name(), "echo.jsonl"))
	require.NoError(t, err)
	require.Len(t, rec.Runs, 1)
	run := rec.Runs[0]
	require.Len(t, run.Exchanges, 1)
	ex := run.Exchanges[0]
	assert.True(t, strings.HasSuffix(ex.URL, "/v1/messages"), ex.URL)
	assert.Equal(t, 200, ex.Status)
	assert.NotEmpty(t, ex.Chunks)

	// Offline: the recorded exchanges stand in for the model.
	p := replay.NewProvider(rec.Exchanges(), replay.ProviderOptions{})
	defer p.Close()
	rr := httptest.NewRecorder()
	in, err := json.Marshal(agui.RunAgentInput{ThreadID: got.Runs[0].Input.ThreadID, RunID: got.Runs[0].Input.RunID})
	require.NoError(t, err)
	anthropicEcho(p.URL).ServeHTTP(rr, httptest.NewRequest("POST", "/", strings.NewReader(string(in))))
	require.NoError(t, p.Check())
	events, err := agui.ReadEvents(rr.Body)
	require.NoError(t, err)
	assert.Empty(t, replay.Diff(run.AGUIEvents(), events))
}
