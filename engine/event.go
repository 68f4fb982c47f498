package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// Event is one extracted event with its exact evidence span (CONTRACT 3.2).
// Text fields hold the exact bytes written to the store.
type Event struct {
	ID        [32]byte // event_id (CONTRACT 2)
	SpanID    [32]byte // evidence_span_id (CONTRACT 2)
	ByteStart uint64   // absolute, half-open span offsets into the source
	ByteEnd   uint64
	LineStart uint64 // 1-based; LineEnd always equals LineStart
	LineEnd   uint64
	SpanHash  [32]byte // SHA-256 of the span bytes

	AmountPresent bool
	Amount        Rational // Zero when !AmountPresent

	Subject, Predicate, Object, Currency, Time, Modality, Polarity, Status string
}

// Fields returns the eight text fields in store order.
func (e *Event) Fields() [8]string {
	return [8]string{e.Subject, e.Predicate, e.Object, e.Currency, e.Time, e.Modality, e.Polarity, e.Status}
}

// Predicates, polarities, statuses and modalities with a meaning (CONTRACT 7.2, 9).
const (
	PredBorrowedFrom    = "BORROWED_FROM"
	PredPaidTo          = "PAID_TO"
	PredIntermediaryFor = "INTERMEDIARY_FOR"
	PredTransferTo      = "TRANSFER_TO"

	PolarityPositive = "POSITIVE"
	PolarityNegative = "NEGATIVE"

	StatusAsserted  = "ASSERTED"
	StatusConfirmed = "CONFIRMED"
	StatusPending   = "PENDING"
	StatusDenied    = "DENIED"

	ModalityAsserted  = "ASSERTED"
	ModalityUncertain = "UNCERTAIN"
	ModalityLiteral   = "LITERAL"

	NoValue = "-" // currency/time/amount placeholder
)

// MaxSpanLen is the longest evidence span an event may have (9×128+16).
const MaxSpanLen = 1168

// MaxEvents is the largest number of events one store holds.
const MaxEvents = 4096

// MaxSourceSize is the largest source document in bytes (8 MiB).
const MaxSourceSize = 8 << 20

// Sentinel errors of extraction; an *ExtractError wraps exactly one of them.
var (
	// ErrInvalidText: the source is not strict UTF-8 or contains NUL.
	ErrInvalidText = errors.New("not strict UTF-8 text")
	// ErrSourceTooLarge: the source exceeds MaxSourceSize.
	ErrSourceTooLarge = errors.New("source exceeds 8388608 bytes")
	// ErrMarker: a line starts with @chronicle but not @chronicle<TAB>.
	ErrMarker = errors.New("@chronicle marker without TAB")
	// ErrTypedRecord: an @chronicle<TAB> record breaks the typed grammar.
	ErrTypedRecord = errors.New("invalid @chronicle record")
	// ErrFieldTooLong: an event text field (typed field, Arabic piece,
	// literal token, amount digits) is 128 bytes or longer.
	ErrFieldTooLong = errors.New("event field of 128 bytes or more")
	// ErrSpanTooLong: an event span (or an Arabic-prefixed line ending in
	// ".") exceeds MaxSpanLen.
	ErrSpanTooLong = errors.New("line longer than 1168 bytes")
	// ErrArabicAmount: the number of a recognised Arabic amount is invalid.
	ErrArabicAmount = errors.New("invalid amount in Arabic sentence")
	// ErrTooManyEvents: more than MaxEvents events.
	ErrTooManyEvents = errors.New("more than 4096 events")
)

// ExtractError is why a source was rejected: the line, the absolute byte
// offset of the offending byte (or of the line start) and the rule broken.
type ExtractError struct {
	Line   int    // 1-based line number; 0 when the whole source is at fault
	Offset int    // absolute byte offset into the source
	Detail string // the rule, in words
	Err    error  // one of the sentinel errors above
}

func (e *ExtractError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("byte %d: %s", e.Offset, e.Detail)
	}
	return fmt.Sprintf("line %d (byte %d): %s", e.Line, e.Offset, e.Detail)
}

// Unwrap returns the sentinel error.
func (e *ExtractError) Unwrap() error { return e.Err }

// spanMessage builds the ID message of CONTRACT 2: prefix ‖ document digest ‖
// byte_start ‖ byte_end (u64 LE) ‖ span bytes.
func spanDigest(prefix string, doc *[32]byte, start, end uint64, span []byte) [32]byte {
	h := sha256.New()
	var buf [8 + 32 + 16]byte
	copy(buf[:8], prefix)
	copy(buf[8:40], doc[:])
	binary.LittleEndian.PutUint64(buf[40:], start)
	binary.LittleEndian.PutUint64(buf[48:], end)
	h.Write(buf[:])
	h.Write(span)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// newEvent fills the identities of an event whose span is line.
func newEvent(doc *[32]byte, line Line, f fields) Event {
	start, end := uint64(line.Start), uint64(line.End)
	return Event{
		ID:            spanDigest("event-v1", doc, start, end, line.Text),
		SpanID:        spanDigest("span-v1 ", doc, start, end, line.Text),
		ByteStart:     start,
		ByteEnd:       end,
		LineStart:     uint64(line.Number),
		LineEnd:       uint64(line.Number),
		SpanHash:      sha256.Sum256(line.Text),
		AmountPresent: f.amountPresent,
		Amount:        f.amount,
		Subject:       f.subject,
		Predicate:     f.predicate,
		Object:        f.object,
		Currency:      f.currency,
		Time:          f.time,
		Modality:      f.modality,
		Polarity:      f.polarity,
		Status:        f.status,
	}
}

// fields is what a grammar extracts from one line.
type fields struct {
	subject, predicate, object, currency, time string
	modality, polarity, status                 string
	amountPresent                              bool
	amount                                     Rational
}
