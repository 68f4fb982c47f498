package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
)

// archive is one archive to measure: dir holds archive.db and src/, the
// documents it was ingested from (read to pick the find terms).
type archive struct {
	label string
	dir   string
}

func (a *archive) db() string  { return filepath.Join(a.dir, "archive.db") }
func (a *archive) src() string { return filepath.Join(a.dir, "src") }

// doneMark marks a complete cached archive directory (written last).
const doneMark = ".done"

// cached returns the archive in dir, building it first with build when
// dir holds no complete one. build fills a fresh directory beside dir,
// which is renamed into place once done, so that a run stopped halfway
// leaves nothing that looks complete, and two runs never share a half-built
// archive.
func cached(dir, label string, build func(tmp string) error) (*archive, error) {
	a := &archive{label: label, dir: dir}
	if _, err := os.Stat(filepath.Join(dir, doneMark)); err == nil {
		logf("%s: reusing %s", label, dir)
		return a, nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".building-")
	if err != nil {
		return nil, fmt.Errorf("create the archive directory: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename
	if err := build(tmp); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, doneMark), nil, 0o644); err != nil {
		return nil, fmt.Errorf("mark the archive complete: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil { // an incomplete one
		return nil, fmt.Errorf("clear %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("move the archive into place: %w", err)
	}
	return a, nil
}

// realArchive is bench-real's English archive at its full size
// (run-en-N/archive.db of its work directory, the largest N), running
// benchreal when there is none. It is copied (its documents linked) into
// the work directory: bench-real removes its run directories when it
// runs again, and must not do so under a measurement.
func realArchive(bin string) (*archive, error) {
	run, n := largestRealRun(*realWork)
	if run == "" {
		logf("no bench-real English archive in %s: running benchreal to build it (ingest of ~400 MB, minutes)", *realWork)
		args := []string{"-bin", bin, "-work", *realWork, "-corpora", "en", "-mb", "0", "-ingest-runs", "1", "-runs", "1"}
		if err := runTool(exe(bin, "benchreal"), args); err != nil {
			return nil, err
		}
		if run, n = largestRealRun(*realWork); run == "" {
			return nil, fmt.Errorf("benchreal left no run-en-N/archive.db in %s", *realWork)
		}
	}
	label := fmt.Sprintf("bench-real English, %d documents of ~1 MB", n)
	return cached(filepath.Join(*workFlag, fmt.Sprintf("real-en-%d", n)), label, func(tmp string) error {
		files, err := filepath.Glob(filepath.Join(run, "src", "*"))
		if err != nil || len(files) != n {
			return fmt.Errorf("%s holds %d documents, not %d: bench-real is rebuilding it? run again when it is done", run, len(files), n)
		}
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = filepath.Base(f)
		}
		if err := os.Mkdir(filepath.Join(tmp, "src"), 0o755); err != nil {
			return fmt.Errorf("create src: %w", err)
		}
		if _, err := benchtool.LinkFiles(filepath.Join(run, "src"), filepath.Join(tmp, "src"), names); err != nil {
			return err
		}
		return copyFile(filepath.Join(run, "archive.db"), filepath.Join(tmp, "archive.db"))
	})
}

// largestRealRun finds bench-real's English run directory with the most
// documents: run-en-N holding archive.db.
func largestRealRun(work string) (dir string, n int) {
	matches, _ := filepath.Glob(filepath.Join(work, "run-en-*", "archive.db"))
	for _, m := range matches {
		d := filepath.Dir(m)
		k, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "run-en-"))
		if err == nil && k > n {
			dir, n = d, k
		}
	}
	return dir, n
}

// scaleArchive is an archive of n small documents: benchscale's pool (the
// machine's own text cut at line boundaries, a median of a few KB; see
// cmd/benchscale), the same n documents a benchscale run of that size
// takes, ingested by one `chronicle ingest`.
func scaleArchive(bin string, n int) (*archive, error) {
	label := fmt.Sprintf("benchscale's pool, %d small documents", n)
	return cached(filepath.Join(*workFlag, fmt.Sprintf("scale-%d", n)), label, func(tmp string) error {
		args := []string{"-bin", bin, "-work", *scaleWork, "-docs", strconv.Itoa(n), "-link", filepath.Join(tmp, "src")}
		if err := runTool(exe(bin, "benchscale"), args); err != nil {
			return err
		}
		logf("%s: chronicle ingest (minutes at 100,000 documents)", label)
		cmd := exec.Command(exe(bin, "chronicle"), "--db", "archive.db", "ingest", "src")
		cmd.Dir = tmp // documents are named src/…, wherever the directory moves
		cmd.Stdout = io.Discard
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("chronicle ingest: %w", err)
		}
		return nil
	})
}

// runTool runs one of the other benchmarks (its output on stderr: this
// one's stdout is the report).
func runTool(path string, args []string) error {
	if *noInstall {
		args = append(args, "-no-install")
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%s is missing: run `make build` first", path)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", filepath.Base(path), strings.Join(args, " "), err)
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("copy the archive: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("copy the archive: %w", err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(fmt.Errorf("copy %s: %w", from, err), os.Remove(to))
	}
	return nil
}
