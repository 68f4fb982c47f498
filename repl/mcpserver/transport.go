package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport is the SDK's newline-delimited stdio transport with the
// lines it cannot take answered instead of ending the session. The SDK's
// connection stops reading at the first line that is not JSON or not a
// JSON-RPC message, and the server exits with every request in flight
// unanswered; JSON-RPC 2.0 wants a Parse error (-32700) or an Invalid
// Request (-32600) answered with id null, and the session going on. So
// each line is checked here first: a good one goes on to the SDK's
// connection (mcp.IOTransport, unchanged), a bad one gets its error
// response written beside the SDK's, one whole line at a time.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	// maxLine bounds one line (mcp.DefaultMaxLineLength, as the SDK's
	// stdio transport): a longer one is refused whole, never buffered.
	maxLine int
}

// lockedWriter writes whole lines, one caller at a time: the SDK's
// connection writes each message with one Write, and so do the refusals.
// It also keeps the ids of the requests passed on (expect) and not yet
// answered, so that the end of the input can wait for their answers
// (drain): a client that writes its requests and closes stdin
// (`printf ... | chronicle mcp`) gets every answer, where the SDK would
// close the connection at once and drop them.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending map[string]bool
	done    *sync.Cond // signalled when pending shrinks
}

func newLockedWriter(w io.Writer) *lockedWriter {
	l := &lockedWriter{w: w, pending: map[string]bool{}}
	l.done = sync.NewCond(&l.mu)
	return l
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pending) > 0 {
		if id, ok := responseID(p); ok && l.pending[id] {
			delete(l.pending, id)
			l.done.Broadcast()
		}
	}
	return l.w.Write(p)
}

// expect records a request passed on to the SDK, answered later.
func (l *lockedWriter) expect(id string) {
	l.mu.Lock()
	l.pending[id] = true
	l.mu.Unlock()
}

// drain waits until every request passed on has its answer written.
func (l *lockedWriter) drain() {
	l.mu.Lock()
	for len(l.pending) > 0 {
		l.done.Wait()
	}
	l.mu.Unlock()
}

// idKey is an id in one spelling whatever its JSON spelling was (1, 1.0
// and 1e0 are the request the SDK answers as 1); ok is false for an id a
// response cannot carry back (only strings and integers can).
func idKey(raw json.RawMessage) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s" + v, true
	case json.Number:
		if f, err := v.Float64(); err == nil && f == float64(int64(f)) {
			return "n" + strconv.FormatInt(int64(f), 10), true
		}
	}
	return "", false
}

// responseID is the id of a response line (one with a result or an
// error and no method).
func responseID(line []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != nil || (m.Result == nil && m.Error == nil) {
		return "", false
	}
	return idKey(m.ID)
}

// Close leaves stdout open: the process may still write to it.
func (l *lockedWriter) Close() error { return nil }

// Connect starts the filter and returns the SDK's connection reading what
// it passes on.
func (t *lineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	out := newLockedWriter(t.out)
	go func() { pw.CloseWithError(t.filter(pw, out)) }()
	// The filter bounds the lines, so the SDK's limit would only repeat it.
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// filter copies the good lines of t.in to next and answers the others on
// out; it returns at the end of the input (nil: the session ends as the
// client left) or when the connection is closed.
func (t *lineTransport) filter(next io.Writer, out *lockedWriter) error {
	r := bufio.NewReaderSize(t.in, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(r, t.maxLine)
		if errors.Is(err, errLineTooLong) {
			refuse(out, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: line %d is longer than %d bytes", n, t.maxLine))
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if id, code, why := check(line); why != "" {
				refuse(out, id, code, fmt.Sprintf("%s: line %d %s", codeName(code), n, why))
			} else {
				if id, ok := requestID(line); ok {
					out.expect(id)
				}
				if _, werr := next.Write(append(line, '\n')); werr != nil {
					return nil // the connection was closed
				}
			}
		}
		if err == io.EOF {
			out.drain()
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line without its line feed (and CR), at most limit
// bytes of it; a longer line is read to its end and dropped.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 { // +1: the line feed
			line = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err == nil || err == io.EOF {
				return nil, errLineTooLong
			}
			return nil, err
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		return line, err
	}
}

// check returns why the SDK cannot take line ("" if it can), the error
// code, and the id to answer with: the line's own id when it has a usable
// one, so the client's request still gets its answer.
func check(line []byte) (id json.RawMessage, code int, why string) {
	if err := json.Unmarshal(line, new(json.RawMessage)); err != nil {
		return nil, jsonrpc.CodeParseError, fmt.Sprintf("is not JSON (%v)", err)
	}
	if t := bytes.TrimSpace(line); t[0] == '[' {
		// The SDK refuses batches once a session speaks MCP 2025-06-18 or
		// later (which removed them) by ending the session.
		return nil, jsonrpc.CodeInvalidRequest, "is a batch; send one JSON-RPC message per line"
	}
	var head struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	if json.Unmarshal(line, &head) != nil {
		return nil, jsonrpc.CodeInvalidRequest, "is not a JSON object"
	}
	if _, ok := idKey(head.ID); ok {
		id = head.ID
	}
	var version string
	switch {
	case json.Unmarshal(head.JSONRPC, &version) != nil || version != "2.0":
		return id, jsonrpc.CodeInvalidRequest, `has no "jsonrpc":"2.0"`
	case head.Method == nil && head.ID == nil:
		return id, jsonrpc.CodeInvalidRequest, "has neither a method nor an id"
	}
	// The SDK's own decoding decides the rest (the type of the id, of the
	// method), as its connection would.
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("is not a JSON-RPC 2.0 message (%v)", err)
	}
	return nil, 0, ""
}

// requestID is the id of a request line (one with a method and an id;
// a notification has none and gets no answer).
func requestID(line []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == nil || m.ID == nil {
		return "", false
	}
	return idKey(m.ID)
}

func codeName(code int) string {
	if code == jsonrpc.CodeParseError {
		return "parse error"
	}
	return "invalid request"
}

// refuse writes the error response to a line the server cannot take
// (past the pending ids: its id, if any, is not a request passed on).
func refuse(out *lockedWriter, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	resp.Error.Code, resp.Error.Message = code, message
	b, _ := json.Marshal(resp)
	out.mu.Lock()
	defer out.mu.Unlock()
	out.w.Write(append(b, '\n'))
}
