// Package original brings the original tool's files into Chronicle without
// losing, misreading or relabelling any of them: legacy CASPER-CHRON-V1
// stores (readable only when their event table equals the V1 typed-only
// extraction, CONTRACT 13), V1 and V2 receipts, and whole folders of
// `.chronicle` stores imported into an archive with the receipts lying beside
// them (`chronicle import`). It does not upgrade archives: archive schema
// upgrades are registered steps in package db (db.Upgrades), run on open or
// by `chronicle migrate`.
//
// # Caveats
//
// A store is imported exactly as it is (version, magic, imported_at), so
// `chronicle export` gives back the same bytes. A store whose document is
// already in the archive under a different store is reported and left out,
// with its receipts: they could not verify against the store the archive
// keeps.
package original
