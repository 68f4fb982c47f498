package mcpserver_test

// A client nobody here wrote: the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in testdata/mcp/ts-client) drives the
// binary TestMain builds through the session of the Go tests. Its client
// rejects a tool listing with a non-object schema and checks every
// structured result against the tool's output schema.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/stretchr/testify/require"
)

const tsClientDir = "../../testdata/mcp/ts-client"

// TestMCPTypeScriptClient installs the pinned SDK with `npm ci` in a copy
// of testdata/mcp/ts-client (the npm cache is kept under the temp dir, so
// a rerun installs offline in a few seconds) and runs session.mjs against
// `chronicle mcp` on the sample archive; it must exit 0.
func TestMCPTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the TypeScript SDK client needs node: install nodejs and npm (apt-get install nodejs npm; .ci/run installs them)")
	npm, err := exec.LookPath("npm")
	require.NoError(t, err, "the TypeScript SDK client needs npm: install nodejs and npm (apt-get install nodejs npm; .ci/run installs them)")

	dir := t.TempDir()
	for _, name := range []string{"package.json", "package-lock.json", "session.mjs"} {
		b, err := os.ReadFile(filepath.Join(tsClientDir, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	archive := testarchive.Samples(t)

	env := append(os.Environ(),
		"npm_config_cache="+filepath.Join(os.TempDir(), "chronicle-npm-cache"),
		"npm_config_update_notifier=false",
		"npm_config_loglevel=error")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--prefer-offline")
	install.Dir, install.Env = dir, env
	out, err := install.CombinedOutput()
	require.NoError(t, err, "npm ci in a copy of testdata/mcp/ts-client:\n%s", out)
	t.Logf("npm ci: %s", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	session := exec.CommandContext(ctx, node, "session.mjs", chronicleBin, archive)
	session.Dir, session.Env = dir, env
	session.Stdout, session.Stderr = &stdout, &stdout
	err = session.Run()
	t.Logf("node session.mjs (%s):\n%s", time.Since(start).Round(time.Millisecond), stdout.String())
	require.NoError(t, err, "the TypeScript SDK client failed:\n%s", stdout.String())
	require.Contains(t, stdout.String(), "\nPASS ")
}
