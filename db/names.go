package db

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/casper-chronicle/chronicle/db/suggest"
)

// Source paths (schema 12). A document ingested from a file remembers, for
// the name the path was typed as, the cleaned absolute path it was read
// from (Document.Sources), and the names bucket maps that path, under the
// key pathKey(abs), back to the document. So `./x.txt`, `/home/u/x.txt`
// and `../u/x.txt` from another directory all find the document ingested
// as `x.txt`, while listings keep the name as typed. A NUL byte cannot
// start a name (names are text without NUL), so the two kinds of key
// never collide.
const pathKeyPrefix = "\x00"

func pathKey(abs string) []byte { return []byte(pathKeyPrefix + abs) }

// isPathKey reports whether a key of the names bucket is a source path.
func isPathKey(k []byte) bool { return len(k) > 0 && k[0] == 0 }

// AbsPath is the cleaned absolute form of path, the form source paths are
// compared in ("" when the working directory cannot be found).
func AbsPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	return abs
}

// hasSource reports whether d was ingested from the absolute path abs.
func (d *Document) hasSource(abs string) bool {
	for _, p := range d.Sources {
		if p == abs {
			return true
		}
	}
	return false
}

// ErrBadChosenName: a --name that cannot be told apart from a DOC of
// another kind (empty, or a hash prefix of another document).
var ErrBadChosenName = errors.New("name refused")

// checkChosenName refuses a name the user chose for d that DOC arguments
// could not reach: an empty one, or one Resolve would read as a hash
// prefix of another document (at least MinPrefix hex digits). It also
// refuses a name that already reaches another document, as one of its
// names or as a spelling of the path of the file it was ingested from: a
// chosen name never takes a name or a path from another document (the
// name of a file moves only when that file is ingested again).
func checkChosenName(tx *bolt.Tx, d *Digest, name string) error {
	if name == "" {
		return fmt.Errorf("%w: a name cannot be empty (nothing was ingested)", ErrBadChosenName)
	}
	// A name is typed and read back on a terminal: blank or with control
	// bytes (TAB, LF, ESC...) it could not be told apart or would garble
	// the listings.
	if strings.TrimSpace(name) == "" || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: %q is blank or holds control characters; a name is printable text (nothing was ingested)", ErrBadChosenName, name)
	}
	nb := tx.Bucket(bucketNames)
	for _, key := range [][]byte{[]byte(name), pathKey(AbsPath(name))} {
		if other := nb.Get(key); len(other) == len(d) && !bytes.Equal(other, d[:]) {
			return fmt.Errorf("%w: %q already names document %s; choose another name (nothing was ingested)",
				ErrBadChosenName, name, Digest(other).Short())
		}
	}
	prefix := strings.ToLower(name)
	if len(prefix) < MinPrefix || len(prefix) > 64 || !isHex(prefix) {
		return nil
	}
	for _, other := range hashPrefixMatches(tx, prefix) {
		if other != *d {
			return fmt.Errorf("%w: %q is also the start of the SHA-256 of document %s, so it would not name this document; choose a name that is not %d or more hex digits (nothing was ingested)",
				ErrBadChosenName, name, other.Short(), MinPrefix)
		}
	}
	return nil
}

// hashPrefixMatches lists the documents whose SHA-256 starts with the hex
// digits of prefix (lower case).
func hashPrefixMatches(tx *bolt.Tx, prefix string) []Digest {
	seek, _ := hex.DecodeString(prefix[:len(prefix)&^1]) // whole bytes; the odd digit is checked below
	var out []Digest
	c := tx.Bucket(bucketDocs).Cursor()
	for k, _ := c.Seek(seek); k != nil && bytes.HasPrefix(k, seek); k, _ = c.Next() {
		if len(k) == 32 && strings.HasPrefix(Digest(k).String(), prefix) {
			out = append(out, Digest(k))
		}
	}
	return out
}

// attachSource records that d's name was read from the absolute path abs:
// the path entry moves to d from any document it pointed at (as a name
// moves: the latest ingest from a path is what the path names).
func attachSource(tx *bolt.Tx, d *Document, name, abs string) error {
	if abs == "" || !d.hasName(name) {
		return nil
	}
	nb, docs := tx.Bucket(bucketNames), tx.Bucket(bucketDocs)
	prev := nb.Get(pathKey(abs))
	if d.Sources[name] == abs && bytes.Equal(prev, d.SHA256[:]) {
		return nil // a re-ingest from the same path: nothing changes
	}
	if prev != nil && !bytes.Equal(prev, d.SHA256[:]) {
		if raw := docs.Get(prev); raw != nil {
			other, err := decodeDocument(prev, raw)
			if err != nil {
				return err
			}
			for n, p := range other.Sources {
				if p == abs {
					delete(other.Sources, n)
				}
			}
			if err := docs.Put(prev, other.encode()); err != nil {
				return err
			}
		}
	}
	if d.Sources == nil {
		d.Sources = map[string]string{}
	}
	d.Sources[name] = abs
	if err := nb.Put(pathKey(abs), d.SHA256[:]); err != nil {
		return err
	}
	return docs.Put(d.SHA256[:], d.encode())
}

// dropSource forgets the source of a name that moved away from d; the
// path entry goes too unless another of d's names was read from it.
func dropSource(nb *bolt.Bucket, d *Document, name string) error {
	abs, ok := d.Sources[name]
	if !ok {
		return nil
	}
	delete(d.Sources, name)
	if d.hasSource(abs) || !bytes.Equal(nb.Get(pathKey(abs)), d.SHA256[:]) {
		return nil
	}
	return nb.Delete(pathKey(abs))
}

// resolvePath finds the document ingested from the file arg names: by its
// cleaned absolute path, else (names recorded before schema 12, or a name
// spelled `./x` or `a//b`) by the cleaned path as a name.
func resolvePath(tx *bolt.Tx, arg string) (*Document, bool, error) {
	if arg == "" {
		return nil, false, nil
	}
	nb := tx.Bucket(bucketNames)
	if abs := AbsPath(arg); abs != "" {
		if key := nb.Get(pathKey(abs)); key != nil {
			d, err := linkedDocument(tx, key, fmt.Sprintf("path %q", abs))
			if err != nil {
				return nil, true, err
			}
			if !d.hasSource(abs) {
				return nil, true, fmt.Errorf("path %q: %w: its entry points at document %s, whose record does not list it (run `chronicle check`)", abs, ErrCorrupt, d.SHA256)
			}
			return d, true, nil
		}
		// An absolute name recorded before schema 12 is its own path.
		if abs != arg {
			if d, ok, err := resolveName(tx, abs); ok {
				return d, true, err
			}
		}
	}
	if clean := filepath.Clean(arg); clean != arg {
		return resolveName(tx, clean)
	}
	return nil, false, nil
}

// linkedDocument is the document a names-bucket entry points at.
func linkedDocument(tx *bolt.Tx, key []byte, what string) (*Document, error) {
	raw := tx.Bucket(bucketDocs).Get(key)
	if raw == nil {
		return nil, fmt.Errorf("%s: %w: it points at missing document %x (run `chronicle check`)", what, ErrCorrupt, key)
	}
	d, err := decodeDocument(key, raw)
	if err != nil {
		return nil, err
	}
	return d, checkSeqOf(tx, d)
}

// suggestNames is "; did you mean X?" for the names nearest to arg by edit
// distance (in code points; at most three, nearest first), or "" when none
// is near: a third of the longer name's length at most, or one a prefix of
// the other. Only names are candidates, never source path entries.
func suggestNames(tx *bolt.Tx, arg string) string {
	var near []suggest.Scored
	tx.Bucket(bucketNames).ForEach(func(k, _ []byte) error {
		if isPathKey(k) {
			return nil
		}
		name := string(k)
		// A path name is also matched by its last element: `alice`
		// suggests samples/alice-bob-en.txt.
		best := -1
		for _, c := range []string{name, filepath.Base(name)} {
			if d, ok := suggest.Near(arg, c); ok && (best < 0 || d < best) {
				best = d
			}
		}
		if best >= 0 {
			near = append(near, suggest.Scored{Name: name, Dist: best})
		}
		return nil
	})
	return suggest.Phrase(suggest.Best(near), strconv.Quote)
}
