package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"

	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
)

// Self-check stories (CONTRACT 14): an Arabic story with CRLF lines, typed
// records and prose; a story whose payment is denied; a story whose payment
// goes to an unlinked party.
const (
	selfTestFile     = "chronicle-self-test.txt"
	conflictTestFile = "chronicle-conflict-test.txt"
	missingTestFile  = "chronicle-missing-test.txt"

	selfCheckQuestion   = "هل سدد أحمد دين خالد؟"
	similarNameQuestion = "هل سدد أحمدان دين خالد؟"

	selfTestStory = "في بداية القصة اجتمع أحمد وخالد في المجلس.\r\n" +
		"أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.\r\n" +
		"@chronicle\tسعود\tINTERMEDIARY_FOR\tخالد\t-\t-\tاليوم الثاني\tASSERTED\tPOSITIVE\tCONFIRMED\r\n" +
		"أكد سعود استلام مبلغ 40 ريال سعودي من أحمد في اليوم الثاني.\r\n" +
		"@chronicle\tأحمد\tTRANSFER_TO\tسعود\t60\tSAR\tاليوم الثالث\tUNCERTAIN\tPOSITIVE\tPENDING\r\n" +
		"انتهى السجل دون تأكيد جديد.\r\n"
	conflictTestStory = "أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.\n" +
		"أكد خالد استلام مبلغ 40 ريال سعودي من أحمد في اليوم الثاني.\n" +
		"نفى خالد استلام مبلغ 40 ريال سعودي من أحمد في اليوم الثاني.\n"
	missingTestStory = "أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.\n" +
		"أكد سعود استلام مبلغ 40 ريال سعودي من أحمد في اليوم الثاني.\n"
)

// selfCheck runs the built-in acceptance story in the current directory and
// prints one line on stderr.
func (c *cli) selfCheck() int {
	var s scratch
	s.addStory(selfTestFile, selfCheckQuestion, similarNameQuestion)
	s.addStory(conflictTestFile, selfCheckQuestion)
	s.addStory(missingTestFile, selfCheckQuestion)
	if err := s.claim(); err != nil {
		return c.fail(exitFailure, "--self-check: %v", err)
	}
	defer s.cleanup()
	failures := 0
	check := func(ok bool, what string) {
		if !ok {
			failures++
			fmt.Fprintf(c.stderr, "casper-chronicle: self-check: %s failed\n", what)
		}
	}
	for path, story := range map[string]string{selfTestFile: selfTestStory, conflictTestFile: conflictTestStory, missingTestFile: missingTestStory} {
		if err := fileio.CreateShared(path, []byte(story)); err != nil {
			return c.fail(exitFailure, "--self-check: %v", err)
		}
	}
	store := selfTestFile + ".chronicle"
	code, first := quietRun("ingest", selfTestFile)
	check(code == exitOK, "ingest of the Arabic story")
	before, _ := os.ReadFile(store)
	code, again := quietRun("ingest", selfTestFile)
	after, _ := os.ReadFile(store)
	check(code == exitOK && bytes.Equal(first, again) && bytes.Equal(before, after), "idempotent re-ingest")

	code, out := quietRun("query", store, selfCheckQuestion)
	status, settled, err := settlementOf(out)
	check(code == exitOK && err == nil && status == "PARTIAL" && settled == [2]int64{40, 1}, "PARTIAL 40/1 settlement")
	code, _ = quietRun("verify", store+".receipt")
	check(code == exitOK, "ingest receipt verification")
	code, _ = quietRun("verify", lastLineValue(out))
	check(code == exitOK, "query receipt verification")

	code, out = quietRun("query", store, similarNameQuestion)
	status, _, err = settlementOf(out)
	check(code == exitOK && err == nil && status == "UNKNOWN", "similar-name question gives UNKNOWN")

	loaded, err := engine.Load(after)
	check(err == nil && len(loaded.Events) == 4 && spanHashesHold(loaded), "span hashes")

	if len(after) > 48 {
		after[48] ^= 0x01
		check(os.WriteFile(store, after, 0o644) == nil, "tampering with the store")
		code, _ = quietRun("verify", store+".receipt")
		check(code == exitFailure, "tampered store makes the ingest receipt INVALID")
	}

	for path, want := range map[string]string{conflictTestFile: "CONFLICT", missingTestFile: "UNKNOWN"} {
		code, _ = quietRun("ingest", path)
		check(code == exitOK, "ingest of "+path)
		code, out = quietRun("query", path+".chronicle", selfCheckQuestion)
		status, _, err = settlementOf(out)
		check(code == exitOK && err == nil && status == want, path+" gives "+want)
	}
	if failures > 0 {
		fmt.Fprintf(c.stderr, "Chronicle self-check: FAIL (%d failures)\n", failures)
		return exitFailure
	}
	fmt.Fprintln(c.stderr, "Chronicle self-check: PASS (0 failures)")
	return exitOK
}

// spanHashesHold re-hashes every event span against the stored source.
func spanHashesHold(s *engine.Store) bool {
	for _, e := range s.Events {
		if sha256.Sum256(s.Source[e.ByteStart:e.ByteEnd]) != e.SpanHash {
			return false
		}
	}
	return true
}

// lastLineValue returns the path of the final "receipt=PATH" stdout line.
func lastLineValue(stdout []byte) string {
	lines := bytes.Split(bytes.TrimRight(stdout, "\n"), []byte{'\n'})
	_, v, _ := bytes.Cut(lines[len(lines)-1], []byte{'='})
	return string(v)
}
