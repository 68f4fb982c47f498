package repl

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// closest returns the candidates nearest to name by edit distance, nearest
// first (ties in the candidates' order), at most three: the "did you mean"
// of unknown commands, flags and document names. A candidate is near when
// its distance is at most a third of the longer of the two (at least 1),
// or when one starts with the other (`ing` for `ingest`); exact matches are
// never suggested, because the caller only asks when there was none.
func closest(name string, candidates []string) []string {
	type scored struct {
		s    string
		dist int
		pos  int
	}
	var near []scored
	folded := strings.ToLower(name)
	for i, c := range candidates {
		if c == name {
			continue
		}
		lc := strings.ToLower(c)
		d := editDistance(folded, lc)
		limit := max(1, max(utf8.RuneCountInString(name), utf8.RuneCountInString(c))/3)
		prefix := len(folded) >= 2 && (strings.HasPrefix(lc, folded) || strings.HasPrefix(folded, lc))
		if d <= limit || prefix {
			near = append(near, scored{c, d, i})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int { return a.dist - b.dist })
	out := make([]string, 0, 3)
	for _, n := range near {
		if len(out) == 3 {
			break
		}
		if !slices.Contains(out, n.s) {
			out = append(out, n.s)
		}
	}
	return out
}

// didYouMean is "; did you mean X?" (or "X or Y", "X, Y or Z") for the
// candidates closest to name, quoted by quote, or "" when none is close.
func didYouMean(name string, candidates []string, quote func(string) string) string {
	near := closest(name, candidates)
	if len(near) == 0 {
		return ""
	}
	for i, n := range near {
		near[i] = quote(n)
	}
	list := near[0]
	if len(near) > 1 {
		list = strings.Join(near[:len(near)-1], ", ") + " or " + near[len(near)-1]
	}
	return "; did you mean " + list + "?"
}

// editDistance is the optimal string alignment distance between a and b in
// code points (Arabic names count letters, not bytes): insertions,
// deletions, substitutions and swaps of two neighbours (`fnid` for `find`,
// the commonest typing slip) each cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// rows i-2, i-1 and i of the table
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
