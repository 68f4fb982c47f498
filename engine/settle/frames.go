package settle

// Frames returns the nine question frames of CONTRACT 8 in table order, with
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
func FitsFrame(question string) bool { return len(Candidates(question)) > 0 }

// FramePairs lists the borrower and lender pairs the question frames read
// in question, in frame order then split order, each once (the exact
// selector gives its one pair): what a human view names when none of them
// is a stored debt. They are Candidates(question), as pairs.
func FramePairs(question string) [][2]string {
	var out [][2]string
	for _, p := range Candidates(question) {
		out = append(out, [2]string{p.Borrower, p.Lender})
	}
	return out
}
