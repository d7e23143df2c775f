package scripted

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/aguitest/aguitest/internal/eventstream"
)

// wireEvents splits a wire's stream into the JSON texts of its events, as
// a client reads them: the data of each server-sent event, the payload of
// each eventstream message (Bedrock, after its CRCs are checked), each
// line of newline-delimited JSON (Ollama), the elements of no JSON array
// (callers give those whole). "[DONE]" is left out.
func wireEvents(w Wire, stream []byte) ([]string, error) {
	var out []string
	switch w {
	case WireBedrock:
		for len(stream) > 0 {
			m, n, err := eventstream.Decode(stream)
			if err != nil {
				if errors.Is(err, eventstream.ErrShort) {
					return out, fmt.Errorf("%d bytes after the last message", len(stream))
				}
				return out, err
			}
			out = append(out, string(m.Payload))
			stream = stream[n:]
		}
		return out, nil
	case WireOllama:
		for _, line := range strings.Split(string(stream), "\n") {
			if line != "" {
				out = append(out, line)
			}
		}
		return out, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(strings.TrimSuffix(sc.Text(), "\r"), "data: ")
		if ok && data != "[DONE]" {
			out = append(out, data)
		}
	}
	return out, sc.Err()
}
