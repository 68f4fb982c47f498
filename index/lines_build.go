package index

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/klauspost/compress/s2"
)

// Building a document's line index record (the layout is in lines.go).

// BuildLines returns the line index record of src stored in chunks of
// chunkSize bytes.
func BuildLines(src []byte, chunkSize int) []byte { return buildLines(src, chunkSize, DictBlock) }

// buildLines is BuildLines cutting the dictionary at blockSize bytes
// (tests use small blocks).
// appendLocator appends the SHA-256 of every chunkSize chunk of src and
// the line checkpoints, as deltas (the same in both record versions).
func appendLocator(out, src []byte, chunkSize int, checkpoints []uint64) []byte {
	for i := 0; i < len(src); i += chunkSize {
		sum := sha256.Sum256(src[i:min(i+chunkSize, len(src))])
		out = append(out, sum[:]...)
	}
	prev := uint64(0)
	for _, c := range checkpoints {
		out = binary.AppendUvarint(out, c-prev)
		prev = c
	}
	return out
}

func buildLines(src []byte, chunkSize, blockSize int) []byte {
	var t tokenTable
	checkpoints, lines := t.scan(src)
	order := t.sorted(src)
	flat := t.linesBySortedToken(order)

	loc := appendLocator(make([]byte, 0, 32*(len(src)/chunkSize+1)+3*len(checkpoints)), src, chunkSize, checkpoints)

	dictLen := 0
	for _, id := range order {
		dictLen += int(t.toks[id].end-t.toks[id].start) + 1
	}
	body := make([]byte, 0, dictLen/2+len(flat)+len(flat)/2)
	var (
		table, filters    []byte
		raw, groups, post []byte
		enc               []byte
		grams             gramSet
		blocks            int
	)
	at := uint32(0) // the next token's lines in flat
	for k := 0; k < len(order); blocks++ {
		raw, groups, post = raw[:0], groups[:0], post[:0]
		grams.reset()
		prevGroup := 0
		e := k
		for ; e < len(order); e++ {
			tk := &t.toks[order[e]]
			tok := src[tk.start:tk.end]
			if e > k && len(raw)+len(tok)+1 > blockSize {
				break
			}
			if j := e - k; j > 0 && j%TokenGroup == 0 {
				groups = binary.AppendUvarint(groups, uint64(len(post)-prevGroup))
				prevGroup = len(post)
			}
			raw = append(append(raw, tok...), '\n')
			grams.addToken(tok)
			ls := flat[at : at+tk.lines]
			at += tk.lines
			// Four tokens in five of the Arabic corpus are on one line:
			// their posting is that line alone, flagged (2·line+1),
			// where the others give their byte length (2·length).
			if len(ls) == 1 {
				post = binary.AppendUvarint(post, 2*uint64(ls[0])+1)
				continue
			}
			n, prev := 0, uint32(0)
			for _, l := range ls {
				n += uvarintLen(uint64(l - prev))
				prev = l
			}
			post = binary.AppendUvarint(post, 2*uint64(n))
			prev = 0
			for _, l := range ls {
				post = binary.AppendUvarint(post, uint64(l-prev))
				prev = l
			}
		}
		if n := s2.MaxEncodedLen(len(raw)); cap(enc) < n {
			enc = make([]byte, n)
		}
		// The better mode: the blocks are written once and decoded by
		// every query that needs them, at the same speed as the default
		// mode's.
		enc = s2.EncodeBetter(enc[:cap(enc)], raw)
		start := len(body)
		body = append(append(append(body, enc...), groups...), post...)
		nf := len(filters)
		filters = grams.filter(filters, filterBitsPerGram, filterProbes)
		table = binary.AppendUvarint(table, uint64(e-k))
		table = binary.AppendUvarint(table, uint64(len(raw)))
		table = binary.AppendUvarint(table, uint64(len(enc)))
		table = binary.AppendUvarint(table, uint64(len(groups)+len(post)))
		table = binary.AppendUvarint(table, uint64(len(filters)-nf))
		table = binary.LittleEndian.AppendUint32(table, crc32.Checksum(body[start:], castagnoli))
		k = e
	}

	header := make([]byte, 0, 32+len(table)+len(filters))
	header = binary.AppendUvarint(header, uint64(len(src)))
	header = binary.AppendUvarint(header, uint64(chunkSize))
	header = binary.AppendUvarint(header, uint64(lines))
	header = binary.AppendUvarint(header, uint64(len(order)))
	header = binary.AppendUvarint(header, uint64(blocks))
	header = binary.AppendUvarint(header, filterProbes)
	header = binary.AppendUvarint(header, uint64(len(loc)))
	header = binary.LittleEndian.AppendUint32(header, crc32.Checksum(loc, castagnoli))
	header = append(append(header, table...), filters...)

	out := make([]byte, 8, 8+binary.MaxVarintLen64+len(header)+len(loc)+len(body))
	copy(out, linesMagic)
	out = binary.AppendUvarint(out, uint64(len(header)))
	out = append(out, header...)
	binary.LittleEndian.PutUint32(out[4:8], crc32.Checksum(out[8:], castagnoli))
	return append(append(out, loc...), body...)
}

// linesBySortedToken returns every token's lines, token after token in
// dictionary order, by a counting sort of the occurrences (which arrive in
// line order).
func (t *tokenTable) linesBySortedToken(order []uint32) []uint32 {
	next := make([]uint32, len(t.toks))
	at := uint32(0)
	for _, id := range order {
		next[id] = at
		at += t.toks[id].lines
	}
	flat := make([]uint32, len(t.occID))
	for i, id := range t.occID {
		flat[next[id]] = t.occLine[i]
		next[id]++
	}
	return flat
}

// tokenTable collects the distinct tokens of a source with an
// open-addressing hash table over their first occurrences (no allocation
// per token), and every (token, line) pair once.
type tokenTable struct {
	toks    []tokenInfo
	slots   []tokenSlot
	mask    uint64
	seed    maphash.Seed
	mix     [2]uint64 // the seed of short tokens' hash (hash)
	occID   []uint32  // per distinct (token, line) pair, in line order
	occLine []uint32
}

type tokenInfo struct {
	start, end uint32 // the first occurrence in the source
	last       uint32 // the last line counted
	lines      uint32 // how many lines hold the token
	prefix     uint64 // tokenPrefix, also the sort key of sorted
}

// tokenSlot is a slot of the token hash table: a token id and its
// tokenMeta, so that probing past other tokens reads neither the token
// table nor the source. A lookup that finds its token then reads the
// token's tokenInfo (as the scan does anyway to count its line), whose
// prefix decides a token of at most eight bytes without the source (its
// first occurrence may be far behind); only longer ones compare the bytes
// past the eighth.
type tokenSlot struct {
	meta uint32
	id   uint32 // token id + 1; 0 marks an empty slot
}

// tokenMeta packs a token's hash (its low 28 bits, enough for any table:
// a source of MaxSourceSize bytes has fewer than 1<<23 tokens) above its
// length class: the length up to 8, or 9 for longer tokens.
func tokenMeta(h uint64, n int) uint32 { return uint32(h)<<4 | uint32(min(n, 9)) }

// metaHash is the hash bits of a tokenMeta.
func metaHash(m uint32) uint64 { return uint64(m >> 4) }

// scan tokenizes src line by line; it returns the start offsets of every
// LineCheckpoint-th line and the number of lines.
func (t *tokenTable) scan(src []byte) (checkpoints []uint64, lines uint32) {
	t.seed = maphash.MakeSeed()
	// Random, as maphash's seed, so that no source can be made to collide
	// (ids, and so the record, do not depend on the hash).
	t.mix = [2]uint64{rand.Uint64(), rand.Uint64() | 1}
	t.slots = make([]tokenSlot, 1024)
	t.mask = uint64(len(t.slots) - 1)
	// About one distinct (token, line) pair per 8 bytes of real text, but
	// never more than 64 Ki ahead: a document of few distinct words (the
	// CONTRACT 14 corpus) would otherwise hold megabytes it never writes, and
	// the collector sizes the heap by them.
	occ := min(len(src)/8, 1<<16)
	t.occID = make([]uint32, 0, occ)
	t.occLine = make([]uint32, 0, occ)
	prevStart, prevEnd, prevID := 0, 0, uint32(0) // the last token seen
	for start := 0; start < len(src); {
		lines++
		if (lines-1)%LineCheckpoint == 0 {
			checkpoints = append(checkpoints, uint64(start))
		}
		end := len(src)
		if i := bytes.IndexByte(src[start:], '\n'); i >= 0 {
			end = start + i
		}
		for i := start; i < end; {
			for i < end && find.IsSeparator(src[i]) {
				i++
			}
			j := i
			for j < end && !find.IsSeparator(src[j]) {
				j++
			}
			if j == i {
				break
			}
			var id uint32
			// Repeated words ("word word word") skip the hash.
			if j-i == prevEnd-prevStart && prevEnd > prevStart && bytes.Equal(src[i:j], src[prevStart:prevEnd]) {
				id = prevID
			} else {
				id = t.intern(src, i, j)
			}
			prevStart, prevEnd, prevID = i, j, id
			if tk := &t.toks[id]; tk.last != lines {
				tk.last = lines
				tk.lines++
				t.occID = append(t.occID, id)
				t.occLine = append(t.occLine, lines)
			}
			i = j
		}
		start = end + 1
	}
	return checkpoints, lines
}

// intern returns the id of token src[i:j], adding it if new.
func (t *tokenTable) intern(src []byte, i, j int) uint32 {
	tok := src[i:j]
	prefix := prefixAt(src, i, j)
	meta := tokenMeta(t.hash(tok, prefix), len(tok))
	for h := metaHash(meta) & t.mask; ; h = (h + 1) & t.mask {
		s := &t.slots[h]
		if s.id == 0 {
			id := uint32(len(t.toks))
			t.toks = append(t.toks, tokenInfo{start: uint32(i), end: uint32(j)})
			t.toks[id].prefix = prefix
			*s = tokenSlot{meta: meta, id: id + 1}
			if len(t.toks)*2 > len(t.slots) {
				t.grow()
			}
			return id
		}
		if s.meta != meta {
			continue
		}
		tk := &t.toks[s.id-1]
		if tk.prefix != prefix {
			continue
		}
		if len(tok) <= 8 {
			return s.id - 1 // the same length and bytes
		}
		if int(tk.end-tk.start) == len(tok) && bytes.Equal(src[tk.start+8:tk.end], tok[8:]) {
			return s.id - 1
		}
	}
}

// grow doubles the slots, placing each by the hash bits it holds.
func (t *tokenTable) grow() {
	old := t.slots
	t.slots = make([]tokenSlot, 2*len(old))
	t.mask = uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		h := metaHash(s.meta) & t.mask
		for t.slots[h].id != 0 {
			h = (h + 1) & t.mask
		}
		t.slots[h] = s
	}
}

// sorted returns the token ids in byte order of the tokens: by a radix
// sort of their first eight bytes (kept in the token table), then each run
// of tokens sharing them by their bytes in src. A comparison sort of the
// ids read two tokens of the source per comparison; most runs are single
// tokens in English, and short ones in Arabic (four letters).
func (t *tokenTable) sorted(src []byte) []uint32 {
	keys := make([]prefixKey, len(t.toks))
	for id, tk := range t.toks {
		keys[id] = prefixKey{tk.prefix, uint32(id)}
	}
	keys = sortPrefixes(keys)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].prefix == keys[i].prefix {
			j++
		}
		if j-i > 1 {
			// The tokens agree on their first eight bytes, or some are
			// shorter and padded with zero bytes others hold.
			slices.SortFunc(keys[i:j], func(x, y prefixKey) int {
				a, b := &t.toks[x.id], &t.toks[y.id]
				from := uint32(0)
				if a.end-a.start >= 8 && b.end-b.start >= 8 {
					from = 8 // equal first eight bytes
				}
				return bytes.Compare(src[a.start+from:a.end], src[b.start+from:b.end])
			})
		}
		i = j
	}
	order := make([]uint32, len(keys))
	for i, k := range keys {
		order[i] = k.id
	}
	return order
}

// sortPrefixes sorts keys by prefix (ties in any order), by an LSD radix
// sort of its bytes that skips the bytes every key shares; a few keys, or
// keys already in order, are sorted by comparison. It returns the sorted slice (keys or a copy).
func sortPrefixes(keys []prefixKey) []prefixKey {
	byPrefix := func(x, y prefixKey) int { return cmp.Compare(x.prefix, y.prefix) }
	if len(keys) < 256 {
		slices.SortFunc(keys, byPrefix)
		return keys
	}
	if slices.IsSortedFunc(keys, byPrefix) {
		return keys // a word list: tokens first seen in order
	}
	var tmp []prefixKey
	for shift := uint(0); shift < 64; shift += 8 {
		var count [256]int
		for _, k := range keys {
			count[byte(k.prefix>>shift)]++
		}
		if count[byte(keys[0].prefix>>shift)] == len(keys) {
			continue // one value: the pass would keep the order
		}
		at := 0
		for i, c := range count {
			count[i] = at
			at += c
		}
		if tmp == nil {
			tmp = make([]prefixKey, len(keys))
		}
		for _, k := range keys {
			b := byte(k.prefix >> shift)
			tmp[count[b]] = k
			count[b]++
		}
		keys, tmp = tmp, keys
	}
	return keys
}

// hash hashes tok, whose tokenPrefix is prefix. A token of at most eight
// bytes is its prefix, hashed by one seeded multiplication (the token's
// length is in tokenMeta beside the hash); longer ones by maphash.
func (t *tokenTable) hash(tok []byte, prefix uint64) uint64 {
	if len(tok) > 8 {
		return maphash.Bytes(t.seed, tok)
	}
	hi, lo := bits.Mul64(prefix^t.mix[0], t.mix[1])
	return hi ^ lo
}

// prefixAt is tokenPrefix(src[i:j]), read as one word where src has eight
// bytes from i.
func prefixAt(src []byte, i, j int) uint64 {
	if i+8 > len(src) {
		return tokenPrefix(src[i:j])
	}
	w := binary.BigEndian.Uint64(src[i:])
	if n := j - i; n < 8 {
		w &= ^uint64(0) << (64 - 8*n) // the token's n bytes, zeros after
	}
	return w
}

// prefixKey is a token id with its tokenPrefix.
type prefixKey struct {
	prefix uint64
	id     uint32
}

// tokenPrefix is tok's first eight bytes, big-endian, zero-padded: two
// tokens' prefixes are in the order of the tokens when they differ.
func tokenPrefix(tok []byte) uint64 {
	if len(tok) >= 8 {
		return binary.BigEndian.Uint64(tok)
	}
	var b [8]byte
	copy(b[:], tok)
	return binary.BigEndian.Uint64(b[:])
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
