//go:build !unix

package harness

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: process groups are a Unix idea.
func ownGroup(*exec.Cmd) {}

// signalGroup sends sig to cmd alone; where there is no interrupt
// signal to send, it kills it.
func signalGroup(cmd *exec.Cmd, sig os.Signal) error {
	if err := cmd.Process.Signal(sig); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}
