package agent_test

import "syscall"

// threadCPU returns the CPU time the calling OS thread has used, in
// nanoseconds: on a shared machine it counts the benchmark's own work, not
// the time other processes took the core.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
