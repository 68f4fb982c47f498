package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// Signed receipts and rows (issue 29, items 4 and 5). The tests sign with
// the fixed test key (testbin.UseTestKey names it in $CHRONICLE_KEY);
// the verifier outside the code is ssh-keygen.

// keyOut is `chronicle key --json`.
type keyOut struct {
	AllowedSigners  string `json:"allowed_signers"`
	Fingerprint     string `json:"fingerprint"`
	Identity        string `json:"identity"`
	KeyFile         string `json:"key_file"`
	NoteVerifierKey string `json:"note_verifier_key"`
}

func (w *ws) key(extra []string, args ...string) keyOut {
	w.t.Helper()
	r := w.raw(extra, append([]string{"key", "--json"}, args...)...)
	require.Equal(w.t, 0, r.code, "%s", r)
	var k keyOut
	require.NoError(w.t, json.Unmarshal([]byte(r.stdout), &k), r.stdout)
	return k
}

// sshKeygenVerify runs `ssh-keygen -Y verify` on file and file.sig with
// the allowed-signers line of `chronicle key`: nil when ssh-keygen says
// the signature is good.
func sshKeygenVerify(t *testing.T, k keyOut, file string) (string, error) {
	t.Helper()
	keygen := testbin.SSHKeygen(t)
	allowed := filepath.Join(t.TempDir(), "allowed_signers")
	require.NoError(t, os.WriteFile(allowed, []byte(k.AllowedSigners+"\n"), 0o600))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	cmd := exec.Command(keygen, "-Y", "verify", "-f", allowed, "-I", k.Identity, "-n", "chronicle-receipt", "-s", file+".sig")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestSignedReceipts: every receipt and rows file the CLI writes is
// signed beside it; ssh-keygen accepts each signature; verify names the
// signer, and says so of an unsigned receipt with the JSON line it always
// printed.
func TestSignedReceipts(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	k := w.key(nil)
	require.Equal(t, testbin.TestKeyFingerprint, k.Fingerprint)
	w.write("claims.jsonl", `{"chronicle-claims":1,"namespace":"sign","runId":"r1"}
{"result":1,"document":"input.txt","query":"Did Alice repay Bob?"}
{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"PARTIAL"}
`)
	w.write("second.txt", "second document\n")
	for _, c := range [][]string{
		{"query", "input.txt", g1Q, "--receipt", "query.receipt"},
		{"claim", "input.txt", "Alice", "owns", "Book", "--receipt", "claim.receipt"},
		{"find", "--doc", "input.txt", "Saud", "--receipt", "find-doc.receipt"},
		{"find", "Saud", "--receipt", "find.receipt", "--keep"},
		{"entity", "Saud", "--receipt", "entity.receipt"},
		{"settle", "Did Alice repay Bob?", "--receipt", "settle.receipt"},
		{"ingest", "second.txt", "--receipt", "ingest.receipt"},
	} {
		file := c[len(c)-1]
		if file == "--keep" {
			file = c[len(c)-2]
		}
		w.ok(c...)
		path := filepath.Join(w.dir, file)
		out, err := sshKeygenVerify(t, k, path)
		require.NoError(t, err, "%v: ssh-keygen: %s", c, out)
		require.Contains(t, out, `Good "chronicle-receipt" signature for `+k.Identity+" with ED25519 key "+k.Fingerprint)
		if runtime.GOOS != "windows" {
			st, err := os.Stat(path + ".sig")
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		}
		require.Equal(t, "VALID\nsigned by "+k.Fingerprint+" ("+file+".sig)\n", w.ok("verify", file, "--text"), "%v", c)
		require.Equal(t, `{"file":"`+file+`","signer":"`+k.Fingerprint+`","verdict":"VALID"}`+"\n", w.ok("verify", file, "--json"))
	}
	w.ok("claims", "check", "claims.jsonl", "--out", "rows.jsonl")
	out, err := sshKeygenVerify(t, k, filepath.Join(w.dir, "rows.jsonl"))
	require.NoError(t, err, "ssh-keygen: %s", out)
	require.Equal(t, "VALID\nsigned by "+k.Fingerprint+" (rows.jsonl.sig)\n", w.ok("claims", "verify", "rows.jsonl", "--text"))
	require.Contains(t, w.ok("claims", "verify", "rows.jsonl", "--json"), `{"invalid":0,"rows":1,"signer":"`+k.Fingerprint+`","verdict":"VALID"}`)

	// written again: the same bytes, nothing to do (Ed25519 is deterministic)
	w.ok("query", "input.txt", g1Q, "--receipt", "query.receipt")

	// unsigned: the verdict and JSON line of before, and a line saying so
	require.NoError(t, os.Remove(filepath.Join(w.dir, "query.receipt.sig")))
	require.Equal(t, "VALID\nunsigned (no query.receipt.sig)\n", w.ok("verify", "query.receipt", "--text"))
	require.Equal(t, `{"file":"query.receipt","verdict":"VALID"}`+"\n", w.ok("verify", "query.receipt", "--json"))
	// --receipt - prints the receipt and writes no signature
	w.ok("query", "input.txt", g1Q, "--receipt", "-")
	require.NoFileExists(t, filepath.Join(w.dir, "-.sig"))
}

// TestSignatureTampering: a changed receipt, a changed signature and
// another key's signature are each INVALID with one line; a signature
// ssh-keygen made with another key verifies and names that key.
func TestSignatureTampering(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	w.ok("query", "input.txt", g1Q, "--receipt", "a.receipt")
	w.ok("find", "--doc", "input.txt", "Saud", "--receipt", "b.receipt")
	data, sig := w.read("a.receipt"), w.read("a.receipt.sig")

	invalid := func(what string) {
		t.Helper()
		r := w.run("verify", "a.receipt", "--text")
		require.Equal(t, 1, r.code, "%s: %s", what, r)
		require.Equal(t, "INVALID\n", r.stdout, what)
		require.Len(t, lines(r.stderr), 1, "%s: one line: %q", what, r.stderr)
		require.True(t, strings.HasPrefix(r.stderr, "chronicle verify: a.receipt.sig: the signature does not verify"), "%s: %q", what, r.stderr)
		j := w.run("verify", "a.receipt", "--json")
		require.Equal(t, 1, j.code)
		require.Contains(t, j.stdout, `"verdict":"INVALID"`)
		require.NotContains(t, j.stdout, `"signer"`)
	}
	restore := func() {
		require.NoError(t, os.WriteFile(filepath.Join(w.dir, "a.receipt"), data, 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(w.dir, "a.receipt.sig"), sig, 0o600))
	}

	// the receipt changed (a byte added): the signature catches it
	// before any replay
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "a.receipt"), append(append([]byte{}, data...), data[len(data)-1]), 0o600))
	invalid("a byte added to the receipt")
	restore()

	tampered := []byte(strings.Replace(string(sig), "AAAA", "AAAB", 1))
	require.NotEqual(t, sig, tampered)
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "a.receipt.sig"), tampered, 0o600))
	r := w.run("verify", "a.receipt", "--text")
	require.Equal(t, 1, r.code, "a changed signature: %s", r)
	require.Equal(t, "INVALID\n", r.stdout)
	require.Len(t, lines(r.stderr), 1, r.stderr)
	restore()

	// b's signature beside a: a good signature of other bytes
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "a.receipt.sig"), w.read("b.receipt.sig"), 0o600))
	invalid("the signature of another receipt")
	restore()

	// ssh-keygen signs with another key: VALID, signed by that key
	keygen := testbin.SSHKeygen(t)
	other := filepath.Join(t.TempDir(), "other")
	otherKey, err := os.ReadFile(filepath.Join(testbin.RepoRoot(), "testdata", "keys", "other_ed25519"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, otherKey, 0o600))
	require.NoError(t, os.Remove(filepath.Join(w.dir, "a.receipt.sig")))
	out, err := exec.Command(keygen, "-Y", "sign", "-n", "chronicle-receipt", "-f", other, filepath.Join(w.dir, "a.receipt")).CombinedOutput()
	require.NoError(t, err, string(out))
	fp, err := exec.Command(keygen, "-l", "-f", other).Output()
	require.NoError(t, err)
	otherFP := strings.Fields(string(fp))[1]
	require.Equal(t, "VALID\nsigned by "+otherFP+" (a.receipt.sig)\n", w.ok("verify", "a.receipt", "--text"))
	// ... and the same key's signature for another namespace is not ours
	require.NoError(t, os.Remove(filepath.Join(w.dir, "a.receipt.sig")))
	out, err = exec.Command(keygen, "-Y", "sign", "-n", "file", "-f", other, filepath.Join(w.dir, "a.receipt")).CombinedOutput()
	require.NoError(t, err, string(out))
	r = w.run("verify", "a.receipt", "--text")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stderr, `made for namespace "file", not "chronicle-receipt"`)

	// rows: a changed rows file is INVALID before any row is recomputed
	w.write("claims.jsonl", `{"chronicle-claims":1,"namespace":"sign","runId":"r2"}
{"result":1,"document":"input.txt","query":"Did Alice repay Bob?"}
{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"PARTIAL"}
`)
	w.ok("claims", "check", "claims.jsonl", "--out", "rows.jsonl")
	rows := w.read("rows.jsonl")
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "rows.jsonl"), append(rows, rows...), 0o600))
	r = w.run("claims", "verify", "rows.jsonl", "--text")
	require.Equal(t, 1, r.code, "%s", r)
	require.Equal(t, "INVALID\n", r.stdout)
	requireOneLineError(t, result{code: 1, stderr: r.stderr}, 1, "claims", `rows\.jsonl\.sig: the signature does not verify`)
}

// TestSigningKeys: the key is created on the first write that signs,
// with its notice and modes; --key and $CHRONICLE_KEY choose another; a
// key others may read or an encrypted key fails the command before
// anything is written; reading never creates a key.
func TestSigningKeys(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	config := filepath.Join(w.dir, "config")
	fresh := []string{"CHRONICLE_KEY=", "XDG_CONFIG_HOME=" + config}
	keyFile := filepath.Join(config, "chronicle", "signing_key")

	// reading commands never create the key
	for _, c := range [][]string{{"query", "input.txt", g1Q}, {"find", "Saud"}, {"verify", "nosuch.receipt"}, {"docs"}} {
		w.raw(fresh, append([]string{"--db=" + w.db}, c...)...)
		require.NoFileExists(t, keyFile, "%v", c)
	}

	r := w.raw(fresh, "--db="+w.db, "query", "input.txt", g1Q, "--receipt", "first.receipt")
	require.Equal(t, 0, r.code, "%s", r)
	require.Equal(t, "chronicle: created signing key "+keyFile+" (`chronicle key` prints its public key)\n", r.stderr)
	if runtime.GOOS != "windows" {
		for path, mode := range map[string]os.FileMode{keyFile: 0o600, filepath.Dir(keyFile): 0o700} {
			st, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, mode, st.Mode().Perm(), path)
		}
	}
	created := w.key(fresh)
	require.Equal(t, keyFile, created.KeyFile)
	require.NotEqual(t, testbin.TestKeyFingerprint, created.Fingerprint)
	out, err := sshKeygenVerify(t, created, filepath.Join(w.dir, "first.receipt"))
	require.NoError(t, err, out)
	r = w.raw(fresh, "--db="+w.db, "query", "input.txt", g1Q, "--receipt", "second.receipt")
	require.Equal(t, 0, r.code, "%s", r)
	require.Empty(t, r.stderr, "the notice comes once")

	// --key wins over $CHRONICLE_KEY (the test key), which wins over the
	// default key
	require.Equal(t, testbin.TestKeyFingerprint, w.key(nil).Fingerprint)
	require.Equal(t, created.Fingerprint, w.key(nil, "--key", keyFile).Fingerprint)
	w.ok("find", "Saud", "--receipt", "by-flag.receipt", "--key", keyFile)
	require.Equal(t, "VALID\nsigned by "+created.Fingerprint+" (by-flag.receipt.sig)\n", w.ok("verify", "by-flag.receipt", "--text"))

	// a key others may read: one line naming the file and the fix, and
	// nothing written
	exposed := filepath.Join(w.dir, "exposed")
	data, err := os.ReadFile(keyFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(exposed, data, 0o644))
	require.NoError(t, os.Chmod(exposed, 0o644))
	if runtime.GOOS != "windows" {
		r = w.run("query", "input.txt", g1Q, "--receipt", "exposed.receipt", "--key", exposed)
		requireOneLineError(t, r, 1, "query", "signing key "+regexp.QuoteMeta(exposed)+` is readable by others \(mode 0644\); run `+"`chmod 600 "+regexp.QuoteMeta(exposed)+"`")
		require.NoFileExists(t, filepath.Join(w.dir, "exposed.receipt"))
		r = w.raw([]string{"CHRONICLE_KEY=" + exposed}, "--db="+w.db, "claims", "check", "nosuch.jsonl", "--out", "rows.jsonl")
		require.Equal(t, 1, r.code)
	}

	// an encrypted key
	encrypted := filepath.Join(w.dir, "encrypted")
	enc, err := os.ReadFile(filepath.Join(testbin.RepoRoot(), "testdata", "keys", "encrypted_ed25519"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(encrypted, enc, 0o600))
	r = w.raw([]string{"CHRONICLE_KEY=" + encrypted}, "--db="+w.db, "entity", "Saud", "--receipt", "enc.receipt", "--keep")
	requireOneLineError(t, r, 1, "entity", "signing key "+regexp.QuoteMeta(encrypted)+" is encrypted; Chronicle needs an unencrypted Ed25519 key")
	require.NoFileExists(t, filepath.Join(w.dir, "enc.receipt"))
	require.NotContains(t, w.ok("receipts"), "ENTITY", "--keep kept nothing: the key failed first")

	// a named key that does not exist is an error, never a new key
	r = w.run("query", "input.txt", g1Q, "--receipt", "typo.receipt", "--key", "typo")
	requireOneLineError(t, r, 1, "query", "typo")
	require.NoFileExists(t, filepath.Join(w.dir, "typo"))
}

// verifyText is what `verify FILE --text` (or `claims verify`) prints
// for a file of the workspace with verdict: the word, then who signed it
// (the test key, when FILE.sig is there) or, for a receipt of the
// archive's own format or a rows file, that it is unsigned. An original
// receipt without a signature gets the word alone, as casper-chronicle
// prints it.
func (w *ws) verifyText(file, verdict string) string {
	w.t.Helper()
	if _, err := os.Stat(filepath.Join(w.dir, file+".sig")); err == nil {
		return verdict + "\nsigned by " + testbin.TestKeyFingerprint + " (" + file + ".sig)\n"
	}
	data := w.read(file)
	own := bytes.HasPrefix(data, []byte(db.ReceiptHeader+"\n")) || bytes.HasPrefix(data, []byte(db.SetReceiptHeader+"\n"))
	if own || strings.HasSuffix(file, ".jsonl") {
		return verdict + "\nunsigned (no " + file + ".sig)\n"
	}
	return verdict + "\n"
}

// TestSignatureInTheWay: another file at FILE.sig stops the write before
// FILE is written, and the error names FILE.sig.
func TestSignatureInTheWay(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	w.write("q.receipt.sig", "someone else's\n")
	r := w.run("query", "input.txt", g1Q, "--receipt", "q.receipt", "--json")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stderr, `"error":"exists","file":"q.receipt.sig"`)
	require.NoFileExists(t, filepath.Join(w.dir, "q.receipt"))

	w.write("claims.jsonl", `{"chronicle-claims":1,"namespace":"sign","runId":"r3"}
{"result":1,"document":"input.txt","query":"Did Alice repay Bob?"}
{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"PARTIAL"}
`)
	w.write("rows.jsonl.sig", "someone else's\n")
	r = w.run("claims", "check", "claims.jsonl", "--out", "rows.jsonl")
	requireOneLineError(t, r, 1, "claims", `rows\.jsonl\.sig already exists with other content; nothing was overwritten`)
	require.NoFileExists(t, filepath.Join(w.dir, "rows.jsonl"))
	require.Equal(t, "someone else's\n", string(w.read("rows.jsonl.sig")))
}
