package mdtable

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRows(t *testing.T) {
	doc := strings.Split(`text before

| code | meaning |
| --- | --- |
| 0 | ok |
|  1 | `+"`a|b`"+` |
after
| other | table |`, "\n")
	require.Equal(t, [][]string{{"code", "meaning"}, {"---", "---"}, {"0", "ok"}, {"1", "`a|b`"}}, Rows(doc))
	require.Equal(t, [][]string{{"0", "ok"}, {"1", "`a|b`"}}, Body(doc))
	require.Nil(t, Body([]string{"| a |", "| b |"}), "no rule row: not a table")
	require.Nil(t, Rows([]string{"no table"}))
	require.Equal(t, []string{"a", "b c"}, Cells("|a |  b c|"))
}
