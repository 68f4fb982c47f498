// Package testarchive builds, in process, the archives of the repository's
// sample documents that the tests of several packages read (db, the MCP
// server, the chronicle command): one place for the fixture each of them
// used to build its own way. It is imported by tests only.
package testarchive

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
)

// GoldenTime is the golden clock of the test archives (SOURCE_DATE_EPOCH
// of testdata/golden): every document's imported_at.
const GoldenTime = 1750000000

// Root is the repository's root: the nearest directory holding go.mod at
// or above the working directory (a test runs in its package's
// directory).
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testarchive: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Samples is a new archive in a temporary directory of t holding the
// sample stories of testdata/samples (Build); it returns its path.
func Samples(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chronicle.db")
	Build(t, path, "testdata/samples")
	return path
}

// One is a new archive in a temporary directory of t holding one document,
// text under name, imported at GoldenTime; it returns its path.
func One(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chronicle.db")
	a := open(t, path)
	defer a.Close()
	if _, err := a.Ingest([]byte(text), GoldenTime, name); err != nil {
		t.Fatalf("testarchive: ingesting %s: %v", name, err)
	}
	closeArchive(t, a)
	return path
}

// Build creates the archive at path (closed on return) with the files of
// the repository directories dirs, in the order given and each in lexical
// order, every one under its repository path (testdata/samples/alice-bob-en.txt,
// as `chronicle ingest testdata/samples` names it run from the root) and
// imported at GoldenTime.
func Build(t testing.TB, path string, dirs ...string) {
	t.Helper()
	root := Root(t)
	a := open(t, path)
	defer a.Close()
	for _, dir := range dirs {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 {
			t.Fatalf("testarchive: no files in %s", dir)
		}
		for _, e := range entries { // ReadDir sorts by name
			name := dir + "/" + e.Name()
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Ingest(src, GoldenTime, name); err != nil {
				t.Fatalf("testarchive: ingesting %s: %v", name, err)
			}
		}
	}
	closeArchive(t, a)
}

// open creates the archive at path (the deferred Close after
// closeArchive only returns an error, ignored).
func open(t testing.TB, path string) *db.Archive {
	t.Helper()
	a, err := db.Open(path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// closeArchive closes a, failing the test if the close fails.
func closeArchive(t testing.TB, a *db.Archive) {
	t.Helper()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// Derived is a new archive in a temporary directory of t holding one
// original file, a mail (mail.eml) with a PDF attachment, and the two
// texts derived from them (db.IngestDerived, as `chronicle ingest` of a
// mail stores it), imported at GoldenTime; it returns its path.
func Derived(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chronicle.db")
	a := open(t, path)
	defer a.Close()
	mail := db.Tool{Name: "chronicle-mail", Version: "1", Options: []string{}}
	pdf := db.Tool{Name: "pdftotext", Version: "24.02.0", Options: []string{"-enc", "UTF-8"}}
	originals := []db.OriginalInput{
		{Data: []byte("From: Khalid\r\nSubject: the loan\r\n\r\nKhalid lent Ahmed 100 dinars.\r\n"), Kind: "email", Names: []string{"mail.eml"}, Parent: -1},
		{Data: []byte("%PDF-1.4\n% a receipt\n"), Kind: "pdf", ContentType: "application/pdf", Names: []string{"mail.eml/receipt.pdf"}, Parent: 0, Part: "receipt.pdf", Tool: mail},
	}
	texts := []db.DerivedText{
		{Original: 0, Tool: mail, Text: []byte("From: Khalid\nSubject: the loan\n\nKhalid lent Ahmed 100 dinars.\n"), Names: []string{"mail.eml"}},
		{Original: 1, Tool: pdf, Text: []byte("Ahmed repaid Khalid 40 dinars.\n"), Names: []string{"mail.eml/receipt.pdf"}},
	}
	if _, err := a.IngestDerived(GoldenTime, originals, texts); err != nil {
		t.Fatalf("testarchive: ingesting mail.eml: %v", err)
	}
	closeArchive(t, a)
	return path
}
