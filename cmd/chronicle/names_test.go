package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPathResolution: a DOC written as another path to the file a
// document was ingested from (./x, an absolute path, a path from another
// directory, an uncleaned one) resolves to that document, which keeps the
// name as typed; a path to another file does not.
func TestPathResolution(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("docs/story.txt", "Opening prose.\nAlice owns Book.\n")
	w.write("docs/other.txt", "Bob owns Pen.\n")
	require.NoError(t, os.MkdirAll(filepath.Join(w.dir, "elsewhere"), 0o755))
	w.ok("ingest", "docs/story.txt")
	w.ok("ingest", "docs/other.txt")
	abs := filepath.Join(w.dir, "docs", "story.txt")
	for _, c := range []struct {
		name, dir, doc string
	}{
		{"as typed", "", "docs/story.txt"},
		{"./ prefix", "", "./docs/story.txt"},
		{"uncleaned", "", "docs//./story.txt"},
		{"absolute", "", abs},
		{"absolute from another directory", "elsewhere", abs},
		{"relative from the file's directory", "docs", "story.txt"},
		{"relative from a sibling directory", "elsewhere", "../docs/story.txt"},
		{"./ from the file's directory", "docs", "./story.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBin(t, chronicleBin, filepath.Join(w.dir, c.dir), nil, "--db="+w.db, "show", c.doc, "2-2", "--text")
			require.Equal(t, 0, r.code, "%s", r)
			require.Equal(t, "     2  Alice owns Book.\n", r.stdout)
		})
	}
	// The name is kept as typed for display.
	require.Equal(t, []string{"docs/story.txt"}, w.docs()[0].Names)
	// The same file name in another directory is another file.
	r := runBin(t, chronicleBin, filepath.Join(w.dir, "elsewhere"), nil, "--db="+w.db, "show", "story.txt")
	requireOneLineError(t, r, 1, "show", `"story\.txt": no such document; did you mean "docs/story\.txt"\?`)
	require.Contains(t, w.ok("check"), "ok: 2 documents checked")
}

// TestPathMoves: changed bytes ingested from the same file under another
// spelling take the path over, as a name moves; check stays clean.
func TestPathMoves(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("docs/story.txt", "Alice owns Book.\n")
	w.ok("ingest", "docs/story.txt")
	w.write("docs/story.txt", "Alice owns Pen.\n")
	r := runBin(t, chronicleBin, filepath.Join(w.dir, "docs"), nil, "--db="+w.db, "ingest", "story.txt")
	require.Equal(t, 0, r.code, "%s", r)
	out := w.ok("show", "./docs/story.txt", "--text")
	require.Equal(t, "     1  Alice owns Pen.\n", out)
	// The old document keeps its own name, as typed.
	require.Equal(t, "     1  Alice owns Book.\n", w.ok("show", "docs/story.txt", "--text"))
	require.Contains(t, w.ok("check"), "ok: 2 documents checked")
}

// TestUnknownDocSuggestions: an unknown DOC gets the nearest names.
func TestUnknownDocSuggestions(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("samples/alice-bob-en.txt", "Alice owns Book.\n")
	w.write("samples/ahmed-khalid-ar.txt", "Bob owns Pen.\n")
	w.ok("ingest", "samples")
	for _, c := range []struct{ doc, want string }{
		{"samples/alice-bob-en.tx", `; did you mean "samples/alice-bob-en\.txt"\? \(give a document name`},
		{"alice", `; did you mean "samples/alice-bob-en\.txt"\?`},
		{"samples/a", `; did you mean "samples/alice-bob-en\.txt" or "samples/ahmed-khalid-ar\.txt"\?`},
		{"zzz", `"zzz": no such document \(give a document name`},
	} {
		t.Run(c.doc, func(t *testing.T) {
			requireOneLineError(t, w.run("show", c.doc), 1, "show", c.want, "`docs` lists them")
			requireOneLineError(t, w.run("query", c.doc, "Did Alice repay Bob?"), 1, "query", c.want)
		})
	}
}

// TestChosenNameRefused: --name must be non-empty and not a hash prefix of
// another document; a refused one writes nothing.
func TestChosenNameRefused(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("a.txt", "Alice owns Book.\n")
	w.write("b.txt", "Bob owns Pen.\n")
	w.ok("ingest", "a.txt")
	aHash := w.docs()[0].SHA256
	before := w.archiveBytes()
	for _, c := range []struct {
		name, value string
		code        int
		out, err    string
	}{
		{"empty", "--name=", 2, `^$`, `^chronicle ingest: --name cannot be empty; nothing was ingested\n$`},
		{"8 hex digits of another document", "--name=" + aHash[:8], 1,
			`^rejected  b\.txt: name refused: "` + aHash[:8] + `" is also the start of the SHA-256 of document ` + aHash[:12] + `, so it would not name this document`,
			`^chronicle ingest: 1 of 1 files rejected\n$`},
		{"upper case full hash", "--name=" + strings.ToUpper(aHash), 1, `^rejected  b\.txt: name refused: `, `^chronicle ingest: 1 of 1 files rejected\n$`},
		// A chosen name never takes another document's name or path.
		{"another document's name", "--name=a.txt", 1,
			`^rejected  b\.txt: name refused: "a\.txt" already names document ` + aHash[:12] + `; choose another name \(nothing was ingested\)`,
			`^chronicle ingest: 1 of 1 files rejected\n$`},
		{"another spelling of its file", "--name=./a.txt", 1, `^rejected  b\.txt: name refused: "\./a\.txt" already names document ` + aHash[:12], `^chronicle ingest: 1 of 1 files rejected\n$`},
		{"its absolute path", "--name=" + filepath.Join(w.dir, "a.txt"), 1, `^rejected  b\.txt: name refused: `, `^chronicle ingest: 1 of 1 files rejected\n$`},
		{"blank", "--name=  ", 1, `^rejected  b\.txt: name refused: "  " is blank or holds control characters`, `^chronicle ingest: 1 of 1 files rejected\n$`},
		{"a TAB", "--name=a\tb", 1, `^rejected  b\.txt: name refused: "a\\tb" is blank or holds control characters`, `^chronicle ingest: 1 of 1 files rejected\n$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := w.run("ingest", "b.txt", c.value)
			require.Equal(t, c.code, r.code, "%s", r)
			require.Regexp(t, c.out, r.stdout)
			require.Regexp(t, c.err, r.stderr)
			require.Equal(t, before, w.archiveBytes(), "nothing was written")
		})
	}
	// A name that only looks like a hash, or is a prefix of the document's
	// own hash, is accepted.
	w.ok("ingest", "b.txt", "--name=deadbeef")
	bHash := w.docs()[1].SHA256
	w.ok("ingest", "b.txt", "--name="+bHash[:10])
	require.Equal(t, []string{"b.txt", "deadbeef", bHash[:10]}, w.docs()[1].Names)
	// a.txt still names its own document, by every spelling.
	for _, doc := range []string{"a.txt", "./a.txt", filepath.Join(w.dir, "a.txt")} {
		require.Contains(t, w.ok("show", doc, "1", "--text"), "Alice owns Book.", doc)
	}
	// The document's own name again, as --name, is no change.
	w.ok("ingest", "b.txt", "--name=deadbeef")
}
