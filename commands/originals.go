package commands

import (
	"cmp"
	"slices"

	"github.com/casper-chronicle/chronicle/db"
)

// OriginalOut is one original file of `originals`: what it is, and what
// was derived from it (documents, and the originals inside it).
type OriginalOut struct {
	OriginalSHA256 string       `json:"original_sha256"`
	Kind           string       `json:"kind"`
	Size           int64        `json:"size"`
	Names          []string     `json:"names"`
	ImportedAt     uint64       `json:"imported_at"`
	DerivedFrom    string       `json:"derived_from,omitempty"` // the original it was found in
	Derived        []DerivedOut `json:"derived"`
}

// DerivedOut is one output derived from an original.
type DerivedOut struct {
	OutputSHA256 string  `json:"output_sha256"`
	OutputKind   string  `json:"output_kind"` // document or original
	Part         string  `json:"part"`
	Tool         db.Tool `json:"tool"`
}

// Originals lists the archive's original files, files given to ingest
// first (in import order), each followed by the originals found in it.
func Originals(a *db.Archive) ([]OriginalOut, error) {
	files, err := a.OriginalFiles()
	if err != nil {
		return nil, err
	}
	byInput, err := a.AllDerivations()
	if err != nil {
		return nil, err
	}
	parent := map[db.Digest]db.Digest{}
	for in, dvs := range byInput {
		for _, dv := range dvs {
			if dv.OutputKind == "original" {
				parent[dv.Output] = in
			}
		}
	}
	rec := map[db.Digest]*db.OriginalFile{}
	for _, f := range files {
		rec[f.SHA256] = f
	}
	var out []OriginalOut
	var visit func(f *db.OriginalFile)
	visit = func(f *db.OriginalFile) {
		o := OriginalOut{OriginalSHA256: f.SHA256.String(), Kind: f.Kind, Size: f.Size, Names: f.Names, ImportedAt: f.ImportedAt, Derived: []DerivedOut{}}
		if p, ok := parent[f.SHA256]; ok {
			o.DerivedFrom = p.String()
		}
		dvs := slices.Clone(byInput[f.SHA256])
		slices.SortFunc(dvs, func(x, y db.Derivation) int { return cmp.Compare(x.Part, y.Part) })
		for _, dv := range dvs {
			o.Derived = append(o.Derived, DerivedOut{OutputSHA256: dv.Output.String(), OutputKind: dv.OutputKind, Part: dv.Part, Tool: dv.Tool})
		}
		out = append(out, o)
		for _, dv := range dvs {
			if child, ok := rec[dv.Output]; ok && dv.OutputKind == "original" {
				visit(child)
			}
		}
	}
	roots := slices.DeleteFunc(slices.Clone(files), func(f *db.OriginalFile) bool { _, ok := parent[f.SHA256]; return ok })
	slices.SortStableFunc(roots, func(x, y *db.OriginalFile) int { return cmp.Compare(x.ImportedAt, y.ImportedAt) })
	for _, f := range roots {
		visit(f)
	}
	return out, nil
}
