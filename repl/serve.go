package repl

import (
	"cmp"
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/casper-chronicle/chronicle/commands"
)

// ServeConfig is what `chronicle serve` resolved: the archive, the lock
// wait, the address and the mode, where to print the URL line (JSON with
// --json), and the context whose end stops the server (Ctrl-C).
type ServeConfig struct {
	DBPath      string
	Wait        time.Duration
	Addr        string
	Write, JSON bool
	Stdout      io.Writer
	Context     context.Context
}

// ServeRunner runs the web server in process; the chronicle-serve binary
// sets it (cmd/chronicle-serve: package repl/web and its pages bring
// net/http and the templates, which every other command would pay for at
// start-up, as the MCP server's SDK would). Where it is nil, serve runs
// chronicle-serve from the directory of the chronicle executable with the
// flags it resolved.
var ServeRunner func(ServeConfig) error

// runServe is `chronicle serve`: the archive on a local web server
// (package repl/web, with the pages of repl/web/pages) until Ctrl-C. The
// first line on stdout is the URL to open, with its access token (with
// --json: {"addr":…,"url":…}); nothing else prints the token. The archive
// is opened per request, read-only unless --write lets an answer keep its
// receipt. Ctrl-C ends it with exit 0.
func runServe(x *invocation) error {
	addr := cmp.Or(x.p.value("addr"), commands.ServeAddr)
	if err := commands.CheckServeAddr(addr); err != nil {
		return withObject(usageErrorf("--addr %v", err), "flag", "addr")
	}
	wait, err := x.wait()
	if err != nil {
		return err
	}
	c := ServeConfig{DBPath: x.env.archivePath(x.p.value("db")), Wait: wait, Addr: addr,
		Write: x.p.has("write"), JSON: x.askedJSON(), Stdout: x.out(), Context: x.env.Context}
	if ServeRunner == nil {
		args := []string{"--db", c.DBPath, "--wait", wait.String(), "--addr", addr}
		for _, flag := range []string{"write", "json"} {
			if flag == "write" && c.Write || flag == "json" && c.JSON {
				args = append(args, "--"+flag)
			}
		}
		return runBeside(x, "chronicle-serve", "serve", args...)
	}
	if c.Context == nil {
		var stop context.CancelFunc
		c.Context, stop = signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
	}
	if err := ServeRunner(c); !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// ExecJSON runs one command line as `chronicle ARGV --json` does, with its
// output and JSON errors in stdout and stderr and ctx as its interrupt:
// the API of `chronicle serve` runs every command through it, so that an
// answer is byte for byte the CLI's.
func ExecJSON(ctx context.Context, argv []string, stdout, stderr io.Writer) int {
	env := &Env{Stdout: stdout, Stderr: stderr, JSON: true, Context: ctx}
	return Exec(env, argv)
}
