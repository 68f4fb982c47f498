package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
)

// pageResult is one page's timed requests.
type pageResult struct {
	t     target
	times []timing
	err   error
}

// apiResult is one API endpoint's timed requests beside the same command
// run in process.
type apiResult struct {
	t      target
	api    []timing
	inproc []time.Duration
	body   int    // the answer's bytes
	differ string // how the API's body differs from the CLI's stdout ("" when equal)
	err    error
}

// result is everything measured on one archive.
type result struct {
	a       *archive
	st      stats
	size    int64 // the archive file's bytes
	c       *choice
	pages   []pageResult
	apis    []apiResult
	loadAvg string // at the start of its measurement
}

func (r *result) failed() bool {
	for _, p := range r.pages {
		if p.err != nil {
			return true
		}
	}
	for _, a := range r.apis {
		if a.err != nil || a.differ != "" {
			return true
		}
	}
	return false
}

// benchArchive serves a with the real binary and times every target.
func benchArchive(chron string, a *archive) (*result, error) {
	logf("%s: picking the pages' documents, terms and names", a.label)
	c, st, err := choose(a)
	if err != nil {
		return nil, err
	}
	r := &result{a: a, st: st, c: c, loadAvg: benchtool.LoadAvg()}
	if fi, err := os.Stat(a.db()); err == nil {
		r.size = fi.Size()
	}
	s, err := startServer(chron, a.db())
	if err != nil {
		return nil, err
	}
	defer s.stop()
	for _, t := range c.pages() {
		logf("%s: %s", a.label, t.name)
		times, _, err := timeRequests(s, t.path)
		r.pages = append(r.pages, pageResult{t: t, times: times, err: err})
	}
	for _, t := range c.apis() {
		logf("%s: API %s", a.label, t.name)
		r.apis = append(r.apis, timeAPI(s, t))
	}
	return r, nil
}

// timeRequests fetches path once to warm up, then -runs times, and
// returns the timed runs and the last body.
func timeRequests(s *server, path string) ([]timing, []byte, error) {
	if _, _, err := s.get(path); err != nil {
		return nil, nil, err
	}
	var times []timing
	var body []byte
	for range *runsFlag {
		t, b, err := s.get(path)
		if err != nil {
			return times, nil, err
		}
		times, body = append(times, t), b
	}
	return times, body, nil
}

// timeAPI times an endpoint and its command line in process (a warm-up,
// then -runs runs each), and compares the two answers byte for byte.
func timeAPI(s *server, t target) apiResult {
	res := apiResult{t: t}
	var body []byte
	if res.api, body, res.err = timeRequests(s, t.path); res.err != nil {
		return res
	}
	var out []byte
	for i := range *runsFlag + 1 {
		start := time.Now()
		o, err := cli(t.argv...)
		d := time.Since(start)
		if err != nil {
			res.err = err
			return res
		}
		if i > 0 { // the first run warms up
			res.inproc, out = append(res.inproc, d), o
		}
	}
	res.body, res.differ = len(body), difference(body, out)
	return res
}

// difference describes where two answers first differ ("" when equal).
func difference(api, cli []byte) string {
	if bytes.Equal(api, cli) {
		return ""
	}
	i := 0
	for i < len(api) && i < len(cli) && api[i] == cli[i] {
		i++
	}
	return fmt.Sprintf("API %d bytes, CLI %d bytes; first difference at byte %d: API %q, CLI %q",
		len(api), len(cli), i, api[i:min(i+40, len(api))], cli[i:min(i+40, len(cli))])
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of ds: the
// smallest value that at least p% of ds do not exceed; 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(math.Ceil(float64(len(s))*p/100-1e-9)) - 1 // the rank, 1-based; the 1e-9 keeps float noise off whole ranks
	return s[min(max(k, 0), len(s)-1)]
}

func servers(ts []timing) []time.Duration {
	return mapTimes(ts, func(t timing) time.Duration { return t.server })
}
func clients(ts []timing) []time.Duration {
	return mapTimes(ts, func(t timing) time.Duration { return t.client })
}

func mapTimes(ts []timing, f func(timing) time.Duration) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = f(t)
	}
	return out
}
