package repl

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/repl/termtext"
)

// tableExec is one command in .mode table. The command runs in JSON mode
// with its stdout collected; when that is JSON Lines of flat objects (each
// value a string, number, boolean, null or a list of those: docs,
// entities, receipts, stats, ingest outcomes...) it is shown as an aligned
// table. Any other output keeps the readable view: text the command
// printed anyway is shown as is, and nested JSON (the result of query,
// find, entity) is shown by running the command again in text mode when
// that is safe (it writes nothing: see rerunnable); a command that wrote
// something is never run twice, and its JSON is shown instead.
func tableExec(env *Env, argv []string, exec func(*Env, []string) int) int {
	var buf bytes.Buffer
	jenv := *env
	jenv.Stdout, jenv.StdoutTTY, jenv.JSON, jenv.Text = &buf, false, true, false
	code := exec(&jenv, argv)
	rows, kind := parseRows(buf.Bytes())
	switch {
	case kind == rowsFlat:
		writeTableFit(env.Stdout, rows, env.textWidth())
	case kind == rowsNested && code == ExitOK && rerunnable(env, argv):
		tenv := *env
		tenv.JSON, tenv.Text = false, true
		tenv.Stderr = io.Discard // its errors were printed by the first run
		return exec(&tenv, argv)
	default:
		env.Stdout.Write(buf.Bytes())
	}
	return code
}

// readOnly are the commands that never write to the archive or a file
// unless --keep, --receipt or --out asks them to.
var readOnly = []string{"docs", "show", "stats", "query", "settle", "claim", "find", "entity", "entities", "receipts", "verify", "check", "help"}

// rerunnable reports whether running argv a second time (for its readable
// view) can change nothing: a read-only command without the flags that
// write, outside .keep on; claims only to list, read or verify rows.
func rerunnable(env *Env, argv []string) bool {
	cmd := lookup(argv[0])
	if cmd == nil || env.Keep {
		return false
	}
	p, err := parseArgs(argv[1:], cmd.flags)
	if err != nil || p.has("keep") || p.has("receipt") || p.has("out") {
		return false
	}
	if cmd.name == "claims" {
		return len(p.args) > 0 && p.args[0] != "check"
	}
	return slices.Contains(readOnly, cmd.name)
}

// rowsKind is what a command's JSON-mode stdout turned out to be.
type rowsKind int

const (
	rowsText   rowsKind = iota // not (only) JSON objects, or nothing
	rowsFlat                   // JSON Lines of flat objects
	rowsNested                 // JSON objects, some with nested values
)

// row is one flat object: its keys in order and their cells.
type row struct {
	keys  []string
	cells []cell
}

type cell struct {
	text   string // as shown, sanitized
	number bool
}

// parseRows reads out as JSON Lines (blank lines are not allowed: they
// are not JSON Lines).
func parseRows(out []byte) ([]row, rowsKind) {
	if len(bytes.TrimSpace(out)) == 0 || !bytes.HasSuffix(out, []byte("\n")) {
		return nil, rowsText
	}
	var rows []row
	kind := rowsFlat
	for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		r, err := parseFlatObject(line)
		switch {
		case errors.Is(err, errNested):
			kind = rowsNested
		case err != nil:
			return nil, rowsText
		}
		rows = append(rows, r)
	}
	if kind == rowsNested {
		return nil, rowsNested
	}
	return rows, rowsFlat
}

// errNested: the line is a JSON object, but not a flat one.
var errNested = errors.New("nested value")

// parseFlatObject parses one JSON object, keeping its keys in order (a
// map would lose the order the command chose for its columns).
func parseFlatObject(line []byte) (row, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var r row
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return r, errors.New("not a JSON object")
	}
	nested := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return r, err
		}
		key, _ := t.(string)
		c, err := flatValue(dec)
		if errors.Is(err, errNested) {
			nested = true
		} else if err != nil {
			return r, err
		}
		r.keys, r.cells = append(r.keys, key), append(r.cells, c)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return r, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return r, errors.New("text after the JSON object")
	}
	if nested {
		return r, errNested
	}
	return r, nil
}

// flatValue reads one value: a scalar, or a list of scalars (shown joined
// by ", "); an object, or a list holding one, is errNested (after being
// skipped, so that the rest of the line is still checked).
func flatValue(dec *json.Decoder) (cell, error) {
	t, err := dec.Token()
	if err != nil {
		return cell{}, err
	}
	if d, ok := t.(json.Delim); ok {
		if d == '{' {
			return cell{}, skipRest(dec, 1)
		}
		var items []string
		for dec.More() {
			it, err := dec.Token()
			if err != nil {
				return cell{}, err
			}
			if _, ok := it.(json.Delim); ok {
				return cell{}, skipRest(dec, 2) // the item, then the list
			}
			items = append(items, scalarText(it))
		}
		_, err := dec.Token() // ]
		return cell{text: strings.Join(items, ", ")}, err
	}
	_, number := t.(json.Number)
	return cell{text: scalarText(t), number: number}, nil
}

// skipRest skips tokens until depth open delimiters are closed; it
// returns errNested when the JSON is well formed.
func skipRest(dec *json.Decoder, depth int) error {
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return errNested
}

// scalarText shows a JSON scalar: strings with their control characters
// escaped (a TAB too: it would break the columns), null as nothing.
func scalarText(t json.Token) string {
	switch v := t.(type) {
	case string:
		return strings.ReplaceAll(sanitize(v), "\t", `\t`)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// writeTable writes rows as aligned columns, however wide: writeTableFit
// without a width.
func writeTable(w io.Writer, rows []row) { writeTableFit(w, rows, 0) }

// writeTableFit writes rows as aligned columns: the keys in the order first
// seen (a row without a key has an empty cell), widths in terminal
// columns (Arabic letters count one, their marks none; wide characters
// two), numbers right-aligned when a whole column is numeric, two spaces
// between columns and no trailing spaces. A table wider than width (the
// terminal's, textWidth; 0 is no limit) is fitted as fitColumns says, or,
// when even that is too wide, shown one record at a time (writeExpanded).
func writeTableFit(w io.Writer, rows []row, width int) {
	var cols []string
	index := map[string]int{}
	for _, r := range rows {
		for _, k := range r.keys {
			if _, ok := index[k]; !ok {
				index[k] = len(cols)
				cols = append(cols, k)
			}
		}
	}
	grid := make([][]cell, len(rows)+1)
	grid[0] = make([]cell, len(cols))
	for i, c := range cols {
		grid[0][i] = cell{text: scalarText(c)} // a key is shown as a string value is
	}
	numeric := make([]bool, len(cols))
	for i := range numeric {
		numeric[i] = true
	}
	for i, r := range rows {
		line := make([]cell, len(cols))
		for j, k := range r.keys {
			line[index[k]] = r.cells[j]
		}
		for j, c := range line {
			if c.text != "" && !c.number {
				numeric[j] = false
			}
		}
		grid[i+1] = line
	}
	widths := make([]int, len(cols))
	for _, line := range grid {
		for j, c := range line {
			widths[j] = max(widths[j], termtext.Width(c.text, 0))
		}
	}
	if width >= termtext.MinWrap && tableWidth(widths) > width {
		if !fitColumns(widths, numeric, width) {
			writeExpanded(w, grid, width)
			return
		}
		for _, line := range grid {
			for j := range line {
				line[j].text = truncateCell(line[j].text, widths[j])
			}
		}
	}
	var b strings.Builder
	for _, line := range grid {
		b.Reset()
		for j, c := range line {
			pad := strings.Repeat(" ", widths[j]-termtext.Width(c.text, 0))
			if j > 0 {
				b.WriteString("  ")
			}
			if numeric[j] {
				b.WriteString(pad + c.text)
			} else {
				b.WriteString(c.text + pad)
			}
		}
		io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
}

// minColumn is the narrowest a text column is truncated to: 9 characters
// and the ellipsis still tell names apart, and 9 hex digits of a hash
// name a document (8 are enough for a DOC argument).
const minColumn = 10

// tableWidth is the width of a line of columns this wide.
func tableWidth(widths []int) int {
	total := 2 * max(0, len(widths)-1)
	for _, w := range widths {
		total += w
	}
	return total
}

// fitColumns narrows the text columns, the widest first, until the table
// fits width, and reports whether it does. Numeric columns keep their
// width: a cut number would read as another number. A text column keeps
// at least minColumn (its header is cut like its cells: docs has seven
// columns, and at 80 it fits only so).
func fitColumns(widths []int, numeric []bool, width int) bool {
	floor := make([]int, len(widths))
	for j := range widths {
		floor[j] = widths[j]
		if !numeric[j] {
			floor[j] = min(widths[j], minColumn)
		}
	}
	for tableWidth(widths) > width {
		widest := -1
		for j := range widths {
			if widths[j] > floor[j] && (widest < 0 || widths[j] > widths[widest]) {
				widest = j
			}
		}
		if widest < 0 {
			return false
		}
		widths[widest]--
	}
	return true
}

// ellipsis ends a truncated cell.
const ellipsis = "…"

// truncateCell cuts s to at most width columns, ending it with an
// ellipsis when it was cut. The cut is between characters (never inside
// a UTF-8 sequence) and keeps a combining mark with its letter (a mark
// takes no column, so termtext.CutAt keeps it).
func truncateCell(s string, width int) string {
	if termtext.Width(s, 0) <= width {
		return s
	}
	n := termtext.CutAt(s, 0, width-termtext.Width(ellipsis, 0))
	if width <= termtext.Width(ellipsis, 0) {
		n = 0
	}
	return s[:n] + ellipsis
}

// writeExpanded shows a table too wide for width even with its text
// columns cut (stats: nine numeric columns) one record at a time, as
// psql's expanded display does: a "key  value" line per column, the keys
// aligned, long values wrapped under the value column
// (termtext.FitLineIndent), a blank line between records. The header row
// is grid[0].
func writeExpanded(w io.Writer, grid [][]cell, width int) {
	keyWidth := 0
	for _, k := range grid[0] {
		keyWidth = max(keyWidth, termtext.Width(k.text, 0))
	}
	for i, line := range grid[1:] {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		for j, c := range line {
			k := grid[0][j].text
			text := strings.TrimRight(k+strings.Repeat(" ", keyWidth-termtext.Width(k, 0))+"  "+c.text, " ")
			for _, l := range termtext.FitLineIndent(text, width, keyWidth+2) {
				io.WriteString(w, l+"\n")
			}
		}
	}
}
