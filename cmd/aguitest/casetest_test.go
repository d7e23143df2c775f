package main

import (
	"strings"
	"testing"

	"github.com/aguitest/aguitest/conform"
)

// The format "aguitest test --help" shows is a case file that reads.
func TestTestUsageFormat(t *testing.T) {
	_, rest, ok := strings.Cut(testUsage, "the format, in short:\n\n")
	if !ok {
		t.Fatal("the usage shows no format")
	}
	block, _, _ := strings.Cut(rest, "\n\nThe agent, its checks")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "  "))
	}
	if _, err := conform.ParseCases("usage", []byte(strings.Join(lines, "\n"))); err != nil {
		t.Errorf("the usage's format does not read:\n%v", err)
	}
}
