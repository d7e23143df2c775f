package replay

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/aguitest/aguitest/recorder"
)

// indexedFile is a recording read by Index: its path and the end of its
// header line.
type indexedFile struct {
	path   string
	header int64
}

// runPlace is where a run is in its file: from the line after the record
// before its first (line is that record's line) to the end of its last.
type runPlace struct {
	file       *indexedFile
	start, end int64
	line       int
	events     int
}

// Index reads the recording at path as Load does, but keeps of each run
// only where it is in the file, its request and its end: the runs hold no
// Events, Exchanges or Gaps, and a Server (Handler, Stream) reads each
// run's events from the file as it serves them. Memory holds the runs'
// requests, not the recording; the file must not change while it is
// served.
func Index(path string) (*Recording, error) {
	r, err := recorder.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rec := &Recording{Name: r.Name()}
	for run, err := range runs(r, &indexedFile{path: path}) {
		if err != nil {
			if r.Err() != nil {
				return nil, err
			}
			rec.Problems = append(rec.Problems, err)
			continue
		}
		rec.Runs = append(rec.Runs, run)
	}
	rec.Truncated = r.Truncated()
	return rec, nil
}

// each hands fn the run's events in order: those it holds, or for a run
// of Index, those read from its file.
func (run *Run) each(fn func(i int, e Event) error) error {
	if run.at == nil {
		for i, e := range run.Events {
			if err := fn(i, e); err != nil {
				return err
			}
		}
		return nil
	}
	p := run.at
	f, err := os.Open(p.file.path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, p.file.header)
	if _, err := io.ReadFull(f, head); err != nil {
		return fmt.Errorf("%s: %w", p.file.path, err)
	}
	rd := recorder.NewReader(io.MultiReader(bytes.NewReader(head), io.NewSectionReader(f, p.start, p.end-p.start)), p.file.path)
	i := 0
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if rd.Err() != nil {
				return err
			}
			continue // said when the file was indexed
		}
		if rec.Kind != recorder.KindEvent || rec.Run != run.ID {
			continue
		}
		// The reader's line 2 is the file's line after p.line.
		ev := Event{Offset: rec.Offset, Line: rec.Line - 1 + p.line, Frame: rec.Frame}
		if e, err := rec.EventOf(); err != nil {
			ev.Data = rec.Data
		} else {
			ev.Event = e
		}
		if err := fn(i, ev); err != nil {
			return err
		}
		i++
	}
	if i != p.events {
		return fmt.Errorf("%s: run %s: %d events served of %d indexed: the file changed", p.file.path, run.ID, i, p.events)
	}
	return nil
}
