package main

import (
	"fmt"
	"io"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// bucketUse is where one bucket's bytes go: its pages as allocated and the
// bytes its keys, values and page headers use of them.
type bucketUse struct {
	name         string
	keys         int
	inuse, alloc int64
}

// bucketUses reads the archive's bucket statistics (bbolt's Bucket.Stats),
// largest allocation first, with the file's other pages (meta, freelist
// and free pages) last.
func bucketUses(path string, fileBytes int64) ([]bucketUse, error) {
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("bucket statistics of %s: %w", path, err)
	}
	defer b.Close()
	var out []bucketUse
	var used int64
	err = b.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			st := bk.Stats()
			u := bucketUse{name: string(name), keys: st.KeyN,
				inuse: int64(st.LeafInuse + st.BranchInuse), alloc: int64(st.LeafAlloc + st.BranchAlloc)}
			used += u.alloc
			out = append(out, u)
			return nil
		})
	})
	slices.SortFunc(out, func(x, y bucketUse) int { return int(y.alloc - x.alloc) })
	out = append(out, bucketUse{name: "other pages (meta, root, freelist, free)", alloc: fileBytes - used})
	return out, err
}

// printBytes writes the table of where the archive's bytes go, per bucket,
// against the sources.
func printBytes(w io.Writer, r *result) {
	if len(r.buckets) == 0 {
		return
	}
	src := float64(r.sizes.total)
	fmt.Fprintf(w, "Where the bytes of the %s-document archive go (%.1f MB file for %.1f MB of sources; bbolt's bucket statistics):\n\n",
		thousands(r.docs), float64(r.archive)/1e6, src/1e6)
	fmt.Fprintln(w, "| bucket | keys | in use | pages | pages / sources | bytes per document |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	for _, u := range r.buckets {
		if u.alloc == 0 {
			continue
		}
		in := "–"
		if u.inuse > 0 {
			in = fmt.Sprintf("%.1f MB", float64(u.inuse)/1e6)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.1f MB | %.2f | %s |\n", u.name, thousands(u.keys), in,
			float64(u.alloc)/1e6, float64(u.alloc)/src, thousands(int(u.alloc/int64(r.docs))))
	}
	fmt.Fprintln(w)
}
