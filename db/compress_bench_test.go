package db

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// proseSample is deterministic mixed Arabic and English prose with typed
// records, the kind of text the archive stores.
func proseSample(size int) []byte {
	en := []string{"the", "loan", "was", "paid", "by", "Ahmed", "to", "Khalid", "through", "Saud", "on", "day", "receipt",
		"witness", "agreement", "amount", "transfer", "confirmed", "statement", "archive", "village", "rain", "market"}
	ar := []string{"أحمد", "خالد", "سعود", "مبلغ", "ريال", "سعودي", "في", "اليوم", "الأول", "الثاني", "أكد", "استلام",
		"المجلس", "القرية", "الحوالة", "وصول", "دفتر", "رسالة", "السوق", "المطر", "الشاهد"}
	r := rand.New(rand.NewSource(1))
	var b bytes.Buffer
	for b.Len() < size {
		switch r.Intn(10) {
		case 0:
			fmt.Fprintf(&b, "@chronicle\t%s\tPAID_TO\t%s\t%d\tSAR\tT%d\tASSERTED\tPOSITIVE\tCONFIRMED\n",
				en[r.Intn(len(en))], en[r.Intn(len(en))], r.Intn(1000), r.Intn(30))
		default:
			words := en
			if r.Intn(2) == 0 {
				words = ar
			}
			for n := 5 + r.Intn(15); n > 0; n-- {
				b.WriteString(words[r.Intn(len(words))])
				b.WriteByte(' ')
			}
			b.WriteString(".\n")
		}
	}
	return b.Bytes()[:size]
}

// BenchmarkChunkCodec compares the source codecs on 64 KiB chunks: the
// compressed ratio (size/raw) and decompression speed decide what a scan of
// the archive costs and how big the archive is.
func BenchmarkChunkCodec(b *testing.B) {
	src := proseSample(4 << 20)
	zenc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	zdec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	codecs := []struct {
		name string
		enc  func([]byte) []byte
		dec  func([]byte, []byte) ([]byte, error)
	}{
		{"zstd-default", func(p []byte) []byte { return zenc.EncodeAll(p, nil) }, func(f, dst []byte) ([]byte, error) { return zdec.DecodeAll(f, dst[:0]) }},
		{"s2-default", func(p []byte) []byte { return s2.Encode(nil, p) }, func(f, dst []byte) ([]byte, error) { return s2.Decode(dst, f) }},
		{"s2-better", func(p []byte) []byte { return s2.EncodeBetter(nil, p) }, func(f, dst []byte) ([]byte, error) { return s2.Decode(dst, f) }},
	}
	for _, c := range codecs {
		var frames [][]byte
		stored := 0
		for i := 0; i < len(src); i += ChunkSize {
			f := c.enc(src[i:min(i+ChunkSize, len(src))])
			frames = append(frames, f)
			stored += len(f)
		}
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			dst := make([]byte, ChunkSize)
			for i := 0; i < b.N; i++ {
				for _, f := range frames {
					var err error
					if dst, err = c.dec(f, dst); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(stored)/float64(len(src)), "size/raw")
		})
		b.Run(c.name+"/encode", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for i := 0; i < b.N; i++ {
				for j := 0; j < len(src); j += ChunkSize {
					c.enc(src[j:min(j+ChunkSize, len(src))])
				}
			}
		})
	}
}
