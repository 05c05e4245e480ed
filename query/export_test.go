package query

// ShapeHits reports how many queries the engine answered through a learned shape.
func (e *Engine) ShapeHits() int64 { return e.shapes.hits.Load() }
