package harness

// goldie registers -update (with -clean and -template) in every test binary
// that imports the harness, so that "go test ./... -update" rewrites the
// goldens of the cases that run (golden.Update reads it). Goldens are
// written by package golden, which removes no file: -clean deletes
// nothing. The flags live here, in the one package made for test binaries,
// and not in golden, which the aguitest command imports.
import _ "github.com/sebdah/goldie/v2"
