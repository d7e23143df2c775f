package parallel_test

// goldie registers the -update flag, so that "go test ./... -update"
// rewrites the goldens of this package's cases (see golden.Update).
import _ "github.com/sebdah/goldie/v2"
