package chronicle_test

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/casper-chronicle/chronicle"
)

// emptyArchive is a fresh archive in a temporary directory, and what
// removes it.
func emptyArchive() (*chronicle.Archive, func()) {
	dir, err := os.MkdirTemp("", "chronicle-example")
	if err != nil {
		log.Fatal(err)
	}
	a, err := chronicle.Open(filepath.Join(dir, "evidence.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	return a, func() { a.Close(); os.RemoveAll(dir) }
}

// ingestFile ingests a file of the repository under its base name.
func ingestFile(a *chronicle.Archive, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.Ingest(filepath.Base(path), src); err != nil {
		log.Fatal(err)
	}
}

// newArchive is a fresh archive holding the repository's sample story
// about Alice and Bob, as alice-bob-en.txt.
func newArchive() (*chronicle.Archive, func()) {
	a, done := emptyArchive()
	ingestFile(a, "testdata/samples/alice-bob-en.txt")
	return a, done
}

// Open an archive, ingest a document and ask whether a debt was repaid.
func Example() {
	dir, err := os.MkdirTemp("", "chronicle-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	a, err := chronicle.Open(filepath.Join(dir, "evidence.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	src := []byte("Ahmed borrows from Khalid, then repays him in full.\n" +
		"@chronicle\tAhmed\tBORROWED_FROM\tKhalid\t100\tSAR\t2026-01-05\tASSERTED\tPOSITIVE\tCONFIRMED\n" +
		"@chronicle\tAhmed\tPAID_TO\tKhalid\t100\tSAR\t2026-02-01\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	doc, err := a.Ingest("loan.txt", src)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Document.Names[0], doc.Document.Events, "events")

	ans, err := a.Query("loan.txt", "Did Ahmed repay Khalid?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Status)

	verdict, err := a.Verify(ans.Receipt)
	fmt.Println(verdict, err)
	// Output:
	// loan.txt 2 events
	// SUPPORTED
	// VALID <nil>
}

// Query answers with the canonical JSON line of the original tool.
func ExampleArchive_Query() {
	a, done := newArchive()
	defer done()
	ans, err := a.Query("alice-bob-en.txt", "Did Alice repay Bob?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Status)
	fmt.Println(len(ans.JSON) > 0, ans.JSON[0] == '{')
	// Output:
	// PARTIAL
	// true true
}

// Claim looks for a literal `Subject Predicate Object.` statement.
func ExampleArchive_Claim() {
	a, done := newArchive()
	defer done()
	if _, err := a.Ingest("owns.txt", []byte("Alice owns Book.\n")); err != nil {
		log.Fatal(err)
	}
	for _, object := range []string{"Book", "Car"} {
		ans, err := a.Claim("owns.txt", "Alice", "owns", object)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(object, ans.Status)
	}
	// Output:
	// Book EXACT_STATED
	// Car UNRESOLVED
}

// Find searches every document; FindIn searches one.
func ExampleArchive_Find() {
	a, done := newArchive()
	defer done()
	found, err := a.Find("Saud", 20)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range found.Documents {
		fmt.Println(d.Names[0])
	}
	in, err := a.FindIn("alice-bob-en.txt", "Saud")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(in.Status)
	// Output:
	// alice-bob-en.txt
	// MATCHES
}

// Entity lists the events naming someone, across documents.
func ExampleArchive_Entity() {
	a, done := newArchive()
	defer done()
	ans, err := a.Entity("Saud")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ans.Documents), "document")
	verdict, _ := a.Verify(ans.Receipt)
	fmt.Println(verdict)
	// Output:
	// 1 document
	// VALID
}

// Settle answers across documents: a loan agreement and the bank
// statement that repays it.
func ExampleArchive_Settle() {
	a, done := emptyArchive()
	defer done()
	ingestFile(a, "testdata/stories/1-loan-agreement-en.txt")
	ingestFile(a, "testdata/stories/2-bank-statement-en.txt")
	ans, err := a.Settle("Did Layla repay Omar?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Status, len(ans.Documents), "documents")
	// Output:
	// SUPPORTED 2 documents
}

// CheckClaims compares an agent's declared claims with the archive.
func ExampleArchive_CheckClaims() {
	a, done := newArchive()
	defer done()
	claims := []byte(`{"chronicle-claims":1,"namespace":"example","runId":"run-1"}
{"result":1,"document":"alice-bob-en.txt","query":"Did Alice repay Bob?"}
{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"SUPPORTED"}
{"claim":2,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.settled","declaredValue":"40"}
`)
	rep, err := a.CheckClaims(claims)
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range rep.Rows {
		var r struct{ Outcome, Reason string }
		if err := json.Unmarshal(row, &r); err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.Outcome, r.Reason)
	}
	// Output:
	// contradicted conflict
	// supported numeric-leniency
}
