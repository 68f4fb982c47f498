package commands_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/receipt"

	"github.com/stretchr/testify/require"
)

func archive(t *testing.T) *db.Archive {
	t.Helper()
	a, err := db.Open(filepath.Join(t.TempDir(), "chronicle.db"), db.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	_, err = a.Ingest([]byte("Saud met Alice.\nAlice paid Saud.\nThe end.\n"), 1750000000, "a.txt")
	require.NoError(t, err)
	_, err = a.Ingest([]byte("Nothing about him here, but a longer line to be larger.\n"), 1750000001, "b.txt")
	require.NoError(t, err)
	return a
}

// Every read command with a tool is in the table once, with what help and
// the MCP listing say.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range commands.Table {
		require.False(t, seen[s.Name], "%s twice", s.Name)
		seen[s.Name] = true
		require.Same(t, commands.Lookup(s.Name), commands.Lookup(s.Name))
		if s.Tool != "" {
			require.Equal(t, s.Name, commands.ByTool(s.Tool).Name)
		}
	}
	require.Nil(t, commands.Lookup("nosuch"))
	require.Equal(t, "A, B or C", commands.OneOf([]string{"A", "B", "C"}))
}

// TestTableDeclaresArguments walks the table: every command has its help,
// an argument synopsis that matches how many it takes and what each
// names, and flags each with its help, named once among the command's and
// the global ones; a flag that takes a value says what the value is.
func TestTableDeclaresArguments(t *testing.T) {
	for _, s := range commands.Table {
		require.NotEmpty(t, s.Summary, s.Name)
		require.NotEmpty(t, s.Example, s.Name)
		require.True(t, s.Max == commands.Many || s.Min <= s.Max, "%s: %d to %d arguments", s.Name, s.Min, s.Max)
		require.Equal(t, s.Max != 0, s.Args != "", "%s: a command with arguments has a synopsis, one without none: %q", s.Name, s.Args)
		if s.Max != 0 {
			require.NotEmpty(t, s.Kinds, "%s: what its arguments name (completion)", s.Name)
		}
		require.True(t, s.Max == commands.Many || len(s.Kinds) <= s.Max, "%s: more kinds than arguments", s.Name)
		require.Equal(t, len(s.Verbs) > 0, slices.Contains(s.Kinds, commands.ArgVerb), "%s: verbs and a verb argument go together", s.Name)
		seen := map[string]bool{}
		for _, f := range s.FlagsOf() {
			require.False(t, seen[f.Name], "%s --%s twice", s.Name, f.Name)
			seen[f.Name] = true
			require.NotEmpty(t, f.Help, "%s --%s has no help", s.Name, f.Name)
			require.Regexp(t, `^[a-z][a-z-]*$`, f.Name, s.Name)
			if f.Value == "" {
				require.Equal(t, commands.ArgNone, f.Kind, "%s --%s: a boolean flag names nothing", s.Name, f.Name)
				require.False(t, f.Repeat, "%s --%s: a boolean flag is not repeated", s.Name, f.Name)
			}
			got, ok := s.Flag(f.Name)
			require.True(t, ok, "%s --%s", s.Name, f.Name)
			require.Equal(t, f, got)
		}
		verbs := map[string]bool{}
		for _, v := range s.Verbs {
			require.False(t, verbs[v.Name], "%s %s twice", s.Name, v.Name)
			verbs[v.Name] = true
			require.NotEmpty(t, v.Summary, "%s %s", s.Name, v.Name)
			require.LessOrEqual(t, v.NArgs+1, s.Max, "%s %s: the command takes the verb and its arguments", s.Name, v.Name)
		}
	}
}

func TestDocs(t *testing.T) {
	a := archive(t)
	all, err := commands.DocsList(a, commands.DocsIn{})
	require.NoError(t, err)
	require.Len(t, all.Documents, 2)
	require.Equal(t, []string{"a.txt"}, all.Documents[0].Names)
	require.Equal(t, "2025-06-15T15:06:40Z", all.Documents[0].Imported)

	page, err := commands.DocsList(a, commands.DocsIn{Limit: 1, Sort: "size"})
	require.NoError(t, err)
	require.True(t, page.More)
	require.Equal(t, []string{"b.txt"}, page.Documents[0].Names)
	page, err = commands.DocsList(a, commands.DocsIn{After: "a.txt"})
	require.NoError(t, err)
	require.Len(t, page.Documents, 1)

	_, err = commands.DocsList(a, commands.DocsIn{Sort: "date"})
	require.True(t, db.IsInputError(err))
	_, err = commands.DocsList(a, commands.DocsIn{Limit: -1})
	require.True(t, db.IsInputError(err))
	_, err = commands.DocsList(a, commands.DocsIn{After: "nosuch"})
	var ae *commands.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "document", ae.Object)
	require.ErrorIs(t, err, db.ErrUnknownDoc)
}

func TestShow(t *testing.T) {
	a := archive(t)
	var lines []commands.Line
	each := func(l db.Line) error { lines = append(lines, commands.LineOf(l)); return nil }
	d, err := commands.Show(a, commands.ShowIn{Document: "a.txt", From: 2}, each)
	require.NoError(t, err)
	require.Equal(t, "a.txt", d.Label())
	require.Equal(t, []commands.Line{{ByteStart: 16, ByteEnd: 32, Line: 2, Text: "Alice paid Saud."}, {ByteStart: 33, ByteEnd: 41, Line: 3, Text: "The end."}}, lines)

	for _, in := range []commands.ShowIn{{Document: "a.txt", From: -1}, {Document: "a.txt", From: 3, To: 2}} {
		_, err := commands.Show(a, in, each)
		require.True(t, db.IsInputError(err), "%+v", in)
	}
	_, err = commands.Show(a, commands.ShowIn{Document: "a.txt", From: 9}, each)
	require.EqualError(t, err, "a.txt has 3 lines, no line 9")
}

func TestStats(t *testing.T) {
	a := archive(t)
	st, err := commands.StatsOf(a, commands.StatsIn{})
	require.NoError(t, err)
	require.Equal(t, 2, st.Documents)
	require.Equal(t, db.SchemaVersion, st.SchemaVersion)
	require.Equal(t, a.Path(), st.Archive)
	require.Positive(t, st.FileBytes)
}

func TestFindEntityVerify(t *testing.T) {
	a := archive(t)
	open := func() (*db.Archive, error) { return a, nil }

	_, _, err := commands.FindIn{Terms: "Saud", Limit: -1}.Check(false, false)
	require.True(t, db.IsInputError(err))
	q, limit, err := commands.FindIn{Terms: "Saud"}.Check(false, false)
	require.NoError(t, err)
	require.NotNil(t, q)
	require.Equal(t, db.DefaultFindLimit, limit)
	_, _, err = commands.FindIn{Terms: strings.Repeat("saud ", 1000)}.Check(false, false)
	require.Error(t, err, "find's grammar bounds the terms")

	found, err := commands.Find(a, commands.FindIn{Terms: "Saud"}, true)
	require.NoError(t, err)
	require.Len(t, found.Hits, 1)
	require.Equal(t, receipt.Valid, commands.Verify(open, commands.VerifyIn{Receipt: string(found.Receipt.Encode())}).Outcome)
	in, err := commands.Find(a, commands.FindIn{Terms: "Saud", Document: "a.txt"}, false)
	require.NoError(t, err)
	require.Equal(t, "MATCHES", in.Answer.Find.Status)
	v := commands.Verify(open, commands.VerifyIn{Receipt: string(in.Answer.Receipt.Encode())})
	require.Equal(t, receipt.Valid, v.Outcome)
	require.Empty(t, v.Warning)

	require.True(t, db.IsInputError(commands.EntityIn{Name: "a\tb"}.Check(false)))
	ent, err := commands.Entity(a, commands.EntityIn{Name: "Saud"}, false)
	require.NoError(t, err)
	require.Nil(t, ent.Receipt)
	names, err := commands.Entities(a, commands.EntitiesIn{Prefix: "Zz"})
	require.NoError(t, err)
	require.Empty(t, names)

	// malformed and oversized receipts are INVALID without the archive
	none := func() (*db.Archive, error) { panic("opened") }
	for _, bad := range []string{db.ReceiptHeader + "\nkind:QUERY\n", strings.Repeat("x", db.MaxReceiptSize+1)} {
		p := commands.ParseReceipt(commands.VerifyIn{Receipt: bad})
		v, ok := p.Malformed()
		require.True(t, ok)
		require.Equal(t, receipt.Invalid, v.Outcome)
		require.Equal(t, receipt.Invalid, p.Replay(none).Outcome)
	}
}

// TestEntityPage: a page of an entity's events is the slice of Entity's
// hits, with their records; every event is there without them.
func TestEntityPage(t *testing.T) {
	a := archive(t)
	_, err := a.Ingest([]byte("Saud owns Pen.\nSaud owns Cup.\nAlice owns Saud.\n"), 1750000002, "c.txt")
	require.NoError(t, err)
	all, err := commands.Entity(a, commands.EntityIn{Name: "Saud"}, false)
	require.NoError(t, err)
	require.Len(t, all.Hits, 5)
	for _, c := range []struct{ from, n, want0, want1 int }{
		{0, 2, 0, 2}, {2, 2, 2, 4}, {4, 2, 4, 5}, {5, 2, 5, 5}, {99, 2, 5, 5}, {-1, 3, 0, 3}, {1, 0, 1, 1},
	} {
		p, err := commands.EntityPage(a, commands.EntityIn{Name: "Saud"}, c.from, c.n)
		require.NoError(t, err)
		require.Len(t, p.Events, 5)
		for i, e := range p.Events {
			require.Nil(t, e.Doc)
			e.Doc = all.Hits[i].Doc
			require.Equal(t, all.Hits[i], e)
		}
		require.Equal(t, all.Hits[c.want0:c.want1], p.Page, "from %d, %d", c.from, c.n)
	}
	_, err = commands.EntityPage(a, commands.EntityIn{Name: "a\tb"}, 0, 1)
	require.True(t, db.IsInputError(err))
}

// TestResultsInNameOrder: the members of every typed result's JSON come
// in the order of their names, as the CLI printed its lines before they
// were typed (from maps, which encoding/json sorts), so that a field
// added out of order cannot change a `--json` line's bytes.
func TestResultsInNameOrder(t *testing.T) {
	for _, v := range []any{commands.Doc{}, commands.Line{}, commands.Verdict{},
		commands.ArchiveReceiptLine{}, commands.SetReceiptLine{}, commands.OriginalReceiptLine{},
		commands.Problem{}, commands.CheckOut{}, commands.Exported{}, commands.ImportOut{}, commands.IngestOut{},
		commands.ReindexOut{}, commands.MigrateOut{}, commands.MigrateStep{},
		commands.RowRead{}, commands.RowVerified{}, commands.RowsVerified{}, commands.ClaimCheckLine{}} {
		typ := reflect.TypeOf(v)
		var names []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name != "-" {
				names = append(names, name)
			}
		}
		require.NotEmpty(t, names, typ.Name())
		require.True(t, slices.IsSorted(names), "%s: %v", typ.Name(), names)
	}
}

func TestUpkeep(t *testing.T) {
	a := archive(t)
	out, problems, err := commands.Check(context.Background(), a, db.CheckOptions{}, func(p db.Problem) error { t.Errorf("problem %v", p); return nil })
	require.NoError(t, err)
	require.Zero(t, problems)
	require.Equal(t, &commands.CheckOut{Archive: a.Path(), Documents: 2, OK: true}, out)

	m, err := commands.Migrate(a)
	require.NoError(t, err)
	require.False(t, m.Upgraded)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.Contains(t, string(b), `"steps":[]`, "nothing to do is an empty list, not null")

	var kinds []db.ReceiptKind
	sum, err := commands.Receipts(a, commands.ReceiptsIn{Verify: true}, func(it commands.ReceiptItem) error {
		require.NotNil(t, it.Archive)
		require.Equal(t, receipt.Valid.String(), it.Verdict)
		kinds = append(kinds, it.Archive.Kind)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []db.ReceiptKind{db.KindIngest, db.KindIngest}, kinds)
	require.Equal(t, &commands.ReceiptsOut{Total: 2}, sum)
	for _, doc := range []string{"nosuch", ""} {
		_, err = commands.Receipts(a, commands.ReceiptsIn{Document: &doc}, nil)
		require.ErrorIs(t, err, db.ErrUnknownDoc, "%q names no document", doc)
	}
}

func TestExport(t *testing.T) {
	a := archive(t)
	dir := t.TempDir()
	first, err := commands.Export(a, commands.ExportIn{Document: "a.txt", Dir: dir})
	require.NoError(t, err)
	require.True(t, first.Created)
	require.Equal(t, filepath.Join(dir, "a.txt.chronicle"), first.Store)
	again, err := commands.Export(a, commands.ExportIn{Document: "a.txt", Dir: dir})
	require.NoError(t, err)
	require.False(t, again.Created, "the same bytes are there")

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "a.txt.chronicle"), []byte("other"), 0o644))
	_, err = commands.Export(a, commands.ExportIn{Document: "a.txt", Dir: other})
	require.ErrorIs(t, err, commands.ErrOtherContent)
	var ae *commands.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "file", ae.Object)
	_, err = os.Stat(filepath.Join(other, "a.txt.chronicle.receipt"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing was written")
}

func TestClaimsInputs(t *testing.T) {
	require.ErrorIs(t, commands.ClaimsVerifyIn{}.Check(), commands.ErrNoRows)
	require.Error(t, commands.ClaimsCheckIn{Claims: []byte("not a claims file\n")}.Check())
	var read []commands.RowRead
	bad, err := commands.ClaimsRead([][]byte{[]byte("{}")}, func(r commands.RowRead) error { read = append(read, r); return nil })
	require.NoError(t, err)
	require.Equal(t, 1, bad)
	require.Len(t, read, 1)
	require.False(t, read[0].OK)
	require.NotEmpty(t, read[0].Problem)
}
