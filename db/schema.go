package db

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"github.com/casper-chronicle/chronicle/index"

	bolt "go.etcd.io/bbolt"
)

// SchemaVersion is the layout this package reads and writes. Older archives
// are upgraded on open by the registered steps below, all in one write
// transaction; newer ones are refused.
const SchemaVersion = 21

// bucketOriginals keeps original V1/V2 receipt files imported beside their
// stores (schema 2): document SHA-256 ‖ SHA-256 of the receipt bytes →
// JSON {seq, name, receipt}.
var bucketOriginals = []byte("originals")

// bucketSeqs maps a document's sequence number (u64 BE) to its SHA-256
// (schema 3): the index refers to documents by sequence number.
var bucketSeqs = []byte("seqs")

// schemaBuckets are the buckets of the current schema (the index package
// adds its own).
var schemaBuckets = [][]byte{bucketMeta, bucketDocs, bucketChunks, bucketEvents, bucketNames, bucketReceipts, bucketOriginals, bucketSeqs, bucketClaims, bucketOrder, bucketReceiptCounts, bucketReceiptOrder, bucketOrigFiles, bucketOrigChunks, bucketDerivations}

// Upgrade is one registered schema step from version From to From+1.
type Upgrade struct {
	From    int
	Summary string
	Apply   func(a *Archive, tx *bolt.Tx) error
}

// Upgrades lists every step, in order; step i upgrades schema i+1 to i+2.
var Upgrades = []Upgrade{
	{From: 1, Summary: "add the bucket of original receipts imported with their stores",
		Apply: func(_ *Archive, tx *bolt.Tx) error {
			_, err := tx.CreateBucketIfNotExists(bucketOriginals)
			return err
		}},
	{From: 2, Summary: "build the term and entity indexes of every document",
		Apply: func(a *Archive, tx *bolt.Tx) error {
			if _, err := tx.CreateBucketIfNotExists(bucketSeqs); err != nil {
				return err
			}
			return a.reindexOnce(tx)
		}},
	{From: 3, Summary: "rebuild the term index with each document's line count of every gram",
		Apply: func(a *Archive, tx *bolt.Tx) error { return a.reindexOnce(tx) }},
	{From: 4, Summary: "keep each event's evidence span in the entity index, so lookups read no document",
		Apply: func(a *Archive, tx *bolt.Tx) error { return a.reindexOnce(tx) }},
	{From: 5, Summary: "store new documents' chunks as S2 frames (existing zstd chunks stay as they are)",
		Apply: func(*Archive, *bolt.Tx) error { return nil }},
	{From: 6, Summary: "build each document's line index (the lines of every token, chunk digests), so find reads only the lines it lists",
		Apply: func(a *Archive, tx *bolt.Tx) error { return a.reindexOnce(tx) }},
	{From: 7, Summary: "add the bucket of kept claim checks (claims check)",
		Apply: func(_ *Archive, tx *bolt.Tx) error {
			_, err := tx.CreateBucketIfNotExists(bucketClaims)
			return err
		}},
	{From: 8, Summary: "bind a digest to every document record and index entry, checked on every read",
		Apply: func(a *Archive, tx *bolt.Tx) error {
			if err := rewriteRecords(tx); err != nil {
				return err
			}
			return a.reindexOnce(tx)
		}},
	{From: 9, Summary: "seal every term index posting with a digest bound to its key and chain each group's postings, so a damaged or lost one fails find; seal every kept receipt and number them without gaps, so a damaged or lost one fails receipts",
		Apply: func(a *Archive, tx *bolt.Tx) error {
			if err := rewriteReceipts(tx); err != nil {
				return err
			}
			return a.reindexOnce(tx)
		}},
	{From: 10, Summary: "rebuild the term index with each group's indexed documents marked (so a batch ingest writes postings once per batch) and with the code-point trigrams of non-ASCII text (so rare Arabic words rule documents out), and each document's line index as blocks with gram filters (CLX2, so find decodes and checks only the dictionary blocks a term may be in)",
		Apply: func(a *Archive, tx *bolt.Tx) error { return a.reindexOnce(tx) }},
	{From: 11, Summary: "keep the absolute path each document was ingested from, so another spelling of the same file names it (names that are absolute paths become their own source path)",
		Apply: func(_ *Archive, tx *bolt.Tx) error { return addAbsoluteSources(tx) }},
	{From: 12, Summary: "rebuild the term index as blocks of postings (one bbolt value per gram prefix instead of per gram), so a batch ingest writes about a twelfth as many keys and the index takes about a third of the space",
		Apply: func(a *Archive, tx *bolt.Tx) error { return a.reindexOnce(tx) }},
	{From: 13, Summary: "keep running totals of documents, events, bytes and receipts, counted once now and updated by every write, so `stats` reads no document record",
		Apply: func(_ *Archive, tx *bolt.Tx) error { return resetTotals(tx) }},
	{From: 14, Summary: "summarise the term index by groups of 4,096 documents (which groups hold each gram), so find reads only the groups that may hold a term",
		Apply: func(a *Archive, tx *bolt.Tx) error {
			if a.reindexed { // a rebuild started by an earlier step writes them
				return nil
			}
			err := index.BuildSummaries(tx)
			if errors.Is(err, index.ErrDamaged) {
				// Damaged postings cannot be summarised: rebuild the
				// indexes from the documents instead.
				return a.reindexOnce(tx)
			}
			return err
		}},
	{From: 15, Summary: "list the documents by size and by event count, so `docs --sort size` and `--sort events` read one page instead of every record; count each document's kept receipts and list all of them in issue order, so a page of receipts is read without the others",
		Apply: func(_ *Archive, tx *bolt.Tx) error {
			if err := rebuildOrder(tx); err != nil {
				return err
			}
			return rebuildReceiptIndexes(tx)
		}},
	{From: 16, Summary: "keep each event's document digest and store version beside its span in the entity index, so entity and settle read no document record to re-derive their events",
		Apply: func(a *Archive, tx *bolt.Tx) error {
			if a.reindexed { // a rebuild started by an earlier step writes them
				return nil
			}
			err := index.UpgradeSpans(tx, func(seq uint64) (index.SpanDoc, error) {
				d, err := docBySeq(tx, seq)
				if err != nil {
					return index.SpanDoc{}, err
				}
				return spanDoc(d), nil
			})
			if errors.Is(err, index.ErrDamaged) {
				// Damaged spans or records: rebuild the indexes from the
				// documents instead (check names what cannot be read).
				return a.reindexOnce(tx)
			}
			return err
		}},
	{From: 17, Summary: "keep an append-only log of what the archive holds (documents, names, original receipts, kept receipts, claims checks) as an RFC 6962 tree, so signed checkpoints and proofs show nothing was removed or rewritten",
		Apply: func(_ *Archive, tx *bolt.Tx) error { return buildLog(tx) }},
	{From: 18, Summary: "pack the term index of every 4,096 documents wholly indexed into one value per gram block, its groups side by side, so a find reads a term's postings from a few consecutive pages instead of one place per 64 documents (done one super-group per transaction once the archive is opened for writing)",
		Apply: func(_ *Archive, tx *bolt.Tx) error { return index.CreateBuckets(tx) }},
	{From: 19, Summary: "keep the original files of mail, web pages and PDFs byte for byte, and each text derived from them with the tool, version and options that derived it",
		Apply: func(_ *Archive, tx *bolt.Tx) error {
			for _, name := range [][]byte{bucketOrigFiles, bucketOrigChunks, bucketDerivations} {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			return nil
		}},
	{From: 20, Summary: "keep with each document's trigram postings the bytes that follow the trigram in it (a bit each), so a find of a word rules out, without reading them, documents that hold its trigrams but never in a row; postings written before keep none, which rules nothing out, until `chronicle reindex`",
		Apply: func(*Archive, *bolt.Tx) error { return nil }},
}

// addAbsoluteSources gives every name that is an absolute path its source
// path entry (schema 12). A relative name's base directory was not kept
// before, so it keeps resolving as typed (or cleaned: `./x` finds `x`).
func addAbsoluteSources(tx *bolt.Tx) error {
	all, err := docRecords(tx)
	if err != nil {
		return err
	}
	for _, d := range all {
		for _, n := range slices.Clone(d.Names) {
			if filepath.IsAbs(n) {
				if err := attachSource(tx, d, n, filepath.Clean(n)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// rewriteRecords re-encodes every document record with its digest (schema
// 9).
func rewriteRecords(tx *bolt.Tx) error {
	docs := tx.Bucket(bucketDocs)
	var all []*Document
	if err := docs.ForEach(func(k, v []byte) error {
		d, err := decodeLegacyDocument(k, v)
		if err != nil {
			return err
		}
		all = append(all, d)
		return nil
	}); err != nil {
		return err
	}
	for _, d := range all {
		if err := docs.Put(d.SHA256[:], d.encode()); err != nil {
			return err
		}
	}
	return nil
}

// reindexOnce starts a rebuild of the indexes at most once per upgrade:
// every reindexing step wants the current index layout, so later steps of
// the same upgrade have nothing left to do. The upgrade's transaction only
// empties the indexes and marks the rebuild; Open then finishes it in
// batches (finishReindex), after the upgrade has committed.
func (a *Archive) reindexOnce(tx *bolt.Tx) error {
	if a.reindexed {
		return nil
	}
	a.reindexed = true
	return a.startReindex(tx)
}

// checkFileSize refuses a file shorter than the pages its last commit uses
// (a truncated copy): reading a page past the end would fault.
func checkFileSize(path string, tx *bolt.Tx) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	if st.Size() < tx.Size() {
		return &DamageError{Path: path, Kind: Truncated,
			Detail: fmt.Sprintf("the file is truncated (%d bytes, its pages need %d)", st.Size(), tx.Size())}
	}
	return checkMetaPages(path, tx.DB().Info().PageSize)
}

// checkTruncated refuses, before bbolt opens it, a file shorter than the
// pages its last commit uses, as its header pages say: of the two meta
// pages that check (magic and checksum), the one with the later
// transaction. A file whose header pages do not check is left to bbolt,
// which refuses it by itself.
func checkTruncated(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // bbolt creates it, or says why it cannot
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	first := make([]byte, 16+64)
	if _, err := f.ReadAt(first, 0); err != nil {
		return nil
	}
	pageSize := int64(binary.LittleEndian.Uint32(first[16+8:]))
	if pageSize < 1024 || pageSize > 1<<16 || st.Size() < 2*pageSize {
		return nil // bbolt refuses it as too short or not its own
	}
	var need int64
	var txid uint64
	for i := range int64(2) {
		m := make([]byte, 64)
		if _, err := f.ReadAt(m, i*pageSize+16); err != nil {
			continue
		}
		pgid, t, ok := metaOf(m)
		if !ok {
			continue
		}
		if need == 0 || t > txid {
			need, txid = int64(pgid)*pageSize, t
		}
	}
	if need > 0 && st.Size() < need {
		return &DamageError{Path: path, Kind: Truncated,
			Detail: fmt.Sprintf("the file is truncated (%d bytes, its pages need %d)", st.Size(), need)}
	}
	return nil
}

// checkMetaPages checks both of bbolt's meta pages (pages 0 and 1, written
// alternately by commits). bbolt silently falls back to the other one when
// one is damaged, which would show the archive as it was one commit
// earlier: a damaged meta page is refused instead.
func checkMetaPages(path string, pageSize int) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	defer f.Close()
	buf := make([]byte, 2*pageSize)
	if _, err := f.ReadAt(buf, 0); err != nil {
		return fmt.Errorf("archive %s: %w: its header pages cannot be read (%v); restore it from a copy", path, ErrCorrupt, err)
	}
	for i := 0; i < 2; i++ {
		if _, _, ok := metaOf(buf[i*pageSize+16 : i*pageSize+16+64]); !ok {
			return &DamageError{Path: path, Kind: HeaderDamaged,
				Detail: fmt.Sprintf("header page %d is damaged, so the file may show an earlier state", i)}
		}
	}
	return nil
}

// metaOf reads a bbolt meta (the 64 bytes after a header page's 16-byte
// page header: magic, version, page size, flags, root bucket (16),
// freelist, pgid, txid, and the FNV-1a 64 checksum of the 56 bytes before
// it): the high-water page id and the transaction, and whether its magic
// and checksum check.
func metaOf(m []byte) (pgid, txid uint64, ok bool) {
	h := fnv.New64a()
	h.Write(m[:56])
	if binary.LittleEndian.Uint32(m) != 0xED0CDAED || binary.LittleEndian.Uint64(m[56:]) != h.Sum64() {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint64(m[40:]), binary.LittleEndian.Uint64(m[48:]), true
}

// readSchema returns the archive's schema version, 0 for an empty file.
func readSchema(path string, tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		// A bbolt file with foreign buckets is somebody else's database.
		if tx.ForEach(func([]byte, *bolt.Bucket) error { return ErrNotArchive }) != nil {
			return 0, fmt.Errorf("archive %s: %w: it holds buckets but no Chronicle meta bucket", path, ErrNotArchive)
		}
		return 0, nil
	}
	v, err := strconv.Atoi(string(meta.Get(keySchema)))
	if err != nil || v < 1 {
		return 0, fmt.Errorf("archive %s: %w: bad schema_version %q", path, ErrNotArchive, meta.Get(keySchema))
	}
	if v > SchemaVersion {
		return 0, fmt.Errorf("archive %s: %w (schema %d, this build reads up to %d); upgrade Chronicle",
			path, ErrNewerSchema, v, SchemaVersion)
	}
	return v, nil
}

// initSchema creates a new archive's buckets, or upgrades an older schema in
// one write transaction, then finishes a rebuild of the indexes that an
// upgrade started or an interrupted reindex left (finishReindex). A
// read-only open that finds either to do closes, does it with a brief write
// open and leaves a.bolt nil so that Open reopens read-only.
func (a *Archive) initSchema(opts Options) error {
	var version int
	pending := false
	if err := a.bolt.View(func(tx *bolt.Tx) error {
		if err := checkFileSize(a.path, tx); err != nil {
			return err
		}
		var err error
		version, err = readSchema(a.path, tx)
		pending = err == nil && version > 0 && reindexPending(tx)
		return err
	}); err != nil {
		return err
	}
	if version == SchemaVersion && !pending {
		return nil
	}
	if opts.ReadOnly {
		if version == 0 {
			return fmt.Errorf("archive %s: %w: the file is empty", a.path, ErrNotArchive)
		}
		a.bolt.Close()
		a.bolt = nil
		w, err := Open(a.path, Options{Timeout: opts.Timeout, WaitOption: opts.WaitOption})
		if err != nil {
			return needsUpgrade(a.path, version, err)
		}
		return w.Close()
	}
	if version != SchemaVersion {
		if err := a.upgrade(version); err != nil {
			return err
		}
	}
	// Documents that cannot be read stay out of the indexes; check reports
	// them.
	_, _, err := a.finishReindex()
	return err
}

// needsUpgrade explains a read-only open that could not upgrade the archive
// (schema version) because the write open failed with err: on read-only
// media or without write permission it says so and what to do, rather than
// the write open's own message, which is about writes.
func needsUpgrade(path string, version int, err error) error {
	var pe *os.PathError
	if !errors.As(err, &pe) || !errors.Is(pe.Err, syscall.EROFS) && !errors.Is(pe.Err, os.ErrPermission) {
		return err
	}
	what := fmt.Sprintf("it was written with schema %d, and this Chronicle reads schema %d after a one-time upgrade", version, SchemaVersion)
	if version == SchemaVersion {
		what = "a rebuild of its indexes was interrupted, and it is read once the rebuild is finished"
	}
	return fmt.Errorf("archive %s: %w (%v): %s; run `chronicle migrate` on it where it can be written, or on a copy", path, ErrNeedsUpgrade, pe.Err, what)
}

// upgrade runs the registered steps from version up, in one transaction.
func (a *Archive) upgrade(version int) error {
	return a.updateWhole(func(tx *bolt.Tx) error {
		// Re-read inside the write transaction: another process may have
		// upgraded meanwhile.
		v, err := readSchema(a.path, tx)
		if err != nil {
			return err
		}
		if v == 0 {
			for _, name := range schemaBuckets {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			if err := index.CreateBuckets(tx); err != nil {
				return err
			}
			if _, err := createLog(tx); err != nil {
				return err
			}
			if err := tx.Bucket(bucketMeta).Put(keyTotals, (&Totals{}).encode()); err != nil {
				return err
			}
			return tx.Bucket(bucketMeta).Put(keySchema, []byte(strconv.Itoa(SchemaVersion)))
		}
		for ; v < SchemaVersion; v++ {
			step := Upgrades[v-1]
			if err := step.Apply(a, tx); err != nil {
				return fmt.Errorf("archive %s: upgrading schema %d to %d (%s): %w", a.path, v, v+1, step.Summary, err)
			}
		}
		a.UpgradedFrom = version
		return tx.Bucket(bucketMeta).Put(keySchema, []byte(strconv.Itoa(SchemaVersion)))
	})
}

// Schema returns the archive's schema version.
func (a *Archive) Schema() (int, error) {
	var v int
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		v, err = readSchema(a.path, tx)
		return err
	})
	return v, err
}
