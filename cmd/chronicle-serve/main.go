package main

import (
	"encoding/json"
	"fmt"
	"github.com/casper-chronicle/chronicle/db"
	"net"
	"net/http"
	"os"

	"github.com/casper-chronicle/chronicle/repl"
	"github.com/casper-chronicle/chronicle/repl/web"
	"github.com/casper-chronicle/chronicle/repl/web/pages"
)

func main() {
	repl.ServeRunner = serve
	os.Exit(repl.Main(append([]string{"serve"}, os.Args[1:]...)))
}

// serve runs the server of c until c.Context ends: the first line on
// c.Stdout is the URL with its token (a JSON object with --json).
func serve(c repl.ServeConfig) error {
	db.KeepDecodedRecords() // it answers request after request
	s, err := web.New(web.Options{DBPath: c.DBPath, Wait: c.Wait, Write: c.Write, Exec: repl.ExecJSON,
		NewPages: func(s *web.Server) http.Handler {
			opts := pages.Options{Archive: s.WithArchive, CSRF: s.CSRF}
			if s.Writable() { // else the pages offer no form that writes
				opts.Write = s.WithArchiveWrite
			}
			return pages.New(opts)
		}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", c.Addr, err)
	}
	addr := ln.Addr().String()
	if c.JSON {
		line, _ := json.Marshal(map[string]string{"url": s.URL(addr), "addr": addr})
		fmt.Fprintf(c.Stdout, "%s\n", line)
	} else {
		fmt.Fprintln(c.Stdout, s.URL(addr))
	}
	return s.Serve(c.Context, ln)
}
