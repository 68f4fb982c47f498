package index

// A frozen copy of the line-record building as it was before the ingest
// work of issue 13 (lines_build.go and the gramSet of lines_grams.go at
// 7b99ebe), for the differential tests and the A/B benchmarks.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"hash/maphash"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/klauspost/compress/s2"
)

// Building a document's line index record (the layout is in lines.go).

// refBuildLines is BuildLines cutting the dictionary at blockSize bytes
// (tests use small blocks).
// refAppendLocator appends the SHA-256 of every chunkSize chunk of src and
// the line checkpoints, as deltas (the same in both record versions).
func refAppendLocator(out, src []byte, chunkSize int, checkpoints []uint64) []byte {
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

func refBuildLines(src []byte, chunkSize, blockSize int) []byte {
	var t refTokenTable
	checkpoints, lines := t.scan(src)
	order := t.sorted(src)
	flat := t.linesBySortedToken(order)

	loc := refAppendLocator(make([]byte, 0, 32*(len(src)/chunkSize+1)+3*len(checkpoints)), src, chunkSize, checkpoints)

	dictLen := 0
	for _, id := range order {
		dictLen += int(t.toks[id].end-t.toks[id].start) + 1
	}
	body := make([]byte, 0, dictLen/2+len(flat)+len(flat)/2)
	var (
		table, filters    []byte
		raw, groups, post []byte
		enc               []byte
		grams             refGramSet
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
				n += refUvarintLen(uint64(l - prev))
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
func (t *refTokenTable) linesBySortedToken(order []uint32) []uint32 {
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

// refTokenTable collects the distinct tokens of a source with an
// open-addressing hash table over their first occurrences (no allocation
// per token), and every (token, line) pair once.
type refTokenTable struct {
	toks    []refTokenInfo
	slots   []uint32 // token id + 1; 0 marks an empty slot
	mask    uint64
	seed    maphash.Seed
	occID   []uint32 // per distinct (token, line) pair, in line order
	occLine []uint32
}

type refTokenInfo struct {
	start, end uint32 // the first occurrence in the source
	last       uint32 // the last line counted
	lines      uint32 // how many lines hold the token
}

// scan tokenizes src line by line; it returns the start offsets of every
// LineCheckpoint-th line and the number of lines.
func (t *refTokenTable) scan(src []byte) (checkpoints []uint64, lines uint32) {
	t.seed = maphash.MakeSeed()
	t.slots = make([]uint32, 1024)
	t.mask = uint64(len(t.slots) - 1)
	// About one distinct (token, line) pair per 8 bytes of real text, but
	// never more than 64 Ki ahead: a document of few distinct words (the
	// SPEC 14 corpus) would otherwise hold megabytes it never writes, and
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
func (t *refTokenTable) intern(src []byte, i, j int) uint32 {
	tok := src[i:j]
	for h := maphash.Bytes(t.seed, tok) & t.mask; ; h = (h + 1) & t.mask {
		s := t.slots[h]
		if s == 0 {
			id := uint32(len(t.toks))
			t.toks = append(t.toks, refTokenInfo{start: uint32(i), end: uint32(j)})
			t.slots[h] = id + 1
			if len(t.toks)*2 > len(t.slots) {
				t.grow(src)
			}
			return id
		}
		if tk := &t.toks[s-1]; int(tk.end-tk.start) == len(tok) && bytes.Equal(src[tk.start:tk.end], tok) {
			return s - 1
		}
	}
}

func (t *refTokenTable) grow(src []byte) {
	t.slots = make([]uint32, 2*len(t.slots))
	t.mask = uint64(len(t.slots) - 1)
	for id, tk := range t.toks {
		h := maphash.Bytes(t.seed, src[tk.start:tk.end]) & t.mask
		for t.slots[h] != 0 {
			h = (h + 1) & t.mask
		}
		t.slots[h] = uint32(id) + 1
	}
}

// sorted returns the token ids in byte order of the tokens.
func (t *refTokenTable) sorted(src []byte) []uint32 {
	order := make([]uint32, len(t.toks))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int {
		a, b := &t.toks[x], &t.toks[y]
		return bytes.Compare(src[a.start:a.end], src[b.start:b.end])
	})
	return order
}

func refUvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// addToken adds the hashes of every unigram and trigram of tok to s.
func (s *refGramSet) addToken(tok []byte) {
	var a, b uint32
	for i, n := 0, 0; i < len(tok); n++ {
		u, size := nextUnit(tok[i:])
		i += size
		// A block has a few dozen distinct characters among thousands:
		// those below 2048 (ASCII, Latin, Arabic) are kept in a bitmap
		// and hashed once.
		if u >= 2048 {
			s.add(gramHash(unigramKey(u)))
		} else if w, bit := u/64, uint64(1)<<(u%64); s.low[w]&bit == 0 {
			s.low[w] |= bit
			s.add(gramHash(unigramKey(u)))
		}
		if n >= 2 {
			s.add(gramHash(trigramKey(a, b, u)))
		}
		a, b = b, u
	}
}

// refGramSet is a set of gram hashes (open addressing), reused block after
// block: a block's filter is sized by its distinct grams.
type refGramSet struct {
	slots   []uint64 // 0 is an empty slot; the hash 0 is hasZero
	hasZero bool
	n       int
	low     [2048 / 64]uint64 // the unigrams below 2048 added
}

func (s *refGramSet) reset() {
	clear(s.slots)
	s.hasZero = false
	s.n = 0
	s.low = [len(s.low)]uint64{}
}

func (s *refGramSet) add(h uint64) {
	if h == 0 {
		if !s.hasZero {
			s.hasZero = true
			s.n++
		}
		return
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return
		case h:
			return
		}
	}
}

func (s *refGramSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}

// filter appends to dst a Bloom filter of the set: bitsPerGram bits per
// distinct gram (at least one byte), probes bits set per gram.
func (s *refGramSet) filter(dst []byte, bitsPerGram, probes int) []byte {
	size := max(1, (s.n*bitsPerGram+7)/8)
	start := len(dst)
	dst = append(dst, make([]byte, size)...)
	f := dst[start:]
	if s.hasZero {
		filterSet(f, probes, 0)
	}
	for _, h := range s.slots {
		if h != 0 {
			filterSet(f, probes, h)
		}
	}
	return dst
}
