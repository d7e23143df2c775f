package scripted

import (
	"os"
	"strings"
	"testing"
)

// TestDocExample: the example file in the package doc loads.
func TestDocExample(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(src), "// # File format")
	var yaml strings.Builder
	for _, line := range strings.Split(after, "\n") {
		if l, ok := strings.CutPrefix(line, "//\t"); ok {
			yaml.WriteString(l + "\n")
		}
	}
	s, err := Parse("doc.go example", []byte(yaml.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, yaml.String())
	}
	if len(s.Turns) != 6 || s.Turns[4].Generate == nil {
		t.Errorf("%d turns, want 6, the fifth generating calls", len(s.Turns))
	}
}
