package mcpserver_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

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
	archive := sampleArchive(t)
	before := sha256Of(t, archive)
	w := startWire(t, archive)
	init := w.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Contains(t, init, "result", "%v", init)
	_, err := io.WriteString(w.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(t, err)
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
