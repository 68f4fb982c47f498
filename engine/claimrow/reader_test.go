package claimrow

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// rowCase is one line given to ReadRow. The same slice feeds the seed's
// JavaScript reader in seed_test.go, so every line is one JSON Lines line
// (no LF inside).
type rowCase struct {
	name string
	line []byte // the exact bytes ReadRow is given
	// want is "" when ReadRow accepts the line, else a substring of its
	// error: the rule that must refuse it, in words.
	want string
}

func okCase(name string, line []byte) rowCase { return rowCase{name: name, line: line} }

func badCase(name string, line []byte, want string) rowCase {
	if want == "" {
		panic(name + ": a refused case needs the reason")
	}
	return rowCase{name: name, line: line, want: want}
}

const (
	emoji    = "\U0001F600" // 2 UTF-16 units, 4 UTF-8 bytes
	maxSafe  = "9007199254740991"
	pastSafe = "9007199254740992"
)

// rowCases is the table of ReadRow, shared with the second opinion.
var rowCases = buildRowCases()

func buildRowCases() []rowCase {
	var cs []rowCase
	add := func(c ...rowCase) { cs = append(cs, c...) }

	a4096, a4097 := rep("a", 4096), rep("a", 4097)
	emoji4096 := rep(emoji, 2048) // 4096 units, 8192 bytes
	emoji4097 := emoji4096 + "a"  // one BMP character more
	period := func(text string) edit { return setJ("resolved.period", text) }
	queried := func(from, to string) edit {
		return period(fmt.Sprintf(`{"queried":{"from":%q,"to":%q},"held":"unknown"}`, from, to))
	}
	unvWith := func(outcomeReason string, edits ...edit) Value {
		return unverified(append([]edit{set("reason", sv(outcomeReason))}, edits...)...)
	}
	rule := set("declaredRule", sv("chronicle.settlement.status"))
	result := set("declaredResult", sv("claim-result/agent/run-1/1"))

	// --- the two valid rows ---
	add(okCase("valid compared row", cl(compared())),
		okCase("valid unverified row", cl(unverified())))

	// --- 2.1 line rules: bytes, UTF-8, one value, trailing bytes ---
	add(okCase("ROW_BYTES: 65536 bytes (leading spaces) accepted", padLeft(cl(unverified()), RowBytes)),
		badCase("ROW_BYTES: 65537 bytes refused", padLeft(cl(unverified()), RowBytes+1), "the line is 65537 bytes, at most 65536"),
		okCase("ROW_BYTES: 65536 bytes (whitespace between tokens) accepted",
			func() []byte {
				b := cl(unverified())
				return replaceOnce(b, `"iteration":0`, `"iteration":`+rep(" ", RowBytes-len(b))+`0`)
			}()),
		badCase("ROW_BYTES: 65537 bytes (whitespace between tokens) refused",
			func() []byte {
				b := cl(unverified())
				return replaceOnce(b, `"iteration":0`, `"iteration":`+rep("\t", RowBytes+1-len(b))+`0`)
			}(), "the line is 65537 bytes"),
		okCase("ROW_BYTES: compared row of 65536 bytes with escapes accepted",
			padLeft(rawAt(compared(), "resolved.scope.document", `"`+rep(`\u0061`, 8000)+`"`), RowBytes)),
		badCase("ROW_BYTES: compared row of 65537 bytes with escapes refused",
			padLeft(rawAt(compared(), "resolved.scope.document", `"`+rep(`\u0061`, 8000)+`"`), RowBytes+1), "the line is 65537 bytes"))
	add(badCase("invalid UTF-8: 0xff", rawAt(unverified(), "declaredValue", "\"\xff\""), "invalid UTF-8"),
		badCase("invalid UTF-8: lone continuation byte", rawAt(unverified(), "declaredValue", "\"a\x80\""), "invalid UTF-8"),
		badCase("invalid UTF-8: overlong slash", rawAt(unverified(), "declaredValue", "\"\xc0\xaf\""), "invalid UTF-8"),
		badCase("invalid UTF-8: encoded surrogate", rawAt(unverified(), "declaredValue", "\"\xed\xa0\x80\""), "invalid UTF-8"),
		badCase("invalid UTF-8: truncated sequence", rawAt(unverified(), "declaredValue", "\"\xe2\x82\""), "invalid UTF-8"),
		badCase("invalid UTF-8: beyond U+10FFFF", rawAt(unverified(), "declaredValue", "\"\xf4\x90\x80\x80\""), "invalid UTF-8"),
		badCase("invalid UTF-8: outside a string", append(cl(unverified()), 0xfe), "invalid UTF-8"),
		okCase("valid UTF-8: raw non-ASCII accepted", cl(unverified(set("declaredValue", sv("é€"+emoji+"\u2028\u0085"))))))
	add(badCase("empty line refused", []byte{}, "a JSON value is missing"),
		badCase("only spaces refused", []byte("   "), "a JSON value is missing"),
		badCase("byte order mark refused", append([]byte("\xef\xbb\xbf"), cl(unverified())...), "does not start a JSON value"),
		badCase("array row refused", []byte(`[]`), "the row an array is not an object"),
		badCase("null row refused", []byte(`null`), "the row null is not an object"),
		badCase("string row refused", []byte(`"claim-verification"`), `the row "claim-verification" is not an object`),
		badCase("truncated row refused", bytes.TrimSuffix(cl(unverified()), []byte("}")), "',' or '}' is missing in an object"),
		badCase("two values refused", append(cl(unverified()), cl(unverified())...), "bytes after the JSON value"),
		badCase("trailing space refused", append(cl(unverified()), ' '), "bytes after the JSON value"),
		badCase("trailing CR refused", append(cl(unverified()), '\r'), "bytes after the JSON value"),
		badCase("trailing tab refused", append(cl(unverified()), '\t'), "bytes after the JSON value"),
		badCase("trailing NUL refused", append(cl(unverified()), 0), "bytes after the JSON value"),
		badCase("trailing comma refused", append(cl(unverified()), ','), "bytes after the JSON value"),
		okCase("leading space accepted", append([]byte(" "), cl(unverified())...)),
		okCase("leading tab and CR accepted", append([]byte("\t\r "), cl(unverified())...)),
		okCase("whitespace between all tokens accepted",
			[]byte(` { "checker" : { "id" : "claim-pair" , "version" : 1 } , "claimId" : "claim-verification/agent/run-1/1" ,`+
				"\t"+`"declaredOn":"answer","declaredValue":[ 1 , { } , [ ] ],"iteration":0,"kind":"claim-verification",`+
				"\r"+`"outcome":"unverified","reason":"malformed-check","standing":"fact"}`)),
		badCase("trailing comma in an object refused", replaceOnce(cl(unverified()), `"standing":"fact"}`, `"standing":"fact",}`), "an object key (a string) is missing"),
		badCase("trailing comma in an array refused", rawAt(unverified(), "declaredValue", `[1,]`), "does not start a JSON value"),
		badCase("single-quoted string refused", rawAt(unverified(), "declaredValue", `'x'`), "does not start a JSON value"),
		badCase("unknown literal refused", rawAt(unverified(), "declaredValue", `nul`), "does not start a JSON value"),
		badCase("missing colon refused", replaceOnce(cl(unverified()), `"iteration":0`, `"iteration" 0`), "':' is missing after a key"),
		badCase("unquoted key refused", replaceOnce(cl(unverified()), `"iteration":0`, `iteration:0`), "an object key (a string) is missing"))
	// duplicate keys, at any depth, exact comparison
	add(badCase("duplicate key at the top refused", replaceOnce(cl(unverified()), `"iteration":0`, `"iteration":0,"iteration":0`), `duplicate key "iteration"`),
		badCase("duplicate key in checker refused", replaceOnce(cl(unverified()), `"id":"claim-pair"`, `"id":"claim-pair","id":"claim-pair"`), `duplicate key "id"`),
		badCase("duplicate key deep in resolved refused",
			replaceOnce(cl(compared()), `"version":"1"`, `"version":"1","version":"1"`), `duplicate key "version"`),
		badCase("duplicate key deep in declaredValue refused", rawAt(unverified(), "declaredValue", `{"a":{"b":[{"c":1,"d":2,"c":3}]}}`), `duplicate key "c"`),
		badCase("duplicate key spelled with an escape refused", rawAt(unverified(), "declaredValue", `{"a":1,"\u0061":2}`), `duplicate key "a"`),
		badCase("duplicate key null and null refused", rawAt(unverified(), "declaredValue", `{"k":null,"k":null}`), `duplicate key "k"`),
		okCase("keys differing in case accepted", rawAt(unverified(), "declaredValue", `{"a":1,"A":2}`)),
		okCase("keys differing only in normalisation accepted", rawAt(unverified(), "declaredValue", `{"\u00e9":1,"e\u0301":2}`)),
		okCase("same key in sibling objects accepted", rawAt(unverified(), "declaredValue", `[{"a":1},{"a":1}]`)))
	// \u escapes and surrogates
	add(badCase("lone high surrogate refused", rawAt(unverified(), "declaredValue", `"\ud800"`), "lone high surrogate"),
		badCase("lone high surrogate at the end of a string refused", rawAt(unverified(), "declaredValue", `"ab\uDBFF"`), "lone high surrogate"),
		badCase("high surrogate then a letter refused", rawAt(unverified(), "declaredValue", `"\ud83dx"`), "lone high surrogate"),
		badCase("high surrogate then a non-low escape refused", rawAt(unverified(), "declaredValue", `"\ud83d\u0041"`), "lone high surrogate"),
		badCase("two high surrogates refused", rawAt(unverified(), "declaredValue", `"\ud83d\ud83d"`), "lone high surrogate"),
		badCase("high surrogate then an escaped newline refused", rawAt(unverified(), "declaredValue", `"\ud83d\n"`), "lone high surrogate"),
		badCase("lone low surrogate refused", rawAt(unverified(), "declaredValue", `"\udc00"`), "lone low surrogate"),
		badCase("low then high surrogate refused", rawAt(unverified(), "declaredValue", `"\ude00\ud83d"`), "lone low surrogate"),
		badCase("lone surrogate in a key refused", rawAt(unverified(), "declaredValue", `{"\uDFFF":1}`), "lone low surrogate"),
		okCase("surrogate pair accepted", rawAt(unverified(), "declaredValue", `"\ud83d\ude00"`)),
		okCase("surrogate pair in upper case accepted", rawAt(unverified(), "declaredValue", `"\uD83D\uDE00"`)),
		okCase("TEXT: declaredRule of 2048 escaped surrogate pairs accepted", rawAt(unverified(), "declaredRule", `"`+rep(`\ud83d\ude00`, 2048)+`"`)),
		badCase("TEXT: declaredRule of 2048 escaped surrogate pairs and one letter refused",
			rawAt(unverified(), "declaredRule", `"`+rep(`\ud83d\ude00`, 2048)+`a"`), "declaredRule is 4097 characters"),
		okCase("all simple escapes accepted", rawAt(unverified(), "declaredValue", `"\"\\\/\b\f\n\r\t\u0000\u001F\u00e9"`)),
		badCase("unknown escape refused", rawAt(unverified(), "declaredValue", `"\x41"`), `\x is not a JSON escape`),
		badCase("single-quote escape refused", rawAt(unverified(), "declaredValue", `"\'"`), `\' is not a JSON escape`),
		badCase("short \\u escape refused", rawAt(unverified(), "declaredValue", `"\u12"`), `\u needs four hex digits`),
		badCase("non-hex \\u escape refused", rawAt(unverified(), "declaredValue", `"\u00g0"`), `\u needs four hex digits`),
		badCase("signed \\u escape refused", rawAt(unverified(), "declaredValue", `"\u+041"`), `\u needs four hex digits`),
		badCase("unclosed string refused", []byte(`{"kind":"claim-verification`), "a string is not closed"))
	// raw control characters in strings
	add(badCase("raw tab in a string refused", rawAt(unverified(), "declaredValue", "\"a\tb\""), "raw control character (0x09)"),
		badCase("raw NUL in a string refused", rawAt(unverified(), "declaredValue", "\"a\x00b\""), "raw control character (0x00)"),
		badCase("raw 0x1f in a string refused", rawAt(unverified(), "declaredValue", "\"\x1f\""), "raw control character (0x1f)"),
		badCase("raw CR in a key refused", rawAt(unverified(), "declaredValue", "{\"a\rb\":1}"), "raw control character (0x0d)"),
		okCase("raw DEL in a string accepted", rawAt(unverified(), "declaredValue", "\"a\x7fb\"")),
		okCase("escaped control characters accepted", rawAt(unverified(), "declaredValue", `"\t\u0001\u001f"`)))
	// numbers
	for _, n := range []struct{ name, raw, want string }{
		{"fraction", "1.0", "numbers must be integers"},
		{"fraction of zero", "0.5", "numbers must be integers"},
		{"exponent", "1e3", "numbers must be integers"},
		{"capital exponent", "1E3", "numbers must be integers"},
		{"zero exponent", "0e0", "numbers must be integers"},
		{"huge exponent", "1e400", "numbers must be integers"},
		{"negative zero", "-0", "-0 is not allowed"},
		{"leading zero", "01", "a number has a leading zero"},
		{"negative leading zero", "-01", "a number has a leading zero"},
		{"double zero", "00", "a number has a leading zero"},
		{"2^53", pastSafe, "beyond 2^53-1"},
		{"-2^53", "-" + pastSafe, "beyond 2^53-1"},
		{"huge integer", "123456789012345678901234567890", "beyond 2^53-1"},
		{"plus sign", "+1", "does not start a JSON value"},
		{"bare minus", "-", "'-' is not followed by a digit"},
		{"leading dot", ".5", "does not start a JSON value"},
		{"hex", "0x10", "',' or '}' is missing in an object"}, // "0" is read, then "x10" cannot follow
	} {
		add(badCase("number "+n.name+" in declaredValue refused", rawAt(unverified(), "declaredValue", n.raw), n.want))
	}
	add(badCase("number -0 as iteration refused", rawAt(unverified(), "iteration", "-0"), "-0 is not allowed"),
		badCase("number 1.0 as iteration refused", rawAt(unverified(), "iteration", "1.0"), "numbers must be integers"),
		badCase("number 2^53 as iteration refused", rawAt(unverified(), "iteration", pastSafe), "beyond 2^53-1"),
		badCase("number 2^53 deep in scope refused", rawAt(compared(), "resolved.scope.receipt", "["+pastSafe+"]"), "beyond 2^53-1"),
		okCase("number 2^53-1 as iteration accepted", rawAt(unverified(), "iteration", maxSafe)),
		okCase("number -(2^53-1) in declaredValue accepted", rawAt(unverified(), "declaredValue", "-"+maxSafe)),
		okCase("numbers 0 and -1 accepted", rawAt(unverified(), "declaredValue", "[0,-1,10]")))
	// depth
	add(okCase("depth 32 (31 nested arrays in declaredValue) accepted", rawAt(unverified(), "declaredValue", nested(31))),
		badCase("depth 33 (32 nested arrays in declaredValue) refused", rawAt(unverified(), "declaredValue", nested(32)), "nested deeper than 32"),
		okCase("depth 32 of objects accepted", rawAt(unverified(), "declaredValue", rep(`{"a":`, 31)+"1"+rep("}", 31))),
		badCase("depth 33 of objects refused", rawAt(unverified(), "declaredValue", rep(`{"a":`, 32)+"1"+rep("}", 32)), "nested deeper than 32"),
		okCase("depth 32 inside resolved.scope accepted", rawAt(compared(), "resolved.scope.receipt", nested(29))),
		badCase("depth 33 inside resolved.scope refused", rawAt(compared(), "resolved.scope.receipt", nested(30)), "nested deeper than 32"),
		okCase("depth 32 of empty arrays accepted", rawAt(unverified(), "declaredValue", rep("[", 31)+rep("]", 31))),
		badCase("depth 33 of empty objects refused", rawAt(unverified(), "declaredValue", rep(`{"a":`, 31)+"{}"+rep("}", 31)), "nested deeper than 32"))

	// --- the seed: ownData(row, keys) ---
	add(badCase("unknown row key refused", cl(unverified(set("extra", iv(1)))), `the row has the unknown key "extra"`),
		badCase("__proto__ row key refused", cl(unverified(setJ("__proto__", `{}`))), `the row has the unknown key "__proto__"`),
		badCase("row key in another case refused", cl(unverified(del("kind"), set("Kind", sv("claim-verification")))), `the row has the unknown key "Kind"`),
		okCase("every optional row key present accepted", cl(unverified(rule, result, set("turn", iv(3))))),
		badCase("unknown key wins over a later rule", cl(unverified(set("extra", iv(1)), set("kind", sv("x")))), `the row has the unknown key "extra"`))
	// ownData(row.checker, [id, version])
	add(badCase("checker missing refused", cl(unverified(del("checker"))), "checker is missing"),
		badCase("checker an array refused", cl(unverified(setJ("checker", `["claim-pair",1]`))), "checker an array is not an object"),
		badCase("checker null refused", cl(unverified(setJ("checker", `null`))), "checker null is not an object"),
		badCase("checker with an unknown key refused", cl(unverified(set("checker.name", sv("x")))), `checker has the unknown key "name"`),
		badCase("checker is read before claimId", cl(unverified(del("checker"), set("claimId", iv(1)))), "checker is missing"))
	// readClaimIdentity(row.claimId)
	claimID := func(id string) Value { return unverified(set("claimId", sv(id))) }
	add(okCase("claimId namespace _ spelled %5F accepted", cl(claimID("claim-verification/%5F/run-1/1"))),
		okCase("claimId fields with escapes accepted", cl(claimID("claim-verification/a%2Fb%25c/%25%2F/7"))),
		okCase("claimId pre-escaped text escaped again accepted", cl(claimID("claim-verification/%252F/%255F/1"))),
		okCase("claimId fields __ and a_b accepted", cl(claimID("claim-verification/__/a_b/1"))),
		okCase("claimId field _x accepted", cl(claimID("claim-verification/_x/x_/1"))),
		okCase("claimId Unicode fields accepted", cl(claimID("claim-verification/été/"+emoji+"/1"))),
		okCase("claimId ordinal 2^53-1 accepted", cl(claimID("claim-verification/agent/run-1/"+maxSafe))),
		okCase("identityText: claimId of 4102 ASCII units accepted", cl(claimID("claim-verification/"+rep("n", 4079)+"/r/1"))),
		badCase("identityText: claimId of 4103 ASCII units refused", cl(claimID("claim-verification/"+rep("n", 4080)+"/r/1")), "4103 characters, at most 4102"),
		okCase("identityText: claimId of 4102 UTF-16 units (surrogate pairs) accepted", cl(claimID("claim-verification/"+rep(emoji, 2039)+"a/r/1"))),
		badCase("identityText: claimId of 4103 UTF-16 units (surrogate pairs) refused", cl(claimID("claim-verification/"+rep(emoji, 2040)+"/r/1")), "4103 characters, at most 4102"),
		badCase("claimId missing refused", cl(unverified(del("claimId"))), "claimId: invalid identity: absent, not a string"),
		badCase("claimId an integer refused", cl(unverified(set("claimId", iv(1)))), "claimId: invalid identity: an integer, not a string"),
		badCase("claimId with the result prefix refused", cl(claimID("claim-result/agent/run-1/1")), "is not claim-verification/<namespace>/<runId>/<ordinal>"),
		badCase("claimId prefix in another case refused", cl(claimID("Claim-verification/agent/run-1/1")), "is not claim-verification/"),
		badCase("claimId of three parts refused", cl(claimID("claim-verification/agent/1")), "is not claim-verification/"),
		badCase("claimId of five parts refused", cl(claimID("claim-verification/agent/run/1/1")), "is not claim-verification/"),
		badCase("claimId with a trailing slash refused", cl(claimID("claim-verification/agent/run-1/1/")), "is not claim-verification/"),
		badCase("claimId empty namespace refused", cl(claimID("claim-verification//run-1/1")), "is the spelling of an absent value"),
		badCase("claimId namespace _ refused", cl(claimID("claim-verification/_/run-1/1")), `field "_" is the spelling of an absent value`),
		badCase("claimId runId _ refused", cl(claimID("claim-verification/agent/_/1")), `field "_" is the spelling of an absent value`),
		badCase("claimId empty runId refused", cl(claimID("claim-verification/agent//1")), `field "" is the spelling`))
	for _, f := range []string{"%2f", "%5f", "%", "%2", "%5", "%41", "%%25", "a%", "%2G", "%-1"} {
		add(badCase("claimId field "+f+" refused", cl(claimID("claim-verification/"+f+"/run-1/1")), "not followed by 25, 2F or 5F"))
	}
	for _, f := range []string{"a%5Fb", "%5F%5F", "%5Fx", "x%5F"} {
		add(badCase("claimId non-canonical field "+f+" refused", cl(claimID("claim-verification/"+f+"/run-1/1")), "is not canonical"))
	}
	for _, o := range []string{"01", "0", "+1", "1e3", pastSafe, "-1", " 1", "1 ", "", "1.0", "0x1", "1_0", "Infinity"} {
		add(badCase(fmt.Sprintf("claimId ordinal %q refused", o), cl(claimID("claim-verification/agent/run-1/"+o)), "is not the plain decimal of an integer from 1 to 2^53-1"))
	}

	// --- the seed's row rules, in order ---
	add(badCase("kind missing refused", cl(unverified(del("kind"))), `kind absent is not "claim-verification"`),
		badCase("kind wrong refused", cl(unverified(set("kind", sv("claim-result")))), `kind "claim-result" is not "claim-verification"`),
		badCase("kind in another case refused", cl(unverified(set("kind", sv("Claim-verification")))), `kind "Claim-verification" is not`),
		badCase("kind is checked before standing", cl(unverified(set("kind", sv("x")), set("standing", sv("x")))), `kind "x" is not`))
	add(badCase("standing missing refused", cl(unverified(del("standing"))), "standing absent is not a string"),
		badCase("standing an integer refused", cl(unverified(set("standing", iv(1)))), "standing 1 is not a string"),
		badCase("standing unknown value refused", cl(unverified(set("standing", sv("Fact")))), `standing "Fact" is not fact, open, ruled-out or noise`),
		badCase("standing empty refused", cl(unverified(set("standing", sv("")))), `standing "" is not fact, open`),
		okCase("standing open accepted", cl(unverified(set("standing", sv("open"))))),
		okCase("standing ruled-out accepted", cl(unverified(set("standing", sv("ruled-out"))))),
		okCase("standing noise accepted", cl(unvWith("ineligible-noise", set("standing", sv("noise"))))))
	add(badCase("iteration missing refused", cl(unverified(del("iteration"))), "iteration absent is not an integer >= 0"),
		badCase("iteration -1 refused", cl(unverified(set("iteration", iv(-1)))), "iteration -1 is not an integer >= 0"),
		badCase("iteration a string refused", cl(unverified(set("iteration", sv("0")))), `iteration "0" is not an integer`),
		badCase("iteration null refused", cl(unverified(set("iteration", nullValue()))), "iteration null is not an integer"),
		badCase("iteration a boolean refused", cl(unverified(set("iteration", bv(false)))), "iteration false is not an integer"),
		okCase("iteration 7 accepted", cl(unverified(set("iteration", iv(7))))))
	add(okCase("turn 1 accepted", cl(unverified(set("turn", iv(1))))),
		okCase("turn 2^53-1 accepted", rawAt(unverified(), "turn", maxSafe)),
		badCase("turn 0 refused", cl(unverified(set("turn", iv(0)))), "turn 0 is not an integer >= 1"),
		badCase("turn null refused", cl(unverified(set("turn", nullValue()))), "turn null is not an integer >= 1"),
		badCase("turn a string refused", cl(unverified(set("turn", sv("1")))), `turn "1" is not an integer >= 1`))
	add(badCase("checker.id missing refused", cl(unverified(del("checker.id"))), `checker.id absent is not "claim-pair"`),
		badCase("checker.id wrong refused", cl(unverified(set("checker.id", sv("claim-pairs")))), `checker.id "claim-pairs" is not "claim-pair"`),
		badCase("checker.version missing refused", cl(unverified(del("checker.version"))), "checker.version absent is not 1"),
		badCase("checker.version 2 refused", cl(unverified(set("checker.version", iv(2)))), "checker.version 2 is not 1"),
		badCase("checker.version 2^53-1 refused", rawAt(unverified(), "checker.version", maxSafe), "checker.version "+maxSafe+" is not 1"),
		badCase("checker.version a string refused", cl(unverified(set("checker.version", sv("1")))), `checker.version "1" is not 1`))
	add(badCase("declaredValue missing refused", cl(unverified(del("declaredValue"))), "declaredValue is missing"),
		okCase("declaredValue null accepted (present)", cl(unverified(set("declaredValue", nullValue())))),
		okCase("declaredValue an object accepted", cl(unverified(setJ("declaredValue", `{"kind":"unknown","n":[1,"2",true]}`)))),
		okCase("declaredValue an empty string accepted", cl(unverified(set("declaredValue", sv(""))))))
	add(okCase("declaredResult absent accepted", cl(unverified())),
		okCase("declaredResult empty accepted (the seed only bounds it)", cl(unverified(set("declaredResult", sv(""))))),
		okCase("declaredResult any text accepted on an unverified row", cl(unverified(set("declaredResult", sv("not/an/identity"))))),
		badCase("declaredResult an integer refused", cl(unverified(set("declaredResult", iv(1)))), "declaredResult 1 is not a string"),
		badCase("declaredResult null refused", cl(unverified(set("declaredResult", nullValue()))), "declaredResult null is not a string"),
		okCase("RESULT_ID_TEXT: declaredResult of 4096 units accepted", cl(unverified(set("declaredResult", sv(a4096))))),
		badCase("RESULT_ID_TEXT: declaredResult of 4097 units refused", cl(unverified(set("declaredResult", sv(a4097)))), "declaredResult is 4097 characters (UTF-16 units), at most 4096"),
		okCase("RESULT_ID_TEXT: declaredResult of 2048 surrogate pairs accepted", cl(unverified(set("declaredResult", sv(emoji4096))))),
		badCase("RESULT_ID_TEXT: declaredResult of 2048 surrogate pairs and a letter refused", cl(unverified(set("declaredResult", sv(emoji4097)))), "declaredResult is 4097 characters"))
	add(okCase("TEXT: declaredRule of 4096 units accepted", cl(unverified(set("declaredRule", sv(a4096))))),
		badCase("TEXT: declaredRule of 4097 units refused", cl(unverified(set("declaredRule", sv(a4097)))), "declaredRule is 4097 characters (UTF-16 units), at most 4096"),
		okCase("TEXT: declaredRule of 2048 surrogate pairs (4096 units) accepted", cl(unverified(set("declaredRule", sv(emoji4096))))),
		badCase("TEXT: declaredRule of 2048 surrogate pairs and one BMP character refused", cl(unverified(set("declaredRule", sv(rep(emoji, 2048)+"é")))), "declaredRule is 4097 characters"),
		badCase("TEXT: a raw byte order mark counts as a unit", cl(unverified(set("declaredRule", sv("\ufeff"+a4096)))), "declaredRule is 4097 characters"),
		badCase("declaredRule empty refused", cl(unverified(set("declaredRule", sv("")))), "declaredRule is empty"),
		badCase("declaredRule an integer refused", cl(unverified(set("declaredRule", iv(1)))), "declaredRule 1 is not a string"),
		badCase("declaredRule null refused", cl(unverified(set("declaredRule", nullValue()))), "declaredRule null is not a string"))
	// copyJson(row.declaredValue, valueBytes)
	str := func(n int) Value { return sv(rep("v", n-2)) } // canonical size n
	// VALUE_BYTES is SCOPE_BYTES (8192), as the seed defines it: the old
	// bound of 4096 is inside the range, and accepted.
	add(okCase("VALUE_BYTES: declaredValue of 4096 canonical bytes accepted", cl(unverified(set("declaredValue", str(4096))))),
		okCase("VALUE_BYTES: declaredValue of 4097 canonical bytes accepted", cl(unverified(set("declaredValue", str(4097))))),
		okCase("VALUE_BYTES: declaredValue of 8192 canonical bytes accepted", cl(unverified(set("declaredValue", str(8192))))),
		badCase("VALUE_BYTES: declaredValue of 8193 canonical bytes refused", cl(unverified(set("declaredValue", str(8193)))), "declaredValue is 8193 bytes as canonical JSON, at most 8192"),
		okCase("VALUE_BYTES: 8192 canonical bytes from a longer escaped text accepted", rawAt(unverified(), "declaredValue", `"`+rep(`\u0076`, 8190)+`"`)),
		badCase("VALUE_BYTES: 8193 canonical bytes from a longer escaped text refused", rawAt(unverified(), "declaredValue", `"`+rep(`\u0076`, 8191)+`"`), "declaredValue is 8193 bytes"),
		okCase("VALUE_BYTES: 8192 canonical bytes of an array written with spaces accepted",
			rawAt(unverified(), "declaredValue", "[ "+rep(`"vvvvvv" , `, 909)+`"vvvvvvv" ]`)),
		okCase("VALUE_BYTES: escapes count as canonical bytes (8192) accepted", cl(unverified(set("declaredValue", sv(rep("\x01", 1365)))))),
		badCase("VALUE_BYTES: escapes count as canonical bytes (8193) refused", cl(unverified(set("declaredValue", sv(rep("\x01", 1365)+"a")))), "declaredValue is 8193 bytes"),
		okCase("VALUE_BYTES: UTF-8 bytes count (4095 é = 8192) accepted", cl(unverified(set("declaredValue", sv(rep("é", 4095)))))),
		badCase("VALUE_BYTES: UTF-8 bytes count (4096 é = 8194) refused", cl(unverified(set("declaredValue", sv(rep("é", 4096))))), "declaredValue is 8194 bytes"),
		okCase("VALUE_BYTES: compared row with a declaredValue of 8192 bytes accepted", cl(compared(withValue(str(8192))))),
		badCase("VALUE_BYTES: compared row with a declaredValue of 8193 bytes refused", cl(compared(withValue(str(8193)))), "declaredValue is 8193 bytes"))
	// declaredOn
	add(okCase("declaredOn toolCallId accepted", cl(unverified(setJ("declaredOn", `{"toolCallId":"call_7"}`)))),
		okCase("TEXT: toolCallId of 4096 units accepted", cl(unverified(set("declaredOn", ObjectValue(Member{"toolCallId", sv(emoji4096)}))))),
		badCase("TEXT: toolCallId of 4097 units refused", cl(unverified(set("declaredOn", ObjectValue(Member{"toolCallId", sv(a4097)})))), "declaredOn.toolCallId is 4097 characters"),
		badCase("declaredOn missing refused", cl(unverified(del("declaredOn"))), "declaredOn is missing"),
		badCase("declaredOn another string refused", cl(unverified(set("declaredOn", sv("Answer")))), `declaredOn "Answer" is not an object`),
		badCase("declaredOn null refused", cl(unverified(set("declaredOn", nullValue()))), "declaredOn null is not an object"),
		badCase("declaredOn an array refused", cl(unverified(setJ("declaredOn", `["answer"]`))), "declaredOn an array is not an object"),
		badCase("declaredOn empty object refused", cl(unverified(setJ("declaredOn", `{}`))), "declaredOn.toolCallId absent is not a string"),
		badCase("declaredOn with an unknown key refused", cl(unverified(setJ("declaredOn", `{"toolCallId":"c","turn":1}`))), `declaredOn has the unknown key "turn"`),
		badCase("declaredOn empty toolCallId refused", cl(unverified(setJ("declaredOn", `{"toolCallId":""}`))), "declaredOn.toolCallId is empty"),
		badCase("declaredOn toolCallId an integer refused", cl(unverified(setJ("declaredOn", `{"toolCallId":7}`))), "declaredOn.toolCallId 7 is not a string"),
		badCase("declaredValue size is checked before declaredOn", cl(unverified(set("declaredValue", str(8193)), del("declaredOn"))), "declaredValue is 8193 bytes"))

	// --- unverified: each reason allowed and refused ---
	noise := set("standing", sv("noise"))
	add(okCase("unverified missing-check accepted", cl(unvWith("missing-check"))),
		okCase("unverified missing-check with a declaredResult accepted", cl(unvWith("missing-check", result))),
		badCase("unverified missing-check with a declaredRule refused", cl(unvWith("missing-check", rule)), "missing-check, yet the row has a declaredRule"),
		okCase("unverified malformed-check with rule and result accepted", cl(unvWith("malformed-check", rule, result))),
		okCase("unverified ineligible-noise accepted", cl(unvWith("ineligible-noise", noise))),
		okCase("unverified ineligible-noise with rule and result accepted", cl(unvWith("ineligible-noise", noise, rule, result))),
		badCase("unverified ineligible-noise for a fact refused", cl(unvWith("ineligible-noise")), "ineligible-noise is the reason of noise claims only (standing is fact)"),
		badCase("unverified ineligible-noise for an open claim refused", cl(unvWith("ineligible-noise", set("standing", sv("open")))), "ineligible-noise is the reason of noise claims only"),
		badCase("unverified noise with malformed-check refused", cl(unvWith("malformed-check", noise)), "a noise claim is unverified only as ineligible-noise, not malformed-check"),
		badCase("unverified noise with missing-check refused", cl(unvWith("missing-check", noise)), "a noise claim is unverified only as ineligible-noise"),
		badCase("unverified noise with not-asserted refused", cl(unvWith("not-asserted", noise, rule, result)), "a noise claim is unverified only as ineligible-noise"),
		okCase("unverified missing-result with a rule accepted", cl(unvWith("missing-result", rule))),
		okCase("unverified missing-result with rule and result accepted", cl(unvWith("missing-result", rule, result))),
		badCase("unverified missing-result without a rule refused", cl(unvWith("missing-result")), "missing-result needs a declaredRule"),
		okCase("unverified unresolved-result accepted", cl(unvWith("unresolved-result", rule, result))),
		badCase("unverified unresolved-result without a rule refused", cl(unvWith("unresolved-result", result)), "unresolved-result needs a declaredRule"),
		badCase("unverified unresolved-result without a result refused", cl(unvWith("unresolved-result", rule)), "unresolved-result needs a declaredResult"),
		okCase("unverified evidence-conflict accepted", cl(unvWith("evidence-conflict", rule, result))),
		badCase("unverified evidence-conflict without a result refused", cl(unvWith("evidence-conflict", rule)), "evidence-conflict needs a declaredResult"),
		badCase("unverified evidence-conflict without a rule refused", cl(unvWith("evidence-conflict", result)), "evidence-conflict needs a declaredRule"),
		okCase("unverified not-asserted for an open claim accepted", cl(unvWith("not-asserted", set("standing", sv("open")), rule, result))),
		okCase("unverified not-asserted for a ruled-out claim accepted", cl(unvWith("not-asserted", set("standing", sv("ruled-out")), rule, result))),
		badCase("unverified not-asserted without a result refused", cl(unvWith("not-asserted", set("standing", sv("open")), rule)), "not-asserted needs a declaredResult"),
		badCase("unverified reason missing refused", cl(unverified(del("reason"))), "reason absent is not a string"),
		badCase("unverified reason an integer refused", cl(unverified(set("reason", iv(3)))), "reason 3 is not a string"),
		badCase("unverified with reason conflict refused", cl(unvWith("conflict", rule, result)), `reason "conflict" is not a reason for an unverified outcome`),
		badCase("unverified with reason no-conflict refused", cl(unvWith("no-conflict", rule, result)), `reason "no-conflict" is not a reason for an unverified outcome`),
		badCase("unverified with a reason in another case refused", cl(unvWith("Missing-check")), `reason "Missing-check" is not a reason`),
		badCase("unverified with a resolved block refused", cl(unvWith("unresolved-result", rule, result, setJ("resolved", `{}`))), "an unverified row carries no resolved block"),
		badCase("unverified with a full resolved block refused",
			cl(compared(withOutcome("unverified", "unresolved-result"))), "an unverified row carries no resolved block"),
		badCase("outcome in another case is not unverified", cl(unverified(set("outcome", sv("Unverified")))), `outcome "Unverified" is not supported, contradicted or unverified`))

	// --- compared: each outcome/reason pairing allowed and refused ---
	add(okCase("contradicted conflict accepted", cl(compared())),
		okCase("supported no-conflict accepted", cl(compared(withOutcome("supported", "no-conflict")))),
		okCase("supported numeric-leniency accepted", cl(compared(withOutcome("supported", "numeric-leniency")))),
		okCase("compared open claim accepted", cl(compared(set("standing", sv("open"))))),
		okCase("compared ruled-out claim accepted", cl(compared(set("standing", sv("ruled-out")), withOutcome("supported", "no-conflict")))),
		badCase("compared noise claim refused", cl(compared(set("standing", sv("noise")))), `a noise claim is never compared (outcome "contradicted")`),
		badCase("supported noise claim refused", cl(compared(set("standing", sv("noise")), withOutcome("supported", "no-conflict"))), "a noise claim is never compared"),
		badCase("supported conflict refused", cl(compared(withOutcome("supported", "conflict"))), `a supported row has reason no-conflict or numeric-leniency, not "conflict"`),
		badCase("supported missing-check refused", cl(compared(withOutcome("supported", "missing-check"))), "a supported row has reason no-conflict or numeric-leniency"),
		badCase("supported without a reason refused", cl(compared(set("outcome", sv("supported")), del("reason"))), "a supported row has reason no-conflict or numeric-leniency, not absent"),
		badCase("contradicted no-conflict refused", cl(compared(withOutcome("contradicted", "no-conflict"))), `a contradicted row has reason conflict, not "no-conflict"`),
		badCase("contradicted numeric-leniency refused", cl(compared(withOutcome("contradicted", "numeric-leniency"))), "a contradicted row has reason conflict"),
		badCase("contradicted unresolved-result refused", cl(compared(withOutcome("contradicted", "unresolved-result"))), "a contradicted row has reason conflict"),
		badCase("outcome missing refused", cl(compared(del("outcome"))), "outcome absent is not supported, contradicted or unverified"),
		badCase("outcome unknown refused", cl(compared(set("outcome", sv("refuted")))), `outcome "refuted" is not supported, contradicted or unverified`),
		badCase("outcome in another case refused", cl(compared(set("outcome", sv("Supported")))), `outcome "Supported" is not supported`),
		badCase("outcome an integer refused", cl(compared(set("outcome", iv(1)))), "outcome 1 is not supported"),
		badCase("outcome missing on an unverified-shaped row refused", cl(unverified(del("outcome"))), "outcome absent is not supported"))

	// --- validateResolved: ownData(resolved), ownData(rule) ---
	add(badCase("compared without resolved refused", cl(compared(del("resolved"))), "resolved is missing"),
		badCase("resolved an array refused", cl(compared(setJ("resolved", `[]`))), "resolved an array is not an object"),
		badCase("resolved with an unknown key refused", cl(compared(set("resolved.verdict", sv("x")))), `resolved has the unknown key "verdict"`),
		badCase("resolved.rule missing refused", cl(compared(del("resolved.rule"))), "resolved.rule is missing"),
		badCase("resolved.rule a string refused", cl(compared(set("resolved.rule", sv("chronicle.settlement.settled")))), `resolved.rule "chronicle.settlement.settled" is not an object`),
		badCase("resolved.rule with an unknown key refused", cl(compared(set("resolved.rule.name", sv("x")))), `resolved.rule has the unknown key "name"`))
	// copyJson(resolved.scope, SCOPE_BYTES) then ownData(scope)
	scopeOf := func(n int) Value { // canonical size n
		return ObjectValue(Member{"document", sv(rep("d", n-len(`{"document":""}`)))})
	}
	add(okCase("SCOPE_BYTES: scope of 8192 canonical bytes accepted", cl(compared(set("resolved.scope", scopeOf(8192))))),
		badCase("SCOPE_BYTES: scope of 8193 canonical bytes refused", cl(compared(set("resolved.scope", scopeOf(8193)))), "resolved.scope is 8193 bytes as canonical JSON, at most 8192"),
		okCase("SCOPE_BYTES: escapes count (8192) accepted", cl(compared(set("resolved.scope", ObjectValue(Member{"q", sv(rep("\n", 4092))}))))),
		badCase("SCOPE_BYTES: escapes count (8194) refused", cl(compared(set("resolved.scope", ObjectValue(Member{"q", sv(rep("\n", 4093))})))), "resolved.scope is 8194 bytes"),
		okCase("SCOPE_BYTES: 8192 canonical bytes from a longer escaped text accepted",
			rawAt(compared(), "resolved.scope", `{"document":"`+rep(`\u0064`, 8192-len(`{"document":""}`))+`"}`)),
		badCase("scope missing refused", cl(compared(del("resolved.scope"))), "resolved.scope is missing"),
		badCase("scope a string refused", cl(compared(set("resolved.scope", sv("a4b3")))), `resolved.scope "a4b3" is not an object`),
		badCase("scope an array refused", cl(compared(setJ("resolved.scope", `[]`))), "resolved.scope an array is not an object"),
		badCase("scope size is checked before scope type", cl(compared(set("resolved.scope", stringsArray(rep("d", 100), 90)))), "resolved.scope is 9271 bytes"))
	// readResultIdentity(resolved.resultId)
	ns4075 := rep("n", 4075)
	add(okCase("RESULT_ID_TEXT: resultId of 4096 units (claimId of 4102) accepted",
		cl(compared(set("claimId", sv("claim-verification/"+ns4075+"/run-1/2")), withResult("claim-result/"+ns4075+"/run-1/1")))),
		okCase("RESULT_ID_TEXT: resultId of 4096 units (long runId) accepted",
			cl(compared(withResult("claim-result/agent/"+rep("r", 4075)+"/1")))),
		badCase("RESULT_ID_TEXT: resultId of 4097 units refused",
			cl(compared(set("resolved.resultId", sv("claim-result/agent/"+rep("r", 4076)+"/1")))), "resolved.resultId: invalid identity: 4097 characters, at most 4096"),
		okCase("resultId of another run of the namespace accepted", cl(compared(withResult("claim-result/agent/run-2/5")))),
		okCase("resultId with escaped fields accepted",
			cl(compared(set("claimId", sv("claim-verification/a%2Fb/%5F/2")), withResult("claim-result/a%2Fb/%5F/1")))),
		badCase("resultId missing refused", cl(compared(del("resolved.resultId"))), "resolved.resultId: invalid identity: absent, not a string"),
		badCase("resultId an integer refused", cl(compared(set("resolved.resultId", iv(1)))), "resolved.resultId: invalid identity: an integer, not a string"),
		badCase("resultId with the claim prefix refused", cl(compared(withResult("claim-verification/agent/run-1/1"))), "is not claim-result/<namespace>/<runId>/<ordinal>"),
		badCase("resultId non-canonical ordinal refused", cl(compared(withResult("claim-result/agent/run-1/01"))), `resolved.resultId: invalid identity: ordinal "01" is not the plain decimal`),
		badCase("resultId non-canonical field refused", cl(compared(withResult("claim-result/agent/run%5F1/1"))), "resolved.resultId: invalid identity:"),
		badCase("resultId absent field refused", cl(compared(withResult("claim-result/agent/_/1"))), "is the spelling of an absent value"),
		badCase("resultId bad escape refused", cl(compared(withResult("claim-result/agent/run%2f1/1"))), "not followed by 25, 2F or 5F"))
	// the association rules
	add(badCase("resultId in another namespace refused", cl(compared(withResult("claim-result/other/run-1/1"))), `resolved.resultId is in namespace "other", the claim in "agent"`),
		badCase("resultId namespace in another case refused", cl(compared(withResult("claim-result/Agent/run-1/1"))), "resolved.resultId is in namespace"),
		badCase("resultId other than declaredResult refused", cl(compared(set("resolved.resultId", sv("claim-result/agent/run-1/3")),
			set("resolved.evidence.provenance", sv("result claim-result/agent/run-1/3")))), "resolved.resultId is not the row's declaredResult"),
		badCase("compared row without declaredResult refused", cl(compared(del("declaredResult"))), "resolved.resultId is not the row's declaredResult"),
		okCase("TEXT: rule.id of 4096 units accepted", cl(compared(withRule(emoji4096)))),
		badCase("TEXT: rule.id of 4097 units refused", cl(compared(set("resolved.rule.id", sv(a4097)))), "resolved.rule.id is 4097 characters"),
		badCase("rule.id missing refused", cl(compared(del("resolved.rule.id"))), "resolved.rule.id absent is not a string"),
		badCase("rule.id empty refused", cl(compared(set("resolved.rule.id", sv("")))), "resolved.rule.id is empty"),
		badCase("rule.id an integer refused", cl(compared(set("resolved.rule.id", iv(1)))), "resolved.rule.id 1 is not a string"),
		badCase("rule.id other than declaredRule refused", cl(compared(set("resolved.rule.id", sv("chronicle.settlement.debt")))), "resolved.rule.id is not the row's declaredRule"),
		badCase("compared row without declaredRule refused", cl(compared(del("declaredRule"))), "resolved.rule.id is not the row's declaredRule"),
		okCase("rule.version other text accepted", cl(compared(set("resolved.rule.version", sv("2024-01"))))),
		okCase("TEXT: rule.version of 4096 units accepted", cl(compared(set("resolved.rule.version", sv(a4096))))),
		badCase("TEXT: rule.version of 4097 units refused", cl(compared(set("resolved.rule.version", sv(emoji4097)))), "resolved.rule.version is 4097 characters"),
		badCase("rule.version missing refused", cl(compared(del("resolved.rule.version"))), "resolved.rule.version absent is not a string"),
		badCase("rule.version an integer refused", cl(compared(set("resolved.rule.version", iv(1)))), "resolved.rule.version 1 is not a string"),
		badCase("rule.version empty refused", cl(compared(set("resolved.rule.version", sv("")))), "resolved.rule.version is empty"),
		badCase("scope empty refused", cl(compared(setJ("resolved.scope", `{}`))), "resolved.scope is empty"),
		okCase("DIMENSIONS: scope of 1 key accepted", cl(compared(setJ("resolved.scope", `{"document":"a4b3"}`)))),
		okCase("DIMENSIONS: scope of 8 keys accepted", cl(compared(set("resolved.scope", objectOfKeys(8))))),
		badCase("DIMENSIONS: scope of 9 keys refused", cl(compared(set("resolved.scope", objectOfKeys(9)))), "resolved.scope has 9 keys, at most 8"),
		okCase("scope values of any JSON accepted", cl(compared(setJ("resolved.scope", `{"document":{"a":[1,true,null,""]},"n":-3}`)))),
		badCase("scope key empty refused", cl(compared(setJ("resolved.scope", `{"":"x"}`))), "resolved.scope key is empty"),
		okCase("TEXT: scope key of 4096 units accepted", cl(compared(set("resolved.scope", ObjectValue(Member{a4096, sv("x")}))))),
		badCase("TEXT: scope key of 4097 units refused", cl(compared(set("resolved.scope", ObjectValue(Member{a4097, sv("x")})))), "resolved.scope key is 4097 characters"))
	// validateCoverage
	cov := func(text string) edit { return setJ("resolved.coverage", text) }
	add(okCase("coverage empty accepted", cl(compared(cov(`{}`)))),
		okCase("coverage of every key accepted", cl(compared(cov(`{"checked":["a"],"notChecked":["b"],"cannotCover":[{"item":"c","reason":"d","kind":"existence"},{"item":"e","reason":"f","kind":"scope"},{"item":"g","reason":"h"}]}`)))),
		okCase("coverage of empty lists accepted", cl(compared(cov(`{"checked":[],"notChecked":[],"cannotCover":[]}`)))),
		badCase("coverage missing refused", cl(compared(del("resolved.coverage"))), "resolved.coverage is missing"),
		badCase("coverage an array refused", cl(compared(cov(`["document a4b3"]`))), "resolved.coverage an array is not an object"),
		badCase("coverage with an unknown key refused", cl(compared(cov(`{"covered":[]}`))), `resolved.coverage has the unknown key "covered"`),
		badCase("coverage checked a string refused", cl(compared(cov(`{"checked":"document a4b3"}`))), `resolved.coverage checked: "document a4b3" is not an array`),
		badCase("coverage notChecked null refused", cl(compared(cov(`{"notChecked":null}`))), "resolved.coverage notChecked: null is not an array"),
		badCase("coverage cannotCover an object refused", cl(compared(cov(`{"cannotCover":{"item":"a","reason":"b"}}`))), "resolved.coverage cannotCover: an object is not an array"),
		okCase("coverage checked of 32 entries accepted", cl(compared(set("resolved.coverage.checked", stringsArray("d", 32))))),
		badCase("coverage checked of 33 entries refused", cl(compared(set("resolved.coverage.checked", stringsArray("d", 33)))), "resolved.coverage checked: 33 entries, at most 32"),
		okCase("coverage notChecked of 32 entries accepted", cl(compared(set("resolved.coverage.notChecked", stringsArray("d", 32))))),
		badCase("coverage notChecked of 33 entries refused", cl(compared(set("resolved.coverage.notChecked", stringsArray("d", 33)))), "resolved.coverage notChecked: 33 entries, at most 32"),
		okCase("coverage cannotCover of 32 entries accepted", cl(compared(set("resolved.coverage.cannotCover", arrayOf(jv(`{"item":"i","reason":"r"}`), 32))))),
		badCase("coverage cannotCover of 33 entries refused", cl(compared(set("resolved.coverage.cannotCover", arrayOf(jv(`{"item":"i","reason":"r"}`), 33)))), "resolved.coverage cannotCover: 33 entries, at most 32"),
		badCase("coverage checked entry empty refused", cl(compared(cov(`{"checked":["a",""]}`))), "resolved.coverage checked[1] is empty"),
		badCase("coverage checked entry an integer refused", cl(compared(cov(`{"checked":[1]}`))), "resolved.coverage checked[0] 1 is not a string"),
		okCase("TEXT: coverage checked entry of 4096 units accepted", cl(compared(set("resolved.coverage.checked", stringsArray(emoji4096, 1))))),
		badCase("TEXT: coverage checked entry of 4097 units refused", cl(compared(set("resolved.coverage.checked", stringsArray(emoji4097, 1)))), "resolved.coverage checked[0] is 4097 characters"),
		badCase("coverage notChecked entry empty refused", cl(compared(cov(`{"notChecked":[""]}`))), "resolved.coverage notChecked[0] is empty"),
		okCase("TEXT: coverage notChecked entry of 4096 units accepted", cl(compared(set("resolved.coverage.notChecked", stringsArray(a4096, 1))))),
		badCase("TEXT: coverage notChecked entry of 4097 units refused", cl(compared(set("resolved.coverage.notChecked", stringsArray(a4097, 1)))), "resolved.coverage notChecked[0] is 4097 characters"),
		badCase("coverage cannotCover entry a string refused", cl(compared(cov(`{"cannotCover":["x"]}`))), `resolved.coverage cannotCover[0] "x" is not an object`),
		badCase("coverage cannotCover entry with an unknown key refused", cl(compared(cov(`{"cannotCover":[{"item":"a","reason":"b","why":"c"}]}`))), `resolved.coverage cannotCover[0] has the unknown key "why"`),
		badCase("coverage cannotCover item missing refused", cl(compared(cov(`{"cannotCover":[{"reason":"b"}]}`))), "resolved.coverage cannotCover[0].item absent is not a string"),
		badCase("coverage cannotCover reason missing refused", cl(compared(cov(`{"cannotCover":[{"item":"a"}]}`))), "resolved.coverage cannotCover[0].reason absent is not a string"),
		badCase("coverage cannotCover reason empty refused", cl(compared(cov(`{"cannotCover":[{"item":"a","reason":""}]}`))), "resolved.coverage cannotCover[0].reason is empty"),
		okCase("TEXT: coverage cannotCover item and reason of 4096 units accepted",
			cl(compared(set("resolved.coverage.cannotCover", ArrayValue(ObjectValue(Member{"item", sv(a4096)}, Member{"reason", sv(emoji4096)})))))),
		badCase("TEXT: coverage cannotCover item of 4097 units refused",
			cl(compared(set("resolved.coverage.cannotCover", ArrayValue(ObjectValue(Member{"item", sv(a4097)}, Member{"reason", sv("r")}))))), "resolved.coverage cannotCover[0].item is 4097 characters"),
		badCase("TEXT: coverage cannotCover reason of 4097 units refused",
			cl(compared(set("resolved.coverage.cannotCover", ArrayValue(ObjectValue(Member{"item", sv("i")}, Member{"reason", sv(emoji4097)}))))), "resolved.coverage cannotCover[0].reason is 4097 characters"),
		badCase("coverage cannotCover kind other refused", cl(compared(cov(`{"cannotCover":[{"item":"a","reason":"b","kind":"Scope"}]}`))), `resolved.coverage cannotCover[0].kind "Scope" is not existence or scope`),
		badCase("coverage cannotCover kind null refused", cl(compared(cov(`{"cannotCover":[{"item":"a","reason":"b","kind":null}]}`))), "resolved.coverage cannotCover[0].kind null is not existence or scope"))
	// periodProblem
	add(okCase("period with held unknown accepted", cl(compared(queried("2024-02-29T00:00:00Z", "2024-03-01T00:00:00+01:00")))),
		okCase("period with a held range and readAt accepted", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-12-31T23:59:59Z"},"held":{"from":"2023-01-01T00:00:00-05:30","to":"2023-01-01T00:00:00-05:30"},"readAt":"2025-06-01T12:00:00.5Z"}`)))),
		okCase("period of equal instants accepted", cl(compared(queried("2024-01-01T00:00:00Z", "2024-01-01T00:00:00.000Z")))),
		okCase("period in lower-case t and z accepted", cl(compared(queried("2024-01-01t00:00:00z", "2024-01-02t00:00:00z")))),
		okCase("period of nine fraction digits accepted", cl(compared(queried("2024-01-01T00:00:00.123456789Z", "2024-01-01T00:00:00.123456790Z")))),
		okCase("period fraction 0.05 before 0.1 accepted", cl(compared(queried("2024-01-01T00:00:00.05Z", "2024-01-01T00:00:00.1Z")))),
		badCase("period fraction 0.5 after 0.10 refused", cl(compared(queried("2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00.10Z"))), "resolved.period queried from is after to"),
		okCase("period offsets put in order accepted", cl(compared(queried("2024-02-29T23:15:00Z", "2024-03-01T00:30:00+01:00")))),
		badCase("period offsets out of order refused", cl(compared(queried("2024-03-01T00:30:00+01:00", "2024-02-29T23:15:00Z"))), "resolved.period queried from is after to"),
		okCase("period offset +23:59 accepted", cl(compared(queried("2024-01-01T00:00:00+23:59", "2024-01-01T00:00:00Z")))),
		badCase("period offset +24:00 refused", cl(compared(queried("2024-01-01T00:00:00+24:00", "2024-01-02T00:00:00Z"))), "resolved.period queried from has a zone offset beyond ±23:59"),
		okCase("period year 0000 accepted", cl(compared(queried("0000-02-29T00:00:00Z", "9999-12-31T23:59:59Z")))),
		badCase("period to before from refused", cl(compared(queried("2024-01-02T00:00:00Z", "2024-01-01T00:00:00Z"))), "resolved.period queried from is after to"),
		badCase("period held from after to refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z"},"held":{"from":"2024-01-01T00:00:01Z","to":"2024-01-01T00:00:00Z"}}`))), "resolved.period held from is after to"),
		badCase("period zone-less time refused", cl(compared(queried("2024-01-01T00:00:00", "2024-01-02T00:00:00Z"))), "resolved.period queried from is not an RFC 3339 date-time with a zone"),
		badCase("period zone-less to refused", cl(compared(queried("2024-01-01T00:00:00Z", "2024-01-02T00:00:00"))), "resolved.period queried to is not an RFC 3339"),
		badCase("period date only refused", cl(compared(queried("2024-01-01", "2024-01-02T00:00:00Z"))), "queried from is not an RFC 3339"),
		badCase("period space separator refused", cl(compared(queried("2024-01-01 00:00:00Z", "2024-01-02T00:00:00Z"))), "queried from is not an RFC 3339"),
		badCase("period offset without colon refused", cl(compared(queried("2024-01-01T00:00:00+0100", "2024-01-02T00:00:00Z"))), "queried from is not an RFC 3339"),
		badCase("period empty fraction refused", cl(compared(queried("2024-01-01T00:00:00.Z", "2024-01-02T00:00:00Z"))), "queried from is not an RFC 3339"),
		badCase("period non-ASCII digits refused", cl(compared(queried("２０２４-01-01T00:00:00Z", "2024-01-02T00:00:00Z"))), "queried from is not an RFC 3339"),
		badCase("period 29 February of a common year refused", cl(compared(queried("2023-02-29T00:00:00Z", "2024-03-01T00:00:00Z"))), "resolved.period queried from names a date or time that does not exist"),
		badCase("period 29 February 1900 refused", cl(compared(queried("1900-02-29T00:00:00Z", "2024-03-01T00:00:00Z"))), "names a date or time that does not exist"),
		badCase("period month 13 refused", cl(compared(queried("2024-13-01T00:00:00Z", "2025-01-01T00:00:00Z"))), "names a date or time that does not exist"),
		badCase("period day 00 refused", cl(compared(queried("2024-01-00T00:00:00Z", "2025-01-01T00:00:00Z"))), "names a date or time that does not exist"),
		badCase("period 31 April refused", cl(compared(queried("2024-01-01T00:00:00Z", "2024-04-31T00:00:00Z"))), "queried to names a date or time that does not exist"),
		badCase("period hour 24 refused", cl(compared(queried("2024-01-01T24:00:00Z", "2025-01-01T00:00:00Z"))), "names a date or time that does not exist"),
		badCase("period minute 60 refused", cl(compared(queried("2024-01-01T00:60:00Z", "2025-01-01T00:00:00Z"))), "names a date or time that does not exist"),
		badCase("period leap second refused", cl(compared(queried("2016-12-31T23:59:60Z", "2025-01-01T00:00:00Z"))), "names a date or time that does not exist"),
		badCase("period null refused", cl(compared(setJ("resolved.period", `null`))), "resolved.period null is not an object"),
		badCase("period with an unknown key refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z"},"held":"unknown","asOf":"x"}`))), `resolved.period has the unknown key "asOf"`),
		badCase("period queried missing refused", cl(compared(period(`{"held":"unknown"}`))), "resolved.period queried is missing"),
		badCase("period queried a string refused", cl(compared(period(`{"queried":"unknown","held":"unknown"}`))), `resolved.period queried "unknown" is not an object`),
		badCase("period queried with an unknown key refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z","at":"x"},"held":"unknown"}`))), `resolved.period queried has the unknown key "at"`),
		badCase("period queried from missing refused", cl(compared(period(`{"queried":{"to":"2024-01-01T00:00:00Z"},"held":"unknown"}`))), "resolved.period queried from is not an RFC 3339"),
		badCase("period queried from an integer refused", cl(compared(period(`{"queried":{"from":1,"to":"2024-01-01T00:00:00Z"},"held":"unknown"}`))), "resolved.period queried from is not an RFC 3339"),
		badCase("period held missing refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z"}}`))), "resolved.period held is missing"),
		badCase("period held in another case refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z"},"held":"Unknown"}`))), `resolved.period held "Unknown" is not an object`),
		badCase("period held null refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z"},"held":null}`))), "resolved.period held null is not an object"),
		badCase("period readAt not an instant refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z"},"held":"unknown","readAt":"yesterday"}`))), "resolved.period readAt is not an RFC 3339"),
		badCase("period readAt zone-less refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z"},"held":"unknown","readAt":"2024-01-01T00:00:00"}`))), "resolved.period readAt is not an RFC 3339"),
		badCase("period readAt null refused", cl(compared(period(`{"queried":{"from":"2024-01-01T00:00:00Z","to":"2024-01-01T00:00:00Z"},"held":"unknown","readAt":null}`))), "resolved.period readAt is not an RFC 3339"))
	// eligibleAssertion(evidence), eligibleAssertion(claim)
	add(badCase("evidence missing refused", cl(compared(del("resolved.evidence"))), "resolved.evidence is missing"),
		badCase("evidence a string refused", cl(compared(set("resolved.evidence", sv("40/1")))), `resolved.evidence "40/1" is not an object`),
		badCase("evidence with an unknown key refused", cl(compared(set("resolved.evidence.confidence", iv(1)))), `resolved.evidence has the unknown key "confidence"`),
		badCase("evidence subject missing refused", cl(compared(del("resolved.evidence.subject"))), "resolved.evidence subject is missing"),
		badCase("evidence subject a string refused", cl(compared(set("resolved.evidence.subject", sv("debt/Alice/Bob")))), `resolved.evidence subject "debt/Alice/Bob" is not an object`),
		badCase("evidence subject with an unknown key refused", cl(compared(set("resolved.evidence.subject.name", sv("x")))), `resolved.evidence subject has the unknown key "name"`),
		badCase("evidence subject.kind other refused", cl(compared(withSubject(jv(`{"kind":"Entity","id":"debt/Alice/Bob"}`)))), `resolved.evidence subject.kind "Entity" is not "entity"`),
		badCase("evidence subject.kind missing refused", cl(compared(del("resolved.evidence.subject.kind"))), `resolved.evidence subject.kind absent is not "entity"`),
		badCase("evidence subject.id missing refused", cl(compared(del("resolved.evidence.subject.id"))), "resolved.evidence subject.id absent is not a string"),
		badCase("evidence subject.id empty refused", cl(compared(withSubject(jv(`{"kind":"entity","id":""}`)))), "resolved.evidence subject.id is empty"),
		okCase("TEXT: subject.id of 4096 units accepted", cl(compared(withSubject(ObjectValue(Member{"kind", sv("entity")}, Member{"id", sv(emoji4096)}))))),
		badCase("TEXT: subject.id of 4097 units refused", cl(compared(withSubject(ObjectValue(Member{"kind", sv("entity")}, Member{"id", sv(emoji4097)})))), "resolved.evidence subject.id is 4097 characters"),
		badCase("evidence predicate missing refused", cl(compared(del("resolved.evidence.predicate"))), "resolved.evidence predicate absent is not a string"),
		badCase("evidence predicate empty refused", cl(compared(withPredicate(""))), "resolved.evidence predicate is empty"),
		okCase("TEXT: predicate of 4096 units accepted", cl(compared(withPredicate(a4096)))),
		badCase("TEXT: predicate of 4097 units refused", cl(compared(withPredicate(a4097))), "resolved.evidence predicate is 4097 characters"),
		badCase("evidence stratum other refused", cl(compared(set("resolved.evidence.stratum", sv("inferred")))), `resolved.evidence stratum "inferred" is not "asserted"`),
		badCase("evidence stratum missing refused", cl(compared(del("resolved.evidence.stratum"))), `resolved.evidence stratum absent is not "asserted"`),
		badCase("evidence provenance missing refused", cl(compared(del("resolved.evidence.provenance"))), "resolved.evidence provenance absent is not a string"),
		badCase("evidence provenance an integer refused", cl(compared(set("resolved.evidence.provenance", iv(1)))), "resolved.evidence provenance 1 is not a string"),
		badCase("evidence value missing refused", cl(compared(del("resolved.evidence.value"))), "resolved.evidence value is missing"),
		badCase("participates: evidence value null refused", cl(compared(set("resolved.evidence.value", nullValue()))), "resolved.evidence value null does not participate"),
		badCase("participates: evidence value unknown refused", cl(compared(set("resolved.evidence.value", sv("unknown")))), `resolved.evidence value "unknown" does not participate`),
		badCase("participates: evidence value of kind unknown refused", cl(compared(setJ("resolved.evidence.value", `{"kind":"unknown"}`))), "resolved.evidence value an object does not participate"),
		badCase("participates: evidence value of kind not-applicable refused", cl(compared(setJ("resolved.evidence.value", `{"kind":"not-applicable","why":1}`))), "resolved.evidence value an object does not participate"),
		okCase("participates: evidence value Unknown (another case) accepted", cl(compared(set("resolved.evidence.value", sv("Unknown"))))),
		badCase("comparableValueOf: evidence value an object refused", cl(compared(setJ("resolved.evidence.value", `{"kind":"rational","n":40}`))), "resolved.evidence value an object is not a string, integer or boolean"),
		badCase("comparableValueOf: evidence value an empty object refused", cl(compared(setJ("resolved.evidence.value", `{}`))), "resolved.evidence value an object is not a string, integer or boolean"),
		badCase("comparableValueOf: evidence value an array refused", cl(compared(setJ("resolved.evidence.value", `["40/1"]`))), "resolved.evidence value an array is not a string, integer or boolean"),
		badCase("comparableValueOf: evidence value an empty array refused", cl(compared(setJ("resolved.evidence.value", `[]`))), "resolved.evidence value an array is not a string"),
		okCase("comparableValueOf: evidence value an integer accepted", cl(compared(set("resolved.evidence.value", iv(40))))),
		okCase("comparableValueOf: evidence value a negative integer accepted", cl(compared(set("resolved.evidence.value", iv(-7))))),
		okCase("comparableValueOf: evidence value true accepted", cl(compared(set("resolved.evidence.value", bv(true))))),
		okCase("comparableValueOf: evidence value false accepted", cl(compared(set("resolved.evidence.value", bv(false))))),
		okCase("comparableValueOf: evidence value empty string accepted", cl(compared(set("resolved.evidence.value", sv(""))))),
		okCase("comparableValueOf: claim value an integer accepted", cl(compared(withValue(iv(40))))),
		okCase("comparableValueOf: claim value true accepted", cl(compared(withValue(bv(true)), withOutcome("supported", "no-conflict")))),
		badCase("participates: claim value null refused", cl(compared(withValue(nullValue()))), "resolved.claim value null does not participate"),
		badCase("participates: claim value unknown refused", cl(compared(withValue(sv("unknown")))), `resolved.claim value "unknown" does not participate`),
		badCase("comparableValueOf: claim value an object refused", cl(compared(withValue(jv(`{"n":30}`)))), "resolved.claim value an object is not a string, integer or boolean"),
		badCase("claim with an unknown key refused", cl(compared(set("resolved.claim.extra", iv(1)))), `resolved.claim has the unknown key "extra"`),
		badCase("claim stratum other refused", cl(compared(set("resolved.claim.stratum", sv("declared")))), `resolved.claim stratum "declared" is not "asserted"`),
		badCase("claim subject.kind other refused", cl(compared(set("resolved.claim.subject.kind", sv("statement")))), `resolved.claim subject.kind "statement" is not "entity"`),
		badCase("evidence is checked before claim", cl(compared(set("resolved.evidence.stratum", sv("x")), set("resolved.claim.stratum", sv("y")))), `resolved.evidence stratum "x"`))
	// the pair association
	add(badCase("subjects differ refused", cl(compared(set("resolved.evidence.subject.id", sv("debt/Bob/Alice")))), "resolved.evidence and resolved.claim are about different subjects"),
		okCase("subjects equal canonically (members in another order) accepted",
			rawAt(compared(), "resolved.evidence.subject", `{"kind":"entity","id":"debt/Alice/Bob"}`)),
		okCase("subjects equal canonically (escaped spelling) accepted",
			rawAt(compared(), "resolved.evidence.subject", `{"id":"debt\/Alice\/\u0042ob","kind":"entity"}`)),
		badCase("predicates differ refused", cl(compared(set("resolved.evidence.predicate", sv("debt")))), "resolved.evidence and resolved.claim have different predicates"),
		badCase("evidence provenance of another result refused", cl(compared(set("resolved.evidence.provenance", sv("result claim-result/agent/run-1/2")))), `resolved.evidence.provenance is not "result <resultId>"`),
		badCase("evidence provenance without its word refused", cl(compared(set("resolved.evidence.provenance", sv("claim-result/agent/run-1/1")))), `resolved.evidence.provenance is not "result <resultId>"`),
		badCase("evidence provenance with two spaces refused", cl(compared(set("resolved.evidence.provenance", sv("result  claim-result/agent/run-1/1")))), `resolved.evidence.provenance is not`),
		badCase("claim provenance of another rule refused", cl(compared(set("resolved.claim.provenance", sv("rule chronicle.settlement.debt")))), `resolved.claim.provenance is not "rule <rule id>"`),
		badCase("claim provenance in another case refused", cl(compared(set("resolved.claim.provenance", sv("Rule chronicle.settlement.settled")))), `resolved.claim.provenance is not "rule <rule id>"`),
		badCase("claim value other than declaredValue refused", cl(compared(set("resolved.claim.value", sv("40/1")))), "resolved.claim.value is not the row's declaredValue"),
		badCase("claim value 30 against declaredValue \"30\" refused", cl(compared(withValue(sv("30")), set("resolved.claim.value", iv(30)))), "resolved.claim.value is not the row's declaredValue"),
		badCase("claim value \"30\" against declaredValue 30 refused", cl(compared(withValue(iv(30)), set("resolved.claim.value", sv("30")))), "resolved.claim.value is not the row's declaredValue"),
		badCase("claim value true against declaredValue \"true\" refused", cl(compared(withValue(sv("true")), set("resolved.claim.value", bv(true)))), "resolved.claim.value is not the row's declaredValue"),
		okCase("claim value equal canonically (escaped spelling) accepted", rawAt(compared(), "declaredValue", `"\u0033\u0030\/1"`)))
	return cs
}

func TestReadRow(t *testing.T) {
	for _, c := range rowCases {
		t.Run(c.name, func(t *testing.T) {
			v, err := ReadRow(c.line)
			if c.want == "" {
				require.NoError(t, err)
				require.Equal(t, Object, v.Kind)
				// The canonical form of an accepted row is accepted too.
				_, err = ReadRow(Canonical(v))
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			// JSON line errors wrap ErrJSON; the seed's rules wrap ErrRow.
			if _, perr := ParseLine(c.line, RowBytes); perr != nil {
				require.ErrorIs(t, err, ErrJSON)
				require.NotErrorIs(t, err, ErrRow)
			} else {
				require.ErrorIs(t, err, ErrRow)
				require.NotErrorIs(t, err, ErrJSON)
			}
		})
	}
}

// TestRowCasesTable holds the table itself to what the tests assume.
func TestRowCasesTable(t *testing.T) {
	names := map[string]bool{}
	accepted, refused := 0, 0
	for _, c := range rowCases {
		require.False(t, names[c.name], "duplicate case name %q", c.name)
		names[c.name] = true
		require.NotContains(t, string(c.line), "\n", "%s: a JSON Lines line holds no LF", c.name)
		switch {
		case c.want == "":
			accepted++
		default:
			refused++
		}
	}
	require.Greater(t, accepted, 50)
	require.Greater(t, refused, 150)
	// The two base rows are canonical, as Chronicle writes rows.
	require.Equal(t, comparedText, string(Canonical(jv(comparedText))))
	require.Equal(t, unverifiedText, string(Canonical(jv(unverifiedText))))
}

// TestReadRowFirstRuleWins shows the order of the seed on rows that break
// two rules: the earlier rule names itself.
func TestReadRowFirstRuleWins(t *testing.T) {
	tests := []struct {
		name string
		row  Value
		want string
	}{
		{"unknown key before checker", unverified(set("extra", iv(1)), del("checker")), `unknown key "extra"`},
		{"checker before claimId", unverified(set("checker", iv(1)), set("claimId", sv("x"))), "checker 1 is not an object"},
		{"claimId before kind", unverified(set("claimId", sv("x")), set("kind", sv("x"))), "claimId:"},
		{"iteration before turn", unverified(set("iteration", iv(-1)), set("turn", iv(0))), "iteration -1"},
		{"turn before checker.id", unverified(set("turn", iv(0)), set("checker.id", sv("x"))), "turn 0"},
		{"checker.version before declaredValue", unverified(set("checker.version", iv(2)), del("declaredValue")), "checker.version 2"},
		{"declaredResult before declaredRule", unverified(set("declaredResult", iv(1)), set("declaredRule", sv(""))), "declaredResult 1"},
		{"declaredRule before declaredValue size", unverified(set("declaredRule", sv("")), set("declaredValue", sv(rep("v", 9000)))), "declaredRule is empty"},
		{"declaredOn before outcome", unverified(set("declaredOn", sv("x")), set("reason", sv("x"))), `declaredOn "x"`},
		{"noise before reason pairing", compared(set("standing", sv("noise")), withOutcome("supported", "conflict")), "a noise claim is never compared"},
		{"resolved keys before rule", compared(set("resolved.x", iv(1)), del("resolved.rule")), `resolved has the unknown key "x"`},
		{"rule keys before scope", compared(set("resolved.rule.x", iv(1)), del("resolved.scope")), `resolved.rule has the unknown key "x"`},
		{"scope before resultId", compared(del("resolved.scope"), del("resolved.resultId")), "resolved.scope is missing"},
		{"resultId before rule.id", compared(del("resolved.resultId"), set("resolved.rule.id", sv(""))), "resolved.resultId: invalid identity"},
		{"scope keys before coverage", compared(setJ("resolved.scope", `{}`), del("resolved.coverage")), "resolved.scope is empty"},
		{"coverage before period", compared(del("resolved.coverage"), setJ("resolved.period", `null`)), "resolved.coverage is missing"},
		{"period before evidence", compared(setJ("resolved.period", `null`), del("resolved.evidence")), "resolved.period null"},
		{"assertions before the pair", compared(del("resolved.claim.value"), set("resolved.evidence.predicate", sv("x"))), "resolved.claim value is missing"},
		{"subjects before predicates", compared(set("resolved.claim.subject.id", sv("x")), set("resolved.claim.predicate", sv("x"))), "different subjects"},
		{"predicates before provenance", compared(set("resolved.claim.predicate", sv("x")), set("resolved.claim.provenance", sv("x"))), "different predicates"},
		{"provenance before value", compared(set("resolved.claim.provenance", sv("x")), set("resolved.claim.value", sv("x"))), "resolved.claim.provenance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadRow(Canonical(tt.row))
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
			require.True(t, errors.Is(err, ErrRow))
		})
	}
}
