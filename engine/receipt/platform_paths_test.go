package receipt

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var rewritePaths = flag.Bool("rewrite-paths", false, "rewrite testdata/platform-paths.receipts")

// A receipt records its store path as the string given, byte for byte,
// on every platform: a Windows path keeps its drive letter, backslashes
// and non-ASCII names, a POSIX path its slashes, and nothing is cleaned,
// made absolute or re-separated. The golden file is the same on every
// platform (the Windows cross-build runs this test too), so receipts made
// on one verify byte for byte on another.
func TestStorePathsAsGiven(t *testing.T) {
	store := []byte("CASPER-CHRON-V2\n")
	doc := sha256.Sum256([]byte("loan\n"))
	var all bytes.Buffer
	for _, path := range []string{
		`C:\Users\Layla\Evidence\قرض.txt.chronicle`,
		`c:/Users/Layla/evidence/loan.txt.chronicle`,
		`\\fileserver\cases\2026\statement.txt.chronicle`,
		`D:relative\on\drive.txt.chronicle`,
		`/home/layla/evidence/loan.txt.chronicle`,
		`./notes/../loan.txt.chronicle`,
		`évidence/ملف مع مسافات.txt.chronicle`,
	} {
		r, err := New(KindIngest, path, "", store, 2, doc, nil)
		require.NoError(t, err)
		enc := r.Encode()
		back, err := Parse(enc)
		require.NoError(t, err, path)
		require.Equal(t, path, back.StorePath, "the path comes back as given")
		require.Equal(t, enc, back.Encode())
		all.Write(enc)
	}
	golden := filepath.Join("testdata", "platform-paths.receipts")
	if *rewritePaths {
		require.NoError(t, os.WriteFile(golden, all.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), all.String(), "golden %s (-rewrite-paths rewrites it)", golden)
}
