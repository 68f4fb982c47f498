package settle

import "strings"

// SettlementSelector starts the exact selector question
// "@settlement<TAB>BORROWER<TAB>LENDER" (CONTRACT 8 rule 2).
const SettlementSelector = "@settlement\t"

// MaxNameLen is the longest borrower or lender name a question can select.
const MaxNameLen = 127

// frame is one question frame of CONTRACT 8: prefix B sep L suffix.
type frame struct{ prefix, sep, suffix string }

// frames are the nine question frames of CONTRACT 8, in table order.
var frames = [...]frame{
	{"", " ", ""},             // 1  B L
	{"", " ", "?"},            // 2  B L?
	{"", " ", "؟"},            // 3  B L؟
	{"،", " ", "؟"},           // 4  ،B L؟
	{"Did ", " repay ", "?"},  // 5  Did B repay L?
	{"هل سدد ", " دين ", "؟"}, // 6  هل سدد B دين L؟
	{"هل سدد ", " دين ", "?"}, // 7  هل سدد B دين L?
	{"ما حالة سداد دين ", " إلى ", "؟"}, // 8  ما حالة سداد دين B إلى L؟
	{"ما حالة سداد دين ", " إلى ", "?"}, // 9  ما حالة سداد دين B إلى L?
}

// Frame returns question frame n (1..9 as numbered in CONTRACT 8) filled with
// borrower and lender. It panics for other n.
func Frame(n int, borrower, lender string) string {
	f := frames[n-1]
	return f.prefix + borrower + f.sep + lender + f.suffix
}

// SelectorQuestion returns the exact selector question for borrower and
// lender, "@settlement<TAB>B<TAB>L".
func SelectorQuestion(borrower, lender string) string {
	return SettlementSelector + borrower + "\t" + lender
}

// questionReserved are the 21 words a plain name may not contain (CONTRACT 8).
var questionReserved = map[string]bool{
	"هل": true, "سدد": true, "دين": true, "ما": true, "حالة": true, "سداد": true,
	"إلى": true, "لم": true, "لن": true, "لا": true, "ليس": true, "ليست": true,
	"ربما": true, "إذا": true, "قد": true, "Did": true, "did": true,
	"repay": true, "not": true, "Not": true, "NOT": true,
}

// nameForbiddenASCII are the ASCII punctuation bytes a plain name may not
// contain; nameForbiddenMarks the Arabic question mark, comma and semicolon.
const nameForbiddenASCII = "?!;:,.()[]{}<>\"'\\"

var nameForbiddenMarks = [...]string{"؟", "،", "؛"}

// Selects reports whether question selects a debt whose stored borrower
// (subject) and lender (object) are the given names (CONTRACT 8):
//
//  1. both names are 1..127 bytes without TAB, CR or LF; and
//  2. question is exactly "@settlement<TAB>borrower<TAB>lender" (no other
//     check), or
//  3. both names are plain names (PlainName) and question equals one of
//     the nine frames byte for byte.
//
// The plain-name rules judge the stored names, never the question.
func Selects(question, borrower, lender string) bool {
	if !selectableName(borrower) || !selectableName(lender) {
		return false
	}
	if joins(question, SettlementSelector, borrower, "\t", lender, "") {
		return true
	}
	if !PlainName(borrower) || !PlainName(lender) {
		return false
	}
	for _, f := range frames {
		if joins(question, f.prefix, borrower, f.sep, lender, f.suffix) {
			return true
		}
	}
	return false
}

// selectableName is rule 1 of CONTRACT 8: non-empty, shorter than 128 bytes, no
// TAB, CR or LF.
func selectableName(name string) bool {
	return name != "" && len(name) <= MaxNameLen && !strings.ContainsAny(name, "\t\r\n")
}

// PlainName reports whether name may be selected by the nine natural
// question frames (CONTRACT 8): it contains none of U+061F U+060C U+061B, no
// byte below 0x20 and no 0x7F, none of the ASCII bytes ?!;:,.()[]{}<>"'\,
// it splits on single spaces into non-empty words (no leading, trailing or
// double spaces), and no word is one of the 21 question-reserved words.
func PlainName(name string) bool {
	if name == "" {
		return false
	}
	for _, m := range nameForbiddenMarks {
		if strings.Contains(name, m) {
			return false
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(nameForbiddenASCII, c) >= 0 {
			return false
		}
	}
	for word := range strings.SplitSeq(name, " ") {
		if word == "" || questionReserved[word] {
			return false
		}
	}
	return true
}

// joins reports whether q == prefix+b+sep+l+suffix without building it.
func joins(q, prefix, b, sep, l, suffix string) bool {
	if len(q) != len(prefix)+len(b)+len(sep)+len(l)+len(suffix) {
		return false
	}
	for _, part := range [...]string{prefix, b, sep, l, suffix} {
		if !strings.HasPrefix(q, part) {
			return false
		}
		q = q[len(part):]
	}
	return true
}
