package main

// A VALID verdict beside damage (issue 24): a receipt replays from its
// document's bytes, so it verifies although the archive can no longer
// reach the document by its name; verify and receipts --verify say so.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// leafOf returns the leaf page of the tree at root (in the file raw) that
// holds key: at each branch page, the last child whose key is not after it.
func leafOf(raw []byte, root uint64, key []byte) uint64 {
	id := root
	for {
		p := raw[id*4096:]
		if binary.LittleEndian.Uint16(p[8:]) != 0x01 {
			return id
		}
		next := binary.LittleEndian.Uint64(p[16+8:])
		for i := range int(binary.LittleEndian.Uint16(p[10:])) {
			e := p[16+i*16:]
			pos, ksize := binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:])
			if bytes.Compare(p[16+i*16+int(pos):16+i*16+int(pos+ksize)], key) <= 0 {
				next = binary.LittleEndian.Uint64(e[8:])
			}
		}
		id = next
	}
}

func TestVerifyWarnsBesideDamage(t *testing.T) {
	w, _ := writeGuardArchive(t)
	w.ok("query", "gen/f07.txt", "Did Alice repay Bob?", "--receipt", "q.receipt", "--keep")
	// The leaf of the names bucket that holds the document's name, zeroed:
	// its bytes (record, chunks, events) are intact.
	raw, err := os.ReadFile(w.db)
	require.NoError(t, err)
	leaf := leafOf(raw, bucketRoot(t, w.db, "names"), []byte("gen/f07.txt"))
	require.NotEqual(t, bucketRoot(t, w.db, "names"), leaf, "the names bucket has a branch root")
	clear(raw[leaf*4096 : (leaf+1)*4096])
	require.NoError(t, os.WriteFile(w.db, raw, 0o600))
	require.Equal(t, 1, w.run("check").code)

	const warning = "warning: the receipt is VALID from its document's bytes, but archive " // … is damaged (…); run `chronicle check`
	for _, tc := range []struct {
		name string
		args []string
		json bool
	}{
		{"verify", []string{"verify", "q.receipt"}, false},
		{"verify --json", []string{"verify", "q.receipt", "--json"}, true},
		{"receipts --verify", []string{"receipts", "--verify", "--text"}, false},
		{"receipts --verify --json", []string{"receipts", "--verify", "--json"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run(tc.args...)
			require.Equal(t, 0, r.code, "%s", r)
			if !tc.json {
				require.Contains(t, r.stdout, "VALID")
				require.NotContains(t, r.stdout, "INVALID")
				require.Len(t, lines(r.stderr), 1, "%s", r)
				require.Regexp(t, "^chronicle "+tc.args[0]+": warning: .*VALID from (its|their) documents?'s? bytes, but archive \\S+ is damaged \\(.*\\); run `chronicle check`\n$", r.stderr)
				return
			}
			found := false
			for _, l := range lines(r.stdout) {
				var j map[string]any
				require.NoError(t, json.Unmarshal([]byte(l), &j), l)
				require.Equal(t, "VALID", j["verdict"], l)
				if s, ok := j["warning"].(string); ok {
					require.Contains(t, s, warning)
					found = true
				}
			}
			require.True(t, found, "a warning field: %s", r)
		})
	}
}
