package main

import (
	"fmt"
	"io"
)

func cmdVerify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "aguitest verify: not built yet")
	return 2
}
