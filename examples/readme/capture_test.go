package readme_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/recorder"
	"github.com/aguitest/aguitest/replay"
)

// capture is README's snippet for recording production traffic; it is
// compiled here so that the snippet stays true.
func capture(mux *http.ServeMux, agent http.Handler) {
	h := recorder.Middleware(agent, recorder.Config{
		Dir:    "recordings",                 // one file per run
		Sample: recorder.Fraction(0.05, nil), // 5% of the requests
		Redact: recorder.Redact{Pointers: []string{"/forwardedProps/user/email"}},
	})
	mux.Handle("/agent", h)
}

// check is README's snippet for checking recorded runs offline.
func check(w io.Writer, path string) error {
	rec, err := replay.Load(path)
	if err != nil {
		return err
	}
	for _, run := range rec.Runs {
		for _, v := range agui.Verify(run.AGUIEvents(), agui.Options{}) {
			fmt.Fprintf(w, "%s: run %s: %v\n", path, run.ID, v)
		}
	}
	return nil
}

func TestCheckRecording(t *testing.T) {
	var _, _ = capture, verify
	var out strings.Builder
	if err := check(&out, "../../recorder/testdata/weather.jsonl"); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("got violations in a recording that conforms:\n%s", out.String())
	}
}

// verify is the Go snippet of README's "Checking a stream".
func verify(events []agui.Event) {
	v := agui.NewVerifier(agui.Options{}) // Strict, chunks expanded as a client does
	for _, e := range events {
		for _, violation := range v.Push(e) {
			fmt.Println(violation)
		}
	}
	v.Finish()
}
