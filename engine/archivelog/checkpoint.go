package archivelog

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Checkpoint names a tree of the log: the C2SP tlog-checkpoint body
// (origin, tree size, root hash), which a signed note carries.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
}

// ErrCheckpoint: text that is not a checkpoint, or a note that does not
// verify.
var ErrCheckpoint = errors.New("not a valid checkpoint")

// Text is the checkpoint's note text: "origin\nsize\nbase64(root)\n".
func (c *Checkpoint) Text() string {
	return c.Origin + "\n" + strconv.FormatInt(c.Size, 10) + "\n" + base64.StdEncoding.EncodeToString(c.Root[:]) + "\n"
}

// ParseCheckpoint reads a checkpoint's text strictly: exactly three lines
// (no extension lines: this log writes none), a valid origin, a size in
// canonical decimal and a 32-byte root in standard base64.
func ParseCheckpoint(text string) (*Checkpoint, error) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) != 4 || lines[3] != "" {
		return nil, fmt.Errorf("%w: a checkpoint is three lines (origin, size, root)", ErrCheckpoint)
	}
	c := &Checkpoint{Origin: strings.TrimSuffix(lines[0], "\n")}
	if err := CheckOrigin(c.Origin); err != nil {
		return nil, err
	}
	size := strings.TrimSuffix(lines[1], "\n")
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != size {
		return nil, fmt.Errorf("%w: tree size %.30q", ErrCheckpoint, size)
	}
	c.Size = n
	root, err := base64.StdEncoding.Strict().DecodeString(strings.TrimSuffix(lines[2], "\n"))
	if err != nil || len(root) != tlog.HashSize {
		return nil, fmt.Errorf("%w: root hash %.60q", ErrCheckpoint, lines[2])
	}
	copy(c.Root[:], root)
	if c.Text() != text {
		return nil, fmt.Errorf("%w: not in canonical form", ErrCheckpoint)
	}
	return c, nil
}

// CheckOrigin accepts an origin that can also be a note key name:
// non-empty UTF-8 without spaces, '+' or control characters.
func CheckOrigin(origin string) error {
	if origin == "" || !utf8.ValidString(origin) || strings.ContainsFunc(origin, func(r rune) bool {
		return unicode.IsSpace(r) || r == '+' || unicode.IsControl(r)
	}) {
		return fmt.Errorf("%w: origin %.60q", ErrCheckpoint, origin)
	}
	return nil
}

// Unverified reads the checkpoint a signed note carries without checking
// its signature: for showing the archive's own kept checkpoint, never for
// trusting one (OpenSigned).
func Unverified(signed []byte) (*Checkpoint, error) {
	text, _, ok := strings.Cut(string(signed), "\n\n")
	if !ok {
		return nil, fmt.Errorf("%w: not a signed note", ErrCheckpoint)
	}
	return ParseCheckpoint(text + "\n")
}

// Sign signs the checkpoint as a C2SP signed note.
func (c *Checkpoint) Sign(signer note.Signer) ([]byte, error) {
	return note.Sign(&note.Note{Text: c.Text()}, signer)
}

// OpenSigned verifies a signed checkpoint with verifier (the archive's
// public key) and reads it. A note signed by another key, altered, or
// whose text is not a checkpoint is ErrCheckpoint.
func OpenSigned(signed []byte, verifier note.Verifier) (*Checkpoint, error) {
	if !bytes.HasSuffix(signed, []byte("\n")) {
		return nil, fmt.Errorf("%w: a signed note ends with a newline", ErrCheckpoint)
	}
	n, err := note.Open(signed, note.VerifierList(verifier))
	if err != nil {
		var unknown *note.UnverifiedNoteError
		if errors.As(err, &unknown) {
			return nil, fmt.Errorf("%w: not signed by %s (key %08x)", ErrCheckpoint, verifier.Name(), verifier.KeyHash())
		}
		return nil, fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	return ParseCheckpoint(n.Text)
}
