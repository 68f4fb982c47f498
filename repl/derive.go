package repl

import (
	"context"
	"fmt"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/extract"
)

// deriver turns an original file (mail, mbox, web page, PDF) read by
// ingest into the originals to keep and the texts to ingest
// (db.DeriveFunc): the file itself, each original inside it (attachments,
// messages, extracted in turn) and each text derived, named after the
// file: FILE for its own text, FILE/PART for a part's. A text file is
// ingested as it is (nil).
type deriver struct {
	ctx  context.Context
	opts extract.Options
}

func (dv *deriver) derive(path string, src []byte) (*db.DerivedSet, error) {
	kind := extract.Detect(path, src)
	if kind == extract.KindText || kind == extract.KindBinary {
		// Ingested as text, as before: a file that is not UTF-8 is
		// rejected with the line and byte at fault.
		return nil, nil
	}
	set := &db.DerivedSet{}
	err := dv.walk(set, path, kind, src, -1, "", db.Tool{}, "", 0)
	return set, err
}

// walk adds original src (of kind, named name, found at part of original
// parent by tool) and what it yields to set.
func (dv *deriver) walk(set *db.DerivedSet, name string, kind extract.Kind, src []byte, parent int, part string, tool db.Tool, contentType string, depth int) error {
	me := len(set.Originals)
	set.Originals = append(set.Originals, db.OriginalInput{Data: src, Kind: string(kind), ContentType: contentType,
		Names: []string{name}, Parent: parent, Part: part, Tool: tool})
	opts := dv.opts
	opts.Depth = depth // Extract refuses past MaxDepth
	parts, err := extract.Extract(dv.ctx, kind, src, opts)
	if err != nil {
		if depth > 0 { // the file's line names the file; this names the part in it
			return fmt.Errorf("%s: %w", part, err)
		}
		return err
	}
	for _, p := range parts {
		t := db.Tool{Name: p.Tool.Name, Version: p.Tool.Version, Options: p.Tool.Options}
		label := name
		if p.Path != "" {
			label = name + "/" + p.Path
		}
		if p.Original == nil {
			dt := db.DerivedText{Original: me, Part: p.Path, Tool: t, Text: p.Text, Names: []string{label}}
			if me == 0 && p.Path == "" {
				dt.Names, dt.File = nil, name // the file's own text: its path
			}
			set.Texts = append(set.Texts, dt)
			continue
		}
		switch k := extract.Detect(p.Path, p.Original); k {
		case extract.KindText:
			// A text attachment is a document itself.
			set.Texts = append(set.Texts, db.DerivedText{Original: me, Part: p.Path, Tool: t, Text: p.Original, Names: []string{label}})
		case extract.KindBinary:
			// Kept, not read (an image, an archive).
			set.Originals = append(set.Originals, db.OriginalInput{Data: p.Original, Kind: string(k), ContentType: p.ContentType,
				Names: []string{label}, Parent: me, Part: p.Path, Tool: t})
		default:
			if err := dv.walk(set, label, k, p.Original, me, p.Path, t, p.ContentType, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
