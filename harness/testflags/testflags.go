// Package testflags registers, in a test binary, the command-line flags of
// tests that run harness cases:
//
//	-update               rewrite the golden files (goldie's flag, which golden.Update reads)
//	-aguitest.explore=N   run N plans for every explored case (harness.FlagPlans)
//	-aguitest.seed=S      draw their random plans from seed S (harness.FlagSeed)
//
// Import it for its side effect in one _test.go file of each package whose
// tests take them:
//
//	import _ "github.com/aguitest/aguitest/harness/testflags"
//
// and then, so that CI runs a small budget and a nightly job a large one:
//
//	go test ./... -update
//	go test -run TestAgent ./agent -args -aguitest.explore=500 -aguitest.seed=7
//
// The harness reads the flags with flag.Lookup, so a program that does not
// import this package (the aguitest command) has none of them.
package testflags

import (
	"flag"

	_ "github.com/sebdah/goldie/v2" // registers -update

	"github.com/aguitest/aguitest/harness"
)

func init() {
	flag.Uint64(harness.FlagPlans, 0, "how many plans every explored case runs besides its own (0: the case's Explore.Plans, or harness.DefaultPlans)")
	flag.Uint64(harness.FlagSeed, 0, "the seed of the random plans of every explored case (0: the case's Explore.Seed, or 1)")
}
