package words

import "strings"

// Nearest returns the candidate that word most likely misspells, for a
// "did you mean" hint: one equal to it but for case, else the one at the
// smallest edit distance (insertions, deletions, substitutions and swaps of
// two neighbours) when that distance is small for the word's length: 1 up
// to 4 characters, 2 up to 8, 3 beyond. It returns "" when none is near, and
// never word itself. Ties go to the earlier candidate.
func Nearest(word string, candidates []string) string {
	for _, c := range candidates {
		if c != word && strings.EqualFold(c, word) {
			return c
		}
	}
	limit := 3
	switch n := len(word); {
	case n <= 4:
		limit = 1
	case n <= 8:
		limit = 2
	}
	best, bestD := "", limit+1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := distance(lw, strings.ToLower(c), bestD); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the optimal string alignment distance of a and b, or a
// value >= bound once it is known to reach bound.
func distance(a, b string, bound int) int {
	if d := len(a) - len(b); d >= bound || -d >= bound {
		return bound
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			low = min(low, cur[j])
		}
		if low >= bound {
			return bound
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// DidYouMean returns " (did you mean X?)" for the candidate Nearest finds,
// and "" when there is none: a suffix for an error message.
func DidYouMean(word string, candidates []string) string {
	if n := Nearest(word, candidates); n != "" {
		return " (did you mean " + n + "?)"
	}
	return ""
}
