package main

import (
	"fmt"

	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// verify prints VALID, INVALID or UNSUPPORTED (CONTRACT 4); it never exits 2.
func (c *cli) verify(path string) int {
	outcome, err := fileio.VerifyReceiptFile(path, receipt.Canonical{})
	fmt.Fprintln(c.stdout, outcome)
	if err != nil {
		fmt.Fprintf(c.stderr, "casper-chronicle: verify %s: %v\n", path, err)
	}
	return outcome.ExitCode()
}
