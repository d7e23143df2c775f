package fullduplex_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aguitest/aguitest/internal/fullduplex"
)

// readsAfterAnswer begins its answer, then reads the request's body, as a
// reverse proxy's transport does when the upstream answers before the
// transport's last read of the body (the read that sees it end); it
// answers with what it read, or the read's error.
func readsAfterAnswer(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "data: first\n\n")
	w.(http.Flusher).Flush()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		io.WriteString(w, "data: "+err.Error()+"\n\n")
		return
	}
	io.WriteString(w, "data: "+string(b)+"\n\n")
}

func post(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"runId":"r"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Served through Handler, the body is still there once the answer has
// begun: a proxy's transport reads it to its end and the stream it relays
// goes on.
func TestHandlerLeavesTheBodyOpen(t *testing.T) {
	got := post(t, fullduplex.Handler(http.HandlerFunc(readsAfterAnswer)))
	if want := "data: first\n\ndata: {\"runId\":\"r\"}\n\n"; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
}

// Served bare, an HTTP/1 server has closed the body by then: the read a
// proxy's transport makes there fails, it drops its connection upstream
// and cuts the stream. This is what Handler is for; if net/http ever
// leaves the body open (golang/go#40747), this fails and Handler may go.
func TestBareHandlerFindsTheBodyClosed(t *testing.T) {
	got := post(t, http.HandlerFunc(readsAfterAnswer))
	if want := "data: first\n\ndata: " + http.ErrBodyReadAfterClose.Error() + "\n\n"; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
}
