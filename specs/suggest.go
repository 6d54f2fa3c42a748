package specs

import (
	"strconv"
	"strings"
)

// Suggest returns the candidate closest to name by edit distance (insertions, deletions,
// substitutions and swaps of adjacent letters, case ignored), when it is close enough to be
// a typo: at most 1 edit for names of 3 or 4 letters, 2 up to 10, 3 beyond. It returns ""
// for shorter names, when no candidate is that close, or when two are equally close.
func Suggest(name string, candidates []string) string {
	if len(name) < 3 {
		return ""
	}
	limit := 1
	switch n := len(name); {
	case n > 10:
		limit = 3
	case n > 4:
		limit = 2
	}
	best, bestD, tie := "", limit+1, false
	lname := strings.ToLower(name)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(lname, strings.ToLower(c))
		switch {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD && c != best:
			tie = true
		}
	}
	if bestD > limit || tie {
		return ""
	}
	return best
}

// DidYouMean is "; did you mean X?" for Suggest's answer, or "" when it has none.
func DidYouMean(name string, candidates []string) string {
	if s := Suggest(name, candidates); s != "" {
		return "; did you mean " + strconv.Quote(s) + "?"
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b (bytes).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
