package engine

import "unicode/utf8"

// parseLiteral matches `Subject Predicate Object.` (CONTRACT 7.3). Violations
// are "no match"; only a token of 128+ bytes in an otherwise valid statement
// is fatal. (The span-length limit is applied by the caller.)
func parseLiteral(text []byte) (fields, bool, error) {
	end := len(text)
	for end > 0 && isBlank(text[end-1]) {
		end--
	}
	if end == 0 || text[end-1] != '.' {
		return fields{}, false, nil
	}
	body := text[:end-1]
	var tok [3][]byte
	var tokAt [3]int
	n := 0
	for i := 0; i < len(body); {
		if isBlank(body[i]) {
			i++
			continue
		}
		if n == 3 {
			return fields{}, false, nil
		}
		j := i
		for j < len(body) && !isBlank(body[j]) {
			j++
		}
		tok[n], tokAt[n] = body[i:j], i
		n++
		i = j
	}
	if n != 3 {
		return fields{}, false, nil
	}
	for _, t := range tok {
		if !validLiteralToken(t) {
			return fields{}, false, nil
		}
	}
	for k, t := range tok {
		if len(t) > MaxFieldLen {
			return fields{}, false, failAt(tokAt[k], ErrFieldTooLong,
				"literal statement token %d is %d bytes, the limit is %d", k+1, len(t), MaxFieldLen)
		}
	}
	return fields{
		subject: string(tok[0]), predicate: string(tok[1]), object: string(tok[2]),
		currency: NoValue, time: NoValue, modality: ModalityLiteral,
		polarity: PolarityPositive, status: StatusAsserted, amount: Zero,
	}, true, nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// validLiteralToken rejects control bytes, DEL, ASCII `.,;:!?@` and the
// Unicode punctuation of CONTRACT 7.3.
func validLiteralToken(t []byte) bool {
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			switch {
			case c < 0x20, c == 0x7f:
				return false
			}
			switch c {
			case '.', ',', ';', ':', '!', '?', '@':
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(t[i:])
		switch r {
		case 0x060C, 0x061B, 0x061F, 0x2024, 0x2025, 0x2026, 0x2027, 0x2028, 0x2029, 0x3002, 0xFF0E, 0xFF01, 0xFF1F:
			return false
		}
		i += size
	}
	return true
}
