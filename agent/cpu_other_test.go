//go:build !linux

package agent_test

// threadCPU is not measured outside Linux.
func threadCPU() int64 { return 0 }
