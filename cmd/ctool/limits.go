package main

import (
	"fmt"
	"syscall"
)

// queryAddressSpace caps the query process's virtual memory. DuckDB's memory_limit governs its buffer
// pool but not every allocation (huge strings and results), so this is the last line: an allocation
// past it fails and the query ends with an error instead of exhausting the machine. An idle query
// process maps about 1.8 GiB.
const queryAddressSpace = 4 << 30

func limitMemory() error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		return err
	}
	if lim.Cur <= queryAddressSpace {
		return nil
	}
	lim.Cur = queryAddressSpace
	return syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
}

// capMemory applies the environment's memory limit, if it has one.
func (e *env) capMemory() error {
	if e.limitMemory == nil {
		return nil
	}
	if err := e.limitMemory(); err != nil {
		return fmt.Errorf("limit memory: %w", err)
	}
	return nil
}
