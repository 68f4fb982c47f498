package db

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// The zstd codecs of an archive (event tables, and chunks written before
// schema 6) are made on first use: set up at open, they added to the time
// of every open, and find, the commonest command, reads neither.

// errCodecsClosed: a read after Close.
var errCodecsClosed = errors.New("zstd decoder: the archive is closed")

// lazyEncoder is the event tables' zstd encoder.
type lazyEncoder struct {
	once sync.Once
	enc  *zstd.Encoder
}

// EncodeAll compresses src, appended to dst.
func (l *lazyEncoder) EncodeAll(src, dst []byte) []byte {
	l.once.Do(func() {
		// Event tables are small (4,096 events at most): the fastest level
		// with a 256 KiB window and lazily sized buffers compresses them
		// within a few percent of the default and needs about a megabyte
		// less.
		var err error
		l.enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(1<<18))
		if err != nil { // the options are constants: only a broken build gets here
			panic(fmt.Sprintf("zstd encoder: %v", err))
		}
	})
	return l.enc.EncodeAll(src, dst)
}

func (l *lazyEncoder) close() {
	l.once.Do(func() {}) // no encoder is made after close
	if l.enc != nil {
		l.enc.Close()
	}
}

// lazyDecoder is the zstd decoder of event tables and old chunks.
type lazyDecoder struct {
	once sync.Once
	dec  *zstd.Decoder
	err  error
}

// DecodeAll decompresses the frames of src, appended to dst.
func (l *lazyDecoder) DecodeAll(src, dst []byte) ([]byte, error) {
	l.once.Do(func() {
		l.dec, l.err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)))
		if l.err != nil {
			l.err = fmt.Errorf("zstd decoder: %w", l.err)
		}
	})
	if l.err != nil {
		return dst, l.err
	}
	return l.dec.DecodeAll(src, dst)
}

func (l *lazyDecoder) close() {
	l.once.Do(func() { l.err = errCodecsClosed })
	if l.dec != nil {
		l.dec.Close()
	}
}
