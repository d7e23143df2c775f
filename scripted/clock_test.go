package scripted

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRealClock(t *testing.T) {
	var c Clock = RealClock{}
	if err := c.Sleep(t.Context(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v, want context.Canceled", err)
	}
	if d := time.Since(c.Now()); d < 0 || d > time.Minute {
		t.Errorf("Now() is %v away from the time", d)
	}
	var v VirtualClock
	if err := v.Sleep(ctx, time.Second); !errors.Is(err, context.Canceled) || v.Elapsed() != 0 {
		t.Errorf("virtual Sleep on a cancelled context = %v, elapsed %v", err, v.Elapsed())
	}
}
