package engine

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	maxI64Text = "9223372036854775807" // 2^63-1
	pow63Text  = "9223372036854775808" // 2^63
	pow62      = int64(1) << 62
)

// CONTRACT 7.5: DIGITS or DIGITS/DIGITS, reduced on parse.
func TestParseRational(t *testing.T) {
	tests := []struct {
		in       string
		num, den int64
		err      error
	}{
		// Accepted values, always reduced.
		{in: "0", num: 0, den: 1},
		{in: "1", num: 1, den: 1},
		{in: "100", num: 100, den: 1},
		{in: "6/8", num: 3, den: 4},
		{in: "0/7", num: 0, den: 1},
		{in: "002/4", num: 1, den: 2},
		{in: "100/1", num: 100, den: 1},
		{in: "10/5", num: 2, den: 1},
		{in: "7/7", num: 1, den: 1},
		{in: "000", num: 0, den: 1},
		{in: "0001/0003", num: 1, den: 3},
		{in: "1/4611686018427387904", num: 1, den: pow62},
		{in: maxI64Text, num: math.MaxInt64, den: 1},
		{in: "0" + maxI64Text, num: math.MaxInt64, den: 1},
		{in: "1/" + maxI64Text, num: 1, den: math.MaxInt64},
		{in: maxI64Text + "/" + maxI64Text, num: 1, den: 1},
		{in: "9223372036854775806/4", num: 4611686018427387903, den: 2},
		{in: strings.Repeat("0", 126) + "1", num: 1, den: 1},                                 // 127 bytes
		{in: strings.Repeat("0", 62) + "1/" + strings.Repeat("0", 62) + "2", num: 1, den: 2}, // 127 bytes
		// Range: each part at most 2^63-1.
		{in: pow63Text, err: ErrRationalRange},
		{in: "1/" + pow63Text, err: ErrRationalRange},
		{in: pow63Text + "/2", err: ErrRationalRange},
		{in: "18446744073709551615", err: ErrRationalRange}, // 2^64-1
		{in: "18446744073709551616", err: ErrRationalRange}, // 2^64 (wraps to 0 in u64)
		{in: "18446744073709551617", err: ErrRationalRange}, // 2^64+1 (wraps to 1)
		{in: "27670116110564327424", err: ErrRationalRange}, // 3*2^63 (wraps to 2^63)
		{in: "99999999999999999999999999", err: ErrRationalRange},
		{in: "1/99999999999999999999", err: ErrRationalRange},
		// Zero denominator.
		{in: "1/0", err: ErrZeroDenominator},
		{in: "0/0", err: ErrZeroDenominator},
		{in: "5/000", err: ErrZeroDenominator},
		// Syntax.
		{in: "", err: ErrRationalSyntax},
		{in: "-", err: ErrRationalSyntax},
		{in: "-0", err: ErrRationalSyntax},
		{in: "-1", err: ErrRationalSyntax},
		{in: "+1", err: ErrRationalSyntax},
		{in: " 1", err: ErrRationalSyntax},
		{in: "1 ", err: ErrRationalSyntax},
		{in: "1 /2", err: ErrRationalSyntax},
		{in: "/1", err: ErrRationalSyntax},
		{in: "1/", err: ErrRationalSyntax},
		{in: "/", err: ErrRationalSyntax},
		{in: "1/2/3", err: ErrRationalSyntax},
		{in: "1//2", err: ErrRationalSyntax},
		{in: "1.5", err: ErrRationalSyntax},
		{in: "1,5", err: ErrRationalSyntax},
		{in: "1e3", err: ErrRationalSyntax},
		{in: "0x10", err: ErrRationalSyntax},
		{in: "½", err: ErrRationalSyntax},
		{in: "١", err: ErrRationalSyntax}, // Arabic-Indic digits are mapped only by the Arabic grammar
		{in: "1\t", err: ErrRationalSyntax},
		{in: "1\x00", err: ErrRationalSyntax},
		{in: strings.Repeat("0", 127) + "1", err: ErrRationalSyntax}, // 128 bytes
		{in: strings.Repeat("9", 200), err: ErrRationalSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			r, err := ParseRational([]byte(tc.in))
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, Rational{Num: tc.num, Den: tc.den}, r)
			requireReduced(t, r)
		})
	}
}

// requireReduced checks the stored-amount invariant: num >= 0, den > 0,
// gcd(num, den) = 1 (so 0 is 0/1).
func requireReduced(t testing.TB, r Rational) {
	t.Helper()
	require.GreaterOrEqual(t, r.Num, int64(0), "numerator %v", r)
	require.Greater(t, r.Den, int64(0), "denominator %v", r)
	g := new(big.Int).GCD(nil, nil, big.NewInt(r.Num), big.NewInt(r.Den))
	require.Equal(t, int64(1), g.Int64(), "not reduced: %v", r)
}

// CONTRACT 9.1: checked addition; overflow of a scaled numerator, the common
// denominator or the sum.
func TestRationalAdd(t *testing.T) {
	q := func(n, d int64) Rational { return Rational{Num: n, Den: d} }
	max := int64(math.MaxInt64)
	tests := []struct {
		name     string
		a, b     Rational
		want     Rational
		overflow bool
	}{
		{"zero plus zero", Zero, Zero, Zero, false},
		{"halves", q(1, 2), q(1, 2), q(1, 1), false},
		{"1/2+1/3", q(1, 2), q(1, 3), q(5, 6), false},
		{"1/4+1/4 reduces", q(1, 4), q(1, 4), q(1, 2), false},
		{"3/4+1/4", q(3, 4), q(1, 4), q(1, 1), false},
		{"0 + 1/2^62 (golden g7)", Zero, q(1, pow62), q(1, pow62), false},
		{"1/2^62 + 1/3 lcm overflows (golden g7)", q(1, pow62), q(1, 3), Rational{}, true},
		{"max + 0", q(max, 1), Zero, q(max, 1), false},
		{"max + 1 sum overflows", q(max, 1), q(1, 1), Rational{}, true},
		{"2^62 + 2^62 sum overflows", q(pow62, 1), q(pow62, 1), Rational{}, true},
		{"2^62 + (2^62-1) fits", q(pow62, 1), q(pow62-1, 1), q(max, 1), false},
		{"scaled numerator overflows", q(pow62, 1), q(1, 3), Rational{}, true},
		{"1/max + 1/max", q(1, max), q(1, max), q(2, max), false},
		{"1/max + 1/(max-1) denominator overflows", q(1, max), q(1, max-1), Rational{}, true},
		{"1/2 + 1/2^62 fits", q(1, 2), q(1, pow62), q(pow62/2+1, pow62), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.a.Add(tc.b)
			if tc.overflow {
				require.ErrorIs(t, err, ErrOverflow)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			requireReduced(t, got)
			back, err := tc.b.Add(tc.a)
			require.NoError(t, err)
			require.Equal(t, got, back, "addition is commutative")
		})
	}
}

func TestRationalCmp(t *testing.T) {
	q := func(n, d int64) Rational { return Rational{Num: n, Den: d} }
	max := int64(math.MaxInt64)
	tests := []struct {
		a, b Rational
		want int
	}{
		{q(1, 3), q(1, 3), 0},
		{q(1, 2), q(2, 3), -1},
		{q(2, 3), q(1, 2), 1},
		{Zero, q(0, 5), 0},
		{q(3, 4), q(6, 8), 0},
		{q(max, 1), q(max-1, 1), 1},
		{q(1, max), q(1, max-1), -1},
		{q(max, max-1), q(max-1, max-2), -1},
		{q(max, 1), q(max, 1), 0},
		{q(1, pow62), Zero, 1},
	}
	for _, tc := range tests {
		t.Run(tc.a.String()+"_vs_"+tc.b.String(), func(t *testing.T) {
			require.Equal(t, tc.want, tc.a.Cmp(tc.b))
			require.Equal(t, -tc.want, tc.b.Cmp(tc.a))
			// Cross-check with exact big-integer arithmetic.
			l := new(big.Int).Mul(big.NewInt(tc.a.Num), big.NewInt(tc.b.Den))
			r := new(big.Int).Mul(big.NewInt(tc.b.Num), big.NewInt(tc.a.Den))
			require.Equal(t, l.Cmp(r), tc.a.Cmp(tc.b))
		})
	}
}

func TestRationalString(t *testing.T) {
	require.Equal(t, "0/1", Zero.String())
	require.Equal(t, "3/4", Rational{Num: 3, Den: 4}.String())
	require.Equal(t, "9223372036854775807/1", Rational{Num: math.MaxInt64, Den: 1}.String())
	require.Equal(t, "Rational(1/2)", Rational{Num: 1, Den: 2}.GoString())
}
