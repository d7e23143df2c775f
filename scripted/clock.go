package scripted

import (
	"context"
	"sync"
	"time"
)

// A Clock paces the delays of a plan. Sleep returns early with the
// context's error when the context ends first.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// Epoch is where a [VirtualClock] starts: the fixed instant also used as
// the "created" time of every completion.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// A VirtualClock never sleeps: Sleep moves its time forward and returns at
// once. The zero value starts at [Epoch]. It is safe for concurrent use.
type VirtualClock struct {
	mu      sync.Mutex
	elapsed time.Duration
}

// Now returns Epoch plus all the time slept so far.
func (c *VirtualClock) Now() time.Time { return Epoch.Add(c.Elapsed()) }

// Elapsed returns the total time slept so far.
func (c *VirtualClock) Elapsed() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.elapsed
}

// Sleep adds d to the clock's time without waiting.
func (c *VirtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.elapsed += d
	c.mu.Unlock()
	return nil
}

// RealClock sleeps for real; use it to serve a script to a person or to an
// agent whose timeouts are under test.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx ends.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
