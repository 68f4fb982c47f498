package claimrow

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// instant is an RFC 3339 date-time with a zone, exactly: whole seconds since
// the epoch (UTC) and the fraction's digits without trailing zeros, so two
// instants compare exactly however many fraction digits they carry.
type instant struct {
	seconds  int64
	fraction string
}

func (a instant) compare(b instant) int {
	switch {
	case a.seconds < b.seconds:
		return -1
	case a.seconds > b.seconds:
		return 1
	}
	// Equal-length digit strings compare as numbers; pad the shorter.
	fa, fb := a.fraction, b.fraction
	for len(fa) < len(fb) {
		fa += "0"
	}
	for len(fb) < len(fa) {
		fb += "0"
	}
	return strings.Compare(fa, fb)
}

// instantPattern is compiled on first use: compiling it at start-up was a
// cost of every chronicle process's package init (GODEBUG=inittrace=1
// shows it), and most processes never read a row.
var instantPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$`)
})

var errInstant = errors.New("is not an RFC 3339 date-time with a zone (YYYY-MM-DDTHH:MM:SS[.frac] then Z or ±hh:mm)")

// parseInstant reads an RFC 3339 instant: the date must exist, hours
// 00-23, minutes 00-59, seconds 00-59 (no leap second), offsets up to
// ±23:59. A time without a zone is refused.
func parseInstant(v Value) (instant, error) {
	if v.Kind != String {
		return instant{}, errInstant
	}
	m := instantPattern().FindStringSubmatch(v.Str)
	if m == nil {
		return instant{}, errInstant
	}
	n := func(i int) int { x, _ := strconv.Atoi(m[i]); return x }
	year, month, day, hour, minute, second := n(1), n(2), n(3), n(4), n(5), n(6)
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59 {
		return instant{}, errors.New("names a date or time that does not exist")
	}
	offset := 0
	if m[8] == "" {
		oh, om := n(10), n(11)
		if oh > 23 || om > 59 {
			return instant{}, errors.New("has a zone offset beyond ±23:59")
		}
		offset = oh*3600 + om*60
		if m[9] == "-" {
			offset = -offset
		}
	}
	secs := time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC).Unix() - int64(offset)
	return instant{seconds: secs, fraction: strings.TrimRight(m[7], "0")}, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
