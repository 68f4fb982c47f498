package find

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// naiveSearch is the reference implementation of CONTRACT 11: it splits the
// source into physical lines by hand, scores every line with bytes.Contains
// per term, sorts all matching lines and keeps the first eight. ok is false
// when the terms are rejected.
func naiveSearch(src []byte, doc [32]byte, terms string) (r *Result, ok bool) {
	if len(terms) == 0 || len(terms) > 1024 || !utf8.ValidString(terms) || strings.IndexByte(terms, 0) >= 0 {
		return nil, false
	}
	list := strings.FieldsFunc(terms, func(c rune) bool { return strings.ContainsRune(" \t\n\r.,;:?!", c) })
	if len(list) == 0 || len(list) > 16 {
		return nil, false
	}
	var all []Match
	if len(src) > 0 {
		parts := bytes.Split(src, []byte("\n"))
		if src[len(src)-1] == '\n' {
			parts = parts[:len(parts)-1]
		}
		start := 0
		for i, p := range parts {
			kept := bytes.TrimSuffix(p, []byte("\r"))
			score := 0
			for _, t := range list {
				if len(kept) > 0 && bytes.Contains(kept, []byte(t)) {
					score++
				}
			}
			if score > 0 {
				all = append(all, Match{
					Line: i + 1, ByteStart: uint64(start), ByteEnd: uint64(start + len(kept)),
					MatchedTerms: score, SpanHash: sha256.Sum256(kept), Text: string(kept),
				})
			}
			start += len(p) + 1
		}
	}
	r = &Result{Status: "NO_MATCH", Query: terms, Document: doc, TotalMatchingLines: len(all)}
	if len(all) > 0 {
		r.Status = "MATCHES"
		sort.SliceStable(all, func(i, j int) bool { return all[i].MatchedTerms > all[j].MatchedTerms })
		r.Matches = all[:min(len(all), 8)]
	}
	return r, true
}

func FuzzFind(f *testing.F) {
	f.Add([]byte("Alice owns Book.\n"), "Book")
	f.Add([]byte("line1 alpha\n\nline2 alpha beta\r\ntail\r"), "alpha beta alpha")
	f.Add([]byte("a\rb\r\nc\r\r\n"), "a b c")
	f.Add([]byte("من خالد؟\n"), "خالد؟")
	f.Add([]byte("x\n"), " .,;:?! ")
	f.Fuzz(func(t *testing.T, src []byte, terms string) {
		if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
			t.Skip()
		}
		doc := sha256.Sum256(src)
		got, err := SearchSource(src, doc, terms)
		want, ok := naiveSearch(src, doc, terms)
		if !ok {
			require.ErrorIs(t, err, ErrTerms)
			return
		}
		require.NoError(t, err)
		require.Equal(t, want, got)
		j := got.JSON()
		require.True(t, json.Valid(j), "%s", j)
		var decoded struct {
			Query   string `json:"query"`
			Total   int    `json:"total_matching_lines"`
			Matches []struct {
				Text string `json:"text"`
			} `json:"matches"`
		}
		require.NoError(t, json.Unmarshal(j, &decoded))
		require.Equal(t, terms, decoded.Query)
		require.Equal(t, want.TotalMatchingLines, decoded.Total)
		require.Len(t, decoded.Matches, len(want.Matches))
		for i := range want.Matches {
			require.Equal(t, want.Matches[i].Text, decoded.Matches[i].Text)
		}
	})
}
