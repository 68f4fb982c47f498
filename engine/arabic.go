package engine

import (
	"bytes"
	"unicode/utf8"
)

// arabicKind is the sentence form chosen by the line prefix (CONTRACT 7.4).
type arabicKind int

const (
	kindAckBorrow       arabicKind = iota // أقر
	kindNarrativeBorrow                   // اقترض
	kindConfirm                           // أكد
	kindDeny                              // نفى
	kindTransfer                          // حوّل
)

// arabicPrefixes in match order; each includes its trailing space.
var arabicPrefixes = [...][]byte{
	kindAckBorrow:       []byte("أقر "),
	kindNarrativeBorrow: []byte("اقترض "),
	kindConfirm:         []byte("أكد "),
	kindDeny:            []byte("نفى "),
	kindTransfer:        []byte("حوّل "),
}

var (
	sepAckSubject   = []byte(" بأنه اقترض من ")
	sepNarrSubject  = []byte(" من ")
	sepAmount       = []byte(" مبلغ ")
	sepTime         = []byte(" في ")
	sepReceipt      = []byte(" استلام مبلغ ")
	sepReceiptMoney = []byte(" من ")
	sepReceiptPayer = []byte(" في ")
	sepLinkLender   = []byte(" أن ")
	sepLinkAgent    = []byte(" وسيط عنه في ")
	sepTransferTo   = []byte(" إلى ")
	transferTail    = []byte(" ولم يثبت وصول الحوالة")
	dayPrefix       = "اليوم "
)

var arabicCurrencies = map[string]string{
	"ريال سعودي":   "SAR",
	"SAR":          "SAR",
	"دولار أمريكي": "USD",
	"USD":          "USD",
}

var dayOrdinals = map[string]bool{
	"الأول": true, "الثاني": true, "الثالث": true, "الرابع": true, "الخامس": true,
	"السادس": true, "السابع": true, "الثامن": true, "التاسع": true, "العاشر": true,
}

// nameReservedWords may not appear as a word of an Arabic-sentence name.
var nameReservedWords = wordSet(
	"لم", "لن", "لا", "ليس", "ليست", "قد", "ربما", "إذا", "إن", "إذ", "سوف", "قال", "قالت",
	"أن", "أنه", "بأنه", "من", "إلى", "مبلغ", "في", "اليوم", "وسيط", "عنه", "استلام", "وصول",
	"الحوالة", "سدد", "اقترض", "نفى", "أكد", "أقر", "حوّل", "حول", "ولكن", "لكن", "حسب", "لعل",
	"يقول", "يزعم", "زعم")

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// sentenceCursor takes successive pieces of the sentence remainder.
type sentenceCursor struct {
	rest []byte
	at   int // offset of rest within the line
}

// take returns the piece before the first sep and advances past sep. ok is
// false when sep is missing or the piece is empty (no match); a piece of 128+
// bytes is fatal.
func (c *sentenceCursor) take(sep []byte) (piece []byte, at int, ok bool, err error) {
	i := bytes.Index(c.rest, sep)
	if i <= 0 {
		return nil, 0, false, nil
	}
	piece, at = c.rest[:i], c.at
	if len(piece) > MaxFieldLen {
		return nil, 0, false, failAt(at, ErrFieldTooLong, "Arabic sentence piece is %d bytes, the limit is %d", len(piece), MaxFieldLen)
	}
	c.rest, c.at = c.rest[i+len(sep):], c.at+i+len(sep)
	return piece, at, true, nil
}

// takeRest returns everything left under the same rules as take.
func (c *sentenceCursor) takeRest() (piece []byte, at int, ok bool, err error) {
	if len(c.rest) == 0 {
		return nil, 0, false, nil
	}
	if len(c.rest) > MaxFieldLen {
		return nil, 0, false, failAt(c.at, ErrFieldTooLong, "Arabic sentence piece is %d bytes, the limit is %d", len(c.rest), MaxFieldLen)
	}
	piece, at = c.rest, c.at
	c.rest = nil
	return piece, at, true, nil
}

// step chains cursor operations: after the first miss or error it does nothing.
type arabicParse struct {
	cur    sentenceCursor
	ok     bool
	err    error
	pieces [4][]byte
	at     [4]int
}

func (p *arabicParse) take(slot int, sep []byte) {
	if !p.ok || p.err != nil {
		return
	}
	if sep == nil {
		p.pieces[slot], p.at[slot], p.ok, p.err = p.cur.takeRest()
		return
	}
	p.pieces[slot], p.at[slot], p.ok, p.err = p.cur.take(sep)
}

// Piece slots of arabicParse.
const (
	slotSubject = iota
	slotObject
	slotMoney
	slotTime
)

// parseArabic matches the bounded Arabic sentence grammar (CONTRACT 7.4).
func parseArabic(text []byte) (fields, bool, error) {
	kind := -1
	for k, p := range arabicPrefixes {
		if bytes.HasPrefix(text, p) {
			kind = k
			break
		}
	}
	if kind < 0 || text[len(text)-1] != '.' {
		return fields{}, false, nil
	}
	if len(text) > MaxSpanLen {
		return fields{}, false, failAt(0, ErrSpanTooLong,
			"Arabic-prefixed line ending in '.' is %d bytes, the limit is %d", len(text), MaxSpanLen)
	}
	pre := len(arabicPrefixes[kind])
	p := arabicParse{cur: sentenceCursor{rest: text[pre : len(text)-1], at: pre}, ok: true}
	f := fields{modality: ModalityAsserted, polarity: PolarityPositive, status: StatusConfirmed, amountPresent: true}
	hasMoney := true
	switch arabicKind(kind) {
	case kindAckBorrow, kindNarrativeBorrow:
		first := sepAckSubject
		if arabicKind(kind) == kindNarrativeBorrow {
			first = sepNarrSubject
		}
		p.take(slotSubject, first)
		p.take(slotObject, sepAmount)
		p.take(slotMoney, sepTime)
		p.take(slotTime, nil)
		f.predicate = PredBorrowedFrom
	case kindTransfer:
		p.take(slotSubject, sepTransferTo)
		p.take(slotObject, sepAmount)
		p.take(slotMoney, sepTime)
		p.take(slotTime, transferTail)
		if p.ok && p.err == nil && len(p.cur.rest) != 0 {
			p.ok = false
		}
		f.predicate, f.modality, f.status = PredTransferTo, ModalityUncertain, StatusPending
	case kindConfirm, kindDeny:
		if arabicKind(kind) == kindDeny {
			f.polarity = PolarityNegative
		}
		if bytes.Contains(p.cur.rest, sepReceipt) {
			p.take(slotObject, sepReceipt)
			p.take(slotMoney, sepReceiptMoney)
			p.take(slotSubject, sepReceiptPayer)
			p.take(slotTime, nil)
			f.predicate = PredPaidTo
		} else {
			p.take(slotObject, sepLinkLender)
			p.take(slotSubject, sepLinkAgent)
			p.take(slotTime, nil)
			f.predicate, f.currency, f.amountPresent, f.amount = PredIntermediaryFor, NoValue, false, Zero
			hasMoney = false
		}
	}
	if p.err != nil || !p.ok {
		return fields{}, false, p.err
	}
	if hasMoney {
		amount, currency, ok, err := parseArabicMoney(p.pieces[slotMoney], p.at[slotMoney])
		if err != nil || !ok {
			return fields{}, false, err
		}
		f.amount, f.currency = amount, currency
	}
	if !validArabicName(p.pieces[slotSubject]) || !validArabicName(p.pieces[slotObject]) || !validDay(p.pieces[slotTime]) {
		return fields{}, false, nil
	}
	f.subject, f.object, f.time = string(p.pieces[slotSubject]), string(p.pieces[slotObject]), string(p.pieces[slotTime])
	return f, true, nil
}

// parseArabicMoney splits MONEY into NUMBER and CURRENCY (CONTRACT 7.4 step 6).
// An unknown currency is no match; a bad number under a known currency is
// fatal.
func parseArabicMoney(money []byte, at int) (Rational, string, bool, error) {
	sp := bytes.IndexByte(money, ' ')
	if sp <= 0 {
		return Rational{}, "", false, nil
	}
	number, currency := money[:sp], arabicCurrencies[string(money[sp+1:])]
	if currency == "" {
		return Rational{}, "", false, nil
	}
	if len(number) > MaxFieldLen {
		return Rational{}, "", false, failAt(at, ErrFieldTooLong, "amount is %d bytes, the limit is %d", len(number), MaxFieldLen)
	}
	digits := make([]byte, 0, len(number))
	for i := 0; i < len(number); {
		c := number[i]
		if (c >= '0' && c <= '9') || c == '/' {
			digits = append(digits, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(number[i:])
		if r < 0x0660 || r > 0x0669 {
			return Rational{}, "", false, failAt(at+i, ErrArabicAmount,
				"amount %q before currency %q contains %q; want ASCII or Arabic-Indic digits and '/'", number, money[sp+1:], number[i:i+size])
		}
		digits = append(digits, byte('0'+r-0x0660))
		i += size
	}
	r, err := ParseRational(digits)
	if err != nil {
		return Rational{}, "", false, failAt(at, ErrArabicAmount, "amount %q: %s", number, rationalReason(err))
	}
	return r, currency, true, nil
}

// validArabicName: words of ASCII letters or Arabic letters/harakat joined by
// single spaces, none of them reserved.
func validArabicName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, word := range bytes.Split(name, []byte{' '}) {
		if len(word) == 0 || nameReservedWords[string(word)] {
			return false
		}
		for i := 0; i < len(word); {
			r, size := utf8.DecodeRune(word[i:])
			switch {
			case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
			case r >= 0x0621 && r <= 0x063A, r >= 0x0641 && r <= 0x065F, r >= 0x0670 && r <= 0x06D3:
			default:
				return false
			}
			i += size
		}
	}
	return true
}

func validDay(t []byte) bool {
	s := string(t)
	return len(s) > len(dayPrefix) && s[:len(dayPrefix)] == dayPrefix && dayOrdinals[s[len(dayPrefix):]]
}
