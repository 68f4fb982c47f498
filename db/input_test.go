package db_test

import (
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/stretchr/testify/require"
)

// The shared input checks: what each front-end refuses, and how (an
// InputError is a usage error in the CLI).
func TestInputChecks(t *testing.T) {
	for _, tc := range []struct {
		give  int
		want  int
		input bool // refused as an InputError
	}{{0, db.DefaultFindLimit, false}, {1, 1, false}, {db.MaxLimit, db.MaxLimit, false}, {-1, 0, true}, {db.MaxLimit + 1, 0, true}} {
		got, err := db.FindLimit(tc.give)
		if tc.input {
			require.True(t, db.IsInputError(err), "limit %d", tc.give)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}

	require.NoError(t, db.CheckQuestion("the question is", "Did A repay B?"))
	err := db.CheckQuestion("the question is", "bad \xff")
	require.True(t, db.IsInputError(err))
	require.EqualError(t, err, "the question is not valid UTF-8 text")
	long := strings.Repeat("a", db.MaxQuestion+1)
	err = db.CheckQuestion("the terms are", long)
	require.False(t, db.IsInputError(err), "too long is a failure, not a usage error")
	require.EqualError(t, err, "the terms are 65537 bytes; receipts carry at most 65536")
	require.NoError(t, db.CheckQuestionSize("the terms are", long[1:]))

	require.NoError(t, db.CheckEntityName("Saud"))
	for _, bad := range []string{"", "a\tb", "\xff", strings.Repeat("n", 4096)} {
		require.True(t, db.IsInputError(db.CheckEntityName(bad)), "%q", bad)
	}
	require.NoError(t, db.CheckClaimFields("Alice", "owns", "Book"))
	require.True(t, db.IsInputError(db.CheckClaimFields("Alice", "o\twns", "Book")))
	require.Equal(t, 2*db.MaxQuestion+1024, db.MaxReceiptSize)
}
