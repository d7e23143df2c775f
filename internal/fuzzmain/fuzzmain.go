// Package fuzzmain is the TestMain of the packages with fuzz targets.
//
// Go's fuzzer minimizes every new input it finds for up to
// -fuzzminimizetime, a minute by default, and reports no progress meanwhile.
// On this module's targets a minimization rarely finishes in that minute,
// so a run of a few minutes spent most of its time minimizing: FuzzVerify
// made 3,184 executions in two minutes. A time limit still stalls the
// slower targets (FuzzVerifyGrammar stood still 5 s for each new input: 6,195
// executions and 15 new inputs in a minute), so Run sets a count instead,
// 100 executions per minimization (23,171 executions and 77 new inputs in
// that minute), when fuzzing, unless the flag is given.
package fuzzmain

import (
	"flag"
	"testing"
)

// Run parses the test flags, bounds minimization to 100 executions when
// fuzzing, and runs the tests: TestMain(m) { os.Exit(fuzzmain.Run(m)) }.
func Run(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		given := false
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "test.fuzzminimizetime" {
				given = true
			}
		})
		if !given {
			_ = flag.Set("test.fuzzminimizetime", "100x")
		}
	}
	return m.Run()
}
