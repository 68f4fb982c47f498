package engine

import (
	"bytes"
	"io"
)

// The benchmark corpus of CONTRACT 14: 5,000,096 bytes, exactly 1,000,000
// whitespace-separated words. Four typed records (Ahmed borrows 100 SAR
// from Khalid; Saud is Khalid's intermediary; Ahmed pays Saud 40; an
// UNCERTAIN/PENDING transfer of 60), each of the first three followed by
// Spec14FillerWords copies of "word " and a LF. `casper-chronicle
// --benchmark`, the Go benchmarks and `make bench-real` all measure it.
const (
	Spec14FillerWords = 333320
	Spec14Size        = 5000096
	Spec14SHA256      = "2e3eb278eb4dbaecd57451a9691840315fad057434fcfb05b3e27bccbd2cd663"
)

// Spec14Records are the corpus's four typed records.
var Spec14Records = [4]string{
	"@chronicle\tAhmed\tBORROWED_FROM\tKhalid\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED",
	"@chronicle\tSaud\tINTERMEDIARY_FOR\tKhalid\t-\tSAR\tT2\tASSERTED\tPOSITIVE\tCONFIRMED",
	"@chronicle\tAhmed\tPAID_TO\tSaud\t40\tSAR\tT3\tASSERTED\tPOSITIVE\tCONFIRMED",
	"@chronicle\tAhmed\tTRANSFER_TO\tSaud\t60\tSAR\tT4\tUNCERTAIN\tPOSITIVE\tPENDING",
}

// WriteSpec14Corpus writes the corpus to w a 64 KiB piece at a time: it is
// never held whole, so a command measuring its own memory on it measures
// the work, not the corpus.
func WriteSpec14Corpus(w io.Writer) error {
	const perWrite = 13107 // copies of "word " (65,535 bytes) per write
	block := bytes.Repeat([]byte("word "), perWrite)
	for i, r := range Spec14Records {
		if _, err := io.WriteString(w, r+"\n"); err != nil {
			return err
		}
		if i == len(Spec14Records)-1 {
			break
		}
		for left := Spec14FillerWords; left > 0; {
			n := min(left, perWrite)
			if _, err := w.Write(block[:5*n]); err != nil {
				return err
			}
			left -= n
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

// Spec14Corpus returns the corpus.
func Spec14Corpus() []byte {
	var b bytes.Buffer
	b.Grow(Spec14Size)
	WriteSpec14Corpus(&b) // a bytes.Buffer never fails to write
	return b.Bytes()
}
