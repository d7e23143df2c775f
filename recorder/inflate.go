package recorder

import (
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
)

// An inflater decodes a compressed response (Content-Encoding gzip or
// deflate) fed to it in pieces, as the client's transport decodes it.
// The decompressors of the standard library pull their input, so each
// runs on a goroutine of its own, in lock step with the caller: feed hands
// it a piece and returns once everything that piece yields has been given
// to emit and the decoder waits for more. It never runs while the caller
// does.
type inflater struct {
	in  chan []byte
	out chan inflated
	// waiting says the decoder is blocked for input.
	waiting bool
	done    bool
	err     error
}

type inflated struct {
	data []byte
	need bool  // the decoder wants more input
	done bool  // the decoder stopped (err says why, nil at the end)
	err  error // a corrupt stream
}

// decodable reports whether the recorder decodes a Content-Encoding.
func decodable(enc string) bool {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "gzip", "x-gzip", "deflate":
		return true
	}
	return false
}

// identity reports whether a Content-Encoding leaves the body as it is.
func identity(enc string) bool {
	enc = strings.ToLower(strings.TrimSpace(enc))
	return enc == "" || enc == "identity"
}

func newInflater(enc string) *inflater {
	z := &inflater{in: make(chan []byte), out: make(chan inflated)}
	go z.run(strings.ToLower(strings.TrimSpace(enc)))
	return z
}

// feedReader hands the decoder what feed gives, asking for more when it
// has none.
type feedReader struct {
	z   *inflater
	buf []byte
}

func (r *feedReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		r.z.out <- inflated{need: true}
		b, ok := <-r.z.in
		if !ok {
			return 0, io.EOF
		}
		r.buf = b
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

func (z *inflater) run(enc string) {
	src := &feedReader{z: z}
	var dec io.Reader
	var err error
	if enc == "deflate" {
		dec, err = zlib.NewReader(src)
	} else {
		dec, err = gzip.NewReader(src)
	}
	if err == nil {
		buf := make([]byte, 32<<10)
		for {
			var n int
			n, err = dec.Read(buf)
			if n > 0 {
				z.out <- inflated{data: append([]byte(nil), buf[:n]...)}
			}
			if err != nil {
				break
			}
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The end, or a stream cut short: the outcome says that.
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("the response's %s encoding cannot be decoded: %v", enc, err)
	}
	// Drain what is still fed, so that the caller never blocks.
	go func() {
		for range z.in {
		}
	}()
	z.out <- inflated{done: true, err: err}
}

// wait passes decoded data to emit until the decoder wants input or stops.
func (z *inflater) wait(emit func([]byte)) {
	for !z.waiting && !z.done {
		v := <-z.out
		switch {
		case v.need:
			z.waiting = true
		case v.done:
			z.done, z.err = true, v.err
		default:
			emit(v.data)
		}
	}
}

// feed decodes p, passing what it yields to emit.
func (z *inflater) feed(p []byte, emit func([]byte)) {
	z.wait(emit)
	if z.done {
		return
	}
	z.waiting = false
	z.in <- p
	z.wait(emit)
}

// close ends the input and passes what is left to emit. It returns the
// decoder's error: a corrupt or cut stream.
func (z *inflater) close(emit func([]byte)) error {
	z.wait(emit)
	if !z.done {
		close(z.in)
		z.waiting = false
		z.wait(emit)
	} else {
		close(z.in)
	}
	return z.err
}
