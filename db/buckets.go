package db

// BucketSince is, for every top-level bucket of a current archive, the
// first schema whose archives have it in its present role (FORMAT.md,
// "Buckets", column "since schema"). The index buckets were rebuilt in
// later layouts; their number is the schema that introduced them. It is
// the code's side of that column: format_doc_test.go holds the document
// to it, and it to the buckets of a new archive and of the fixture
// archives older schemas wrote (testdata/archives/schemaN.db).
var BucketSince = map[string]int{
	"meta":          1,
	"docs":          1,
	"chunks":        1,
	"events":        1,
	"names":         1,
	"receipts":      1,
	"originals":     2, // Upgrades step 1 -> 2 creates it
	"seqs":          3, // step 2 -> 3 creates it, with the first indexes
	"grams":         3,
	"entities":      3,
	"spans":         5,
	"lines":         7,
	"claimchecks":   8, // step 7 -> 8 creates it
	"entity_counts": 9,
	"gramgroups":    15, // step 14 -> 15 builds it
	"docorder":      16, // step 15 -> 16 builds it
	"receiptcounts": 16, // and these two
	"receiptorder":  16,
	"log":           18, // step 17 -> 18 builds it
	"grampacks":     19, // step 18 -> 19 creates it; opens for writing fill it
	"origfiles":     20, // step 19 -> 20 creates these three
	"origchunks":    20,
	"derivations":   20,
}
