package agui

import (
	"os"
	"testing"

	"github.com/aguitest/aguitest/internal/fuzzmain"
)

func TestMain(m *testing.M) { os.Exit(fuzzmain.Run(m)) }
