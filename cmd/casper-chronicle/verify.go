package main

import (
	"fmt"

	"chronicle/engine"
	"chronicle/engine/receipt"
)

// maxReceiptFile bounds a receipt read: seven lines of at most 4128 bytes.
const maxReceiptFile = 7 * (receipt.MaxLineLen + 1)

// verify prints VALID, INVALID or UNSUPPORTED (SPEC 4); it never exits 2.
func (c *cli) verify(path string) int {
	outcome, err := c.verdict(path)
	fmt.Fprintln(c.stdout, outcome)
	if err != nil {
		fmt.Fprintf(c.stderr, "casper-chronicle: verify %s: %v\n", path, err)
	}
	return outcome.ExitCode()
}

func (c *cli) verdict(path string) (receipt.Outcome, error) {
	if path == "" || !engine.ValidTextString(path) {
		return receipt.Invalid, fmt.Errorf("RECEIPT must be non-empty UTF-8 text")
	}
	data, err := readLimited(path, maxReceiptFile)
	if err != nil {
		return receipt.Invalid, err
	}
	rec, err := receipt.Parse(data)
	if err != nil {
		return receipt.Invalid, err
	}
	storeBytes, err := readLimited(rec.StorePath, maxStoreFile)
	if err != nil {
		return receipt.Invalid, err
	}
	return receipt.Verify(rec, storeBytes, canonical{})
}
