package main

import "github.com/aguitest/aguitest/agui"

// A viewFeed applies events to a client's view on a goroutine of its own,
// so that show builds the view on one core while it reads, verifies and
// prints on the others. Events go in batches; sync waits until the view
// has applied every event sent, after which the caller may read the view
// until it sends more.
type viewFeed struct {
	v     *agui.View
	batch []agui.Event
	work  chan []agui.Event // nil: a sync
	free  chan []agui.Event // applied batches, to fill again
	acked chan struct{}
	open  bool
	// stopped is the goroutine's: the view returned an error, and the
	// client's pipeline stops there (it holds what it held).
	stopped bool
}

// feedBatch is how many events go to the view at a time.
const feedBatch = 512

func newViewFeed(v *agui.View) *viewFeed {
	f := &viewFeed{v: v, work: make(chan []agui.Event, 4), free: make(chan []agui.Event, 6), acked: make(chan struct{}), open: true}
	go f.run()
	return f
}

func (f *viewFeed) run() {
	for b := range f.work {
		if b == nil {
			f.acked <- struct{}{}
			continue
		}
		for i := range b {
			if !f.stopped && f.v.Apply(b[i]) != nil {
				f.stopped = true
			}
			b[i] = agui.Event{}
		}
		select {
		case f.free <- b[:0]:
		default:
		}
	}
	close(f.acked)
}

// apply sends e to the view.
func (f *viewFeed) apply(e agui.Event) {
	if f.batch == nil {
		select {
		case f.batch = <-f.free:
		default:
			f.batch = make([]agui.Event, 0, feedBatch)
		}
	}
	f.batch = append(f.batch, e)
	if len(f.batch) == feedBatch {
		f.work <- f.batch
		f.batch = nil
	}
}

// sync waits until the view has applied every event sent.
func (f *viewFeed) sync() {
	if !f.open {
		return
	}
	if len(f.batch) > 0 {
		f.work <- f.batch
		f.batch = nil
	}
	f.work <- nil
	<-f.acked
}

// close syncs and ends the goroutine; the view is the caller's again.
func (f *viewFeed) close() {
	if !f.open {
		return
	}
	f.sync()
	close(f.work)
	<-f.acked
	f.open = false
}
