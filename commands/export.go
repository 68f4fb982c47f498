package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/sign"
)

// ErrOtherContent is the error of a file a command would write that
// already exists with other bytes: nothing is overwritten. The CLI exits
// 1 with the error kind "exists".
var ErrOtherContent = errors.New("already exists with other content")

// ExportIn is a document to export and the directory to write it in:
// `export DOC DIR`.
//
// Sign, when set, signs the receipt (engine/sign through the CLI's key):
// its signature is written beside it, RECEIPT.sig, with the same rule.
type ExportIn struct {
	Document string
	Dir      string
	Sign     func(data []byte) ([]byte, error)
}

// Exported is what `export` wrote: its JSON is the `export --json` line
// (fields in the order of their names). Created is false when the store
// was there already with the same bytes.
type Exported struct {
	Created        bool   `json:"created"`
	DocumentSHA256 string `json:"document_sha256"`
	Receipt        string `json:"receipt"`
	Signature      string `json:"signature,omitempty"`
	Store          string `json:"store"`
	StoreVersion   int    `json:"store_version"`
}

// Export writes DIR/<base>.chronicle, byte-identical to the original
// tool's store for the same source and import time, and a V2 (or V1)
// INGEST receipt whose store path is that file name as formed from DIR.
// Both files (and the signature, with in.Sign) or none: anything but a
// regular file in the way of any
// (a directory, a FIFO) is refused before anything is written, and a
// store this export created is removed when its receipt cannot be
// written. A store already there with other bytes is an ArgError on the
// file wrapping ErrOtherContent. The files follow the umask, as the
// original tool's do.
func Export(a *db.Archive, in ExportIn) (*Exported, error) {
	d, err := a.Resolve(in.Document)
	if err != nil {
		return nil, err
	}
	storeBytes, s, err := a.Rebuild(d)
	if err != nil {
		return nil, err
	}
	dir := in.Dir
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s is %s, not a directory; nothing was written", dir, fileio.Kind(st.Mode()))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Base(d.Label())
	storePath := dir + "/" + base + ".chronicle"
	if strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, string(os.PathSeparator)) { // C:\out\ on Windows
		storePath = dir + base + ".chronicle"
	}
	if err := db.CheckStorePath(storePath); err != nil {
		return nil, err
	}
	rec, err := receipt.New(receipt.KindIngest, storePath, "", storeBytes, s.Version, s.Document, nil)
	if err != nil {
		return nil, err
	}
	receiptPath := storePath + ".receipt"
	sigPath, sig := "", []byte(nil)
	if in.Sign != nil {
		sigPath = receiptPath + sign.Suffix
		if sig, err = in.Sign(rec.Encode()); err != nil {
			return nil, err
		}
	}
	for _, p := range []string{storePath, receiptPath, sigPath} {
		if p == "" {
			continue
		}
		if err := fileio.CheckTarget(p); err != nil {
			return nil, fmt.Errorf("%w; nothing was written", err)
		}
	}
	created := true
	if err := fileio.CreateShared(storePath, storeBytes); err != nil {
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		created = false
		existing, rerr := fileio.ReadLimited(storePath, int64(len(storeBytes)))
		if errors.Is(rerr, fileio.ErrNotRegular) {
			return nil, fmt.Errorf("%w; nothing was written", rerr)
		}
		if rerr != nil || string(existing) != string(storeBytes) {
			return nil, &ArgError{Object: "file", Value: storePath, Err: fmt.Errorf("%s %w; nothing was overwritten", storePath, ErrOtherContent)}
		}
	}
	var werr error
	if in.Sign != nil {
		_, werr = fileio.WriteOnceSignedShared(receiptPath, rec.Encode(), sigPath, sig)
	} else {
		werr = fileio.WriteOnceShared(receiptPath, rec.Encode())
	}
	if err := werr; err != nil {
		if created {
			os.Remove(storePath)
			return nil, fmt.Errorf("%w; the store %s was not kept either", err, storePath)
		}
		return nil, err
	}
	return &Exported{Created: created, DocumentSHA256: d.SHA256.String(), Receipt: receiptPath, Signature: sigPath, Store: storePath, StoreVersion: s.Version}, nil
}

// OriginalExported is what `export --original` wrote.
type OriginalExported struct {
	Created        bool   `json:"created"` // false: the same bytes were there already
	DocumentSHA256 string `json:"document_sha256"`
	OriginalSHA256 string `json:"original_sha256"`
	Kind           string `json:"kind"`
	Original       string `json:"original"` // the file written
	Size           int64  `json:"size"`
}

// ErrNotDerived: `export --original` of a document that was ingested as
// text, not derived from an original file.
var ErrNotDerived = errors.New("was ingested as text, not derived from a mail, web page or PDF")

// ExportOriginal writes the original file document doc was derived from
// (a mail, a web page, a PDF, or the attachment a text came from) to dir,
// byte for byte as it was ingested and checked against its digest, under
// the base name it was first given. A file of that name with other bytes
// is left as it is (ErrOtherContent).
func ExportOriginal(a *db.Archive, doc, dir string) (*OriginalExported, error) {
	d, err := a.Resolve(doc)
	if err != nil {
		return nil, err
	}
	chain, err := a.DerivedFrom(d.SHA256)
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		return nil, &ArgError{Object: "document", Value: doc, Err: fmt.Errorf("%s %w; nothing was written", d.Label(), ErrNotDerived)}
	}
	data, rec, err := a.OriginalBytes(chain[0].Input)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s is %s, not a directory; nothing was written", dir, fileio.Kind(st.Mode()))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := rec.SHA256.String()
	if len(rec.Names) > 0 {
		base = filepath.Base(filepath.FromSlash(rec.Names[0]))
	}
	path := filepath.Join(dir, base)
	if err := fileio.CheckTarget(path); err != nil {
		return nil, fmt.Errorf("%w; nothing was written", err)
	}
	out := &OriginalExported{Created: true, DocumentSHA256: d.SHA256.String(), OriginalSHA256: rec.SHA256.String(),
		Kind: rec.Kind, Original: path, Size: rec.Size}
	if err := fileio.CreateShared(path, data); err != nil {
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		existing, rerr := fileio.ReadLimited(path, int64(len(data)))
		if rerr != nil || string(existing) != string(data) {
			return nil, &ArgError{Object: "file", Value: path, Err: fmt.Errorf("%s %w; nothing was overwritten", path, ErrOtherContent)}
		}
		out.Created = false
	}
	return out, nil
}
