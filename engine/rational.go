package engine

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// Rational is an exact non-negative fraction Num/Den with Den > 0, always
// reduced (CONTRACT 7.5, 9.1). The zero value is not valid; use Zero.
type Rational struct {
	Num int64
	Den int64
}

// Zero is 0/1, the value stored for an absent amount.
var Zero = Rational{Num: 0, Den: 1}

// Rational parse and arithmetic errors.
var (
	// ErrRationalSyntax: not DIGITS or DIGITS/DIGITS of fewer than 128 bytes.
	ErrRationalSyntax = errors.New("amount is not DIGITS or DIGITS/DIGITS")
	// ErrRationalRange: a part exceeds 2^63-1.
	ErrRationalRange = errors.New("amount part exceeds 9223372036854775807")
	// ErrZeroDenominator: the denominator is zero.
	ErrZeroDenominator = errors.New("amount has a zero denominator")
	// ErrOverflow: a sum does not fit the int64 arithmetic of CONTRACT 9.1.
	ErrOverflow = errors.New("rational overflow")
)

// MaxFieldLen is the largest text field, token or rational text in bytes.
const MaxFieldLen = 127

// ParseRational parses the amount syntax of CONTRACT 7.5 and reduces the value.
func ParseRational(s []byte) (Rational, error) {
	if len(s) == 0 || len(s) > MaxFieldLen {
		return Rational{}, ErrRationalSyntax
	}
	slash := -1
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
		case c == '/' && slash < 0:
			slash = i
		default:
			return Rational{}, ErrRationalSyntax
		}
	}
	numText, denText := s, []byte("1")
	if slash >= 0 {
		numText, denText = s[:slash], s[slash+1:]
		if len(numText) == 0 || len(denText) == 0 {
			return Rational{}, ErrRationalSyntax
		}
	}
	num, err := parseDigits(numText)
	if err != nil {
		return Rational{}, err
	}
	den, err := parseDigits(denText)
	if err != nil {
		return Rational{}, err
	}
	if den == 0 {
		return Rational{}, ErrZeroDenominator
	}
	return reduce(num, den), nil
}

// parseDigits parses ASCII digits (leading zeros allowed) into [0, 2^63-1].
func parseDigits(d []byte) (int64, error) {
	var v uint64
	for _, c := range d {
		hi, lo := bits.Mul64(v, 10)
		lo, carry := bits.Add64(lo, uint64(c-'0'), 0)
		if hi != 0 || carry != 0 || lo > math.MaxInt64 {
			return 0, ErrRationalRange
		}
		v = lo
	}
	return int64(v), nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// reduce divides num/den (num >= 0, den > 0) by their gcd; 0/d becomes 0/1.
func reduce(num, den int64) Rational {
	g := gcd(num, den)
	return Rational{Num: num / g, Den: den / g}
}

// Add returns r+o with the checked int64 arithmetic of CONTRACT 9.1: the common
// denominator, both scaled numerators and their sum must each fit 2^63-1.
func (r Rational) Add(o Rational) (Rational, error) {
	g := gcd(r.Den, o.Den)
	x, y := o.Den/g, r.Den/g
	a, ok1 := mulChecked(r.Num, x)
	b, ok2 := mulChecked(o.Num, y)
	den, ok3 := mulChecked(r.Den, x)
	if !ok1 || !ok2 || !ok3 || a > math.MaxInt64-b {
		return Rational{}, ErrOverflow
	}
	return reduce(a+b, den), nil
}

func mulChecked(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// Cmp compares r and o exactly: -1 if r < o, 0 if equal, +1 if r > o. It
// cross-multiplies in 128 bits, so it never overflows.
func (r Rational) Cmp(o Rational) int {
	lh, ll := bits.Mul64(uint64(r.Num), uint64(o.Den))
	rh, rl := bits.Mul64(uint64(o.Num), uint64(r.Den))
	switch {
	case lh < rh || (lh == rh && ll < rl):
		return -1
	case lh == rh && ll == rl:
		return 0
	default:
		return 1
	}
}

// String renders the fraction as "num/den".
func (r Rational) String() string {
	return strconv.FormatInt(r.Num, 10) + "/" + strconv.FormatInt(r.Den, 10)
}

// GoString helps test failure messages.
func (r Rational) GoString() string { return fmt.Sprintf("Rational(%s)", r) }
