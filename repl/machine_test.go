package repl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"

	"github.com/stretchr/testify/require"
)

// TestReportJSON: in machine mode an error is one JSON object whose kind,
// code and objects come from the error's type, with the script location
// when there is one; the text view prints the message line alone.
func TestReportJSON(t *testing.T) {
	docErr := &db.DocumentError{Arg: "nosuch.txt", Err: fmt.Errorf("%q: %w", "nosuch.txt", db.ErrUnknownDoc)}
	for _, tc := range []struct {
		name     string
		err      error
		location string
		want     map[string]any
	}{
		{"document in a script", docErr, "run.chr:3",
			map[string]any{"code": 1.0, "error": "no_such_document", "document": "nosuch.txt", "location": "run.chr:3"}},
		{"busy archive", archiveObject("a.db", fmt.Errorf("archive a.db: %w: process 7 holds it", db.ErrLocked)), "",
			map[string]any{"code": 11.0, "error": "busy", "archive": "a.db"}},
		{"no archive", archiveObject("a.db", fmt.Errorf("archive a.db: %w", db.ErrNoArchive)), "",
			map[string]any{"code": 10.0, "error": "no_archive", "archive": "a.db"}},
		{"interrupted", interruptedErrorf("%d of %d files not ingested", 3, 5), "",
			map[string]any{"code": 130.0, "error": "interrupted"}},
		{"usage with a flag", withObject(usageErrorf("unknown flag --limt"), "flag", "limt"), "line 2",
			map[string]any{"code": 2.0, "error": "usage", "flag": "limt", "location": "line 2"}},
		{"a FIFO", fmt.Errorf("--receipt %w; nothing was done", &fileio.NotRegularError{Path: "p"}), "",
			map[string]any{"code": 1.0, "error": "not_regular_file", "file": "p"}},
		{"a quiet verdict", quietStatus(ExitUnsupported, kindUnsupported, withObject(fmt.Errorf("r: UNSUPPORTED"), "file", "r")), "",
			map[string]any{"code": 3.0, "error": "unsupported", "file": "r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			env := &Env{Stderr: &stderr, Location: tc.location}
			code := reportAs(env, "query", true, tc.err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(stderr.Bytes(), &got), stderr.String())
			require.Equal(t, float64(code), got["code"])
			for k, v := range tc.want {
				require.Equal(t, v, got[k], "field %s of %s", k, stderr.String())
			}
			require.Equal(t, env.where()+"chronicle query: "+tc.err.Error(), got["message"])
			if tc.location == "" {
				require.NotContains(t, got, "location")
			}

			stderr.Reset()
			require.Equal(t, code, reportAs(env, "query", false, tc.err))
			var quiet *statusError
			if errors.As(tc.err, &quiet) && quiet.quiet {
				require.Empty(t, stderr.String(), "a verdict the command printed adds no line")
				return
			}
			require.Equal(t, got["message"].(string)+"\n", stderr.String())
		})
	}
}

// TestFlagOf: the flag a parse error is about.
func TestFlagOf(t *testing.T) {
	specs := []commands.Flag{commands.FlagLimit, commands.FlagReceipt}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"x", "--limt", "3"}, "limt"},
		{[]string{"--limit", "5", "--bogus=1"}, "bogus"},
		{[]string{"x", "--limit"}, "limit"},
		{[]string{"--json", "x", "--json"}, "json"},
		{[]string{"--json=yes"}, "json"},
	} {
		_, err := parseArgs(tc.args, specs)
		require.Error(t, err, "%q", tc.args)
		require.Equal(t, tc.want, flagOf(tc.args, specs, err), "%q", tc.args)
	}
}
