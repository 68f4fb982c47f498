package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bigStory is a document of several compressed chunks (64 KiB each) with
// records near its start, across chunk boundaries and at its end.
func bigStory() string {
	var b strings.Builder
	b.WriteString("@chronicle\tAlice\tBORROWED_FROM\tBob\t1000\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	for i := 0; b.Len() < 300<<10; i++ {
		fmt.Fprintf(&b, "Filler line %d about the market, Saud and the weather.\n", i)
		if i%1500 == 1499 {
			fmt.Fprintf(&b, "@chronicle\tAlice\tPAID_TO\tBob\t%d\tSAR\tP%d\tASSERTED\tPOSITIVE\tCONFIRMED\n", 10+i/1500, i)
		}
	}
	b.WriteString("Alice owns Book.\n")
	return b.String()
}

// TestAgainstCasper: on inputs that are not golden, chronicle answers
// exactly as casper-chronicle (the original's drop-in) does, and exports the
// store casper-chronicle writes.
func TestAgainstCasper(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		questions  [][]string // chronicle argv after the command name's DOC
	}{
		{"multi-chunk", bigStory(), [][]string{
			{"query", "Alice Bob"}, {"query", "Did Alice repay Bob?"},
			{"claim", "Alice", "owns", "Book"}, {"find", "Saud weather"}, {"find", "PAID_TO 12"},
		}},
		{"arabic and CRLF", "أقر أحمد بأنه اقترض من خالد ١٠٠ ريال.\r\nAlice owns Book.\r\n\r\nسعود\n", [][]string{
			{"query", "أحمد خالد"}, {"claim", "Alice", "owns", "Book"}, {"find", "سعود Alice"},
		}},
		{"empty", "", [][]string{{"query", "A B"}, {"find", "x"}}},
		{"no final newline", "Alice owns Book.", [][]string{{"claim", "Alice", "owns", "Book"}, {"find", "Book"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWS(t)
			w.write("story.txt", tc.text)
			w.ok("ingest", "story.txt")
			r := w.casper("ingest", "story.txt")
			require.Equal(t, 0, r.code, "%s", r)
			for _, q := range tc.questions {
				var argv []string
				switch q[0] {
				case "find":
					argv = []string{"find", "--doc", "story.txt", q[1]}
				default:
					argv = append([]string{q[0], "story.txt"}, q[1:]...)
				}
				orig := w.casper(append([]string{q[0], "story.txt.chronicle"}, q[1:]...)...)
				got := w.run(append(argv, "--json")...)
				require.Equal(t, orig.code, got.code, "%q\ncasper: %s\nchronicle: %s", q, orig, got)
				if orig.code == 0 {
					require.Equal(t, firstLine(orig.stdout), got.stdout, "%q", q)
				}
			}
			w.ok("export", "story.txt", "out")
			require.Equal(t, w.read("story.txt.chronicle"), w.read("out/story.txt.chronicle"))
			r = w.casper("verify", "out/story.txt.chronicle.receipt")
			require.Equal(t, "VALID\n", r.stdout, "%s", r)
		})
	}
}
