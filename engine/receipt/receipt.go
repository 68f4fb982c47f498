package receipt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/engine"
)

// Kind is what a receipt attests.
type Kind string

// Receipt kinds (CONTRACT 4).
const (
	KindIngest Kind = "INGEST"
	KindQuery  Kind = "QUERY"
	KindFind   Kind = "FIND"
)

// Headers of the two receipt versions.
const (
	HeaderV1 = "CASPER-CHRONICLE-INTEGRITY-RECEIPT-V1"
	HeaderV2 = "CASPER-CHRONICLE-INTEGRITY-RECEIPT-V2"
)

// Limits of CONTRACT 4.1 and 12.
const (
	MaxLineLen     = 4127 // longest receipt line, CR included, LF excluded
	MaxKindLen     = 15
	MaxHexLen      = 4095
	MaxPathLen     = 2047 // decoded store path
	MaxQuestionLen = 2047 // question bytes a receipt can carry
)

// Receipt is one decoded receipt. Digests keep the text found in the file
// (hex, possibly upper case) because CONTRACT 4.2 compares them as lowercase
// strings: an upper-case digest is well formed but never matches.
type Receipt struct {
	Version        int
	Kind           Kind
	StorePath      string
	Question       string
	StoreSHA256    string
	DocumentSHA256 string
	ResultSHA256   string
}

// ErrQuestionTooLong: the question cannot be carried by a receipt.
var ErrQuestionTooLong = errors.New("question longer than 2047 bytes cannot be recorded in a receipt")

// New builds the receipt for a result computed on store bytes. For INGEST
// the result is the store itself. Version follows CONTRACT 4: QUERY is always
// 2, INGEST and FIND carry the store's version.
func New(kind Kind, storePath string, question string, store []byte, storeVersion int, doc [32]byte, result []byte) (*Receipt, error) {
	return NewForDigest(kind, storePath, question, sha256.Sum256(store), storeVersion, doc, result)
}

// NewForDigest is New given the SHA-256 of the store bytes instead of the
// bytes, for a store that was streamed to its file and never held whole
// (engine.Store.WriteTo and SHA256).
func NewForDigest(kind Kind, storePath string, question string, storeSum [32]byte, storeVersion int, doc [32]byte, result []byte) (*Receipt, error) {
	if len(question) > MaxQuestionLen {
		return nil, ErrQuestionTooLong
	}
	if kind == KindIngest && question != "" {
		return nil, errors.New("an INGEST receipt carries no question")
	}
	version := storeVersion
	if kind == KindQuery {
		version = 2
	}
	resultSum := storeSum
	if kind != KindIngest {
		resultSum = sha256.Sum256(result)
	}
	return &Receipt{
		Version: version, Kind: kind, StorePath: storePath, Question: question,
		StoreSHA256:    hex.EncodeToString(storeSum[:]),
		DocumentSHA256: hex.EncodeToString(doc[:]),
		ResultSHA256:   hex.EncodeToString(resultSum[:]),
	}, nil
}

// Encode renders the seven canonical lines.
func (r *Receipt) Encode() []byte {
	var b bytes.Buffer
	if r.Version == 1 {
		b.WriteString(HeaderV1)
	} else {
		b.WriteString(HeaderV2)
	}
	fmt.Fprintf(&b, "\nkind:%s\nstore_path_hex:%s\nquestion_hex:%s\nstore_sha256:%s\ndocument_sha256:%s\nresult_sha256:%s\n",
		r.Kind, hex.EncodeToString([]byte(r.StorePath)), hex.EncodeToString([]byte(r.Question)),
		r.StoreSHA256, r.DocumentSHA256, r.ResultSHA256)
	return b.Bytes()
}

// FileSuffix returns the receipt file name suffix for a query or find (CONTRACT
// 1.1): ".query-<h16>.receipt", ".query-v2-<h16>.receipt" on V1 stores, or
// ".find-<h16>.receipt". INGEST receipts are always ".receipt".
func FileSuffix(kind Kind, storeVersion int, question string) string {
	if kind == KindIngest {
		return ".receipt"
	}
	sum := sha256.Sum256([]byte(question))
	h16 := hex.EncodeToString(sum[:8])
	switch {
	case kind == KindFind:
		return ".find-" + h16 + ".receipt"
	case storeVersion == 1:
		return ".query-v2-" + h16 + ".receipt"
	default:
		return ".query-" + h16 + ".receipt"
	}
}

// ErrMalformed is wrapped by every Parse error.
var ErrMalformed = errors.New("malformed receipt")

func malformed(line int, format string, args ...any) error {
	if line > 0 {
		return fmt.Errorf("%w: line %d: %s", ErrMalformed, line, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

var receiptKeys = [...]string{"kind", "store_path_hex", "question_hex", "store_sha256", "document_sha256", "result_sha256"}

// Parse reads receipt bytes strictly (CONTRACT 4.1) and decodes the path and
// question (CONTRACT 4.2 step 1). Any error wraps ErrMalformed and names the line.
func Parse(data []byte) (*Receipt, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, malformed(0, "NUL byte at offset %d", i)
	}
	if len(data) == 0 {
		return nil, malformed(0, "empty file")
	}
	if data[len(data)-1] != '\n' {
		return nil, malformed(bytes.Count(data, []byte{'\n'})+1, "final line has no LF")
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	for i, l := range lines {
		if len(l) > MaxLineLen {
			return nil, malformed(i+1, "line is %d bytes, the limit is %d", len(l), MaxLineLen)
		}
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	r := &Receipt{}
	switch lines[0] {
	case HeaderV1:
		r.Version = 1
	case HeaderV2:
		r.Version = 2
	default:
		return nil, malformed(1, "header is not %s or %s", HeaderV2, HeaderV1)
	}
	values := map[string]string{}
	for i, l := range lines[1:] {
		n := i + 2
		key, value, ok := strings.Cut(l, ":")
		if !ok || !knownKey(key) {
			return nil, malformed(n, "unknown line %.40q", l)
		}
		if _, dup := values[key]; dup {
			return nil, malformed(n, "key %s repeated", key)
		}
		switch key {
		case "kind":
			if len(value) > MaxKindLen {
				return nil, malformed(n, "kind is %d bytes, the limit is %d", len(value), MaxKindLen)
			}
		case "store_path_hex", "question_hex":
			if len(value) > MaxHexLen {
				return nil, malformed(n, "%s is %d characters, the limit is %d", key, len(value), MaxHexLen)
			}
		default:
			if len(value) != 64 || !isHex(value) {
				return nil, malformed(n, "%s is not 64 hex digits", key)
			}
		}
		values[key] = value
	}
	for _, k := range receiptKeys {
		if _, ok := values[k]; !ok {
			return nil, malformed(0, "missing %s", k)
		}
	}
	r.Kind = Kind(values["kind"])
	switch r.Kind {
	case KindIngest, KindQuery, KindFind:
	default:
		return nil, malformed(0, "kind %q is not INGEST, QUERY or FIND", values["kind"])
	}
	if values["store_path_hex"] == "" {
		return nil, malformed(0, "store_path_hex is empty")
	}
	if r.Kind == KindIngest && values["question_hex"] != "" {
		return nil, malformed(0, "INGEST receipt with a question")
	}
	path, err := hex.DecodeString(values["store_path_hex"])
	if err != nil {
		return nil, malformed(0, "store_path_hex: %v", err)
	}
	question, err := hex.DecodeString(values["question_hex"])
	if err != nil {
		return nil, malformed(0, "question_hex: %v", err)
	}
	if len(path) < 1 || len(path) > MaxPathLen {
		return nil, malformed(0, "store path is %d bytes, want 1..%d", len(path), MaxPathLen)
	}
	if !engine.ValidText(path) {
		return nil, malformed(0, "store path is not strict UTF-8 text")
	}
	if !engine.ValidText(question) {
		return nil, malformed(0, "question is not strict UTF-8 text")
	}
	r.StorePath, r.Question = string(path), string(question)
	r.StoreSHA256 = values["store_sha256"]
	r.DocumentSHA256 = values["document_sha256"]
	r.ResultSHA256 = values["result_sha256"]
	return r, nil
}

func knownKey(k string) bool {
	for _, known := range receiptKeys {
		if k == known {
			return true
		}
	}
	return false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
