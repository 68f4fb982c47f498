package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl"
	"github.com/casper-chronicle/chronicle/repl/shellwords"

	"github.com/stretchr/testify/require"
)

// bashComplete sources `chronicle completion bash` in a real bash
// (without any rc file or bash-completion) and runs its completion
// function on the command line words (the last is the word being
// completed), as readline would: COMP_WORDS, COMP_CWORD, COMP_LINE and
// COMP_POINT set. It returns COMPREPLY, one element a line.
func bashComplete(t *testing.T, w *ws, env []string, words ...string) []string {
	t.Helper()
	script := w.raw(nil, "completion", "bash")
	require.Equal(t, 0, script.code, "%s", script)
	var quoted []string
	for _, wd := range words {
		quoted = append(quoted, shellwords.Quote(wd))
	}
	line := strings.Join(words, " ")
	driver := fmt.Sprintf("%s\ncomplete -p chronicle >/dev/null || exit 9\nCOMP_WORDS=(chronicle %s)\nCOMP_CWORD=%d\nCOMP_LINE=%s\nCOMP_POINT=${#COMP_LINE}\n_chronicle\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n",
		script.stdout, strings.Join(quoted, " "), len(words), shellwords.Quote("chronicle "+line))
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", driver)
	cmd.Dir = w.dir
	// the chronicle under test is the one on PATH, as an installed one is
	cmd.Env = append(append(baseEnv(), "PATH="+filepath.Dir(chronicleBin)+":"+os.Getenv("PATH")), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return lines(strings.TrimSuffix(string(out), "\n") + "\n")
}

// TestCompletionBash: in bash, the script completes every command of the
// table (so a new one cannot be left out), a command's own flags and the
// global ones, document names from the archive at completion time (also
// with --db before the command, and a name with a space quoted), and the
// shells of `completion`.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	w.write("my notes.txt", "Alice owns Pen.\n")
	w.ok("ingest", "my notes.txt")
	db := []string{"CHRONICLE_DB=" + w.db}
	alice, ahmed := "testdata/samples/alice-bob-en.txt", "testdata/samples/ahmed-khalid-ar.txt"

	commands := bashComplete(t, w, db, "")
	require.ElementsMatch(t, repl.Names(), commands, "every command of the table, and only those")
	require.Contains(t, commands, "completion")

	for _, tc := range []struct {
		name  string
		words []string
		want  []string
	}{
		{"a command prefix", []string{"do"}, []string{"docs"}},
		{"the shells", []string{"completion", ""}, []string{"bash", "zsh", "fish"}},
		{"document names", []string{"show", ""}, []string{ahmed, alice, `my\ notes.txt`}},
		{"a document name prefix", []string{"query", "testdata/samples/al"}, []string{alice}},
		{"a name with a space", []string{"show", "my"}, []string{`my\ notes.txt`}},
		{"inside an open quote", []string{"show", `"my`}, []string{"my notes.txt"}},
		{"the value of --doc", []string{"find", "--doc", "testdata/samples/ah"}, []string{ahmed}},
		{"help's commands", []string{"help", "comp"}, []string{"completion"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.ElementsMatch(t, tc.want, bashComplete(t, w, db, tc.words...))
		})
	}

	t.Run("the archive of --db before the command", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, []string{alice}, bashComplete(t, w, nil, "--db", w.db, "show", "testdata/samples/al"))
		require.Equal(t, []string{alice}, bashComplete(t, w, nil, "--db="+w.db, "show", "testdata/samples/al"))
	})
	t.Run("flags of a command", func(t *testing.T) {
		t.Parallel()
		find := bashComplete(t, w, db, "find", "--")
		require.Subset(t, find, []string{"--doc", "--limit", "--receipt", "--keep", "--db", "--wait", "--json", "--text"})
		require.NotContains(t, find, "--verify", "another command's flag")
		require.Equal(t, []string{"--verify"}, bashComplete(t, w, db, "receipts", "--v"))
	})
	t.Run("paths for ingest", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, []string{"testdata/"}, bashComplete(t, w, db, "ingest", "test"))
		require.Equal(t, []string{"testdata/samples/"}, bashComplete(t, w, db, "ingest", "testdata/sa"))
	})
}

// TestCompletionBashEveryFlag walks the command table: in bash, the
// script offers every flag of every command, its own and the global ones,
// so that a flag declared in the table (package commands) reaches the
// shell with nothing else to change.
func TestCompletionBashEveryFlag(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	for _, spec := range commands.Table {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			var want []string
			for _, f := range spec.FlagsOf() {
				want = append(want, "--"+f.Name)
			}
			require.ElementsMatch(t, want, bashComplete(t, w, nil, spec.Name, "--"))
		})
	}
}

// TestCompleteQuiet: `chronicle __complete` never creates an archive,
// prints nothing (stdout or stderr) and exits 0 when there is no archive,
// when the path is not one, and when another process holds the archive,
// which it waits for only briefly.
func TestCompleteQuiet(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	text := w.write("notes.txt", "not an archive\n")
	held, err := db.Open(w.db, db.Options{}) // the write lock, as an ingest holds it
	require.NoError(t, err)
	t.Cleanup(func() { held.Close() }) // after the parallel subtests
	for _, tc := range []struct{ name, archive string }{
		{"no archive", filepath.Join(w.dir, "missing.db")},
		{"not an archive", text},
		{"held by a writer", w.db},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := w.raw(nil, "__complete", "--", "--db", tc.archive, "show", "")
			require.Equal(t, 0, r.code, "%s", r)
			require.Empty(t, r.stdout)
			require.Empty(t, r.stderr)
			require.Less(t, r.elapsed, time.Second, "waited long for the lock")
			if tc.name == "no archive" {
				_, err := os.Stat(tc.archive)
				require.ErrorIs(t, err, os.ErrNotExist, "completion created an archive")
			}
		})
	}
}

// TestCompletionUsage: an unknown or missing shell is a usage error
// (exit 2) of one line that names the shells; each known shell prints
// its script.
func TestCompletionUsage(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	requireOneLineError(t, w.run("completion", "tcsh"), 2, "completion", `unknown shell "tcsh"; the shells are bash, zsh and fish\n$`)
	requireOneLineError(t, w.run("completion"), 2, "completion", `usage: completion bash\|zsh\|fish\n$`)
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := w.run("completion", sh)
		require.Equal(t, 0, r.code, "%s", r)
		require.Contains(t, r.stdout, "chronicle __complete", sh)
	}
}

// TestCompletionOtherShells: the zsh and fish scripts parse (zsh -n,
// fish -n), and fish, which can complete without a terminal (complete
// -C), completes commands and document names with them. These shells are
// not on every machine (bash is): the test runs where they are.
func TestCompletionOtherShells(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	for _, sh := range []string{"zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(sh); err != nil {
				t.Skipf("%s is not installed (.ci/run installs it)", sh)
			}
			r := w.raw(nil, "completion", sh)
			require.Equal(t, 0, r.code, "%s", r)
			path := w.write("completion."+sh, r.stdout)
			out, err := exec.Command(sh, "-n", path).CombinedOutput()
			require.NoError(t, err, "%s -n: %s", sh, out)
			if sh != "fish" {
				return
			}
			complete := func(line string) []string {
				cmd := exec.Command("fish", "--no-config", "-c", "source "+shellwords.Quote(path)+"; complete -C"+shellwords.Quote(line))
				cmd.Dir = w.dir
				cmd.Env = append(baseEnv(), "PATH="+filepath.Dir(chronicleBin)+":"+os.Getenv("PATH"), "CHRONICLE_DB="+w.db)
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s", out)
				var got []string
				for _, l := range lines(string(out)) {
					got = append(got, strings.SplitN(l, "\t", 2)[0]) // a description may follow
				}
				return got
			}
			require.ElementsMatch(t, repl.Names(), complete("chronicle "))
			require.Equal(t, []string{"testdata/samples/alice-bob-en.txt"}, complete("chronicle show testdata/samples/al"))
		})
	}
}
