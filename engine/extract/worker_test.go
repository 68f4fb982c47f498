package extract_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/engine/extract"
	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// The parsers run in chronicle-extract workers for the binaries that do
// not link them: the real binary, built here, must give what the parsers
// give in this process, byte for byte, and the same errors.

var (
	workerBin testbin.Once
	binDir    string // removed by TestMain
)

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "chronicle-extract-test-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// buildWorker builds chronicle-extract once, for the tests that need it.
func buildWorker(t *testing.T) string {
	t.Helper()
	path, err := workerBin.Build(binDir, extract.WorkerName)
	require.NoError(t, err)
	return path
}

func TestWorkerMatchesInProcess(t *testing.T) {
	w := extract.NewWorkers(buildWorker(t))
	ctx := context.Background()
	inputs := []struct {
		kind extract.Kind
		data []byte
		opts extract.Options
	}{
		{extract.KindHTML, readFile(t, "english.html"), extract.Options{}},
		{extract.KindHTML, readFile(t, "arabic.html"), extract.Options{}},
		{extract.KindHTML, readFile(t, "arabic-1256.html"), extract.Options{}},
		{extract.KindHTML, []byte(""), extract.Options{}},
		{extract.KindEmail, readFile(t, "plain.eml"), extract.Options{}},
		{extract.KindEmail, readFile(t, "alternative.eml"), extract.Options{}},
		{extract.KindEmail, readFile(t, "htmlonly.eml"), extract.Options{}},
		{extract.KindEmail, readFile(t, "charset.eml"), extract.Options{}},
		{extract.KindEmail, readFile(t, "attachments.eml"), extract.Options{Depth: 2}},
		// Errors: each sentinel and message crosses as it is.
		{extract.KindEmail, readFile(t, "unknown-charset.eml"), extract.Options{}},
		{extract.KindEmail, readFile(t, "malformed.eml"), extract.Options{}},
		{extract.KindEmail, manyParts(20), extract.Options{MaxParts: 10}},
		{extract.KindEmail, nested(9), extract.Options{}},
		{extract.KindEmail, []byte("From: a@x\nTo: b@x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=m\n\n--m\nContent-Type: application/pdf\nContent-Disposition: attachment; filename=\"x.pdf\"\nContent-Transfer-Encoding: base64\n\n!!!!\n--m--\n"), extract.Options{}},
		{extract.KindHTML, []byte("<p>caf\xe9</p>"), extract.Options{}},
		{extract.KindHTML, []byte("<p>" + strings.Repeat("word ", 100) + "</p>"), extract.Options{MaxText: 50}},
	}
	sentinels := []error{extract.ErrToolMissing, extract.ErrEncrypted, extract.ErrNoTextLayer, extract.ErrMalformed,
		extract.ErrCharset, extract.ErrLimit, extract.ErrToolFailed}
	for i, in := range inputs {
		opts := in.opts
		want, wantErr := extract.Extract(ctx, in.kind, in.data, opts)
		// Workers get options with their defaults, as Extract passes them.
		got, gotErr := w.Extract(ctx, in.kind, in.data, defaults(opts))
		require.Equal(t, want, got, "input %d", i)
		if wantErr == nil {
			require.NoError(t, gotErr, "input %d", i)
			require.NotEmpty(t, got, "input %d", i)
			continue
		}
		require.Error(t, gotErr, "input %d", i)
		require.Equal(t, wantErr.Error(), gotErr.Error(), "input %d", i)
		var e *extract.Error
		require.True(t, errors.As(gotErr, &e), "input %d: %T", i, gotErr)
		for _, s := range sentinels {
			require.Equal(t, errors.Is(wantErr, s), errors.Is(gotErr, s), "input %d: %v", i, s)
		}
	}
	for _, name := range []string{"chronicle-html", "chronicle-mail"} {
		v, err := w.Version(ctx, name)
		require.NoError(t, err)
		require.Equal(t, extract.ParserVersions()[name], v)
	}
}

// defaults fills the zero fields of opts as Extract does.
func defaults(o extract.Options) extract.Options {
	if o.Timeout == 0 {
		o.Timeout = extract.DefaultTimeout
	}
	if o.MaxText == 0 {
		o.MaxText = extract.DefaultMaxText
	}
	if o.MaxParts == 0 {
		o.MaxParts = extract.DefaultMaxParts
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = extract.DefaultMaxDepth
	}
	if o.MaxExpanded == 0 {
		o.MaxExpanded = extract.DefaultMaxExpanded
	}
	return o
}

// TestWorkerConcurrent: callers at once get a worker each, and the right
// answer each.
func TestWorkerConcurrent(t *testing.T) {
	w := extract.NewWorkers(buildWorker(t))
	files := []string{"english.html", "arabic.html", "plain.eml", "alternative.eml"}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := files[i%len(files)]
			kind := extract.Detect(name, readFile(t, name))
			want, err := extract.Extract(context.Background(), kind, readFile(t, name), extract.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			got, err := w.Extract(context.Background(), kind, readFile(t, name), defaults(extract.Options{}))
			if err != nil || string(got[0].Text) != string(want[0].Text) {
				t.Errorf("%s: %v", name, err)
			}
		}()
	}
	wg.Wait()
	// Sixteen callers at once never ran more than the slots allow.
	require.LessOrEqual(t, extract.IdleWorkers(w), max(4, 2*runtime.GOMAXPROCS(0)))
}

// TestWorkerFailures: a missing binary, a worker that dies, one that
// never answers, and a canceled context are each one clear error, and
// the next call starts afresh.
func TestWorkerFailures(t *testing.T) {
	ctx := context.Background()
	page := readFile(t, "english.html")
	opts := defaults(extract.Options{Timeout: 2 * time.Second})

	missing := extract.NewWorkers(filepath.Join(t.TempDir(), extract.WorkerName))
	_, err := missing.Extract(ctx, extract.KindHTML, page, opts)
	require.ErrorIs(t, err, extract.ErrToolMissing)
	require.Contains(t, err.Error(), "chronicle-extract is missing: the mail and web page parsers are a binary of their own")

	script := func(body string) string {
		path := filepath.Join(t.TempDir(), extract.WorkerName)
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
		return path
	}
	dies := extract.NewWorkers(script("echo 'out of memory' >&2; exit 3\n"))
	_, err = dies.Extract(ctx, extract.KindHTML, page, opts)
	require.ErrorIs(t, err, extract.ErrToolFailed)
	require.EqualError(t, err, "chronicle-extract stopped: out of memory")

	hangs := extract.NewWorkers(script("exec sleep 60\n"))
	start := time.Now()
	_, err = hangs.Extract(ctx, extract.KindHTML, page, opts)
	require.ErrorIs(t, err, extract.ErrToolFailed)
	require.EqualError(t, err, "chronicle-extract took longer than 2s (Timeout)")
	require.Less(t, time.Since(start), 10*time.Second)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = hangs.Extract(canceled, extract.KindHTML, page, opts)
	require.ErrorIs(t, err, context.Canceled)

	// A real worker after a failure answers again.
	w := extract.NewWorkers(buildWorker(t))
	_, err = w.Extract(canceled, extract.KindHTML, page, opts)
	require.ErrorIs(t, err, context.Canceled)
	parts, err := w.Extract(ctx, extract.KindHTML, page, opts)
	require.NoError(t, err)
	require.NotEmpty(t, parts[0].Text)
}
