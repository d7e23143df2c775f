package main

import (
	"fmt"
	"io"
)

// cmdLLM is replaced by the scripted package's work.
func cmdLLM(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "aguitest llm: not built yet")
	return 2
}
