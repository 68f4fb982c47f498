package main

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
	"github.com/stretchr/testify/require"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var ds []time.Duration
		for _, n := range ns {
			ds = append(ds, time.Duration(n)*time.Millisecond)
		}
		return ds
	}
	var twenty []time.Duration
	for i := 20; i >= 1; i-- { // unsorted on purpose
		twenty = append(twenty, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"none", nil, 95, 0},
		{"one", ms(7), 95, 7 * time.Millisecond},
		{"p95 of 20 is the 19th", twenty, 95, 19 * time.Millisecond},
		{"p50 of 20 is the 10th", twenty, 50, 10 * time.Millisecond},
		{"p100 is the largest", twenty, 100, 20 * time.Millisecond},
		{"p95 of 3 is the largest", ms(3, 1, 2), 95, 3 * time.Millisecond},
		{"p50 of 3 is the middle", ms(3, 1, 2), 50, 2 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, percentile(tc.in, tc.p))
		})
	}
	require.Equal(t, 20*time.Millisecond, twenty[0], "the input is left unsorted")
}

func TestParseServerTiming(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"app;dur=12.345", 12345 * time.Microsecond, true},
		{"app;dur=0.000", 0, true},
		{"db;dur=3, app;desc=\"handler\";dur=1.5", 1500 * time.Microsecond, true},
		{"app; dur=\"2\"", 2 * time.Millisecond, true},
		{"", 0, false},
		{"db;dur=3", 0, false},
		{"app", 0, false},
		{"app;dur=x", 0, false},
		{"app;dur=-1", 0, false},
	} {
		got, err := parseServerTiming(tc.header)
		if !tc.ok {
			require.Error(t, err, tc.header)
			continue
		}
		require.NoError(t, err, tc.header)
		require.Equal(t, tc.want, got, tc.header)
	}
}

func TestParseServeLine(t *testing.T) {
	base, token, err := parseServeLine(`{"addr":"127.0.0.1:41237","url":"http://127.0.0.1:41237/?token=5f0c"}` + "\n")
	require.NoError(t, err)
	require.Equal(t, "http://127.0.0.1:41237", base)
	require.Equal(t, "5f0c", token)
	for _, bad := range []string{
		"http://127.0.0.1:41237/?token=5f0c", // the line without --json
		`{"url":"http://127.0.0.1:41237/"}`,  // no token
		`{"url":"::"}`,
		"",
	} {
		_, _, err := parseServeLine(bad)
		require.Error(t, err, bad)
	}
}

func TestQuestion(t *testing.T) {
	c := &choice{entities: []string{`"""A`, "*", "Layla", "Omar Khalid", "Saud"}}
	require.Equal(t, "Did Layla repay Omar Khalid?", c.question(), "names with marks are skipped")
	c.entities = []string{"Layla"}
	require.Equal(t, "Did Alice repay Bob?", c.question())
}

func TestTargets(t *testing.T) {
	big, small, mid := strings.Repeat("b", 64), strings.Repeat("5", 64), strings.Repeat("a", 64)
	c := &choice{db: "/x/archive.db", largest: big, smallest: small, mid: mid,
		queries: []benchtool.Query{
			{Class: "absent", Terms: []string{benchtool.AbsentTerm}},
			{Class: "rare", Terms: []string{"localfile"}, DF: 2},
			{Class: "medium", Terms: []string{"middle"}, DF: 100},
			{Class: "common", Terms: []string{"the"}, DF: 9000},
			{Class: "3 terms", Terms: []string{"abstract", "appear", "systems"}, DF: 50},
		},
		entities: []string{"Layla", "Omar"}, queryReceipt: "R1\nx"}
	paths := map[string]string{}
	for _, tg := range c.pages() {
		require.Nil(t, tg.argv, tg.name)
		paths[tg.name] = tg.path
	}
	require.Equal(t, "/", paths["home"])
	require.Equal(t, "/docs?after="+mid+"&sort=name", paths["docs by name, after the middle document"])
	require.Equal(t, "/doc/"+big, paths["document, the largest, first page"])
	require.Equal(t, "/doc/"+small, paths["document, the smallest"])
	require.Equal(t, "/find?terms=abstract+appear+systems", paths["find, 3 terms"])
	require.Equal(t, "/find?terms="+benchtool.AbsentTerm, paths["find, absent"])
	require.NotContains(t, paths, "find, medium")
	require.Equal(t, "/settle?question=Did+Layla+repay+Omar%3F", paths["settle, across the archive"])
	require.Equal(t, "/query?doc="+small+"&question=Did+Layla+repay+Omar%3F", paths["query, the smallest document"])
	require.Equal(t, "/entity?name=Layla", paths["entity, the most events"])
	require.Equal(t, "/verify?"+url.Values{"receipt": {"R1\nx"}}.Encode(), paths["verify, a query receipt"])
	require.NotContains(t, paths, "verify, a settle receipt", "no receipt, no page")

	apis := map[string]target{}
	for _, tg := range c.apis() {
		apis[tg.name] = tg
	}
	require.Equal(t, []string{"find", "--json", "--db", "/x/archive.db", "--", "the"}, apis["find, common"].argv)
	require.Equal(t, "/api/v1/find?terms=the", apis["find, common"].path)
	require.Equal(t, []string{"docs", "--json", "--db", "/x/archive.db", "--limit", "50"}, apis["docs, 50"].argv)
	require.Equal(t, "/api/v1/docs?limit=50", apis["docs, 50"].path)
	require.Equal(t, "/api/v1/entity?name=Layla", apis["entity, the most events"].path)
	require.Len(t, apis, 5)
}

func TestShortPath(t *testing.T) {
	d := strings.Repeat("0f", 32)
	require.Equal(t, "/doc/0f0f0f0f0f0f…", shortPath("/doc/"+d))
	long := shortPath("/verify?receipt=" + strings.Repeat("x", 200))
	require.True(t, strings.HasSuffix(long, "…"), long)
	require.Len(t, long, 67+len("…"))
	require.Equal(t, "/find?terms=a%7Cb", shortPath("/find?terms=a|b"))
}

func TestDifference(t *testing.T) {
	require.Empty(t, difference([]byte("same\n"), []byte("same\n")))
	require.Contains(t, difference([]byte(`{"a":1}`), []byte(`{"a":2}`)), "first difference at byte 5")
	require.Contains(t, difference([]byte("ab"), []byte("abc")), "API 2 bytes, CLI 3 bytes")
}

func TestSize(t *testing.T) {
	require.Equal(t, "999 B", size(999))
	require.Equal(t, "1.5 KB", size(1500))
	require.Equal(t, "3.9 MB", size(3935892))
}
