package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws a one-line progress bar for long inputs, on standard error
// when it is a terminal; piped or redirected, it draws nothing. The verify
// command can wrap each input with Reader:
//
//	p := newProgress(stderr, totalBytes)
//	in = p.Reader(in, name)
//	...
//	p.Done()
type progress struct {
	w     io.Writer
	on    bool
	total int64 // bytes of all inputs; 0 when unknown
	done  int64
	label string
	now   func() time.Time
	last  time.Time
}

// minProgressBytes is the input size below which no bar is drawn: small
// inputs are verified before a bar would be seen.
const minProgressBytes = 8 << 20

// newProgress returns a bar for total bytes written to w. It is off unless
// w is a terminal and total is at least minProgressBytes.
func newProgress(w io.Writer, total int64) *progress {
	p := &progress{w: w, total: total, now: time.Now}
	if f, ok := w.(*os.File); ok && total >= minProgressBytes {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

// Reader returns r counting what is read from it under label.
func (p *progress) Reader(r io.Reader, label string) io.Reader {
	if !p.on {
		return r
	}
	p.label = label
	return &progressReader{r: r, p: p}
}

type progressReader struct {
	r io.Reader
	p *progress
}

func (pr *progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.add(int64(n))
	return n, err
}

func (p *progress) add(n int64) {
	p.done += n
	if t := p.now(); t.Sub(p.last) >= 100*time.Millisecond {
		p.last = t
		p.draw()
	}
}

func (p *progress) draw() {
	const width = 30
	frac := 0.0
	if p.total > 0 {
		frac = min(float64(p.done)/float64(p.total), 1)
	}
	full := int(frac * width)
	fmt.Fprintf(p.w, "\r[%s%s] %3.0f%% %s\x1b[K", strings.Repeat("#", full), strings.Repeat(" ", width-full), frac*100, clip(p.label, 40))
}

// Done clears the bar's line.
func (p *progress) Done() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
