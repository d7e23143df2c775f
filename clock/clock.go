// Package clock is the time aguitest's fakes and recorder are given: the
// real clock, or a virtual one that never sleeps, so that tests of timing
// run at full speed and give the same result every time.
//
// The scripted LLM paces its chunks on a Clock (scripted.Script.Clock,
// virtual by default); replay paces recorded timing on one
// (replay.Options.Clock, real by default); the recorder stamps offsets
// with one (recorder.Config.Clock, Sink.Clock, Transport.Clock, real by
// default).
package clock

import (
	"context"
	"sync"
	"time"
)

// A Clock tells the time and sleeps. Sleep returns early with the
// context's error when the context ends first.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// Or returns c, or the real clock when c is nil.
func Or(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}

// Epoch is where a [Virtual] clock starts: a fixed instant, also the
// "created" time of every completion the scripted LLM answers.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Virtual never sleeps: Sleep moves its time forward and returns at once.
// The zero value starts at [Epoch]. It is safe for concurrent use.
type Virtual struct {
	mu      sync.Mutex
	elapsed time.Duration
}

// Now returns Epoch plus all the time slept so far.
func (c *Virtual) Now() time.Time { return Epoch.Add(c.Elapsed()) }

// Elapsed returns the total time slept so far.
func (c *Virtual) Elapsed() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.elapsed
}

// Sleep adds d to the clock's time without waiting.
func (c *Virtual) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.elapsed += max(d, 0)
	c.mu.Unlock()
	return nil
}

// Real is the time of the machine: Sleep waits for real. Use it to serve
// a script to a person or to an agent whose timeouts are under test.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx ends.
func (Real) Sleep(ctx context.Context, d time.Duration) error {
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
