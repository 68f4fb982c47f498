package mcpserver_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/stretchr/testify/require"
)

// wire is `chronicle mcp` driven with raw JSON-RPC lines, for what no SDK
// client sends: invalid UTF-8 and lone surrogates inside arguments.
type wire struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

func startWire(t *testing.T, archive string) *wire {
	t.Helper()
	cmd := exec.Command(chronicleBin, "mcp", "--db", archive)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	w := &wire{t: t, in: in, out: bufio.NewReader(out), cmd: cmd}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return w
}

// call sends one raw request line and returns the response with its id,
// skipping notifications.
func (w *wire) call(id int, raw string) map[string]any {
	w.t.Helper()
	_, err := io.WriteString(w.in, raw+"\n")
	require.NoError(w.t, err)
	done := make(chan map[string]any, 1)
	go func() {
		for {
			line, err := w.out.ReadBytes('\n')
			if err != nil {
				done <- nil
				return
			}
			var m map[string]any
			if json.Unmarshal(line, &m) == nil && m["id"] == float64(id) {
				done <- m
				return
			}
		}
	}()
	select {
	case m := <-done:
		require.NotNil(w.t, m, "the server closed its output")
		return m
	case <-time.After(20 * time.Second):
		w.t.Fatalf("no answer to request %d", id)
		return nil
	}
}

// Invalid UTF-8 and lone surrogates in tool arguments get an error (a
// JSON-RPC error or a tool error), never a crash, and change nothing.
func TestMCPInvalidText(t *testing.T) {
	archive := testarchive.Samples(t)
	before := sha256Of(t, archive)
	w := startWire(t, archive)
	w.initialize()
	for i, args := range []string{
		`{"document":"testdata/samples/alice-bob-en.txt","question":"Did Alice repay Bob?` + "\xff\xfe" + `"}`,
		`{"document":"testdata/samples/alice-bob-en.txt","question":"Did Alice \ud800 repay Bob?"}`,
		`{"document":"` + "\xc3" + `","question":"x"}`,
	} {
		id := 10 + i
		resp := w.call(id, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"query","arguments":`+args+`}}`)
		if e, ok := resp["error"]; ok {
			require.NotEmpty(t, e, "case %d", i)
			continue
		}
		res, _ := resp["result"].(map[string]any)
		require.Equal(t, true, res["isError"], "case %d: invalid text must be refused: %v", i, resp)
		text, _ := json.Marshal(res["content"])
		require.NotContains(t, string(text), "runtime error", "case %d", i)
	}
	pong := w.call(99, `{"jsonrpc":"2.0","id":99,"method":"ping"}`)
	require.Contains(t, pong, "result", "the server still answers")
	require.Equal(t, before, sha256Of(t, archive), "the archive is unchanged")
}

func sha256Of(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(b)
}

// send writes raw lines to the server's stdin in one write.
func (w *wire) send(lines ...string) {
	w.t.Helper()
	_, err := io.WriteString(w.in, strings.Join(lines, "\n")+"\n")
	require.NoError(w.t, err)
}

// responses reads the next n responses (messages with an id, null
// included), skipping notifications.
func (w *wire) responses(n int) []map[string]any {
	w.t.Helper()
	done := make(chan []map[string]any, 1)
	go func() {
		var got []map[string]any
		for len(got) < n {
			line, err := w.out.ReadBytes('\n')
			if err != nil {
				break
			}
			var m map[string]any
			if json.Unmarshal(line, &m) != nil {
				break
			}
			if _, ok := m["id"]; ok {
				got = append(got, m)
			}
		}
		done <- got
	}()
	select {
	case got := <-done:
		require.Len(w.t, got, n, "the server answered %d of %d requests before closing its output: %v", len(got), n, got)
		return got
	case <-time.After(30 * time.Second):
		w.t.Fatalf("fewer than %d answers", n)
		return nil
	}
}

// initialize performs the handshake as client "raw".
func (w *wire) initialize() {
	w.t.Helper()
	init := w.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Contains(w.t, init, "result", "%v", init)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestMCPMalformedLines: a line that is not JSON gets a Parse error
// (-32700) and one that is JSON but no JSON-RPC message an Invalid Request
// (-32600), with id null unless the line carries a usable id, as JSON-RPC
// 2.0 says; the session goes on. Each bad line is sent right behind a tool
// call and before a ping, in one write: the call in flight and the ping
// after it are answered, and the server exits 0 when stdin closes.
func TestMCPMalformedLines(t *testing.T) {
	archive := testarchive.Samples(t)
	w := startWire(t, archive)
	w.initialize()
	for i, tc := range []struct {
		name string
		line string
		code float64
		id   any // the id of the error response
	}{
		{"not JSON", `not json`, -32700, nil},
		{"a cut line", `{"jsonrpc":"2.0","id":5,"method":"ping"`, -32700, nil},
		{"two values", `{"jsonrpc":"2.0","id":5,"method":"ping"} {}`, -32700, nil},
		{"invalid JSON bytes", "\x00\x01", -32700, nil},
		{"a string", `"hello"`, -32600, nil},
		{"a number", `42`, -32600, nil},
		{"an empty batch", `[]`, -32600, nil},
		{"a batch", `[{"jsonrpc":"2.0","id":6,"method":"ping"}]`, -32600, nil},
		{"no version", `{"id":7,"method":"ping"}`, -32600, 7.0},
		{"version 1.0", `{"jsonrpc":"1.0","id":"seven","method":"ping"}`, -32600, "seven"},
		{"an object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil},
		{"no method and no id", `{"jsonrpc":"2.0"}`, -32600, nil},
		{"a line over the limit", `{"jsonrpc":"2.0","id":8,"method":"` + strings.Repeat("a", 16<<20) + `"}`, -32600, nil},
	} {
		callID, pingID := 100+i, 200+i
		w.send(`{"jsonrpc":"2.0","id":`+strconv.Itoa(callID)+`,"method":"tools/call","params":{"name":"query","arguments":{"document":"testdata/samples/alice-bob-en.txt","question":"Did Alice repay Bob?"}}}`,
			tc.line,
			`{"jsonrpc":"2.0","id":`+strconv.Itoa(pingID)+`,"method":"ping"}`)
		var refusal map[string]any
		answered := map[float64]map[string]any{}
		for _, m := range w.responses(3) {
			if id, ok := m["id"].(float64); ok && (id == float64(callID) || id == float64(pingID)) {
				answered[id] = m
				continue
			}
			require.Nil(t, refusal, "%s: two answers to the bad line: %v, %v", tc.name, refusal, m)
			refusal = m
		}
		require.NotNil(t, refusal, "%s: no answer to the bad line", tc.name)
		require.Equal(t, "2.0", refusal["jsonrpc"], tc.name)
		require.Equal(t, tc.id, refusal["id"], "%s: %v", tc.name, refusal)
		e, _ := refusal["error"].(map[string]any)
		require.Equal(t, tc.code, e["code"], "%s: %v", tc.name, refusal)
		require.NotContains(t, e["message"], "\n", tc.name)
		call, _ := answered[float64(callID)]["result"].(map[string]any)
		require.Contains(t, fmt.Sprint(call["content"]), "PARTIAL", "%s: the call in flight: %v", tc.name, answered[float64(callID)])
		require.Contains(t, answered[float64(pingID)], "result", "%s: the ping after the bad line", tc.name)
	}
	require.NoError(t, w.in.Close())
	require.NoError(t, w.cmd.Wait(), "chronicle mcp exits 0 when the client leaves")
}

// TestMCPAnswersBeforeEOF: a client that writes its requests and closes
// stdin at once (`printf ... | chronicle mcp`) gets every answer before
// the server exits 0; the SDK alone closes the connection at the end of
// the input and drops the answers not yet written.
func TestMCPAnswersBeforeEOF(t *testing.T) {
	archive := testarchive.Samples(t)
	cmd := exec.Command(chronicleBin, "mcp", "--db", archive)
	query := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"query","arguments":{"document":"testdata/samples/alice-bob-en.txt","question":"Did Alice repay Bob?"}}}`
	}
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		query(2), `{"jsonrpc":"2.0","id":3,"method":"ping"}`, query(4), `{"jsonrpc":"2.0","id":"five","method":"tools/list"}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	require.NoError(t, err, "chronicle mcp exits 0 at the end of its input")
	answered := map[any]map[string]any{}
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "%q", line)
		answered[m["id"]] = m
	}
	for _, id := range []any{1.0, 2.0, 3.0, 4.0, "five"} {
		require.Contains(t, answered[id], "result", "request %v: %s", id, out)
	}
	require.Contains(t, fmt.Sprint(answered[4.0]["result"]), "PARTIAL")
}
