package agui

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDraftRules: Strict rejects what AG-UI's draft conformance rejects
// (each case names its upstream fixture under spec/draft/conformance/
// streams of ag-ui-protocol/ag-ui); the reference profile, as today's
// client, accepts it.
func TestDraftRules(t *testing.T) {
	tests := []struct {
		name    string // the upstream fixture
		stream  []string
		want    []brief
		message string // a part of the first violation's message
	}{
		{
			name: "duplicate-interrupt-id-fatal",
			stream: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[` +
					`{"id":"i1","reason":"approval","message":"first"},{"id":"i1","reason":"approval","message":"second"}]}}`,
			},
			want:    []brief{{1, "duplicate-interrupt-id"}},
			message: "two interrupts with the id 'i1'",
		},
		{
			name: "run-finished-wrong-run-id-fatal",
			stream: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r-opened"}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r-other","outcome":{"type":"success"}}`,
			},
			want:    []brief{{1, "run-id-mismatch"}},
			message: "runId 'r-other', but the run it closes started as 'r-opened'",
		},
		{
			name: "run-finished-wrong-thread-id-fatal",
			stream: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
				`{"type":"RUN_FINISHED","threadId":"t-other","runId":"r","outcome":{"type":"success"}}`,
			},
			want:    []brief{{1, "thread-id-mismatch"}},
			message: "threadId 't-other', but the run it closes started on thread 't'",
		},
		{
			name: "second-run-on-another-thread-fatal",
			stream: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"success"}}`,
				`{"type":"RUN_STARTED","threadId":"t-other","runId":"r2"}`,
				`{"type":"RUN_FINISHED","threadId":"t-other","runId":"r2","outcome":{"type":"success"}}`,
			},
			want:    []brief{{2, "thread-id-mismatch"}},
			message: "the stream's first run is on thread 't'",
		},
		{
			name: "several runs on one thread, distinct interrupts (no fixture: fine)",
			stream: []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"interrupt","interrupts":[` +
					`{"id":"i1","reason":"approval"},{"id":"i2","reason":"approval"}]}}`,
				`{"type":"RUN_STARTED","threadId":"t","runId":"r2"}`,
				`{"type":"RUN_ERROR","message":"boom"}`,
				`{"type":"RUN_STARTED","threadId":"t","runId":"r3"}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r3"}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stream := events(t, tt.stream...)
			if got := Verify(stream, Options{Profile: Reference, Client: ClientV100}); len(got) != 0 {
				t.Errorf("reference: got %v, want none (today's client accepts it)", got)
			}
			got := Verify(stream, Options{Client: ClientV100})
			if diff := cmp.Diff(tt.want, briefs(got)); diff != "" {
				t.Fatalf("strict (-want +got):\n%s\n%v", diff, got)
			}
			if tt.message != "" && !strings.Contains(got[0].Message, tt.message) {
				t.Errorf("got %q, want it to say %q", got[0].Message, tt.message)
			}
			var allow []Rule
			for _, b := range tt.want {
				allow = append(allow, Rule(b.Rule))
			}
			if got := Verify(stream, Options{Client: ClientV100, Allow: allow}); len(got) != 0 {
				t.Errorf("waived: got %v", got)
			}
		})
	}
}
