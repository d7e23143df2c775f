package schema_test

// goldie registers the -update flag, so that "go test ./... -update"
// runs in every package of the module (see golden.Update).
import _ "github.com/sebdah/goldie/v2"
