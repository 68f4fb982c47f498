package main

import (
	"fmt"

	"chronicle/db/fileio"
)

// verify prints VALID, INVALID or UNSUPPORTED (SPEC 4); it never exits 2.
func (c *cli) verify(path string) int {
	outcome, err := fileio.VerifyReceiptFile(path, canonical{})
	fmt.Fprintln(c.stdout, outcome)
	if err != nil {
		fmt.Fprintf(c.stderr, "casper-chronicle: verify %s: %v\n", path, err)
	}
	return outcome.ExitCode()
}
