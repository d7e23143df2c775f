package jsvalue_test

// goldie registers the -update flag, so that "go test work -update" runs
// in every package of the workspace (see golden.Update).
import _ "github.com/sebdah/goldie/v2"
