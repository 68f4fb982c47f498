package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Mail, mbox, web pages and PDFs from the command line (issue 30): the
// real binary ingests the extract package's real files, keeps each
// original, names each derived text FILE or FILE/PART, lists them in
// `originals`, writes an original back with `export --original`, and
// rejects a bad original in one line while keeping it.

// needPDFTools skips without poppler's pdftotext, except in CI, where it
// must be installed (.ci/run does) and its absence fails.
func needPDFTools(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("pdftotext is not installed (apt install poppler-utils): %v", err)
		}
		t.Skip("pdftotext is not installed; apt install poppler-utils")
	}
}

func copyExtractFile(t *testing.T, w *ws, name string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "engine", "extract", "testdata", name))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, name), data, 0o644))
}

// TestIngestOriginals: a mail with a PDF, a nested mail and an image
// attached, an mbox, a web page and an encrypted PDF, ingested in one
// batch beside a text file.
func TestIngestOriginals(t *testing.T) {
	t.Parallel()
	needPDFTools(t)
	w := newWS(t)
	for _, f := range []string{"attachments.eml", "three.mbox", "english.html", "encrypted.pdf"} {
		copyExtractFile(t, w, f)
	}
	w.write("note.txt", "A plain note.\n")

	r := w.run("ingest", ".")
	require.Equal(t, 1, r.code, "%s", r)
	out := lines(r.stdout)
	var names []string
	for _, l := range out {
		f := strings.Fields(l)
		names = append(names, f[0]+" "+f[1])
	}
	require.Equal(t, []string{
		"new attachments.eml", "new attachments.eml/invoice.pdf", "new attachments.eml/bank_notice.eml",
		"rejected encrypted.pdf:", "new english.html", "new note.txt",
		"new three.mbox/message-0001", "new three.mbox/message-0002", "new three.mbox/message-0003",
	}, names, r.stdout)
	require.Contains(t, r.stdout, "derived by pdftotext ")
	require.Contains(t, r.stdout, "rejected  encrypted.pdf: the PDF is encrypted\n")
	require.Contains(t, r.stderr, "chronicle ingest: encrypted.pdf: the original file is kept (")
	require.Contains(t, r.stderr, "1 of 5 files rejected")

	// The derived texts are documents like any other.
	text := w.ok("show", "attachments.eml/invoice.pdf")
	require.Contains(t, text, "Alice paid Bob 1,200 EUR")
	// A cross-archive hit names the original its document came from
	// (the attachment, by pdftotext); a text file's hit has no origin.
	found := w.ok("find", "--json", "Second", "paragraph")
	require.Regexp(t, `^\{"document_sha256":"[0-9a-f]{64}","names":\["attachments.eml/invoice.pdf"\],"derived_from":\{"original_sha256":"[0-9a-f]{64}","part":"","tool":\{"name":"pdftotext","version":"[^"]+"\}\},"result":`, found)
	plain := w.ok("find", "--json", "plain", "note")
	require.Contains(t, plain, `"names":["note.txt"],"result":`)
	require.Regexp(t, `(?m)^MATCHES  1 matching line in attachments.eml/invoice.pdf \(from pdf [0-9a-f]{12} by pdftotext\)$`,
		w.ok("find", "--text", "Second", "paragraph"))

	// docs names each derived text's original, in JSON as hits do; the
	// text file has none.
	docs := map[string]string{}
	for _, l := range lines(w.ok("docs", "--json")) {
		var d struct {
			Names       []string
			DerivedFrom *struct {
				OriginalSHA256 string `json:"original_sha256"`
				Part           string
				Tool           struct{ Name string }
			} `json:"derived_from"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &d), l)
		docs[d.Names[0]] = "none"
		if d.DerivedFrom != nil {
			require.Len(t, d.DerivedFrom.OriginalSHA256, 64, l)
			docs[d.Names[0]] = d.DerivedFrom.Tool.Name + " " + d.DerivedFrom.Part
		}
	}
	require.Equal(t, map[string]string{
		"attachments.eml": "chronicle-mail ", "attachments.eml/invoice.pdf": "pdftotext ",
		"attachments.eml/bank_notice.eml": "chronicle-mail ", "english.html": "chronicle-html ", "note.txt": "none",
		"three.mbox/message-0001": "chronicle-mail ", "three.mbox/message-0002": "chronicle-mail ",
		"three.mbox/message-0003": "chronicle-mail ",
	}, docs)
	// The two encoders of derived_from (hits' canonical JSON, docs'
	// struct) write the same bytes.
	origin := regexp.MustCompile(`"derived_from":(\{[^{}]*\{[^{}]*\}\})`)
	var docsLine string
	for _, l := range lines(w.ok("docs", "--json")) {
		if strings.Contains(l, `"names":["attachments.eml/invoice.pdf"]`) {
			docsLine = l
		}
	}
	require.NotNil(t, origin.FindStringSubmatch(found), found)
	require.NotNil(t, origin.FindStringSubmatch(docsLine), docsLine)
	require.Equal(t, origin.FindStringSubmatch(found)[1], origin.FindStringSubmatch(docsLine)[1])
	docsText := w.ok("docs", "--text")
	require.Regexp(t, `(?m)  attachments.eml/invoice.pdf  \(from pdf [0-9a-f]{12} by pdftotext\)$`, docsText)
	require.Regexp(t, `(?m)  three.mbox/message-0002  \(from email [0-9a-f]{12} by chronicle-mail\)$`, docsText)
	require.Regexp(t, `(?m)  note.txt$`, docsText)
	require.True(t, strings.HasSuffix(docsText, "\n(original files are kept too: `originals` shows each with the texts and attachments derived from it)\n"), docsText)
	require.NotContains(t, w.ok("docs", "--text", "--limit", "2"), "original files are kept")
	// show's readable view says it first; its JSON lines stay the lines.
	require.Regexp(t, "^attachments.eml/invoice.pdf: from pdf [0-9a-f]{12} by pdftotext \\(`originals` lists it\\)\n     1  ", text)
	require.NotContains(t, w.ok("show", "--json", "attachments.eml/invoice.pdf"), "originals")
	require.NotContains(t, w.ok("show", "note.txt"), "from")

	// originals: every original, inner ones after the one they came in.
	var list []originalLine
	for _, l := range lines(w.ok("originals", "--json")) {
		var o originalLine
		require.NoError(t, json.Unmarshal([]byte(l), &o), l)
		list = append(list, o)
	}
	var kinds []string
	for _, o := range list {
		kinds = append(kinds, o.Kind+" "+o.Names[0])
	}
	require.ElementsMatch(t, []string{
		"email attachments.eml", "binary attachments.eml/attachment-3", "email attachments.eml/bank_notice.eml",
		"pdf attachments.eml/invoice.pdf", "pdf encrypted.pdf", "html english.html", "mbox three.mbox",
		"email three.mbox/message-0001", "email three.mbox/message-0002", "email three.mbox/message-0003",
	}, kinds)
	for _, o := range list {
		for _, d := range o.Derived {
			require.NotEmpty(t, d.Tool.Name, "%s: %s has a tool", o.Names[0], d.Part)
			require.NotEmpty(t, d.Tool.Version, "%s: %s has a version", o.Names[0], d.Part)
		}
		if strings.Contains(o.Names[0], "/") {
			require.NotEmpty(t, o.DerivedFrom, o.Names[0])
		}
	}

	// export --original writes the attachment back, byte for byte.
	out2 := w.ok("export", "--original", "attachments.eml/invoice.pdf", "back")
	require.Contains(t, out2, "original=back/invoice.pdf\n")
	exported, err := os.ReadFile(filepath.Join(w.dir, "back", "invoice.pdf"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(exported), "%PDF-"))
	w.ok("export", "--original", "attachments.eml/invoice.pdf", "back") // the same bytes: fine
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "back", "invoice.pdf"), []byte("other"), 0o644))
	r = w.run("export", "--original", "attachments.eml/invoice.pdf", "back")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stderr, "already exists with other content; nothing was overwritten")
	r = w.run("export", "--original", "note.txt", "back")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stderr, "was ingested as text, not derived from a mail, web page or PDF")

	// The DERIVE receipt of the PDF's text replays: pdftotext runs again
	// on the kept attachment and gives the same bytes.
	rv := w.ok("receipts", "attachments.eml/invoice.pdf", "--verify")
	require.Regexp(t, `(?m)^VALID  [0-9a-f]{12}  DERIVE  attachments.eml/invoice.pdf  \{"input_sha256":"[0-9a-f]{64}","part":"","tool":\{"name":"pdftotext"`, rv)

	// Re-ingesting reuses every text; check holds originals, derivations
	// and their log leaves.
	r = w.run("ingest", "attachments.eml")
	require.Equal(t, 0, r.code, "%s", r)
	for _, l := range lines(r.stdout) {
		require.True(t, strings.HasPrefix(l, "reused "), l)
	}
	w.ok("check")
}

// originalLine is one line of `originals --json`.
type originalLine struct {
	OriginalSHA256 string   `json:"original_sha256"`
	Kind           string   `json:"kind"`
	Names          []string `json:"names"`
	DerivedFrom    string   `json:"derived_from"`
	Derived        []struct {
		OutputKind string `json:"output_kind"`
		Part       string `json:"part"`
		Tool       struct{ Name, Version string }
	} `json:"derived"`
}

// TestIngestOriginalName: --name names a mail's own text (checked as for
// a text file), and an mbox's first message.
func TestIngestOriginalName(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	copyExtractFile(t, w, "plain.eml")
	copyExtractFile(t, w, "three.mbox")
	w.ok("ingest", "plain.eml", "--name", "the loan mail")
	require.Equal(t, w.ok("show", "plain.eml"), w.ok("show", "the loan mail"))
	w.ok("ingest", "three.mbox", "--name", "first message")
	require.Equal(t, w.ok("show", "three.mbox/message-0001"), w.ok("show", "first message"))
	r := w.run("ingest", "plain.eml", "--name", "")
	require.Equal(t, 2, r.code, "%s", r)
}

// TestOriginNamedByAnswers: query, settle and entity answers on a
// mail's text name the mail in their readable views (their JSON is the
// canonical result, which names documents only).
func TestOriginNamedByAnswers(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mail", "loan-repaid.eml"))
	require.NoError(t, err)
	w.write("loan.eml", string(data))
	w.write("note.txt", "@chronicle\tHuda\tBORROWED_FROM\tSami\t50\tSAR\t2026-01-01\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	w.ok("ingest", "loan.eml", "note.txt")
	note := "loan.eml: from email [0-9a-f]{12} by chronicle-mail"

	q := w.ok("query", "--text", "loan.eml", "Did Huda repay Karim?")
	require.Regexp(t, "(?m)^SUPPORTED ", q)
	require.Regexp(t, "(?m)^"+note+" \\(`originals` lists it\\)$", q)
	s := w.ok("settle", "--text", "Did Huda repay Karim?")
	require.Regexp(t, `(?m)^documents: loan.eml \(#1, from email [0-9a-f]{12} by chronicle-mail\)  \(of documents #1..#3\)$`, s)
	e := w.ok("entity", "--text", "Huda")
	require.Regexp(t, "(?m)^"+note+"$", e)
	require.NotRegexp(t, "(?m)^note.txt: from", e)
	plain := w.ok("query", "--text", "note.txt", "Did Huda repay Sami?")
	require.Regexp(t, "(?m)^UNKNOWN |^PARTIAL ", plain)
	require.NotContains(t, plain, "originals")
	// The JSON answer is the canonical result line, unchanged.
	require.NotContains(t, w.ok("query", "--json", "loan.eml", "Did Huda repay Karim?"), "derived_from")
}

// TestIngestHandOff: a one-command ingest becomes the chronicle-extract
// beside chronicle (same arguments, its exit code); in a session it stays,
// and parses through workers; without chronicle-extract a text file still
// ingests and a mail says what is missing.
func TestIngestHandOff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "chronicle")
	data, err := os.ReadFile(chronicleBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))
	marker := filepath.Join(dir, "marker")
	fake := filepath.Join(dir, "chronicle-extract")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" > "+marker+"\nexit 7\n"), 0o755))
	w := newWS(t)
	w.write("note.txt", "A plain note.\n")
	copyExtractFile(t, w, "plain.eml")

	r := runBin(t, bin, w.dir, nil, "--db="+w.db, "ingest", "note.txt")
	require.Equal(t, 7, r.code, "%s", r)
	got, err := os.ReadFile(marker)
	require.NoError(t, err)
	require.Equal(t, "--db="+w.db+" ingest note.txt\n", string(got))

	// A session step ingests here: the fake is started only as a worker,
	// for the mail, and fails as one.
	require.NoError(t, os.Remove(marker))
	r = runBin(t, bin, w.dir, nil, "--db="+w.db, "-c", "ingest note.txt plain.eml")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stdout, "new       note.txt")
	require.Contains(t, r.stdout, "rejected  plain.eml: chronicle-extract stopped:")
	got, err = os.ReadFile(marker)
	require.NoError(t, err)
	require.Equal(t, "--extract-worker\n", string(got))

	// Without it: text ingests here, a mail names what to install.
	require.NoError(t, os.Remove(fake))
	r = runBin(t, bin, w.dir, nil, "--db="+w.db, "ingest", "plain.eml")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stdout, "rejected  plain.eml: "+fake+" is missing: the mail and web page parsers are a binary of their own, installed beside chronicle")
}
