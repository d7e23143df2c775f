package conform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/conform"
	"github.com/aguitest/aguitest/harness"
)

// asks reports whether a run's input holds the prompt of a scenario.
func asks(in agui.RunAgentInput, prompt string) bool {
	b, _ := json.Marshal(in.Messages)
	return bytes.Contains(b, []byte(prompt))
}

// The prompts of the text scenario and of the provider failures.
const (
	textPrompt  = "Say hello in a few languages."
	faultPrompt = "Find Ada Lovelace's number."
)

// The scenarios whose runs are mostly a wait on the model client's
// retries run while the others do, and the report, and OnResult, still
// have the battery's order: the text scenario's run here waits for a
// provider failure's run to start, which it would wait for in vain were
// the battery run one scenario after another.
func TestRetryScenariosRunAside(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	agent := harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		switch {
		case asks(in, faultPrompt):
			once.Do(func() { close(started) })
		case asks(in, textPrompt):
			select {
			case <-started:
			case <-time.After(5 * time.Second):
				return errors.New("no provider failure's run started while the text scenario ran")
			}
		}
		return refAgent{}.Run(ctx, env, in, emit)
	})
	cfg := refConfig
	cfg.Only = []string{"text", "follow-up", "provider-500", "provider-429", "provider-malformed"}
	var told []string
	cfg.OnResult = func(r conform.Result) { told = append(told, r.Name) }
	rep := conform.Run(t.Context(), agent, cfg)
	assert.NoError(t, rep.Err)
	var names []string
	for _, r := range rep.Results {
		names = append(names, r.Name)
		assert.Equal(t, conform.Pass, r.Status, "%s: %v", r.Name, r.Problems)
	}
	assert.Equal(t, []string{"text", "follow-up", "provider-500", "provider-429", "provider-malformed"}, names)
	assert.Equal(t, names, told, "OnResult is told of the results in the battery's order")
}

// With Explore.Parallel 1, no two scenarios' runs overlap.
func TestBatteryOneAtATime(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	agent := harness.Func(func(ctx context.Context, env harness.Env, in agui.RunAgentInput, emit func(agui.Event) error) error {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		defer func() {
			mu.Lock()
			running--
			mu.Unlock()
		}()
		if asks(in, faultPrompt) {
			time.Sleep(50 * time.Millisecond) // as a client's retries would
		}
		return refAgent{}.Run(ctx, env, in, emit)
	})
	cfg := refConfig
	cfg.Only = []string{"text", "provider-500", "provider-429", "state"}
	cfg.Explore = &harness.Explore{Parallel: 1}
	rep := conform.Run(t.Context(), agent, cfg)
	assert.NoError(t, rep.Err)
	assert.Len(t, rep.Results, 4)
	for _, r := range rep.Results {
		assert.Equal(t, conform.Pass, r.Status, "%s: %v", r.Name, r.Problems)
	}
	assert.Equal(t, 1, most, "runs at once")
}

// A server that cannot be started stops the battery at its first
// scenario, the scenarios run aside included: the report ends there.
func TestBatteryStopsWhenTheServerCannotStart(t *testing.T) {
	var told []string
	cfg := refConfig
	cfg.OnResult = func(r conform.Result) { told = append(told, r.Name) }
	rep := conform.Run(t.Context(), harness.Command(filepath.Join(t.TempDir(), "no-such-server")), cfg)
	if assert.Error(t, rep.Err) {
		assert.Contains(t, rep.Err.Error(), "no-such-server")
	}
	if assert.Len(t, rep.Results, 1) {
		assert.Equal(t, "text", rep.Results[0].Name)
		assert.Equal(t, conform.Fail, rep.Results[0].Status)
	}
	assert.Equal(t, []string{"text"}, told)
}
