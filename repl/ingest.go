package repl

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"chronicle/db"
	"chronicle/db/fileio"
	"chronicle/engine"
)

// runIngest adds files and walked directories, one transaction per file;
// a rejected file leaves no trace and the others still land.
func runIngest(x *ctx) error {
	files, missing := expandPaths(x.p.args)
	single := len(x.p.args) == 1 && len(files) == 1 && len(missing) == 0
	if (x.p.has("name") || x.p.has("receipt")) && !single {
		return usageErrorf("--name and --receipt need exactly one file")
	}
	importedAt, err := db.ImportTime()
	if err != nil {
		return err
	}
	a, err := x.open(true)
	if err != nil {
		return err
	}
	rejected := 0
	for _, m := range missing {
		rejected++
		x.outcome("rejected", m.path, nil, m.err.Error())
	}
	progress := newProgress(x.env, len(files))
	for i, path := range files {
		if x.env.Interrupted != nil && x.env.Interrupted() {
			progress.clear()
			fmt.Fprintf(x.env.Stderr, "chronicle ingest: interrupted; %d of %d files not ingested\n", len(files)-i, len(files))
			return exitStatus(ExitFailure)
		}
		progress.step(i, path)
		res, err := ingestFile(a, path, importedAt, x.p.value("name"))
		if err != nil {
			rejected++
			progress.clear()
			x.outcome("rejected", path, nil, err.Error())
			continue
		}
		progress.clear()
		if res.Reused {
			x.outcome("reused", path, res, fmt.Sprintf("first imported %s", res.Doc.Imported().Format("2006-01-02T15:04:05Z")))
		} else {
			x.outcome("new", path, res, fmt.Sprintf("%d events", res.Doc.EventCount))
		}
		for name, prev := range res.Moved {
			fmt.Fprintf(x.env.Stderr, "chronicle ingest: name %q now points at %s (was %s, which stays in the archive)\n",
				name, res.Doc.SHA256.Short(), prev.Short())
		}
		if single && x.p.value("receipt") == "-" {
			x.out().Write(res.Receipt.Encode())
		} else if single && x.p.has("receipt") {
			if err := fileio.WriteOnce(x.p.value("receipt"), res.Receipt.Encode()); err != nil {
				return err
			}
		}
	}
	progress.clear()
	if rejected > 0 {
		return fmt.Errorf("%d of %d files rejected", rejected, len(files)+len(missing))
	}
	return nil
}

func ingestFile(a *db.Archive, path string, importedAt uint64, extraName string) (*db.IngestResult, error) {
	src, err := fileio.ReadLimited(path, engine.MaxSourceSize)
	if err != nil {
		return nil, err
	}
	names := []string{path}
	if extraName != "" {
		names = append(names, extraName)
	}
	return a.Ingest(src, importedAt, names...)
}

// outcome prints one ingest line: text on a terminal, JSON Lines with --json.
func (x *ctx) outcome(kind, path string, res *db.IngestResult, detail string) {
	if x.p.has("json") || x.env.JSON {
		j := map[string]any{"path": path, "outcome": kind}
		if res != nil {
			j["document_sha256"] = res.Doc.SHA256.String()
			j["events"] = res.Doc.EventCount
		} else {
			j["error"] = detail
		}
		printJSONLine(x.out(), j)
		return
	}
	hash := ""
	if res != nil {
		hash = res.Doc.SHA256.Short()
	}
	if kind == "rejected" {
		fmt.Fprintf(x.out(), "%-8s  %s: %s\n", kind, path, detail)
		return
	}
	fmt.Fprintf(x.out(), "%-8s  %s  %s  %s\n", kind, path, hash, detail)
}

type missingPath struct {
	path string
	err  error
}

// expandPaths turns arguments into files: a directory contributes its
// regular files in lexical order (hidden entries skipped).
func expandPaths(args []string) ([]string, []missingPath) {
	var files []string
	var missing []missingPath
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			missing = append(missing, missingPath{arg, err})
			continue
		}
		if !st.IsDir() {
			files = append(files, arg)
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				missing = append(missing, missingPath{path, err})
				return nil
			}
			if path != arg && len(d.Name()) > 0 && d.Name()[0] == '.' {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			missing = append(missing, missingPath{arg, err})
		}
	}
	return files, missing
}
