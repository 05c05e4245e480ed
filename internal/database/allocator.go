package database

// WithBackgroundPurge has DuckDB's allocator hand the memory that queries freed back to the system
// from a background thread, once its decay time has passed, instead of only when the allocator is
// next used: a query worker of `ctool mcp` may sit idle for hours after a burst. The setting is the
// process's, so only a process that opens nothing else should use it.
func WithBackgroundPurge() Option {
	return func(o *options) { o.settings = append(o.settings, "SET allocator_background_threads = true") }
}
