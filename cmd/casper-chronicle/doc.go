// Command casper-chronicle is the drop-in replacement for the original C
// casper-chronicle: same arguments, same files, same stdout bytes and same
// exit codes (CONTRACT 1). It works on plain files beside the source document;
// the archive lives in the separate chronicle command.
//
//	casper-chronicle ingest FILE
//	casper-chronicle query STORE "QUESTION"
//	casper-chronicle find STORE "TERMS"
//	casper-chronicle claim STORE SUBJECT PREDICATE OBJECT
//	casper-chronicle verify RECEIPT
//	casper-chronicle --self-check
//	casper-chronicle --benchmark
//
// Unlike the original, a failing command explains itself with one line on
// stderr; stdout and exit codes are unchanged. imported_at is taken from
// SOURCE_DATE_EPOCH when it is set, otherwise from the clock.
package main
