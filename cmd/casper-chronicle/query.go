package main

import (
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// maxStorePath is the longest STORE argument (CONTRACT 1).
const maxStorePath = 2047

func (c *cli) query(storePath, question string) int {
	return c.answer("query", receipt.KindQuery, storePath, question)
}

func (c *cli) find(storePath, terms string) int {
	return c.answer("find", receipt.KindFind, storePath, terms)
}

// claim is sugar for query with "@claim<TAB>S<TAB>P<TAB>O" (CONTRACT 1); its
// own field checks come before anything else.
func (c *cli) claim(storePath, subject, predicate, object string) int {
	for _, f := range []string{subject, predicate, object} {
		if len(f) > engine.MaxFieldLen || strings.IndexByte(f, '\t') >= 0 {
			return c.fail(exitUsage, "claim: SUBJECT, PREDICATE and OBJECT must be at most %d bytes without TAB", engine.MaxFieldLen)
		}
	}
	return c.answer("claim", receipt.KindQuery, storePath, "@claim\t"+subject+"\t"+predicate+"\t"+object)
}

// answer runs CONTRACT 1.3: validate, load, compute, write the receipt, print.
func (c *cli) answer(cmd string, kind receipt.Kind, storePath, question string) int {
	if storePath == "" || len(storePath) > maxStorePath || !engine.ValidTextString(storePath) {
		return c.fail(exitUsage, "%s: STORE must be 1..%d bytes of UTF-8 text", cmd, maxStorePath)
	}
	if !engine.ValidTextString(question) {
		return c.fail(exitUsage, "%s: the question is not valid UTF-8 text", cmd)
	}
	data, err := fileio.ReadLimited(storePath, fileio.MaxStoreFile)
	if err != nil {
		return c.fail(exitFailure, "%s: %v", cmd, err)
	}
	store, err := engine.Load(data)
	if err != nil {
		return c.fail(exitFailure, "%s: %s: %v", cmd, storePath, err)
	}
	var result []byte
	if kind == receipt.KindFind {
		result, err = receipt.Canonical{}.Find(store, question)
	} else {
		result, err = receipt.Canonical{}.Query(store, question)
	}
	if err != nil {
		return c.fail(exitFailure, "%s: %v", cmd, err)
	}
	rec, err := receipt.New(kind, storePath, question, data, store.Version, store.Document, result)
	if err != nil {
		return c.fail(exitFailure, "%s: %v", cmd, err)
	}
	receiptPath := storePath + receipt.FileSuffix(kind, store.Version, question)
	if err := fileio.WriteOnceShared(receiptPath, rec.Encode()); err != nil {
		return c.fail(exitFailure, "%s: %v", cmd, err)
	}
	// Written as is: fmt would copy a find result of megabytes once more.
	c.stdout.Write(result)
	fmt.Fprintf(c.stdout, "\nreceipt=%s\n", receiptPath)
	return exitOK
}
