package harness

// FreePort returns a free loopback port for a program the caller starts
// itself and points the harness at (a URL agent, or the fixed address of
// Options.ModelAddr), claimed as the ports of CommandAgent programs are:
// drawn below the kernel's ephemeral ports, so that no port-0 listener
// (a scripted LLM, another test's server) is handed it before the program
// binds it, and held for the machine until release is called, so that no
// other aguitest process's program gets it.
func FreePort() (port int, release func(), err error) {
	port, err = freePort()
	if err != nil {
		return 0, nil, err
	}
	return port, func() { releasePort(port) }, nil
}
