//go:build unix

package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// lockPort takes the claim on a port that every aguitest process honours,
// so that programs started by two test binaries (go test runs packages at
// once) or two commands never get the same port: an exclusive flock on a
// file named after the port, in a folder of the temporary directory. The
// claim ends when release is called, or with the process. It reports false
// when another holds the claim; when no claim can be made at all (no
// folder), the port is the caller's as before.
func lockPort(port int) (release func(), ok bool) {
	dir := filepath.Join(os.TempDir(), "aguitest-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return func() {}, true
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return func() {}, true
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true // closing the file ends the claim
}
