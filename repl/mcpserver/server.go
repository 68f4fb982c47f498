package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimrow"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the server version the handshake reports.
const Version = "1"

// Options configure a server.
type Options struct {
	DBPath string        // the archive (resolved by the caller: --db, CHRONICLE_DB, default)
	Wait   time.Duration // how long opening waits for another process's lock
	// Now and Random name runs (tests may fix them); nil: the clock and
	// crypto/rand.
	Now    func() time.Time
	Random func() string
}

// Server is one `chronicle mcp` process: the MCP server and the state of
// its sessions.
type Server struct {
	opts     Options
	mcp      *mcp.Server
	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*session
}

// issuedResult is what the server keeps of a result it returned, so that
// a later check_claims can name it: enough to write its result line in a
// claims file. Document is "" for results that have no result line
// (docs, show, settle, entity, verify, the listing of find across the
// archive).
type issuedResult struct {
	Document string // SHA-256 hex
	Query    string // a query question, or
	Find     string // find terms
	IsFind   bool
}

// session is one client's run of results.
type session struct {
	namespace string
	base      string // runId without the run number
	run       int
	results   []issuedResult // ordinal i+1
}

func (s *session) runID() string { return fmt.Sprintf("%s-%d", s.base, s.run) }

// New returns a server on the archive of opts.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Random == nil {
		opts.Random = func() string {
			var b [4]byte
			rand.Read(b[:])
			return hex.EncodeToString(b[:])
		}
	}
	if opts.Wait <= 0 {
		opts.Wait = db.LockTimeout
	}
	s := &Server{opts: opts, sessions: map[*mcp.ServerSession]*session{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "chronicle", Title: "Chronicle evidence archive", Version: Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	s.mcp.AddReceivingMiddleware(strictArguments)
	s.addTools()
	s.addResources()
	return s
}

// maxArguments bounds the raw arguments of one tool call.
const maxArguments = 64 << 20

// strictArguments refuses a tool call whose arguments are not strict JSON
// text (claimrow.ParseLine): invalid UTF-8, a lone surrogate escape, a
// duplicate key, a number that is not a plain integer. JSON decoding would
// quietly turn the first two into U+FFFD and keep the last duplicate, so
// the tool would answer a question the client never sent (no argument is
// a fraction, and an integer field refuses 20.0 anyway). Readers refuse,
// never repair.
func strictArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil && len(call.Params.Arguments) > 0 {
			if _, err := claimrow.ParseLine(call.Params.Arguments, maxArguments); err != nil {
				res := &mcp.CallToolResult{IsError: true}
				res.Content = []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("chronicle %s: the arguments are not strict JSON text (%v); nothing was done", call.Params.Name, err)}}
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}

const instructions = `Chronicle is an evidence archive of UTF-8 documents. Its tools answer narrow questions (debt settlement, literal @claim statements, lexical find, entity lookups) from exact archived bytes, cite every evidence span, and issue integrity receipts. A receipt proves integrity and replayability, never that a document is true. Every result carries a result ID (claim-result/<ns>/<runId>/<ordinal>); before answering the user, pass the claims of your answer to check_claims with declaredResult naming those IDs or ordinals.`

// Run serves one session over stdin and stdout until the client leaves;
// a line that is not a JSON-RPC message is answered with its error and
// the session goes on (lineTransport).
func (s *Server) Run(ctx context.Context) error {
	return s.mcp.Run(ctx, &lineTransport{in: os.Stdin, out: os.Stdout, maxLine: mcp.DefaultMaxLineLength})
}

// MCP returns the SDK server (tests connect it to in-memory transports).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// session returns the state of the calling session, starting it on the
// first call: the namespace is the client's name from the handshake.
func (s *Server) session(ss *mcp.ServerSession) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.sessions[ss]; st != nil {
		return st
	}
	ns := ""
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			ns = p.ClientInfo.Name
		}
	}
	ns = boundedName(ns)
	st := &session{namespace: ns, base: s.opts.Now().UTC().Format("20060102T150405Z") + "-" + s.opts.Random(), run: 1}
	s.sessions[ss] = st
	return st
}

// boundedName makes a client name a boundedText namespace
// (engine/claimcheck/README.md §2.2): "mcp-client" when empty, cut to fit
// otherwise.
func boundedName(ns string) string {
	ns = strings.ToValidUTF8(ns, "\uFFFD")
	if ns == "" {
		return "mcp-client"
	}
	for claimrow.UTF16Len(ns) > 1024 {
		r := []rune(ns)
		ns = string(r[:len(r)*3/4])
	}
	return ns
}

// issue gives the next result of the session its ID and keeps k for it.
func (s *Server) issue(ss *mcp.ServerSession, k issuedResult) string {
	st := s.session(ss)
	s.mu.Lock()
	defer s.mu.Unlock()
	st.results = append(st.results, k)
	id, err := claimrow.ResultID(claimrow.Identity{Namespace: st.namespace, RunID: st.runID(), Ordinal: int64(len(st.results))})
	if err != nil { // cannot happen: both fields are bounded text
		return ""
	}
	return id
}

// toolError is the CLI's one line for an error of command name.
func toolError(name string, err error) error {
	return fmt.Errorf("chronicle %s: %w", name, err)
}

// usageError is an argument the CLI would refuse with exit 2.
func usageError(format string, args ...any) error { return fmt.Errorf(format, args...) }

// guard runs a tool's work with the archive open read-only (or for writing
// when write is set) for this call only, under db.Guard as the CLI runs a
// command: a damaged page (a panic, a fault, damage db finds) is the CLI's
// one line, word for word. The archive is closed before the call returns.
func (s *Server) guard(name string, write bool, work func(a *db.Archive) error) error {
	err := db.GuardOpen(s.opts.DBPath, db.Options{ReadOnly: !write, MustExist: write, Timeout: s.opts.Wait}, work)
	if errors.Is(err, db.ErrNoArchive) {
		err = fmt.Errorf("%w; `chronicle ingest FILE` creates it", err)
	}
	if err != nil {
		return toolError(name, err)
	}
	return nil
}

// result is the tool result of out: a short text line for the model, then
// the structured output as JSON text (for clients that read text only).
func result(summary string, out any) *mcp.CallToolResult {
	j, _ := json.Marshal(out)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary}, &mcp.TextContent{Text: string(j)}}}
}

// decode is the canonical JSON object line as a map for structured output.
func decode(canonical []byte) map[string]any {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(canonical))
	d.UseNumber() // integers stay exact
	if err := d.Decode(&m); err != nil {
		return map[string]any{}
	}
	return m
}
