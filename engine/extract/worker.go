package extract

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// Running the HTML and mail parsers in chronicle-extract processes (see
// Register for why). A worker is started on first use and kept for the
// next original; one runs per extraction at a time, so ingest's preparing
// goroutines each get their own. A worker reads requests on its stdin and
// answers on its stdout until its stdin closes (when this process exits).
//
// The protocol is frames: an 8-byte big-endian length, then that many
// bytes. A worker first sends a hello frame (JSON: the versions of its
// parsers). A request is a JSON header frame (kind, options) and the
// original's bytes; the answer is a JSON header frame (the parts with
// their tool and which bytes follow, or the error with its sentinel) and
// then, for each part, its text and its inner original, each a frame when
// the header says it is present.

// WorkerName is the parsers' binary, installed beside chronicle, and
// WorkerFlag its one argument that makes it a worker.
const (
	WorkerName = "chronicle-extract"
	WorkerFlag = "--extract-worker"
)

// maxFrame bounds a frame either side reads: more than any original
// (64 MiB) or text (MaxText) an extraction allows by default, and far
// less than memory.
const maxFrame = 1 << 30

type workerRequest struct {
	Kind    Kind    `json:"kind"`
	Options Options `json:"options"`
}

type workerAnswer struct {
	Parts []workerPart `json:"parts"`
	Error *workerError `json:"error,omitempty"`
}

type workerPart struct {
	Path        string `json:"path"`
	Tool        Tool   `json:"tool"`
	ContentType string `json:"content_type"`
	Text        bool   `json:"text"`     // a text frame follows
	Original    bool   `json:"original"` // an original frame follows
}

type workerError struct {
	Part     string `json:"part"`
	Sentinel string `json:"sentinel"`
	Message  string `json:"message"`
}

// sentinels names the sentinel errors on the wire.
var sentinels = map[string]error{
	"tool-missing": ErrToolMissing, "encrypted": ErrEncrypted, "no-text-layer": ErrNoTextLayer,
	"malformed": ErrMalformed, "charset": ErrCharset, "limit": ErrLimit, "tool-failed": ErrToolFailed,
}

// Workers runs the parsers in chronicle-extract processes started from one
// executable.
type Workers struct {
	path string
	// slots: a call holds one while it runs, so that no more than
	// cap(slots) workers ever run (a server verifying many receipts at
	// once waits for one rather than start a process per request).
	slots chan struct{}
	mu    sync.Mutex
	idle  []*worker
}

// NewWorkers runs the parsers in the executable at path, in at most
// twice as many processes as cores (at least 4).
func NewWorkers(path string) *Workers {
	return &Workers{path: path, slots: make(chan struct{}, max(4, 2*runtime.GOMAXPROCS(0)))}
}

// acquire takes a slot, or returns ctx's error first.
func (w *Workers) acquire(ctx context.Context) (release func(), err error) {
	select {
	case w.slots <- struct{}{}:
		return func() { <-w.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var defaultWorkers = sync.OnceValue(func() *Workers {
	name := WorkerName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, err := os.Executable()
	if err != nil {
		return NewWorkers(name) // found nowhere: start fails and says so
	}
	return NewWorkers(filepath.Join(filepath.Dir(self), name))
})

// DefaultWorkers runs the parsers in the chronicle-extract beside this
// executable.
func DefaultWorkers() *Workers { return defaultWorkers() }

// worker is one chronicle-extract process.
type worker struct {
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Reader
	stderr   *limitedBuffer // read only once stopped (Wait has copied it)
	versions map[string]string
	once     sync.Once
	dead     chan struct{} // closed by stop
}

// Extract derives the parts of an HTML page or a mail (opts defaulted) in
// a worker. A worker that fails to answer within opts.Timeout, or that
// dies, is an ErrToolFailed naming it; the next call starts another.
func (w *Workers) Extract(ctx context.Context, k Kind, data []byte, opts Options) ([]Part, error) {
	release, err := w.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	wk, err := w.get(ctx, opts)
	if err != nil {
		return nil, err
	}
	var parts []Part
	err = wk.within(ctx, opts, func() error {
		var err error
		parts, err = wk.call(k, data, opts)
		return err
	})
	if wk.stopped() {
		return nil, err
	}
	w.put(wk) // it answered, parts or an error about the original
	return parts, err
}

// Version is the version of parser name that the workers run.
func (w *Workers) Version(ctx context.Context, name string) (string, error) {
	opts := Options{}.withDefaults()
	release, err := w.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	wk, err := w.get(ctx, opts)
	if err != nil {
		return "", err
	}
	w.put(wk)
	v, ok := wk.versions[name]
	if !ok {
		return "", Fail("", ErrToolMissing, "%s has no parser %q", w.path, name)
	}
	return v, nil
}

func (w *Workers) get(ctx context.Context, opts Options) (*worker, error) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		wk := w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		return wk, nil
	}
	w.mu.Unlock()
	return w.start(ctx, opts)
}

func (w *Workers) put(wk *worker) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.idle = append(w.idle, wk)
}

// start runs a worker and reads its hello.
func (w *Workers) start(ctx context.Context, opts Options) (*worker, error) {
	if fi, err := os.Stat(w.path); err != nil || !fi.Mode().IsRegular() {
		return nil, Fail("", ErrToolMissing, "%s is missing: the mail and web page parsers are a binary of their own, installed beside chronicle (`make build` builds them all into bin/)", w.path)
	}
	// Not exec.CommandContext: the worker outlives the call that
	// started it; within stops it when a call runs late.
	cmd := exec.Command(w.path, WorkerFlag)
	wk := &worker{cmd: cmd, stderr: &limitedBuffer{max: 4096}, dead: make(chan struct{})}
	cmd.Stderr = wk.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, Fail("", ErrToolFailed, "%s: %v", WorkerName, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, Fail("", ErrToolFailed, "%s: %v", WorkerName, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, Fail("", ErrToolFailed, "%s did not start: %v", WorkerName, err)
	}
	wk.in, wk.out = in, bufio.NewReaderSize(out, 64<<10)
	err = wk.within(ctx, opts, func() error {
		hello, err := readFrame(wk.out)
		if err != nil {
			return wk.died(err)
		}
		if err := json.Unmarshal(hello, &wk.versions); err != nil {
			return Fail("", ErrToolFailed, "%s: its hello is not JSON: %v", WorkerName, err)
		}
		return nil
	})
	if err != nil {
		wk.stop()
		return nil, err
	}
	return wk, nil
}

// within runs fn, stopping the worker (which makes fn's pipe reads and
// writes fail, so that fn returns) when ctx ends or opts.Timeout passes
// first; the error is then why. fn runs on the caller's goroutine: a
// goroutine and channel per call measured 20 % of a small page's round
// trip.
func (wk *worker) within(ctx context.Context, opts Options, fn func() error) error {
	var (
		mu  sync.Mutex
		why error
	)
	stop := func(reason func() error) func() {
		return func() {
			mu.Lock()
			if why == nil {
				why = reason()
			}
			mu.Unlock()
			wk.stop()
		}
	}
	timer := time.AfterFunc(opts.Timeout, stop(func() error {
		return Fail("", ErrToolFailed, "%s took longer than %s (Timeout)", WorkerName, opts.Timeout)
	}))
	if err := ctx.Err(); err != nil {
		timer.Stop()
		return err // the worker was not used
	}
	unhook := context.AfterFunc(ctx, stop(ctx.Err))
	err := fn()
	if fired := !timer.Stop(); !unhook() || fired {
		<-wk.dead // a stop has begun: let it finish before why is read
	}
	mu.Lock()
	defer mu.Unlock()
	if why != nil {
		return why
	}
	return err
}

// call sends one request and reads its answer.
func (wk *worker) call(k Kind, data []byte, opts Options) ([]Part, error) {
	head, err := json.Marshal(workerRequest{Kind: k, Options: opts})
	if err != nil {
		return nil, Fail("", ErrToolFailed, "%s request: %v", WorkerName, err)
	}
	if err := writeFrames(wk.in, head, data); err != nil {
		return nil, wk.died(err)
	}
	raw, err := readFrame(wk.out)
	if err != nil {
		return nil, wk.died(err)
	}
	var ans workerAnswer
	if err := json.Unmarshal(raw, &ans); err != nil {
		wk.stop() // out of step with its answers
		return nil, Fail("", ErrToolFailed, "%s answer is not JSON: %v", WorkerName, err)
	}
	if e := ans.Error; e != nil {
		sentinel, ok := sentinels[e.Sentinel]
		if !ok {
			sentinel = ErrToolFailed
		}
		return nil, &Error{Part: e.Part, Err: &detail{sentinel: sentinel, msg: e.Message}}
	}
	parts := make([]Part, len(ans.Parts))
	for i, p := range ans.Parts {
		parts[i] = Part{Path: p.Path, Tool: p.Tool, ContentType: p.ContentType}
		if p.Tool.Options == nil {
			parts[i].Tool.Options = []string{}
		}
		if p.Text {
			if parts[i].Text, err = readFrame(wk.out); err != nil {
				return nil, wk.died(err)
			}
		}
		if p.Original {
			if parts[i].Original, err = readFrame(wk.out); err != nil {
				return nil, wk.died(err)
			}
		}
	}
	return parts, nil
}

// died is the error of a worker whose pipe failed: it exited (its last
// line of stderr says why) or was stopped.
func (wk *worker) died(err error) error {
	wk.stop()
	if line := OneLine(wk.stderr.String()); line != "" {
		return Fail("", ErrToolFailed, "%s stopped: %s", WorkerName, line)
	}
	return Fail("", ErrToolFailed, "%s stopped: %v", WorkerName, err)
}

// stop ends the worker's process, once, and waits for it.
func (wk *worker) stop() {
	wk.once.Do(func() {
		if wk.in != nil {
			wk.in.Close()
		}
		if wk.cmd.Process != nil {
			wk.cmd.Process.Kill()
			wk.cmd.Wait()
		}
		close(wk.dead)
	})
}

// stopped reports whether the worker was stopped.
func (wk *worker) stopped() bool {
	select {
	case <-wk.dead:
		return true
	default:
		return false
	}
}

// Serve answers requests from r on w until r ends, parsing in this
// process (a Parse must be registered): chronicle-extract's loop.
func Serve(r io.Reader, w io.Writer) error {
	parse := registered.Load()
	if parse == nil {
		return errors.New("no parsers are linked into this binary")
	}
	in := bufio.NewReaderSize(r, 64<<10)
	out := bufio.NewWriterSize(w, 64<<10)
	hello, _ := json.Marshal(ParserVersions())
	if err := writeFrames(out, hello); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	for {
		head, err := readFrame(in)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		data, err := readFrame(in)
		if err != nil {
			return err
		}
		var req workerRequest
		if err := json.Unmarshal(head, &req); err != nil {
			return fmt.Errorf("request: %w", err)
		}
		parts, err := serveOne(*parse, req, data)
		if err := writeAnswer(out, parts, err); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
}

// serveOne runs one request; a panic in a parser is its answer, an
// ErrToolFailed, and the worker goes on.
func serveOne(parse Parse, req workerRequest, data []byte) (parts []Part, err error) {
	defer func() {
		if p := recover(); p != nil {
			parts, err = nil, Fail("", ErrToolFailed, "%s: internal error: %v", WorkerName, p)
		}
	}()
	if req.Kind != KindHTML && req.Kind != KindEmail {
		return nil, Fail("", ErrMalformed, "%s parses HTML and mail, not %q", WorkerName, OneLine(string(req.Kind)))
	}
	return parse(req.Kind, data, req.Options.withDefaults())
}

func writeAnswer(w io.Writer, parts []Part, err error) error {
	var ans workerAnswer
	if err != nil {
		we := &workerError{Sentinel: "tool-failed", Message: err.Error()}
		var e *Error
		if errors.As(err, &e) {
			we.Part, we.Message = e.Part, e.Err.Error()
			for name, s := range sentinels {
				if errors.Is(e.Err, s) {
					we.Sentinel = name
				}
			}
		}
		ans.Error = we
	}
	var frames [][]byte
	for _, p := range parts {
		ans.Parts = append(ans.Parts, workerPart{Path: p.Path, Tool: p.Tool, ContentType: p.ContentType,
			Text: p.Text != nil, Original: p.Original != nil})
		if p.Text != nil {
			frames = append(frames, p.Text)
		}
		if p.Original != nil {
			frames = append(frames, p.Original)
		}
	}
	head, jerr := json.Marshal(ans)
	if jerr != nil {
		return jerr
	}
	return writeFrames(w, append([][]byte{head}, frames...)...)
}

func writeFrames(w io.Writer, frames ...[]byte) error {
	for _, f := range frames {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		if _, err := w.Write(n[:]); err != nil {
			return err
		}
		if _, err := w.Write(f); err != nil {
			return err
		}
	}
	return nil
}

func readFrame(r io.Reader) ([]byte, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint64(n[:])
	if size > maxFrame {
		return nil, fmt.Errorf("a frame of %d bytes (at most %d)", size, maxFrame)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return b, nil
}
