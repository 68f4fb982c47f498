package index

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/s2"
)

// buildLinesV1 is BuildLines as it was before version 2 (commit a8a4765),
// kept to test that version 1 records are still read: the whole
// dictionary in one S2 block, global posting groups, one CRC-32C over the
// whole record. TestLinesV1Golden checks it against records written by
// that code.
func buildLinesV1(src []byte, chunkSize int) []byte {
	var t tokenTable
	checkpoints, lines := t.scan(src)
	order := t.sorted(src)
	dictLen := 0
	for _, id := range order {
		tk := &t.toks[id]
		dictLen += int(tk.end-tk.start) + 1
	}
	flat := t.linesBySortedToken(order)

	dict := make([]byte, 0, dictLen)
	body := make([]byte, 0, len(flat)+len(flat)/2)
	var groups []byte
	prevGroup := 0
	at := uint32(0)
	for k, id := range order {
		tk := &t.toks[id]
		dict = append(dict, src[tk.start:tk.end]...)
		dict = append(dict, '\n')
		if k%TokenGroup == 0 {
			groups = binary.AppendUvarint(groups, uint64(len(body)-prevGroup))
			prevGroup = len(body)
		}
		ls := flat[at : at+tk.lines]
		at += tk.lines
		n, prev := 0, uint32(0)
		for _, l := range ls {
			n += uvarintLen(uint64(l - prev))
			prev = l
		}
		body = binary.AppendUvarint(body, uint64(n))
		prev = 0
		for _, l := range ls {
			body = binary.AppendUvarint(body, uint64(l-prev))
			prev = l
		}
	}
	tokens := order
	out := make([]byte, 8, 64+32*(len(src)/chunkSize+1)+3*len(checkpoints)+len(dict)/2+len(groups)+len(body))
	copy(out, linesMagicV1)
	out = binary.AppendUvarint(out, uint64(len(src)))
	out = binary.AppendUvarint(out, uint64(chunkSize))
	out = binary.AppendUvarint(out, uint64(lines))
	out = appendLocator(out, src, chunkSize, checkpoints)
	out = binary.AppendUvarint(out, uint64(len(tokens)))
	enc := s2.Encode(nil, dict)
	out = binary.AppendUvarint(out, uint64(len(dict)))
	out = binary.AppendUvarint(out, uint64(len(enc)))
	out = append(out, enc...)
	out = append(out, groups...)
	out = binary.AppendUvarint(out, uint64(len(body)))
	out = append(out, body...)
	binary.LittleEndian.PutUint32(out[4:8], crc32.Checksum(out[8:], castagnoli))
	return out
}
