// Command noflags lists the flags that a program importing the library's
// test-facing packages has: none, since they register theirs only in test
// binaries.
package main

import (
	"flag"
	"fmt"

	_ "github.com/aguitest/aguitest/conform"
	_ "github.com/aguitest/aguitest/golden"
	_ "github.com/aguitest/aguitest/harness"
)

func main() {
	flag.VisitAll(func(f *flag.Flag) { fmt.Println(f.Name) })
}
