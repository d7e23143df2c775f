package claude_test

// testflags registers -update, so that "go test ./... -update" rewrites
// the goldens of this package's cases (see golden.Update), and the
// exploration budget and seed (-aguitest.explore, -aguitest.seed), so that
// one command line sets them for every example package.
import _ "github.com/aguitest/aguitest/harness/testflags"
