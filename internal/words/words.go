// Package words writes counts for people to read, so that every message of
// the module says "1 event" and "2 events" alike.
package words

import "strconv"

// Count returns n followed by the noun for n: one when n is 1 (or -1),
// many otherwise. Count(1, "entry", "entries") is "1 entry",
// Count(0, "entry", "entries") "0 entries".
func Count(n int, one, many string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}
