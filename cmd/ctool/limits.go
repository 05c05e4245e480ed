package main

import "fmt"

// capMemory applies the environment's memory limit (worker.LimitMemory), if it has one.
func (e *env) capMemory() error {
	if e.limitMemory == nil {
		return nil
	}
	if err := e.limitMemory(); err != nil {
		return fmt.Errorf("limit memory: %w", err)
	}
	return nil
}
