package repl

import (
	"slices"
	"strings"

	"github.com/casper-chronicle/chronicle/db/suggest"
)

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

// flagDidYouMean is didYouMean for an unknown leading flag, with
// --version among the candidates. A one-letter flag (`-V`, `-v`) is
// nearer by edit distance to every other one-letter flag than to what it
// was meant for, so the long flags starting with its letter come first
// (`-V` is `--version`), and -h/--help when it is near too.
func flagDidYouMean(name string, candidates []string) string {
	if !slices.Contains(candidates, versionFlag) {
		candidates = append([]string{versionFlag}, candidates...) // a session flag: first
	}
	ident := func(s string) string { return s }
	if len(name) != 2 || name[0] != '-' || name[1] == '-' {
		return didYouMean(name, candidates, ident)
	}
	var picks []string
	for _, c := range candidates {
		if strings.HasPrefix(c, "--") && len(c) > 2 && strings.EqualFold(c[2:3], name[1:]) {
			picks = append(picks, c)
		}
	}
	if len(picks) == 0 {
		return didYouMean(name, candidates, ident)
	}
	if near := closest(name, []string{"-h", "--help"}); len(near) > 0 && !slices.Contains(picks, "--help") {
		picks = append(picks, "-h")
	}
	return suggest.Phrase(picks[:min(len(picks), suggest.Most)], ident)
}
