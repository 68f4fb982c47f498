package repl

import "github.com/casper-chronicle/chronicle/suggest"

// closest returns the candidates nearest to name, nearest first, at most
// three (package suggest): the "did you mean" of unknown commands, flags
// and session commands.
func closest(name string, candidates []string) []string {
	return suggest.Closest(name, candidates)
}

// didYouMean is "; did you mean X?" for the candidates closest to name,
// quoted by quote, or "" when none is close.
func didYouMean(name string, candidates []string, quote func(string) string) string {
	return suggest.Phrase(closest(name, candidates), quote)
}
