package textout

// Plural is one when n is 1, else many: "1 row", "3 rows".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
