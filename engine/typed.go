package engine

import (
	"bytes"
	"errors"
)

var typedFieldNames = [9]string{"subject", "predicate", "object", "amount", "currency", "time", "modality", "polarity", "status"}

// parseTyped parses `@chronicle<TAB>` followed by nine TAB-separated fields
// (CONTRACT 7.2). Every violation is fatal for the whole source.
func parseTyped(text []byte) (fields, error) {
	rest := text[len(typedPrefix):]
	if n := bytes.Count(rest, []byte{'\t'}) + 1; n != 9 {
		return fields{}, failAt(0, ErrTypedRecord, "@chronicle record has %d fields, want 9", n)
	}
	var parts [9][]byte
	offs := [9]int{}
	at := len(typedPrefix)
	for i := range parts {
		end := bytes.IndexByte(rest, '\t')
		if end < 0 {
			end = len(rest)
		}
		parts[i], offs[i] = rest[:end], at
		if end == 0 {
			return fields{}, failAt(at, ErrTypedRecord, "@chronicle field %d (%s) is empty", i+1, typedFieldNames[i])
		}
		if end > MaxFieldLen {
			return fields{}, failAt(at, ErrFieldTooLong, "@chronicle field %d (%s) is %d bytes, the limit is %d",
				i+1, typedFieldNames[i], end, MaxFieldLen)
		}
		if end < len(rest) {
			rest = rest[end+1:]
		}
		at += end + 1
	}
	f := fields{
		subject: string(parts[0]), predicate: string(parts[1]), object: string(parts[2]),
		currency: string(parts[4]), time: string(parts[5]), modality: string(parts[6]),
		polarity: string(parts[7]), status: string(parts[8]), amount: Zero,
	}
	switch f.predicate {
	case PredBorrowedFrom, PredPaidTo, PredIntermediaryFor, PredTransferTo:
	default:
		return fields{}, failAt(offs[1], ErrTypedRecord,
			"@chronicle predicate %q is not BORROWED_FROM, PAID_TO, INTERMEDIARY_FOR or TRANSFER_TO", f.predicate)
	}
	if f.polarity != PolarityPositive && f.polarity != PolarityNegative {
		return fields{}, failAt(offs[7], ErrTypedRecord, "@chronicle polarity %q is not POSITIVE or NEGATIVE", f.polarity)
	}
	switch f.status {
	case StatusAsserted, StatusConfirmed, StatusPending, StatusDenied:
	default:
		return fields{}, failAt(offs[8], ErrTypedRecord,
			"@chronicle status %q is not ASSERTED, CONFIRMED, PENDING or DENIED", f.status)
	}
	if string(parts[3]) != NoValue {
		r, err := ParseRational(parts[3])
		if err != nil {
			return fields{}, failAt(offs[3], ErrTypedRecord, "@chronicle amount %q: %v", parts[3], rationalReason(err))
		}
		f.amount, f.amountPresent = r, true
	}
	return f, nil
}

// rationalReason words a ParseRational error for a user.
func rationalReason(err error) string {
	switch {
	case errors.Is(err, ErrRationalRange):
		return "a part exceeds 9223372036854775807"
	case errors.Is(err, ErrZeroDenominator):
		return "zero denominator"
	default:
		return "want DIGITS or DIGITS/DIGITS (ASCII digits, no sign or decimal point) or -"
	}
}
