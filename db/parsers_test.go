package db_test

// The DERIVE receipts of web pages and mails are verified by running
// their parser again: these tests parse in process, as chronicle-extract
// does, instead of starting a worker beside the test binary.
import _ "github.com/casper-chronicle/chronicle/engine/extract/parsers"
