package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Packed super-groups (schema 19). The group postings are keyed group
// first, so a term read across the archive touches each group's own
// pages: at 100,000 documents a common term's few grams were thousands of
// B+tree seeks and as many first touches of pages in a fresh process, and
// those were most of a find's time. Once a super-group of 4,096 documents
// is wholly folded (the folded mark has passed it), its postings never
// change again, so they are moved, in the same transaction, into one value
// per block key in bucketPacks:
//
//	key    super (u32 BE) ‖ kind ‖ prefix
//	value  link      kind ‖ prefix of the super-group's next pack key, or 0
//	       groups    u64 LE: the groups of the super-group whose postings
//	                 have this block
//	       sizes     uvarint per set bit of groups, ascending: the bytes
//	                 of that group's block
//	       seal      u64 LE, as a block's, over key ‖ the bytes above
//	       blocks    each group's block value, byte for byte as the group
//	                 postings held it (its own seal bound to its own key)
//
// with a start pack (super ‖ 0, no sizes and no blocks, groups = the
// groups packed) first, so that a pack is proved absent by the chain as a
// block is. A query reads one value per block per super-group, its
// groups' blocks side by side on consecutive pages, and checks only the
// blocks it uses: the header's seal proves a group's block absent, the
// block's own seal (unchanged since its fold, so packing cannot alter a
// posting unnoticed) proves its entries.
//
// The packed mark (keyPacked, sealed) says how many super-groups, from the
// first, are packed; it never passes the folded mark. Each packed group
// keeps its start entry in the group postings, alone, with the link
// packedLink: a reader that took a packed group for an unpacked one (a
// lost mark) finds that link where the chain should prove a block absent,
// and fails rather than drop a document.
//
// Packing reads and rewrites one super-group's postings once (about 15 MB
// at 2 KiB a document), so a fold packs at most one super-group, and an
// archive whose packing is behind (an upgrade) is packed one super-group
// per transaction when it is opened for writing (PackNext).

var bucketPacks = []byte("grampacks")

// keyPacked is the key of the packed mark: after every pack key.
var keyPacked = []byte{0xFF, 0xFF, 0xFF, 0xFF}

// packedLink is the link of a packed group's start entry.
var packedLink = []byte{0xFF}

// ErrPacked: a repair asked to change a posting of a packed super-group,
// whose postings never change (reindex rebuilds them).
var ErrPacked = fmt.Errorf("index: the posting is in a packed super-group")

// readPacked returns the packed mark of the packs bucket b (nil: none).
func readPacked(b *bolt.Bucket) (uint32, error) {
	if b == nil {
		return 0, nil
	}
	v := b.Get(keyPacked)
	if v == nil {
		return 0, nil
	}
	if len(v) != 8+sealLen || binary.LittleEndian.Uint64(v[8:]) != sealOf(keyPacked, v[:8]) || binary.BigEndian.Uint64(v) > 1<<26 {
		return 0, fmt.Errorf("%w: the term index's packed mark does not match its digest (run `chronicle check`, then `chronicle reindex`)", ErrDamaged)
	}
	return uint32(binary.BigEndian.Uint64(v)), nil
}

func packedValue(n uint32) []byte {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+sealLen), uint64(n))
	return binary.LittleEndian.AppendUint64(v, sealOf(keyPacked, v))
}

// Packed returns the number of packed super-groups of the term index.
func Packed(tx *bolt.Tx) (uint32, error) { return readPacked(tx.Bucket(bucketPacks)) }

// packHeader is a checked pack header: its link, its groups, and where in
// the value each group's block lies.
type packHeader struct {
	link   []byte
	groups uint64
	offs   []uint32 // popcount(groups)+1 offsets into v
	v      []byte
}

// openPack checks the header of pack value v of key k against its seal
// and locates its blocks.
func openPack(k, v []byte) (h packHeader, ok bool) {
	if len(v) < 1 || v[0] > maxKind {
		return h, false
	}
	ln := 1 + prefixLen(v[0])
	if v[0] == kindStart {
		ln = 1
	}
	if len(v) < ln+8 {
		return h, false
	}
	h.link, h.groups = v[:ln], binary.LittleEndian.Uint64(v[ln:])
	p := ln + 8
	start := len(k) == 5 && k[4] == kindStart
	n := bits.OnesCount64(h.groups)
	var sizes []uint64
	if !start {
		if n == 0 {
			return h, false
		}
		sizes = make([]uint64, n)
		for i := range sizes {
			s, m := binary.Uvarint(v[p:])
			if m <= 0 || s > uint64(len(v)) {
				return h, false
			}
			sizes[i], p = s, p+m
		}
	}
	if len(v) < p+sealLen || binary.LittleEndian.Uint64(v[p:]) != sealOf(k, v[:p]) {
		return h, false
	}
	p += sealLen
	if start {
		return h, len(v) == p
	}
	h.offs = make([]uint32, 0, n+1)
	for _, s := range sizes {
		h.offs = append(h.offs, uint32(p))
		p += int(s)
		if p > len(v) {
			return h, false
		}
	}
	h.offs = append(h.offs, uint32(p))
	h.v = v
	return h, p == len(v)
}

// block returns the bytes of the block of group bit bit, nil when the pack
// has none.
func (h *packHeader) block(bit uint) []byte {
	if h.groups&(1<<bit) == 0 {
		return nil
	}
	i := bits.OnesCount64(h.groups & (1<<bit - 1))
	return h.v[h.offs[i]:h.offs[i+1]]
}

// packReader reads the packs of the packed super-groups, each pack's
// header checked once.
type packReader struct {
	c     *bolt.Cursor
	below uint32 // super-groups packed
	cache map[string]packHeader
}

func newPackReader(tx *bolt.Tx) (*packReader, error) {
	b := tx.Bucket(bucketPacks)
	below, err := readPacked(b)
	if err != nil || b == nil {
		return nil, err
	}
	return &packReader{c: b.Cursor(), below: below, cache: map[string]packHeader{}}, nil
}

// packed reports whether group's super-group is packed.
func (p *packReader) packed(group uint32) bool {
	return p != nil && group/GroupSize < p.below
}

// pack returns the checked header of pack key pk, found false when the
// chain proves it absent.
func (p *packReader) pack(pk []byte) (h packHeader, found bool, err error) {
	if h, ok := p.cache[string(pk)]; ok {
		return h, h.v != nil || h.link != nil, nil
	}
	super := binary.BigEndian.Uint32(pk)
	damaged := func(what string) error { return packDamaged(super, what) }
	k, v := p.c.Seek(pk)
	if k != nil && bytes.Equal(k, pk) {
		h, ok := openPack(k, v)
		if !ok {
			return h, false, damaged("has a pack that does not match its digest")
		}
		p.cache[string(pk)] = h
		return h, true, nil
	}
	var pk2, pv []byte
	if k == nil {
		pk2, pv = p.c.Last()
	} else {
		pk2, pv = p.c.Prev()
	}
	if pk2 == nil || !validBlockKey(pk2) || !bytes.Equal(pk2[:4], pk[:4]) || bytes.Compare(pk2, pk) >= 0 {
		return h, false, damaged("lacks its start pack")
	}
	prev, ok := openPack(pk2, pv)
	if !ok {
		return h, false, damaged("has a pack that does not match its digest")
	}
	want := endLink
	if k != nil && validBlockKey(k) && bytes.Equal(k[:4], pk[:4]) {
		want = k[4:]
	}
	if !bytes.Equal(prev.link, want) {
		return h, false, damaged("lacks a pack")
	}
	p.cache[string(pk)] = packHeader{}
	return packHeader{}, false, nil
}

// groupBlock returns the checked entries of group block key bk of a packed
// group (see termReader.block).
func (p *packReader) groupBlock(bk []byte) (entries []byte, found bool, err error) {
	group := binary.BigEndian.Uint32(bk)
	pk := binary.BigEndian.AppendUint32(make([]byte, 0, len(bk)), group/GroupSize)
	pk = append(pk, bk[4:]...)
	h, found, err := p.pack(pk)
	if err != nil || !found {
		return nil, false, err
	}
	v := h.block(uint(group % GroupSize))
	if v == nil {
		return nil, false, nil
	}
	_, entries, ok := openBlock(bk, v)
	if !ok {
		return nil, false, damaged(group, "has an entry that does not match its digest")
	}
	return entries, true, nil
}

// packDamaged is the error of a damaged or missing pack of super.
func packDamaged(super uint32, what string) error {
	lo := uint64(super) * SuperSize
	return fmt.Errorf("%w: the term index of documents #%d..#%d %s (run `chronicle check`, then `chronicle reindex`)",
		ErrDamaged, max(lo, 1), lo+SuperSize-1, what)
}

// PackNext packs the first super-group that is wholly folded and not packed
// yet, if there is one, and reports whether it did. Every block it moves
// is checked against its seal and every group's chain is followed, so a
// damaged or lost posting stops it (ErrDamaged) instead of being packed.
func PackNext(tx *bolt.Tx) (bool, error) {
	below, due, err := packDue(tx)
	if err != nil || !due {
		return false, err
	}
	if err := packSuper(tx, below); err != nil {
		return false, err
	}
	return true, tx.Bucket(bucketPacks).Put(keyPacked, packedValue(below+1))
}

// PackDue reports whether PackNext has a super-group to pack.
func PackDue(tx *bolt.Tx) (bool, error) {
	_, due, err := packDue(tx)
	return due, err
}

// packDue returns the packed mark and whether the super-group it names is
// wholly folded.
func packDue(tx *bolt.Tx) (below uint32, due bool, err error) {
	pb, sb := tx.Bucket(bucketPacks), tx.Bucket(bucketSupers)
	if pb == nil || sb == nil {
		return 0, false, nil // an archive of an earlier schema being upgraded
	}
	if below, err = readPacked(pb); err != nil {
		return 0, false, err
	}
	w, err := readFolded(sb)
	if err != nil {
		return 0, false, err
	}
	return below, uint64(below+1)*SuperSize <= w, nil
}

// packSuper moves the group postings of super into packs.
func packSuper(tx *bolt.Tx, super uint32) error {
	gb, pb := tx.Bucket(bucketGrams), tx.Bucket(bucketPacks)
	if gb == nil {
		return fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	type start struct {
		key []byte
		es  []entry
	}
	var (
		starts []start
		// The groups' blocks in key order (group, then kind ‖ prefix),
		// and their order by kind ‖ prefix, then group: each sorts as
		// suffix (24 bits) ‖ group bit (8) ‖ index into blocks (32).
		blocks  [][]byte // the values stay bbolt's until the commit
		order   []uint64
		prev    []byte // the current group ‖ its last link
		lo, hi  = super * GroupSize, super*GroupSize + GroupSize
		c       = gb.Cursor()
		endOK   = func() bool { return prev == nil || bytes.Equal(prev[4:], endLink) }
		started uint64
	)
	for k, v := c.Seek(binary.BigEndian.AppendUint32(nil, lo)); k != nil && len(k) >= 4 && binary.BigEndian.Uint32(k) < hi; k, v = c.Next() {
		if !validBlockKey(k) {
			return damaged(binary.BigEndian.Uint32(k), "has a key that is not a gram key")
		}
		group := binary.BigEndian.Uint32(k)
		if prev != nil && !bytes.Equal(prev[:4], k[:4]) {
			if !endOK() {
				return damaged(binary.BigEndian.Uint32(prev), "lacks an entry")
			}
			prev = nil
		}
		if k[4] == kindStart {
			if prev != nil {
				return damaged(group, "has its entries out of order")
			}
			link, es, ok := decodeBlock(k, v)
			if !ok || len(es) != 1 || es[0].last != 0 {
				return damaged(group, "has an entry that does not match its digest")
			}
			starts = append(starts, start{bytes.Clone(k), es})
			started |= 1 << (group % GroupSize)
			prev = append(bytes.Clone(k[:4]), link...)
			continue
		}
		if prev == nil {
			return damaged(group, "lacks its start entry")
		}
		if !bytes.Equal(prev[4:], k[4:]) {
			return damaged(group, "lacks an entry")
		}
		link, _, ok := openBlock(k, v)
		if !ok {
			return damaged(group, "has an entry that does not match its digest")
		}
		prev = append(prev[:4], link...)
		order = append(order, suffixCode(k)<<40|uint64(group%GroupSize)<<32|uint64(len(blocks)))
		blocks = append(blocks, v)
	}
	if !endOK() {
		return damaged(binary.BigEndian.Uint32(prev), "lacks an entry")
	}
	slices.Sort(order)

	// The packs, in key order at the end of the bucket: full pages.
	pb.FillPercent = fillAppend
	put := func(k, link []byte, groups uint64, vs []uint64) error {
		size := len(link) + 8 + sealLen + len(vs)*binary.MaxVarintLen32
		for _, o := range vs {
			size += len(blocks[uint32(o)])
		}
		v := append(make([]byte, 0, size), link...)
		v = binary.LittleEndian.AppendUint64(v, groups)
		for _, o := range vs {
			v = binary.AppendUvarint(v, uint64(len(blocks[uint32(o)])))
		}
		v = binary.LittleEndian.AppendUint64(v, sealOf(k, v))
		for _, o := range vs {
			v = append(v, blocks[uint32(o)]...)
		}
		return pb.Put(k, v)
	}
	// runs: where each suffix's blocks start in order, and the end.
	var runs []int
	for i, o := range order {
		if i == 0 || o>>40 != order[i-1]>>40 {
			runs = append(runs, i)
		}
	}
	runs = append(runs, len(order))
	keyOf := func(run int) []byte {
		return suffixKey(super, order[runs[run]]>>40)
	}
	linkAfter := func(run int) []byte {
		if run+1 < len(runs)-1 {
			return keyOf(run + 1)[4:]
		}
		return endLink
	}
	if err := put(startKey(super), linkAfter(-1), started, nil); err != nil {
		return err
	}
	for r := 0; r+1 < len(runs); r++ {
		vs := order[runs[r]:runs[r+1]]
		var groups uint64
		for _, o := range vs {
			groups |= 1 << (o >> 32 & 0xFF)
		}
		if err := put(keyOf(r), linkAfter(r), groups, vs); err != nil {
			return err
		}
	}

	// The group postings keep only their start entries, which now say
	// the group is packed. Keys are deleted last first: the fold just
	// appended the last group's keys to one node, and bbolt deletes from
	// a node by shifting the keys after it (the first key first was
	// quadratic: 1 s of a 10,000-document ingest). The cursor stays on a
	// deleted key's place, so Prev is the key before it.
	k, _ := c.Seek(binary.BigEndian.AppendUint32(nil, hi))
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	for ; k != nil && binary.BigEndian.Uint32(k) >= lo; k, _ = c.Prev() {
		if k[4] == kindStart {
			continue
		}
		if err := c.Delete(); err != nil {
			return err
		}
	}
	for _, s := range starts {
		if err := gb.Put(s.key, encodeBlock(nil, s.key, packedLink, s.es)); err != nil {
			return err
		}
	}
	return nil
}

// suffixCode is the kind ‖ prefix of block key k as a number that sorts
// as the bytes do: kind (8 bits) ‖ prefix left-aligned (16 bits).
func suffixCode(k []byte) uint64 {
	var p uint64
	for i, c := range k[5:] {
		p |= uint64(c) << (8 * (1 - i))
	}
	return uint64(k[4])<<16 | p
}

// suffixKey is the pack key of super with suffix code code.
func suffixKey(super uint32, code uint64) []byte {
	k := binary.BigEndian.AppendUint32(make([]byte, 0, 7), super)
	kind := byte(code >> 16)
	k = append(k, kind)
	for i := range prefixLen(kind) {
		k = append(k, byte(code>>(8*(1-i))))
	}
	return k
}

// walkPacks checks every pack (chains, headers, the seal of every block in
// them) and that super-groups 0..below-1, and only they, are packed, with
// the groups started names (super → the groups whose start entry says
// packed); it calls fn with each sound block (its group block key and
// entries) and returns the malformed packs and blocks and chain breaks
// (one each) plus what fn returns.
func walkPacks(tx *bolt.Tx, below uint32, started map[uint32]uint64, fn func(k []byte, es []entry) int) (int, error) {
	pb := tx.Bucket(bucketPacks)
	if pb == nil {
		return 0, nil
	}
	stray := 0
	seen := map[uint32]bool{}
	var prev []byte // the previous key's super ‖ link
	endUnit := func() {
		if prev != nil && !bytes.Equal(prev[4:], endLink) {
			stray++ // the super-group's last pack names a next one
		}
		prev = nil
	}
	err := pb.ForEach(func(k, v []byte) error {
		if bytes.Equal(k, keyPacked) {
			return nil // readPacked checks it
		}
		if !validBlockKey(k) || binary.BigEndian.Uint32(k) >= below {
			stray++
			return nil
		}
		super := binary.BigEndian.Uint32(k)
		if prev != nil && !bytes.Equal(prev[:4], k[:4]) {
			endUnit()
		}
		h, ok := openPack(k, v)
		switch {
		case prev == nil && k[4] != kindStart:
			stray++ // a super-group without its start pack
		case prev != nil && !bytes.Equal(prev[4:], k[4:]):
			stray++ // a pack the previous one does not name
		}
		if !ok {
			stray++
			prev = append(bytes.Clone(k[:4]), 0xFF) // matches no link
			return nil
		}
		prev = append(append(prev[:0:0], k[:4]...), h.link...)
		if k[4] == kindStart {
			seen[super] = true
			if h.groups != started[super] {
				stray++ // groups packed that do not say so, or the reverse
			}
			return nil
		}
		if h.groups&^started[super] != 0 {
			stray++
		}
		bk := slices.Clone(k)
		for w := h.groups; w != 0; w &= w - 1 {
			bit := uint(bits.TrailingZeros64(w))
			binary.BigEndian.PutUint32(bk, super*GroupSize+uint32(bit))
			_, es, ok := decodeBlock(bk, h.block(bit))
			if !ok || len(es) == 0 {
				stray++
				continue
			}
			stray += fn(bk, es)
		}
		return nil
	})
	endUnit()
	for s := range below {
		if !seen[s] {
			stray++ // a packed super-group without its start pack
		}
	}
	return stray, err
}

// eachPackedBlock calls fn with every block of super's packs, checked (its
// group block key and entries), in pack order.
func eachPackedBlock(tx *bolt.Tx, super uint32, fn func(bk []byte, es []entry) error) error {
	pb := tx.Bucket(bucketPacks)
	if pb == nil {
		return fmt.Errorf("index: %s bucket missing", bucketPacks)
	}
	c := pb.Cursor()
	lo := binary.BigEndian.AppendUint32(nil, super)
	for k, v := c.Seek(lo); k != nil && bytes.HasPrefix(k, lo) && len(k) > 4; k, v = c.Next() {
		h, ok := openPack(k, v)
		if !validBlockKey(k) || !ok {
			return packDamaged(super, "has a pack that does not match its digest")
		}
		if k[4] == kindStart {
			continue
		}
		bk := slices.Clone(k)
		for w := h.groups; w != 0; w &= w - 1 {
			bit := uint(bits.TrailingZeros64(w))
			binary.BigEndian.PutUint32(bk, super*GroupSize+uint32(bit))
			_, es, ok := decodeBlock(bk, h.block(bit))
			if !ok {
				return damaged(binary.BigEndian.Uint32(bk), "has an entry that does not match its digest")
			}
			if err := fn(bk, es); err != nil {
				return err
			}
		}
	}
	return nil
}
