package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// g0Hex is the complete store of CONTRACT 3.2 (`Alice owns Book.\n`, imported_at
// 1750000000), transcribed from the hexdump.
const g0Hex = "" +
	"4341535045522d4348524f4e2d563200" + // magic
	"36c5ab5b586ba2213e5229e7c4d27878248491b83f25588454be93a11c7e3dd3" + // document
	"1100000000000000" + "80e14e6800000000" + "01000000" + // size, imported_at, count
	"416c696365206f776e7320426f6f6b2e0a" + // source
	"9a72befefa66ab0f822b0766d750f32ebe1f2bca71cd4d91ad126beddd47a926" + // event_id
	"2b7c2f72294ff36e9930a019b70f5242d9661db08280b053c59d39774239cdcd" + // span_id
	"0000000000000000" + "1000000000000000" + "0100000000000000" + "0100000000000000" +
	"c5c1ddaf6bbc3fae666cc9b53978906bf2f40b1ee39570942638120629ac769f" + // span hash
	"00" + "0000000000000000" + "0100000000000000" + // amount
	"05000000416c696365" + "040000006f776e73" + "04000000426f6f6b" + "010000002d" + "010000002d" +
	"070000004c49544552414c" + "08000000504f534954495645" + "080000004153534552544544"

func TestStoreEncodeSpecHexdump(t *testing.T) {
	want, err := hex.DecodeString(g0Hex)
	require.NoError(t, err)
	require.Len(t, want, 300)
	sum := sha256.Sum256(want)
	require.Equal(t, "86880520cbb14a42de6304f6a7b99e03eacca0ba075f9d42a1542f792d4053bc", hex.EncodeToString(sum[:]))

	s, err := NewStore([]byte("Alice owns Book.\n"), 1750000000)
	require.NoError(t, err)
	require.Equal(t, 2, s.Version)
	require.Equal(t, ProfileV2, s.Profile())
	require.Equal(t, 300, s.EncodedSize())
	require.Equal(t, want, s.Encode())

	golden, err := os.ReadFile(filepath.Join(goldenDir, "g0_minimal_literal", "input.txt.chronicle"))
	require.NoError(t, err)
	require.Equal(t, want, golden)

	loaded, err := Load(want)
	require.NoError(t, err)
	require.Equal(t, s, loaded)
}

// storeLayout locates the parts of an encoded store (independently of the
// decoder): the event table start and each record's offset and length.
type storeLayout struct {
	tableStart int
	records    [][2]int // offset, length
}

func layoutOf(t testing.TB, data []byte) storeLayout {
	t.Helper()
	size := int(binary.LittleEndian.Uint64(data[48:]))
	count := int(binary.LittleEndian.Uint32(data[64:]))
	l := storeLayout{tableStart: HeaderSize + size}
	off := l.tableStart
	for i := 0; i < count; i++ {
		start := off
		off += 145
		for k := 0; k < 8; k++ {
			off += 4 + int(binary.LittleEndian.Uint32(data[off:]))
		}
		l.records = append(l.records, [2]int{start, off - start})
	}
	require.Equal(t, len(data), off, "layout does not cover the store")
	return l
}

// mixedSource exercises all three grammars, CRLF, empty lines and prose.
const mixedSource = "Intro prose line\r\n" +
	typedOK + "\r\n" +
	"\n" +
	"أقر أحمد بأنه اقترض من خالد مبلغ ٦/٨ ريال سعودي في اليوم الأول.\n" +
	"أكد خالد أن سعود وسيط عنه في اليوم الثاني.\n" +
	"Alice owns Book.\n" +
	"@chronicle\tAlice\tPAID_TO\tBob\t40\tSAR\tT3\tASSERTED\tNEGATIVE\tCONFIRMED\r"

func TestStoreRoundTrip(t *testing.T) {
	sources := map[string]string{
		"empty":         "",
		"only prose":    "nothing to see\n",
		"single LF":     "\n",
		"mixed":         mixedSource,
		"no trailing":   "a b c.",
		"4096 literals": strings.Repeat("a b c.\n", MaxEvents),
	}
	for _, dir := range goldenCases(t) {
		src, err := os.ReadFile(filepath.Join(dir, "input.txt"))
		require.NoError(t, err)
		sources[filepath.Base(dir)] = string(src)
	}
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			times := []uint64{0, 1750000000, math.MaxUint64}
			if len(src) > 10000 {
				times = times[:1]
			}
			for _, at := range times {
				s, err := NewStore([]byte(src), at)
				require.NoError(t, err)
				enc := s.Encode()
				require.Len(t, enc, s.EncodedSize())
				require.Equal(t, MagicV2, enc[:16])
				require.Equal(t, at, binary.LittleEndian.Uint64(enc[56:]))
				layoutOf(t, enc)
				loaded, err := Load(enc)
				require.NoError(t, err)
				require.Equal(t, s.Version, loaded.Version)
				require.Equal(t, s.Document, loaded.Document)
				require.Equal(t, at, loaded.ImportedAt)
				require.Equal(t, []byte(src), append([]byte{}, loaded.Source...))
				requireSameEvents(t, s.Events, loaded.Events)
				require.Equal(t, enc, loaded.Encode())
				checkEvents(t, []byte(src), loaded.Events)
			}
		})
	}
}

func TestNewStoreRejects(t *testing.T) {
	_, err := NewStore([]byte("ok\n@chronicle\n"), 0)
	requireExtractError(t, err, ErrMarker, 2, 13)
	_, err = NewStore([]byte("a\x00"), 0)
	requireExtractError(t, err, ErrInvalidText, 1, 1)
}

// CONTRACT 3.3: every load check, one mutation each.
func TestLoadChecks(t *testing.T) {
	base := mustStore(t, []byte(mixedSource))
	enc := base.Encode()
	lay := layoutOf(t, enc)
	require.Len(t, lay.records, 5)
	rec := lay.records[0][0] // first record (typed, amount 100/1)
	rec2 := lay.records[1][0]

	put64 := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return b }
	}
	put32 := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[off:], v); return b }
	}
	set := func(off int, v byte) func([]byte) []byte {
		return func(b []byte) []byte { b[off] = v; return b }
	}
	// reencode edits the decoded store and encodes it consistently.
	reencode := func(edit func(s *Store)) func([]byte) []byte {
		return func([]byte) []byte {
			s := mustStore(t, []byte(mixedSource))
			edit(s)
			return s.Encode()
		}
	}
	// withSource replaces the source (same length) and fixes the digest.
	withSource := func(src string, fixDigest bool) func([]byte) []byte {
		return func(b []byte) []byte {
			require.Equal(t, len(mixedSource), len(src))
			copy(b[HeaderSize:], src)
			if fixDigest {
				d := sha256.Sum256([]byte(src))
				copy(b[16:48], d[:])
			}
			return b
		}
	}
	textField := rec + 145 // length of the subject of event 1
	tests := []struct {
		name   string
		mutate func([]byte) []byte
		err    error
		offset int // -1: not checked
	}{
		{"empty file", func([]byte) []byte { return nil }, ErrNotStore, 0},
		{"15 bytes", func(b []byte) []byte { return b[:15] }, ErrNotStore, 0},
		{"magic V3", set(14, '3'), ErrNotStore, 0},
		{"magic without NUL", set(15, ' '), ErrNotStore, 0},
		{"lower-case magic", set(0, 'c'), ErrNotStore, 0},
		{"magic only", func(b []byte) []byte { return b[:16] }, ErrMalformed, 16},
		{"header truncated at 67", func(b []byte) []byte { return b[:67] }, ErrMalformed, 16},
		{"event_count 4097", put32(64, 4097), ErrMalformed, 64},
		{"event_count max", put32(64, math.MaxUint32), ErrMalformed, 64},
		{"source_size 8388609", put64(48, MaxSourceSize+1), ErrMalformed, 48},
		{"source_size 2^64-1", put64(48, math.MaxUint64), ErrMalformed, 48},
		{"source_size beyond the file", put64(48, uint64(len(enc))), ErrMalformed, 48},
		{"event_count beyond (R-size)/177", put32(64, uint32((len(enc)-lay.tableStart)/177+1)), ErrMalformed, 48},
		{"event_count one more than present", put32(64, 6), ErrMalformed, -1},
		{"event_count one less", put32(64, 4), ErrMalformed, -1},
		{"amount_present 2", set(rec+128, 2), ErrMalformed, rec + 128},
		{"amount_present 0xff", set(rec+128, 0xff), ErrMalformed, rec + 128},
		{"denominator 0", put64(rec+137, 0), ErrMalformed, rec + 137},
		{"numerator 2^63", put64(rec+129, 1<<63), ErrMalformed, rec + 129},
		{"denominator 2^63", put64(rec+137, 1<<63), ErrMalformed, rec + 129},
		{"byte_start > byte_end", put64(rec+64, 1000), ErrMalformed, rec + 64},
		{"byte_end > source_size", put64(rec+72, uint64(len(mixedSource)+1)), ErrMalformed, rec + 64},
		{"text length 128", put32(textField, 128), ErrMalformed, textField},
		{"text length huge", put32(textField, math.MaxUint32), ErrMalformed, textField},
		{"text length past the end", put32(lay.records[4][0]+145, 127), ErrMalformed, -1},
		{"text not UTF-8", set(textField+4, 0xff), ErrMalformed, textField + 4},
		{"text with NUL", set(textField+4, 0), ErrMalformed, textField + 4},
		{"truncated in record 2", func(b []byte) []byte { return b[:rec2+100] }, ErrMalformed, -1},
		{"trailing byte", func(b []byte) []byte { return append(b, 0) }, ErrMalformed, len(enc)},
		{"trailing record copy", func(b []byte) []byte { return append(b, b[rec:rec+lay.records[0][1]]...) }, ErrMalformed, len(enc)},
		{"source not UTF-8 (digest fixed)", withSource(strings.Replace(mixedSource, "Intro", "Intr\xff", 1), true), ErrMalformed, HeaderSize + 4},
		{"source with NUL (digest fixed)", withSource(strings.Replace(mixedSource, "Intro", "\x00ntro", 1), true), ErrMalformed, HeaderSize},
		{"source changed", withSource(strings.Replace(mixedSource, "Intro", "intro", 1), false), ErrDigest, 16},
		{"digest changed", set(20, enc[20]^1), ErrDigest, 16},
		{"source changed in prose, digest fixed", withSource(strings.Replace(mixedSource, "Intro", "intro", 1), true), ErrReplay, -1},
		{"source changed in an event, digest fixed", withSource(strings.Replace(mixedSource, "owns", "OWNS", 1), true), ErrReplay, -1},
		{"source no longer extracts (digest fixed)", withSource(strings.Replace(mixedSource, "Intro prose line", "@chronicle prose", 1), true), ErrReplay, HeaderSize},
		{"empty text field (loader accepts length 0)", reencode(func(s *Store) { s.Events[0].Subject = "" }), ErrReplay, -1},
		{"subject changed", reencode(func(s *Store) { s.Events[0].Subject = "Alicia" }), ErrReplay, -1},
		{"status changed", reencode(func(s *Store) { s.Events[4].Status = StatusPending }), ErrReplay, -1},
		{"amount changed", reencode(func(s *Store) { s.Events[0].Amount = Rational{Num: 101, Den: 1} }), ErrReplay, -1},
		{"amount unreduced", reencode(func(s *Store) { s.Events[1].Amount = Rational{Num: 6, Den: 8} }), ErrReplay, -1},
		{"absent amount stored as 0/2", reencode(func(s *Store) { s.Events[2].Amount = Rational{Num: 0, Den: 2} }), ErrReplay, -1},
		{"amount_present cleared", reencode(func(s *Store) { s.Events[0].AmountPresent = false }), ErrReplay, -1},
		{"line_end differs from line_start", reencode(func(s *Store) { s.Events[0].LineEnd++ }), ErrReplay, -1},
		{"events swapped", reencode(func(s *Store) { s.Events[0], s.Events[1] = s.Events[1], s.Events[0] }), ErrReplay, -1},
		{"event dropped", reencode(func(s *Store) { s.Events = s.Events[:4] }), ErrReplay, 64},
		{"event duplicated", reencode(func(s *Store) { s.Events = append(s.Events, s.Events[4]) }), ErrReplay, 64},
		{"V1 magic on a V2 table", reencode(func(s *Store) { s.Version = 1 }), ErrReplay, 64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.mutate(append([]byte{}, enc...))
			s, err := Load(data)
			require.Nil(t, s)
			require.ErrorIs(t, err, tc.err)
			var se *StoreError
			require.ErrorAs(t, err, &se)
			if tc.offset >= 0 {
				require.Equal(t, tc.offset, se.Offset, "%v", err)
			}
			require.Contains(t, err.Error(), tc.err.Error())
			require.Contains(t, err.Error(), "at byte ")
		})
	}
}

// CONTRACT 3.3 point 2: source_size above 8 MiB is malformed even when the
// bytes are present and the digest matches; exactly 8 MiB loads.
func TestLoadSourceSizeLimit(t *testing.T) {
	for _, n := range []int{MaxSourceSize, MaxSourceSize + 1} {
		src := proseOfSize(n)
		doc := sha256.Sum256(src)
		data := (&Store{Version: 2, Document: doc, ImportedAt: 3, Source: src}).Encode()
		s, err := Load(data)
		if n == MaxSourceSize {
			require.NoError(t, err)
			require.Empty(t, s.Events)
			continue
		}
		require.ErrorIs(t, err, ErrMalformed)
		var se *StoreError
		require.ErrorAs(t, err, &se)
		require.Equal(t, 48, se.Offset)
	}
}

// CONTRACT 3.3: imported_at is never checked.
func TestLoadIgnoresImportedAt(t *testing.T) {
	enc := mustStore(t, []byte(mixedSource)).Encode()
	for _, v := range []uint64{0, 1, 1750000000, 1 << 63, math.MaxUint64} {
		data := append([]byte{}, enc...)
		binary.LittleEndian.PutUint64(data[56:], v)
		s, err := Load(data)
		require.NoError(t, err)
		require.Equal(t, v, s.ImportedAt)
		require.Equal(t, data, s.Encode())
	}
}

// CONTRACT 13: V1 stores replay with the typed-only profile.
func TestLegacyV1Stores(t *testing.T) {
	src := []byte(mixedSource)
	doc := sha256.Sum256(src)
	v1Events, err := Extract(src, doc, ProfileV1)
	require.NoError(t, err)
	require.Len(t, v1Events, 2)
	v1 := &Store{Version: 1, Document: doc, ImportedAt: 7, Source: src, Events: v1Events}
	enc := v1.Encode()
	require.Equal(t, MagicV1, enc[:16])
	loaded, err := Load(enc)
	require.NoError(t, err)
	require.Equal(t, 1, loaded.Version)
	require.Equal(t, ProfileV1, loaded.Profile())
	require.Equal(t, v1Events, loaded.Events)
	require.Equal(t, enc, loaded.Encode())

	// The same typed-only table under the V2 magic misses the literal and
	// Arabic events.
	v2 := *v1
	v2.Version = 2
	_, err = Load(v2.Encode())
	require.ErrorIs(t, err, ErrReplay)

	// An "unpublished V1 variant" that extracted literals is rejected.
	full := mustStore(t, src)
	full.Version = 1
	_, err = Load(full.Encode())
	require.ErrorIs(t, err, ErrReplay)

	// The golden V1 store.
	data, err := os.ReadFile(filepath.Join(goldenDir, "g9_legacy_v1_store", "input.txt.chronicle"))
	require.NoError(t, err)
	g9, err := Load(data)
	require.NoError(t, err)
	require.Equal(t, 1, g9.Version)
	require.Len(t, g9.Events, 2)
	require.Equal(t, "9149b99beb1d7bdaf4b191f1dd826ef01940425e494315b20357fc7f6a8b7a08", hex.EncodeToString(g9.Document[:]))
	require.Equal(t, "f3d5a6de6ec7518fd14bca1c543a35530033993fb269cf63af01da5375193b78", hex.EncodeToString(g9.Events[0].ID[:]))
	require.Equal(t, "4dde87edf0b053c351d3471765026dabe874d4dfbb8860cbe8e991387d6d2ae2", hex.EncodeToString(g9.Events[1].ID[:]))
}

// goldenStores returns every golden store (the V2 ones and the V1 one in g9).
func goldenStores(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, dir := range goldenCases(t) {
		data, err := os.ReadFile(filepath.Join(dir, "input.txt.chronicle"))
		require.NoError(t, err)
		out[filepath.Base(dir)] = data
	}
	require.Len(t, out, 10)
	return out
}

func requireRejected(t *testing.T, data []byte, format string, args ...any) {
	t.Helper()
	s, err := Load(data)
	if err == nil {
		t.Fatalf("tampered store loaded: "+format, args...)
	}
	require.Nil(t, s)
	var se *StoreError
	if !errors.As(err, &se) {
		t.Fatalf("error %T is not *StoreError: "+format, append([]any{err}, args...)...)
	}
}

// Tampering with any golden store is detected (CONTRACT 3.3, 17.4).
func TestGoldenStoreTampering(t *testing.T) {
	for name, orig := range goldenStores(t) {
		t.Run(name, func(t *testing.T) {
			good, err := Load(orig)
			require.NoError(t, err)
			lay := layoutOf(t, orig)
			data := append([]byte{}, orig...)

			// Header: every other value of the magic, size and count bytes;
			// bit and byte flips of the digest and imported_at.
			for i := 0; i < HeaderSize; i++ {
				for v := 0; v < 256; v++ {
					exhaustive := i < 16 || (i >= 48 && i < 56) || i >= 64
					if byte(v) == orig[i] || (!exhaustive && v != int(orig[i]^0x01) && v != int(orig[i]^0x80) && v != int(orig[i]^0xff)) {
						continue
					}
					data[i] = byte(v)
					if i >= 56 && i < 64 {
						s, err := Load(data)
						require.NoError(t, err, "imported_at byte %d", i)
						requireSameEvents(t, good.Events, s.Events)
						require.Equal(t, data, s.Encode())
					} else if i == 14 && (v == '1' || v == '2') {
						// V1 <-> V2 magic: checked in TestGoldenMagicSwap.
					} else {
						requireRejected(t, data, "header byte %d = %#x", i, v)
					}
					data[i] = orig[i]
				}
			}
			// Source and event table: flip single bits and whole bytes.
			for i := HeaderSize; i < len(orig); i++ {
				for _, mask := range []byte{0x01, 0x20, 0x80, 0xff} {
					data[i] = orig[i] ^ mask
					requireRejected(t, data, "byte %d ^ %#x", i, mask)
					if i < lay.tableStart {
						_, err := Load(data)
						require.True(t, errors.Is(err, ErrDigest) || errors.Is(err, ErrMalformed), "source byte %d: %v", i, err)
					}
				}
				data[i] = orig[i]
			}
			require.Equal(t, orig, data)
			// Truncation at every offset, and any appended byte.
			for n := 0; n < len(orig); n++ {
				requireRejected(t, orig[:n:n], "truncated to %d", n)
			}
			for _, b := range []byte{0, 1, '\n', 0xff} {
				requireRejected(t, append(append([]byte{}, orig...), b), "appended %#x", b)
			}
		})
	}
}

// Consistently re-encoded forgeries fail the canonical replay.
func TestGoldenStoreForgery(t *testing.T) {
	for name, orig := range goldenStores(t) {
		t.Run(name, func(t *testing.T) {
			good, err := Load(orig)
			require.NoError(t, err)
			fresh := func() *Store {
				s, err := Load(append([]byte{}, orig...))
				require.NoError(t, err)
				s.Source = append([]byte{}, s.Source...)
				return s
			}
			reject := func(s *Store, what string) {
				t.Helper()
				_, err := Load(s.Encode())
				require.ErrorIs(t, err, ErrReplay, what)
			}
			n := len(good.Events)
			for i := 0; i < n; i++ {
				for k := 0; k < 8; k++ {
					s := fresh()
					f := s.Events[i].Fields()
					// Same length and different length edits.
					runes := []rune(f[k])
					for _, edit := range []string{f[k] + "x", string(runes[:len(runes)-1]), strings.Repeat("Z", len(f[k])), ""} {
						if edit == f[k] {
							continue
						}
						s := fresh()
						setField(&s.Events[i], k, edit)
						reject(s, "text field edit")
					}
				}
				s := fresh()
				s.Events[i].Amount.Num++
				reject(s, "amount +1")
				if a := s.Events[i].Amount; a.Num <= math.MaxInt64/2 && a.Den <= math.MaxInt64/2 {
					s = fresh()
					s.Events[i].Amount = Rational{Num: a.Num * 2, Den: a.Den * 2}
					reject(s, "amount unreduced")
				}
				s = fresh()
				s.Events[i].AmountPresent = !s.Events[i].AmountPresent
				reject(s, "amount_present toggled")
				s = fresh()
				s.Events[i].LineStart++
				s.Events[i].LineEnd++
				reject(s, "line shifted")
				s = fresh()
				s.Events[i].ID[0] ^= 1
				reject(s, "event_id")
				s = fresh()
				s.Events[i].SpanID[31] ^= 1
				reject(s, "span_id")
				s = fresh()
				s.Events[i].SpanHash[5] ^= 1
				reject(s, "span hash")
				// A consistent identity for a shorter span.
				s = fresh()
				e := &s.Events[i]
				e.ByteEnd--
				span := s.Source[e.ByteStart:e.ByteEnd]
				e.SpanHash = sha256.Sum256(span)
				e.ID = refID("event-v1", s.Document, int(e.ByteStart), int(e.ByteEnd), span)
				e.SpanID = refID("span-v1 ", s.Document, int(e.ByteStart), int(e.ByteEnd), span)
				reject(s, "shorter span")
				// A duplicate inserted anywhere with count+1.
				for at := 0; at <= n; at++ {
					s = fresh()
					dup := s.Events[i]
					s.Events = append(s.Events[:at], append([]Event{dup}, s.Events[at:]...)...)
					reject(s, "duplicate")
				}
				// Dropping an event.
				s = fresh()
				s.Events = append(s.Events[:i], s.Events[i+1:]...)
				reject(s, "dropped")
			}
			for i := 0; i+1 < n; i++ {
				s := fresh()
				s.Events[i], s.Events[i+1] = s.Events[i+1], s.Events[i]
				reject(s, "swapped")
			}
			// An event forged for a line that is not an event.
			require.NoError(t, ForEachLine(good.Source, func(l Line) error {
				for _, e := range good.Events {
					if e.ByteStart == uint64(l.Start) {
						return nil
					}
				}
				s := fresh()
				forged := newEvent(&s.Document, l, fields{subject: "a", predicate: "b", object: "c", currency: "-", time: "-",
					modality: ModalityLiteral, polarity: PolarityPositive, status: StatusAsserted, amount: Zero})
				s.Events = append(s.Events, forged)
				reject(s, "forged event")
				return nil
			}))
			// Changing the source, even with a consistent digest, breaks every
			// event identity.
			if n > 0 {
				for i := range good.Source {
					s := fresh()
					if s.Source[i] >= 0x80 || s.Source[i] < 0x20 {
						continue
					}
					s.Source[i] ^= 0x20
					if !ValidText(s.Source) {
						continue
					}
					s.Document = sha256.Sum256(s.Source)
					_, err := Load(s.Encode())
					require.Error(t, err, "source byte %d", i)
					require.True(t, errors.Is(err, ErrReplay), "source byte %d: %v", i, err)
				}
			}
		})
	}
}

func setField(e *Event, k int, v string) {
	switch k {
	case 0:
		e.Subject = v
	case 1:
		e.Predicate = v
	case 2:
		e.Object = v
	case 3:
		e.Currency = v
	case 4:
		e.Time = v
	case 5:
		e.Modality = v
	case 6:
		e.Polarity = v
	case 7:
		e.Status = v
	}
}

// Swapping the version digit of the magic loads exactly when the other
// profile extracts the same table (only typed events): CONTRACT 3.3 point 8
// compares tables, nothing else ties a store to its magic.
func TestGoldenMagicSwap(t *testing.T) {
	for name, orig := range goldenStores(t) {
		t.Run(name, func(t *testing.T) {
			good, err := Load(orig)
			require.NoError(t, err)
			other := byte('1')
			if good.Version == 1 {
				other = '2'
			}
			data := append([]byte{}, orig...)
			data[14] = other
			otherProfile := ProfileV1
			if good.Version == 1 {
				otherProfile = ProfileV2
			}
			replayed, err := Extract(good.Source, good.Document, otherProfile)
			require.NoError(t, err)
			s, err := Load(data)
			typedOnly := true
			for _, e := range good.Events {
				typedOnly = typedOnly && bytes.HasPrefix(good.Source[e.ByteStart:], typedPrefix)
			}
			if typedOnly && len(replayed) == len(good.Events) {
				require.NoError(t, err)
				requireSameEvents(t, good.Events, s.Events)
				require.Equal(t, int(other-'0'), s.Version)
			} else {
				require.ErrorIs(t, err, ErrReplay)
			}
		})
	}
}

// requireSameEvents compares event tables, treating nil and empty alike.
func requireSameEvents(t testing.TB, want, got []Event) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i], got[i], "event %d", i+1)
	}
}

// DecodeEventTable reads the event table the archive keeps: the store bytes
// after the header and the source.
func TestEventTableParts(t *testing.T) {
	for name, orig := range goldenStores(t) {
		s, err := Load(orig)
		require.NoError(t, err, name)
		require.Equal(t, orig, s.Encode(), name)
		table := orig[HeaderSize+len(s.Source):]
		events, err := DecodeEventTable(table, len(s.Events), uint64(len(s.Source)))
		require.NoError(t, err, name)
		requireSameEvents(t, s.Events, events)
	}
	s := mustStore(t, []byte(mixedSource))
	table, n, size := s.Encode()[HeaderSize+len(mixedSource):], len(s.Events), uint64(len(mixedSource))
	for _, tc := range []struct {
		name  string
		table []byte
		count int
		size  uint64
	}{
		{"negative count", table, -1, size},
		{"count above 4096", table, MaxEvents + 1, size},
		{"count beyond table/177", table, len(table)/177 + 1, size},
		{"count one short leaves trailing bytes", table, n - 1, size},
		{"trailing byte", append(append([]byte{}, table...), 0), n, size},
		{"truncated", table[:len(table)-1], n, size},
		{"span beyond a smaller source", table, n, 10},
	} {
		_, err := DecodeEventTable(tc.table, tc.count, tc.size)
		require.ErrorIs(t, err, ErrMalformed, tc.name)
	}
}

// batchWriter records the size of every write; failAfter > 0 makes the
// write after that many bytes fail.
type batchWriter struct {
	bytes.Buffer
	sizes     []int
	failAfter int
}

var errWriteFailed = errors.New("write failed")

func (w *batchWriter) Write(p []byte) (int, error) {
	if w.failAfter > 0 && w.Len()+len(p) > w.failAfter {
		n := w.failAfter - w.Len()
		w.Buffer.Write(p[:n])
		return n, errWriteFailed
	}
	w.sizes = append(w.sizes, len(p))
	return w.Buffer.Write(p)
}

// WriteTo, SHA256 and EncodeEventTable give exactly Encode's bytes and
// their parts, writing the source once and the event table in bounded
// batches, on the golden stores and on a table of full-size records many
// batches long.
func TestStoreStreamedEncoding(t *testing.T) {
	stores := map[string]*Store{}
	for name, data := range goldenStores(t) {
		s, err := Load(data)
		require.NoError(t, err, name)
		stores[name] = s
	}
	big := &Store{Version: 2, ImportedAt: 7, Source: bytes.Repeat([]byte("x"), 3*writeBatch)}
	long := strings.Repeat("é", MaxFieldLen/2) + "!"
	for i := range 200 {
		e := Event{ByteStart: uint64(i), ByteEnd: uint64(i + 1), Amount: Rational{Num: int64(i), Den: 1}, AmountPresent: i%2 == 0}
		e.Subject, e.Predicate, e.Object, e.Currency = long, long, long, long
		e.Time, e.Modality, e.Polarity, e.Status = long, long, long, long
		big.Events = append(big.Events, e)
	}
	stores["200 full-size records"] = big
	stores["no events"] = &Store{Version: 1, Source: []byte("x\n")}
	stores["empty"] = &Store{Version: 2}
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			want := s.Encode()
			require.Len(t, want, s.EncodedSize())
			var w batchWriter
			n, err := s.WriteTo(&w)
			require.NoError(t, err)
			require.Equal(t, int64(len(want)), n)
			require.Equal(t, want, w.Bytes())
			for i, size := range w.sizes {
				if i != 1 { // the source, written from s.Source in one piece
					require.LessOrEqual(t, size, writeBatch, "write %d", i)
				}
			}
			require.Equal(t, sha256.Sum256(want), s.SHA256())
			require.Equal(t, want[HeaderSize+len(s.Source):], s.EncodeEventTable())
		})
	}
	// A failing writer stops WriteTo with its error and the count written.
	for _, at := range []int{10, HeaderSize + 5, big.EncodedSize() - 5} {
		w := batchWriter{failAfter: at}
		n, err := big.WriteTo(&w)
		require.ErrorIs(t, err, errWriteFailed, "fail after %d", at)
		require.Equal(t, int64(at), n)
	}
}
