package words_test

// The golden package registers the -update flag, so that
// "go test ./... -update" runs in every package of the module.
import _ "github.com/aguitest/aguitest/golden"
