package original

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
)

// StoreSuffix is the extension of the original tool's store files.
const StoreSuffix = ".chronicle"

// maxReceiptFile bounds an original receipt read (seven lines of at most
// 4128 bytes); bigger files cannot be valid receipts.
const maxReceiptFile = 7 * 4128

// ErrNotStoreFile: an import argument does not end in ".chronicle".
var ErrNotStoreFile = errors.New("not a .chronicle store file")

// Report is the outcome of importing one store file.
type Report struct {
	Path     string
	Store    *engine.Store
	Result   *db.ImportResult
	Receipts []string // receipt files found beside the store
}

// ImportFile validates a store file completely (CONTRACT 3.3 with the canonical
// replay of its V1 or V2 profile) and imports it with the original receipts
// lying beside it. An invalid store changes nothing. Every error names path.
func ImportFile(a *db.Archive, path string) (*Report, error) {
	if !strings.HasSuffix(path, StoreSuffix) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotStoreFile)
	}
	data, err := fileio.ReadLimited(path, fileio.MaxStoreFile)
	if err != nil {
		return nil, err
	}
	s, err := engine.Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	receipts, err := ReceiptsBeside(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var originals []db.Original
	for _, r := range receipts {
		b, err := fileio.ReadLimited(r, maxReceiptFile)
		if err != nil {
			return nil, fmt.Errorf("receipt beside %s: %w", path, err)
		}
		originals = append(originals, db.Original{Name: r, Bytes: b})
	}
	res, err := a.ImportStore(s, data, []string{strings.TrimSuffix(path, StoreSuffix)}, originals)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Report{Path: path, Store: s, Result: res, Receipts: receipts}, nil
}

// ReceiptsBeside lists the receipt files the original tool writes for a
// store: STORE.receipt, STORE.query-*.receipt (and .query-v2-*) and
// STORE.find-*.receipt, sorted.
func ReceiptsBeside(store string) ([]string, error) {
	var out []string
	for _, pattern := range []string{".receipt", ".query-*.receipt", ".find-*.receipt"} {
		m, err := filepath.Glob(escapeGlob(store) + pattern)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	return out, nil
}

func escapeGlob(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// V1Store builds the legacy store the original tool's first version wrote
// for src: V1 magic, typed records only. Tests and fixtures use it; Chronicle
// never writes new V1 stores.
func V1Store(src []byte, importedAt uint64) (*engine.Store, error) {
	doc := sha256.Sum256(src)
	events, err := engine.Extract(src, doc, engine.ProfileV1)
	if err != nil {
		return nil, err
	}
	return &engine.Store{Version: 1, Document: doc, ImportedAt: importedAt, Source: src, Events: events}, nil
}

// LiteralVariantV1Store builds a store of the unpublished V1 variant that
// also extracted literal (and Arabic) events under the V1 magic. Such stores
// fail the V1 replay and must be rejected; tests use this to prove it.
func LiteralVariantV1Store(src []byte, importedAt uint64) (*engine.Store, error) {
	s, err := engine.NewStore(src, importedAt)
	if err != nil {
		return nil, err
	}
	s.Version = 1
	return s, nil
}
