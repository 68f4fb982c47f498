package repl

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/casper-chronicle/chronicle/db"
)

// Stamped by the linker (`make build`: -X with git's commit and
// describe), for toolchains that record no VCS information: this machine's
// Go runs with GOFLAGS=-buildvcs=false. The toolchain's own stamp wins.
var (
	stampedVersion  string
	stampedCommit   string
	stampedModified string // "true" when built from a tree with changes
)

// unstamped is what version shows for what the build did not record (a
// binary built without module or VCS information, such as `go build
// -buildvcs=false` or a test binary).
const unstamped = "unknown"

// versionInfo is what `chronicle version` reports.
type versionInfo struct {
	Version  string `json:"version"`  // the main module's version, "(devel)" for a plain build
	Commit   string `json:"commit"`   // vcs.revision
	Modified bool   `json:"modified"` // vcs.modified: built from a tree with uncommitted changes
	Go       string `json:"go"`
	Schema   int    `json:"schema_version"` // the archive schema this binary writes
}

// buildVersion reads the version the Go toolchain stamped into the binary
// (runtime/debug.ReadBuildInfo: the main module's version and the
// vcs.revision and vcs.modified settings), with unstamped for what is
// missing.
func buildVersion() versionInfo {
	return versionFrom(debug.ReadBuildInfo())
}

// versionFrom is buildVersion for the build information given (ok false:
// none was recorded).
func versionFrom(info *debug.BuildInfo, ok bool) versionInfo {
	v := versionInfo{Version: unstamped, Commit: unstamped, Go: runtime.Version(), Schema: db.SchemaVersion}
	if stampedVersion != "" {
		v.Version = stampedVersion
	}
	if stampedCommit != "" {
		v.Commit, v.Modified = stampedCommit, stampedModified == "true"
	}
	if !ok || info == nil {
		return v
	}
	if info.Main.Version != "" && (info.Main.Version != "(devel)" || stampedVersion == "") {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// runVersion prints the version: one line of text, or one JSON object.
func runVersion(x *invocation) error {
	v := buildVersion()
	if x.p.has("json") || x.env.JSON {
		printJSONLine(x.out(), v)
		return nil
	}
	commit := v.Commit
	if v.Modified {
		commit += " (modified)"
	}
	fmt.Fprintf(x.out(), "chronicle %s\ncommit %s\n%s\narchive schema %d\n", v.Version, commit, v.Go, v.Schema)
	return nil
}
