package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/aguitest/aguitest/examples/bugs"
	"github.com/aguitest/aguitest/golden"
)

// TestMain lets the scripts run "aguitest" as a command: the test binary
// re-executes itself as the command, so a script sees what a user typing
// it sees (arguments, exit status, standard output and error).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"aguitest": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// bugagent [BUG] is examples/bugs' agent as a program, with the
		// bug named (none: the correct agent), for "aguitest explore --cmd".
		"bugagent": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			var b bugs.Bug
			if len(os.Args) > 1 {
				b = bugs.Bug(os.Args[1])
			}
			if err := bugs.Main(ctx, b); err != nil {
				fmt.Fprintln(os.Stderr, "bugagent:", err)
				os.Exit(1)
			}
		},
		"weatherdesk": func() { os.Exit(weatherDesk(os.Args[1:])) },
	})
}

// TestScripts runs testdata/script/*.txtar. With -update, a cmp against a
// file of the archive rewrites that file.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: golden.Update(),
		Cmds:          map[string]func(*testscript.TestScript, bool, []string){"junitcheck": junitcheck},
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}
