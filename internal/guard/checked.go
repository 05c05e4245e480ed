package guard

// Statement is the query as the guard parsed and accepted it, as Parse gives it, for readers such as
// the hints of an empty result, which need not parse it again; nil when the check did not parse it.
// The tree is shared: read it, never change it.
func (c *Checked) Statement() map[string]any {
	if c == nil {
		return nil
	}
	return c.stmt
}
