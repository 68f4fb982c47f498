// Package mdtable reads the tables of the project's Markdown documents,
// for the tests that hold those documents to the code (the exit codes and
// error kinds of repl/GUIDE.md, the rules of engine/claimcheck/README.md,
// the buckets and schema versions of db/FORMAT.md).
package mdtable

import "strings"

// Cells splits one table row ("| a | b |") into its cells, trimmed. Cells
// are separated by " | ", so a "|" inside a cell's code span stays.
func Cells(row string) []string {
	cells := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), " | ")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// Rows returns the rows of the first table in lines (from its first line
// starting with "|" to the line before the next that does not), header
// and rule rows included, each split by Cells.
func Rows(lines []string) [][]string {
	var rows [][]string
	for _, l := range lines {
		if !strings.HasPrefix(l, "|") {
			if rows != nil {
				break
			}
			continue
		}
		rows = append(rows, Cells(l))
	}
	return rows
}

// Body is Rows without the header and rule rows, nil when the table has
// no rule row (a table in Markdown has both).
func Body(lines []string) [][]string {
	rows := Rows(lines)
	if len(rows) < 2 || !strings.HasPrefix(rows[1][0], "---") {
		return nil
	}
	return rows[2:]
}
