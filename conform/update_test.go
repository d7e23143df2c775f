package conform_test

// goldie registers the -update flag, so that "go test ./... -update"
// rewrites the goldens of this package (see golden.Update).
import _ "github.com/sebdah/goldie/v2"
