package conform_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aguitest/aguitest/conform"
)

// The package documentation's table of the battery lists every scenario,
// in order, and nothing else.
func TestDocListsTheBattery(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^//\t([a-z0-9-]+)(/NAME)?  `).FindAllStringSubmatch(string(b), -1) {
		got = append(got, m[1])
	}
	var want []string
	for _, n := range conform.Names {
		want = append(want, string(n))
	}
	assert.Equal(t, want, got)
	var battery []string
	for _, s := range conform.Battery(conform.Config{}) {
		battery = append(battery, strings.SplitN(s.Name, "/", 2)[0])
	}
	assert.Equal(t, want, battery, "Battery's order")
}
