package suggest

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Most is the number of suggestions offered at most.
const Most = 3

// Distance is the optimal string alignment distance between a and b in
// code points (Arabic names count letters, not bytes): insertions,
// deletions, substitutions and swaps of two neighbours (`fnid` for `find`,
// the commonest typing slip) each cost 1.
func Distance(a, b string) int {
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

// Near reports whether candidate is near enough to name to be suggested,
// and how far it is (case folded): a distance of at most a third of the
// longer of the two (at least 1), or one starting with the other (`ing`
// for `ingest`).
func Near(name, candidate string) (dist int, ok bool) {
	n, c := strings.ToLower(name), strings.ToLower(candidate)
	dist = Distance(n, c)
	limit := max(1, max(utf8.RuneCountInString(name), utf8.RuneCountInString(candidate))/3)
	prefix := len(n) >= 2 && (strings.HasPrefix(c, n) || strings.HasPrefix(n, c))
	return dist, dist <= limit || prefix
}

// Scored is a candidate with its distance.
type Scored struct {
	Name string
	Dist int
}

// Best is the Most nearest of near, nearest first (ties keep their order),
// without repeats.
func Best(near []Scored) []string {
	slices.SortStableFunc(near, func(a, b Scored) int { return a.Dist - b.Dist })
	out := make([]string, 0, Most)
	for _, n := range near {
		if len(out) == Most {
			break
		}
		if !slices.Contains(out, n.Name) {
			out = append(out, n.Name)
		}
	}
	return out
}

// Closest returns the candidates near name (see Near), nearest first, at
// most Most. Exact matches are never suggested: the caller only asks when
// there was none.
func Closest(name string, candidates []string) []string {
	var near []Scored
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d, ok := Near(name, c); ok {
			near = append(near, Scored{c, d})
		}
	}
	return Best(near)
}

// Phrase is "; did you mean X?" (or "X or Y", "X, Y or Z") for names,
// each written by quote, or "" when there are none.
func Phrase(names []string, quote func(string) string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	list := q[0]
	if len(q) > 1 {
		list = strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
	}
	return "; did you mean " + list + "?"
}
