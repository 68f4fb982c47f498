package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl/shellwords"
	"github.com/casper-chronicle/chronicle/repl/termtext"
)

// interactive is the REPL on a terminal: readline with history and
// completion, the prompt with the archive name and document count, each
// command run in a goroutine so that Ctrl-C can interrupt it. withInit
// runs the init file after the guide, before the first prompt.
func (s *session) interactive(withInit bool) int {
	db.KeepDecodedRecords() // a session answers command after command
	hist, err := historyPath()
	if err != nil {
		fmt.Fprintf(os.Stderr, "chronicle: no history in this session: %v\n", err)
		hist = ""
	}
	info := s.archiveInfo()
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 s.prompt(info),
		HistoryFile:            hist,
		HistoryLimit:           historyLimit,
		DisableAutoSaveHistory: true, // saved by hand: not lines starting with a space
		HistorySearchFold:      true,
		AutoComplete:           &completer{s: s},
		InterruptPrompt:        "^C",
		EOFPrompt:              "exit",
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "chronicle: cannot start the REPL: %v\n", err)
		return ExitFailure
	}
	defer rl.Close()

	// Ctrl-C reaches us as SIGINT only while a command runs (readline reads
	// the prompt in raw mode, where Ctrl-C is a key that clears the line).
	s.sigint = make(chan os.Signal, 1)
	signal.Notify(s.sigint, os.Interrupt)
	defer signal.Stop(s.sigint)

	guide := termtext.NewWriter(os.Stdout, s.env.textWidth()) // fits a narrow terminal
	s.guide(guide, info)
	guide.Flush()
	if withInit {
		s.runInit(s.background)
		info = s.promptInfo()
	}
	for {
		s.interrupted.Store(false)
		rl.SetPrompt(s.prompt(info))
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			continue // the half-typed line is dropped
		case errors.Is(err, io.EOF):
			return ExitOK
		case err != nil:
			fmt.Fprintf(os.Stderr, "chronicle: reading the terminal: %v\n", err)
			return ExitFailure
		}
		if keepInHistory(line) {
			rl.SaveHistory(line)
		}
		if _, quit := s.line(line, s.background); quit {
			return ExitOK
		}
		info = s.promptInfo()
	}
}

// background runs one command in a goroutine. The first Ctrl-C cancels
// its context (env.Context: a batch ingest, import, check and reindex
// stop after the current document or group, which lands whole or not at
// all) and the prompt returns once it has: a command abandoned while it
// still held the archive would lock the session's next command out. A
// second Ctrl-C says so; a third leaves Chronicle (exit 130), which
// releases everything.
// With $PAGER set the output is collected and paged when it is taller than
// the terminal.
func (s *session) background(env *Env, run func(*Env) int) int {
	for drained := false; !drained; {
		select {
		case <-s.sigint:
		default:
			drained = true
		}
	}
	cmdCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env.Context = cmdCtx
	var buf *bytes.Buffer
	pager := pagerCommand()
	out := &gate{w: env.Stdout} // the terminal, or the .output file
	if pager != "" && env.StdoutTTY {
		buf = new(bytes.Buffer)
		out.w = buf
	}
	errOut := &gate{w: env.Stderr}
	env.Stdout, env.Stderr = out, errOut
	done := make(chan int, 1)
	go func() { done <- run(env) }()
	interrupts := 0
	for {
		select {
		case code := <-done:
			if buf != nil {
				w, h := terminalSize()
				page(buf.Bytes(), pager, os.Stdout, os.Stderr, w, h)
			}
			return code
		case <-s.sigint:
			interrupts++
			s.interrupted.Store(true)
			switch {
			case interrupts == 1:
				cancel()
				fmt.Fprintln(os.Stderr, "\nchronicle: interrupting; the command stops at its next safe point (after the current document or group)")
			case interrupts == 2:
				fmt.Fprintln(os.Stderr, "\nchronicle: still stopping: the prompt returns when the command has released the archive (Ctrl-C once more leaves Chronicle)")
			default:
				out.close()
				errOut.close()
				fmt.Fprintln(os.Stderr, "\nchronicle: leaving; a document being written lands whole or not at all")
				os.Exit(130)
			}
		}
	}
}

// gate is a writer that can be closed: after close, writes are discarded.
type gate struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// archiveState describes the session's archive for the prompt and guide.
type archiveState struct {
	path   string
	docs   []*db.Document // for the guide (archiveInfo)
	count  int            // documents, for the prompt
	status string         // "": open and read; else "busy", "unreadable: …"
}

// archiveInfo reads the document list with a short lock timeout (a writer
// in another process makes the prompt say busy instead of waiting).
func (s *session) archiveInfo() archiveState {
	st := archiveState{path: s.env.archivePath("")}
	docs, err := s.documents("")
	switch {
	case err == nil:
		st.docs, st.count = docs, len(docs)
	case errors.Is(err, db.ErrNoArchive):
	case errors.Is(err, db.ErrLocked):
		st.status = "busy"
	default:
		st.status = "unreadable"
	}
	return st
}

// promptInfo is archiveInfo for the prompt after each command: the
// number of documents comes from the archive's running totals, so the
// prompt reads no document record at any size.
func (s *session) promptInfo() archiveState {
	st := archiveState{path: s.env.archivePath("")}
	err := s.readArchive("", func(a *db.Archive) error {
		t, err := a.Totals()
		st.count = int(t.Documents)
		return err
	})
	switch {
	case err == nil, errors.Is(err, db.ErrNoArchive):
	case errors.Is(err, db.ErrLocked):
		st.status = "busy"
	default:
		st.status = "unreadable"
	}
	return st
}

// openArchive opens the archive (dbFlag, else the session's) read-only.
func (s *session) openArchive(dbFlag string) (*db.Archive, error) {
	return db.Open(s.env.archivePath(dbFlag), db.Options{ReadOnly: true, Timeout: 200 * time.Millisecond})
}

// readArchive runs fn on the archive (dbFlag, else the session's) opened
// read-only, under db.Guard as a command runs: the prompt, the guide and
// Tab completion read it between commands, and a damaged page there must
// make them say "unreadable" or offer nothing, not end the session.
func (s *session) readArchive(dbFlag string, fn func(a *db.Archive) error) error {
	return db.Guard(s.env.archivePath(dbFlag), func() error {
		a, err := s.openArchive(dbFlag)
		if err != nil {
			return err
		}
		defer a.Close()
		return fn(a)
	})
}

// documents lists the documents of the archive.
func (s *session) documents(dbFlag string) (docs []*db.Document, err error) {
	err = s.readArchive(dbFlag, func(a *db.Archive) error {
		docs, err = a.Docs()
		return err
	})
	return docs, err
}

// prompt is `NAME (N docs)> `, plus the mode when it is not auto.
func (s *session) prompt(st archiveState) string {
	what := st.status
	if what == "" {
		what = plural(st.count, "doc")
	}
	mode := ""
	if s.mode != modeAuto {
		mode = " " + s.mode
	}
	return fmt.Sprintf("%s (%s)%s> ", sanitize(filepath.Base(st.path)), what, mode)
}

// sampleClaims is the sample agent answer of the repository (make run).
const sampleClaims = "testdata/claims/agent-answer.jsonl"

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// guide is the one-screen welcome: what the archive holds, a few commands
// to try on it, help and exit.
func (s *session) guide(w io.Writer, st archiveState) {
	name := sanitize(st.path)
	var examples [][2]string
	switch {
	case st.status != "":
		fmt.Fprintf(w, "Chronicle: the archive %s is %s right now.\n", name, st.status)
		examples = [][2]string{{"docs", "list the documents"}, {"check", "re-read and re-verify everything"}}
	case len(st.docs) == 0:
		fmt.Fprintf(w, "Chronicle: the archive %s has no documents yet.\n", name)
		src := "PATH"
		if fi, err := os.Stat(filepath.Join("testdata", "samples")); err == nil && fi.IsDir() {
			src = "testdata/samples"
		}
		examples = [][2]string{
			{"ingest " + src, "add files or folders; one outcome line per file"},
			{"docs", "list the documents"},
			{"help query", "how to ask a question"},
		}
	default:
		events := 0
		for _, d := range st.docs {
			events += d.EventCount
		}
		fmt.Fprintf(w, "Chronicle: the archive %s holds %s with %s. Answers cite their evidence\n"+
			"lines and leave a receipt that anyone can re-check.\n", name, plural(len(st.docs), "document"), plural(events, "event"))
		doc, question, term := shellwords.Quote(st.docs[0].Label()), `"Did BORROWER repay LENDER?"`, "WORD"
		arabic := false
		for _, d := range st.docs {
			for _, n := range d.Names {
				switch {
				case strings.HasSuffix(n, "ahmed-khalid-ar.txt"):
					doc, question, arabic = shellwords.Quote(n), shellwords.Quote("هل سدد أحمد دين خالد؟"), true
				case strings.HasSuffix(n, "alice-bob-en.txt"):
					term = "Saud"
					if !arabic {
						doc, question = shellwords.Quote(n), shellwords.Quote("Did Alice repay Bob?")
					}
				}
			}
		}
		examples = [][2]string{
			{"docs", "list the documents"},
			{"show " + doc + " 1-4", "numbered lines"},
			{"query " + doc + " " + question, "a debt question: status, amounts, evidence"},
			{"find " + term, "search every document"},
			{"receipts --verify", "re-check every receipt"},
		}
		if _, err := os.Stat(sampleClaims); err == nil {
			examples = append(examples, [2]string{"claims check " + sampleClaims, "check an agent's declared claims against the archive"})
		}
	}
	fmt.Fprintln(w, "Try:")
	guideRows(w, examples)
	fmt.Fprintln(w, "`help` lists the commands, `help COMMAND` explains one; Tab completes; `exit` or Ctrl-D leaves.")
}

// guideRows prints the guide's examples as two columns, command and
// description. A command is never wrapped (it is meant to be typed as it
// is): a row too wide for the terminal puts its description on the next
// line, under the column when it fits there, else indented by six.
func guideRows(w io.Writer, examples [][2]string) {
	width := 0
	if ww, ok := w.(*termtext.Writer); ok && ww.Width() >= termtext.MinWrap {
		width = ww.Width()
	}
	col := 0
	for _, e := range examples {
		col = max(col, 2+termtext.Width(e[0], 0)+3)
	}
	for _, e := range examples {
		row := "  " + e[0] + strings.Repeat(" ", col-2-termtext.Width(e[0], 0)) + e[1]
		if width == 0 || termtext.Width(row, 0) <= width {
			fmt.Fprintln(w, row)
			continue
		}
		termtext.WriteUnwrapped(w, "  "+e[0])
		indent := col
		if col+termtext.Width(e[1], 0) > width {
			indent = helpStackIndent
		}
		fmt.Fprintln(w, wrapText(strings.Repeat(" ", indent)+e[1], width, indent))
	}
}
