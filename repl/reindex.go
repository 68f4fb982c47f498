package repl

import (
	"fmt"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
)

// runReindex rebuilds the term, line and entity indexes, with a progress
// bar on a terminal; Ctrl-C stops it between batches (the next open
// finishes the rebuild).
func runReindex(x *invocation) error {
	a, err := x.openExisting()
	if err != nil {
		return err
	}
	bar := newProgress(x.env, 0)
	out, err := commands.Reindex(x.context(), a, db.ReindexOptions{Progress: func(done, total int) {
		bar.total = total
		bar.step(done, fmt.Sprintf("documents indexed in %s", a.Path()))
	}})
	bar.clear()
	if err != nil {
		return err
	}
	if x.askedJSON() {
		printJSONLine(x.out(), out)
		return nil
	}
	fmt.Fprintf(x.out(), "reindexed %d documents in %s\n", out.Reindexed, out.Archive)
	return nil
}
