package clock_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aguitest/aguitest/clock"
)

func TestReal(t *testing.T) {
	var c clock.Clock = clock.Real{}
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
	if _, ok := clock.Or(nil).(clock.Real); !ok {
		t.Errorf("Or(nil) is not the real clock")
	}
}

func TestVirtual(t *testing.T) {
	var v clock.Virtual
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := v.Sleep(ctx, time.Second); !errors.Is(err, context.Canceled) || v.Elapsed() != 0 {
		t.Errorf("Sleep on a cancelled context = %v, elapsed %v", err, v.Elapsed())
	}
	if err := v.Sleep(t.Context(), -time.Second); err != nil || v.Elapsed() != 0 {
		t.Errorf("Sleep of a negative duration = %v, elapsed %v", err, v.Elapsed())
	}
	if clock.Or(&v) != clock.Clock(&v) {
		t.Errorf("Or changed a clock")
	}
}

// A virtual clock's time moves only when something sleeps on it.
func ExampleVirtual() {
	var c clock.Virtual
	start := c.Now()
	_ = c.Sleep(context.Background(), 90*time.Second) // returns at once
	fmt.Println(c.Now().Sub(start), c.Now().Equal(clock.Epoch.Add(c.Elapsed())))
	// Output: 1m30s true
}
