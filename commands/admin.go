package commands

import (
	"context"

	"github.com/casper-chronicle/chronicle/db"
)

// The archive's upkeep: reindex and migrate.

// ReindexOut is a rebuild of the indexes: its JSON is the `reindex
// --json` line.
type ReindexOut struct {
	Archive   string `json:"archive"`
	Reindexed int    `json:"reindexed"` // documents indexed
}

// Reindex rebuilds the term, line and entity indexes from the stored
// documents (db.Archive.ReindexWith: ctx stops it between batches, opts
// says what progress to show).
func Reindex(ctx context.Context, a *db.Archive, opts db.ReindexOptions) (*ReindexOut, error) {
	n, err := a.ReindexWith(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &ReindexOut{Archive: a.Path(), Reindexed: n}, nil
}

// MigrateStep is one schema upgrade `migrate` ran.
type MigrateStep struct {
	From    int    `json:"from"`
	Summary string `json:"summary"`
	To      int    `json:"to"`
}

// MigrateOut is what `migrate` did: its JSON is the `migrate --json`
// line (fields in the order of their names). Steps is empty, not null,
// when there was nothing to do.
type MigrateOut struct {
	Archive    string        `json:"archive"`
	Schema     int           `json:"schema"`
	SchemaFrom int           `json:"schema_from"`
	Steps      []MigrateStep `json:"steps"`
	Upgraded   bool          `json:"upgraded"`
}

// Migrate reports the upgrade of an archive opened for writing: opening
// it ran every registered step in one transaction (db.Open), and
// a.UpgradedFrom says from which schema.
func Migrate(a *db.Archive) (*MigrateOut, error) {
	v, err := a.Schema()
	if err != nil {
		return nil, err
	}
	out := &MigrateOut{Archive: a.Path(), Schema: v, SchemaFrom: v, Steps: []MigrateStep{}, Upgraded: a.UpgradedFrom != 0}
	if a.UpgradedFrom != 0 {
		out.SchemaFrom = a.UpgradedFrom
		for _, u := range db.Upgrades[a.UpgradedFrom-1 : v-1] {
			out.Steps = append(out.Steps, MigrateStep{From: u.From, Summary: u.Summary, To: u.From + 1})
		}
	}
	return out, nil
}
