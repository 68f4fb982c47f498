package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpec14Corpus: the corpus is CONTRACT 14's, byte for byte, with its word
// count and its four events.
func TestSpec14Corpus(t *testing.T) {
	c := Spec14Corpus()
	require.Len(t, c, Spec14Size)
	sum := sha256.Sum256(c)
	require.Equal(t, Spec14SHA256, hex.EncodeToString(sum[:]))
	require.Len(t, strings.Fields(string(c)), 1000000)
	s, err := NewStore(c, 0)
	require.NoError(t, err)
	require.Len(t, s.Events, len(Spec14Records))
}
