package walkaround

// rawer is sql.Conn's Raw, written without naming database/sql: an interface the engine's own types
// satisfy, for a value handed over as any.
type rawer interface {
	Raw(f func(driverConn any) error) error
}

// Smuggle reaches a driver connection through a value it got as any.
func Smuggle(v any) error {
	r, ok := v.(rawer)
	if !ok {
		return nil
	}
	return r.Raw(func(any) error { return nil })
}
