package settle

import "strings"

// Frames returns the nine question frames of SPEC 8 in table order, with
// "B" for the borrower and "L" for the lender (Frame(n, "B", "L")): what
// a human view shows a question that fits none of them.
func Frames() []string {
	out := make([]string, len(frames))
	for i := range frames {
		out[i] = Frame(i+1, "B", "L")
	}
	return out
}

// FitsFrame reports whether some borrower and lender would make question
// select their debt (Selects): it is the exact selector with two
// selectable names, or one of the nine frames around two plain names. A
// question that fits no frame selects nothing in any document; one that
// fits may still name no stored debt.
func FitsFrame(question string) bool {
	if rest, ok := strings.CutPrefix(question, SettlementSelector); ok {
		b, l, ok := strings.Cut(rest, "\t")
		return ok && selectableName(b) && selectableName(l)
	}
	for _, f := range frames {
		if fitsFrame(question, f) {
			return true
		}
	}
	return false
}

// fitsFrame tries every split of the middle of question at f's separator.
func fitsFrame(question string, f frame) bool {
	if len(question) < len(f.prefix)+len(f.sep)+len(f.suffix) ||
		!strings.HasPrefix(question, f.prefix) || !strings.HasSuffix(question, f.suffix) {
		return false
	}
	middle := question[len(f.prefix) : len(question)-len(f.suffix)]
	for i := 0; ; i++ {
		j := strings.Index(middle[i:], f.sep)
		if j < 0 {
			return false
		}
		i += j
		b, l := middle[:i], middle[i+len(f.sep):]
		if selectableName(b) && selectableName(l) && PlainName(b) && PlainName(l) {
			return true
		}
	}
}
