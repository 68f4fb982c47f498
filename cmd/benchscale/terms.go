package main

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// ftsSQL is the FTS5 statement counting the documents that hold any of the
// terms, byte for byte (the table is built with case_sensitive 1). The
// trigram index answers terms of 3 characters or more; a shorter term
// matches nothing through MATCH, so a query holding one scans every
// document with instr() instead (scan is true).
func ftsSQL(terms []string) (sql string, scan bool) {
	for _, t := range terms {
		if utf8.RuneCountInString(t) < 3 {
			scan = true
		}
	}
	quote := func(s, q string) string { return q + strings.ReplaceAll(s, q, q+q) + q }
	var parts []string
	for _, t := range terms {
		if scan {
			parts = append(parts, "instr(body, "+quote(t, "'")+") > 0")
		} else {
			parts = append(parts, quote(t, `"`))
		}
	}
	if scan {
		return "SELECT count(*) FROM docs WHERE " + strings.Join(parts, " OR ") + ";", true
	}
	return "SELECT count(*) FROM docs WHERE docs MATCH " + quote(strings.Join(parts, " OR "), "'") + ";", false
}

// median returns the middle of d (the upper one of an even count); zero
// for none.
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}
