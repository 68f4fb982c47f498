package repl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"

	"github.com/casper-chronicle/chronicle/repl/web"
	"github.com/casper-chronicle/chronicle/repl/web/pages"
)

// runServe is `chronicle serve`: the archive on a local web server
// (package repl/web, with the pages of repl/web/pages) until Ctrl-C. The first line on stdout is the URL to
// open, with its access token (with --json: {"url":…,"addr":…}); nothing
// else prints the token. The archive is opened per request, read-only
// unless --write lets an answer keep its receipt.
func runServe(x *invocation) error {
	addr := cmp.Or(x.p.value("addr"), web.DefaultAddr)
	if err := web.CheckAddr(addr); err != nil {
		return withObject(usageErrorf("--addr %v", err), "flag", "addr")
	}
	wait, err := x.wait()
	if err != nil {
		return err
	}
	s, err := web.New(web.Options{
		DBPath: x.env.archivePath(x.p.value("db")),
		Wait:   wait,
		Write:  x.p.has("write"),
		Exec:   ExecJSON,
		NewPages: func(s *web.Server) http.Handler {
			csrf := func(r *http.Request) string { return "" } // no form writes on a read-only server
			if s.Writable() {
				csrf = s.CSRF
			}
			return pages.New(pages.Options{Archive: s.WithArchive, CSRF: csrf})
		},
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	ctx := x.env.Context
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
	}
	url := s.URL(ln.Addr().String())
	if x.askedJSON() {
		printJSONLine(x.out(), map[string]string{"url": url, "addr": ln.Addr().String()})
	} else {
		fmt.Fprintln(x.out(), url)
	}
	if f, ok := x.out().(interface{ Sync() error }); ok {
		f.Sync()
	}
	err = s.Serve(ctx, ln)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// ExecJSON runs one command line as `chronicle ARGV --json` does, with its
// output and JSON errors in stdout and stderr and ctx as its interrupt:
// the API of `chronicle serve` runs every command through it, so that an
// answer is byte for byte the CLI's.
func ExecJSON(ctx context.Context, argv []string, stdout, stderr io.Writer) int {
	env := &Env{Stdout: stdout, Stderr: stderr, JSON: true, Context: ctx}
	return Exec(env, argv)
}
