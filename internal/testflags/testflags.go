// Package testflags is the one place that registers the command-line flags
// of test binaries that use package golden or package harness:
//
//	-update               rewrite the golden files of the tests that ran
//	-aguitest.explore=N   run N plans for every explored case
//	-aguitest.seed=S      draw their random plans from seed S
//
// golden and harness import it, so a test package that uses either has the
// flags with no import of its own: "go test ./... -update" works for the
// README's first example as it is pasted.
//
// The flags are registered only in a binary built by "go test" (see
// testBinary): the aguitest command and production programs that import
// golden or harness register no flag and link neither the testing package
// nor goldie.
//
// # goldie and other -update flags
//
// goldie (github.com/sebdah/goldie/v2) registers its own -update when it is
// linked, in its package initialisation, and so do gotest.tools/golden and
// many test packages by hand. Go's flag package panics when one name is
// registered twice ("flag redefined: update"), and a package that goldie
// would initialise after this one cannot be told about it beforehand: so
// when -update already exists as this package initialises, it is used as it
// is, and otherwise this package registers it. A test binary that links both
// this package and goldie fails at its start with that panic; keep goldie's
// tests in another package, or compare their files with golden.Check and
// golden.Update. The environment variable GOLDIE_UPDATE=1 (goldie's own)
// turns -update on for every package of a "go test ./..." run, including
// packages that use goldie instead.
package testflags

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The names of the flags.
const (
	UpdateName = "update"
	PlansName  = "aguitest.explore"
	SeedName   = "aguitest.seed"
)

func init() {
	if !testBinary(os.Args) {
		return
	}
	if flag.Lookup(UpdateName) == nil {
		flag.Bool(UpdateName, false, "rewrite the golden files of the tests that run (GOLDIE_UPDATE=1 does the same)")
	}
	if flag.Lookup(PlansName) == nil {
		flag.Uint64(PlansName, 0, "how many plans every explored case runs besides its own (0: the case's Explore.Plans, or harness.DefaultPlans)")
	}
	if flag.Lookup(SeedName) == nil {
		flag.Uint64(SeedName, 0, "the seed of the random plans of every explored case (0: the case's Explore.Seed, or 1)")
	}
}

// testBinary reports whether args are those of a binary built by "go test":
// go test runs it with -test.* flags (-test.paniconexit0, -test.timeout,
// always), and names it pkg.test (pkg.test.exe on Windows) when it is built
// with -c. The testing package knows for sure (testing.Testing), but
// importing it would link it into every program that imports golden.
func testBinary(args []string) bool {
	if len(args) == 0 {
		return false
	}
	name := strings.TrimSuffix(filepath.Base(args[0]), ".exe")
	if strings.HasSuffix(name, ".test") {
		return true
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-test.") || strings.HasPrefix(a, "--test.") {
			return true
		}
	}
	return false
}

// Update reports whether golden files are to be rewritten: the -update flag
// (whoever registered it), or GOLDIE_UPDATE set to a true value. It is false
// in a binary without the flag, such as the aguitest command, unless the
// variable is set. The variable is read on each call, so that "go test"
// caches a result with the value it ran under.
func Update() bool {
	if b, err := strconv.ParseBool(os.Getenv("GOLDIE_UPDATE")); err == nil && b {
		return true
	}
	f := flag.Lookup(UpdateName)
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// Plans returns the value of -aguitest.explore, and whether it was given on
// the command line (-aguitest.explore=0 is given: it turns exploration off).
func Plans() (uint64, bool) { return uintFlag(PlansName) }

// Seed returns the value of -aguitest.seed, and whether it was given on the
// command line.
func Seed() (uint64, bool) { return uintFlag(SeedName) }

func uintFlag(name string) (n uint64, given bool) {
	flag.Visit(func(f *flag.Flag) {
		if f.Name != name {
			return
		}
		v, err := strconv.ParseUint(f.Value.String(), 10, 64)
		n, given = v, err == nil
	})
	return n, given
}
