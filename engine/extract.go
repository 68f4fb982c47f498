package engine

import (
	"bytes"
	"fmt"
)

// Profile selects the extraction grammars (CONTRACT 7.1).
type Profile int

const (
	// ProfileV2 runs typed records, Arabic sentences and literal lines; every
	// new store is written with it.
	ProfileV2 Profile = 2
	// ProfileV1 runs typed records only; it replays legacy V1 stores.
	ProfileV1 Profile = 1
)

var (
	typedPrefix  = []byte("@chronicle\t")
	markerPrefix = []byte("@chronicle")
)

// Extract validates src (size, strict UTF-8) and returns its events in
// source order using the grammars of profile. doc is SHA-256(src); it seeds
// the event identities. Any rejection is an *ExtractError.
func Extract(src []byte, doc [32]byte, profile Profile) ([]Event, error) {
	if len(src) > MaxSourceSize {
		return nil, &ExtractError{Offset: MaxSourceSize, Err: ErrSourceTooLarge,
			Detail: fmt.Sprintf("source is %d bytes, the limit is %d", len(src), MaxSourceSize)}
	}
	if off, ok := InvalidTextOffset(src); !ok {
		detail := "invalid UTF-8 sequence"
		if src[off] == 0 {
			detail = "NUL byte"
		}
		return nil, &ExtractError{Line: 1 + bytes.Count(src[:off], []byte{'\n'}), Offset: off,
			Err: ErrInvalidText, Detail: detail}
	}
	return extractLines(src, doc, profile)
}

// extractLines runs the grammars over a source already known to be within
// the size limit and strict UTF-8 (Load checks both before its replay).
func extractLines(src []byte, doc [32]byte, profile Profile) ([]Event, error) {
	var events []Event
	err := ForEachLine(src, func(line Line) error {
		if plainProse(line.Text) {
			return nil // most lines: parseLine would say prose
		}
		e, ok, err := ExtractLine(doc, line.Number, line.Start, line.Text, profile)
		if err != nil || !ok {
			return err
		}
		if len(events) >= MaxEvents {
			return &ExtractError{Line: line.Number, Offset: line.Start, Err: ErrTooManyEvents,
				Detail: fmt.Sprintf("event %d exceeds the limit of %d events", len(events)+1, MaxEvents)}
		}
		events = append(events, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return events, nil
}

// plainProse reports that no grammar of any profile can match text, nor
// fail on it: a typed record and a bad marker start with '@'; an Arabic
// sentence ends with '.', and a literal statement with '.' then blanks.
// Such a line is prose for parseLine, which this saves calling.
func plainProse(text []byte) bool {
	if len(text) > 0 && text[0] == '@' {
		return false
	}
	end := len(text)
	for end > 0 && isBlank(text[end-1]) {
		end--
	}
	return end == 0 || text[end-1] != '.'
}

// ruleError is a grammar failure inside one line: the offset is relative to
// the line start.
type ruleError struct {
	at     int
	err    error
	detail string
}

func (e *ruleError) Error() string { return e.detail }

func failAt(at int, err error, format string, args ...any) *ruleError {
	return &ruleError{at: at, err: err, detail: fmt.Sprintf(format, args...)}
}

func lineError(line Line, err error) error {
	re := err.(*ruleError)
	return &ExtractError{Line: line.Number, Offset: line.Start + re.at, Err: re.err, Detail: re.detail}
}

// parseLine dispatches one physical line (CONTRACT 7.1). It returns the event
// fields and true, false for prose, or a *ruleError that rejects the source.
func parseLine(text []byte, profile Profile) (fields, bool, error) {
	if bytes.HasPrefix(text, typedPrefix) {
		f, err := parseTyped(text)
		return f, err == nil, err
	}
	if bytes.HasPrefix(text, markerPrefix) {
		return fields{}, false, failAt(len(markerPrefix), ErrMarker,
			"line starts with @chronicle but the marker is not followed by a TAB")
	}
	if profile == ProfileV1 {
		return fields{}, false, nil
	}
	if f, ok, err := parseArabic(text); err != nil || ok {
		return f, ok, err
	}
	return parseLiteral(text)
}

// ExtractLine re-derives the event of one physical line exactly as Extract
// does for it: text is the line without LF and CR, number its 1-based line
// number and start its absolute offset. ok is false for prose. The archive
// uses it to rebuild an event from its evidence span alone.
func ExtractLine(doc [32]byte, number int, start int, text []byte, profile Profile) (e Event, ok bool, err error) {
	line := Line{Number: number, Start: start, End: start + len(text), Text: text}
	f, ok, err := parseLine(text, profile)
	if err != nil {
		return Event{}, false, lineError(line, err)
	}
	if !ok {
		return Event{}, false, nil
	}
	if len(text) > MaxSpanLen {
		return Event{}, false, &ExtractError{Line: number, Offset: start, Err: ErrSpanTooLong,
			Detail: fmt.Sprintf("event span is %d bytes, the limit is %d", len(text), MaxSpanLen)}
	}
	return newEvent(&doc, line, f), true, nil
}
