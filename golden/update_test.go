package golden

// goldie registers the -update flag that Update reads (and -clean, which
// Check ignores), as it does in every test binary of the module.
import _ "github.com/sebdah/goldie/v2"
