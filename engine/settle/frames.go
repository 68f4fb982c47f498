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

// FramePairs lists the borrower and lender pairs the question frames read
// in question, in frame order then split order, each once (the exact
// selector gives its one pair): what a human view names when none of them
// is a stored debt.
func FramePairs(question string) [][2]string {
	var out [][2]string
	add := func(b, l string) {
		for _, p := range out {
			if p == [2]string{b, l} {
				return
			}
		}
		out = append(out, [2]string{b, l})
	}
	if rest, ok := strings.CutPrefix(question, SettlementSelector); ok {
		if b, l, ok := strings.Cut(rest, "\t"); ok && selectableName(b) && selectableName(l) {
			add(b, l)
		}
		return out
	}
	for _, f := range frames {
		eachFrameSplit(question, f, func(b, l string) bool { add(b, l); return true })
	}
	return out
}

// fitsFrame tries every split of the middle of question at f's separator.
func fitsFrame(question string, f frame) bool {
	found := false
	eachFrameSplit(question, f, func(string, string) bool { found = true; return false })
	return found
}

// eachFrameSplit calls fn with each borrower and lender that frame f reads
// in question, until fn returns false.
func eachFrameSplit(question string, f frame, fn func(b, l string) bool) {
	if len(question) < len(f.prefix)+len(f.sep)+len(f.suffix) ||
		!strings.HasPrefix(question, f.prefix) || !strings.HasSuffix(question, f.suffix) {
		return
	}
	middle := question[len(f.prefix) : len(question)-len(f.suffix)]
	for i := 0; ; i++ {
		j := strings.Index(middle[i:], f.sep)
		if j < 0 {
			return
		}
		i += j
		b, l := middle[:i], middle[i+len(f.sep):]
		if selectableName(b) && selectableName(l) && PlainName(b) && PlainName(l) && !fn(b, l) {
			return
		}
	}
}
