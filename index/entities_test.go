package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

func ev(subject, object string) engine.Event {
	return engine.Event{Subject: subject, Predicate: engine.PredPaidTo, Object: object}
}

// entityDocs: names that are prefixes of each other, differ by a trailing
// space or a byte below the separator's successor, Arabic names, and an
// event naming the same entity as subject and object.
var entityDocs = map[uint64][]engine.Event{
	3: {ev("Ali", "Al"), ev("Al", "Al"), ev("Alice", "Ali ")},
	1: {ev("Al\x01", "أحمد"), ev("أحمد علي", "Ali")},
	// Sequence 300 sorts after 3 only numerically: keys hold u64 BE.
	300: {ev("أحمد", "Al")},
	64:  {},
}

func addEntityDocs(t *testing.T, db *bolt.DB) {
	t.Helper()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for _, s := range []uint64{300, 3, 64, 1} {
			if err := AddEntities(tx, s, testSpanDoc(s), entityDocs[s], nil); err != nil {
				return err
			}
		}
		return nil
	}))
}

func TestEntityLookup(t *testing.T) {
	db := openTestDB(t)
	addEntityDocs(t, db)
	S, O := RoleSubject, RoleObject
	for _, c := range []struct {
		name string
		want []EntityRef
	}{
		{"Al", []EntityRef{{3, 0, O}, {3, 1, S}, {3, 1, O}, {300, 0, O}}},
		{"Ali", []EntityRef{{1, 1, O}, {3, 0, S}}},
		{"Ali ", []EntityRef{{3, 2, O}}},
		{"Alice", []EntityRef{{3, 2, S}}},
		{"Al\x01", []EntityRef{{1, 0, S}}},
		{"أحمد", []EntityRef{{1, 0, O}, {300, 0, S}}},
		{"أحمد علي", []EntityRef{{1, 1, S}}},
		{"A", nil},
		{"أ", nil},
		{"", nil},
		{"Alic", nil},
	} {
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			got, err := Entity(tx, c.name)
			require.NoError(t, err)
			require.Equal(t, c.want, got, "name %q", c.name)
			return nil
		}))
	}
	require.Equal(t, "subject", RoleSubject.String())
	require.Equal(t, "object", RoleObject.String())
}

func TestEntityNames(t *testing.T) {
	db := openTestDB(t)
	addEntityDocs(t, db)
	for _, c := range []struct {
		prefix string
		want   []NameCount
	}{
		{"", []NameCount{{"Al", 3}, {"Al\x01", 1}, {"Ali", 2}, {"Ali ", 1}, {"Alice", 1}, {"أحمد", 2}, {"أحمد علي", 1}}},
		{"Al", []NameCount{{"Al", 3}, {"Al\x01", 1}, {"Ali", 2}, {"Ali ", 1}, {"Alice", 1}}},
		{"Ali", []NameCount{{"Ali", 2}, {"Ali ", 1}, {"Alice", 1}}},
		{"Ali ", []NameCount{{"Ali ", 1}}},
		{"أ", []NameCount{{"أحمد", 2}, {"أحمد علي", 1}}},
		{"أحمد ", []NameCount{{"أحمد علي", 1}}},
		{"\xd8", []NameCount{{"أحمد", 2}, {"أحمد علي", 1}}},
		{"B", nil},
		{"Alicia", nil},
	} {
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			got, err := EntityNames(tx, c.prefix)
			require.NoError(t, err)
			require.Equal(t, c.want, got, "prefix %q", c.prefix)
			return nil
		}))
	}
}

func TestCheckAndStrayEntities(t *testing.T) {
	db := openTestDB(t)
	addEntityDocs(t, db)
	valid := func(seq uint64, event int, role Role, name string) bool {
		evs, ok := entityDocs[seq]
		if !ok || event >= len(evs) {
			return false
		}
		switch role {
		case RoleSubject:
			return evs[event].Subject == name
		case RoleObject:
			return evs[event].Object == name
		}
		return false
	}
	state := func() (missing map[uint64]int, stray int) {
		missing = map[uint64]int{}
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			for s, evs := range entityDocs {
				n, err := CheckEntities(tx, s, testSpanDoc(s), evs, nil)
				require.NoError(t, err)
				missing[s] = n
			}
			var err error
			stray, err = StrayEntities(tx, valid)
			return err
		}))
		return missing, stray
	}
	missing, stray := state()
	require.Equal(t, map[uint64]int{1: 0, 3: 0, 64: 0, 300: 0}, missing)
	require.Zero(t, stray)

	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEntities)
		if err := b.Delete(entityKey("Al", 3, 1, RoleObject)); err != nil {
			return err
		}
		if err := b.Delete(entityKey("أحمد", 300, 0, RoleSubject)); err != nil {
			return err
		}
		for _, k := range [][]byte{
			entityKey("Al", 3, 1, RoleSubject+RoleObject), // bad role
			entityKey("Ali", 3, 1, RoleSubject),           // wrong name
			entityKey("Ali", 3, 7, RoleSubject),           // no such event
			entityKey("Ali", 2, 0, RoleSubject),           // no such document
			[]byte("no separator"),
			append([]byte("short\x00"), 1, 2, 3),
		} {
			if err := b.Put(k, nil); err != nil {
				return err
			}
		}
		return nil
	}))
	missing, stray = state()
	require.Equal(t, map[uint64]int{1: 0, 3: 1, 64: 0, 300: 1}, missing)
	require.Equal(t, 6, stray)

	// Malformed keys stop Entity and EntityNames with an error, not a
	// wrong answer.
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		_, err := Entity(tx, "short")
		require.ErrorContains(t, err, "malformed entity key")
		_, err = EntityNames(tx, "no")
		require.ErrorContains(t, err, "malformed entity key")
		// A name that lost an entry fails instead of answering without
		// it, and check counts it.
		_, err = Entity(tx, "أحمد")
		require.ErrorIs(t, err, ErrDamaged)
		require.ErrorContains(t, err, "holds 1 entries")
		bad, err := CheckEntityCounts(tx)
		require.Error(t, err)
		require.Positive(t, bad)
		return nil
	}))
}

func TestEntityKeyLayout(t *testing.T) {
	k := entityKey("سعود", 0x0102030405060708, 0x0A0B0C0D, RoleObject)
	name := []byte("سعود")
	require.Equal(t, name, k[:len(name)])
	require.Equal(t, byte(0), k[len(name)])
	require.Equal(t, uint64(0x0102030405060708), binary.BigEndian.Uint64(k[len(name)+1:]))
	require.Equal(t, uint32(0x0A0B0C0D), binary.BigEndian.Uint32(k[len(name)+9:]))
	require.Equal(t, byte(RoleObject), k[len(k)-1])
	require.Len(t, k, len(name)+14)
}

// TestSpansValue: Spans.Value, which steps its cursor forward between
// nearby lookups and seeks otherwise, answers every lookup as a plain Get
// does, in key order (the order Entity gives) or not, over documents with
// missing events, across leaf pages and past the end of the bucket, with
// stray keys of other lengths in the bucket.
func TestSpansValue(t *testing.T) {
	db := openTestDB(t)
	rng := rand.New(rand.NewPCG(7, 7))
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSpans)
		for _, seq := range []uint64{1, 2, 5, 300} {
			for i := range 400 {
				if rng.IntN(5) == 0 {
					continue // an event missing from the index
				}
				v := bytes.Repeat([]byte{byte(seq), byte(i)}, 30+rng.IntN(60))
				if err := b.Put(spanKey(seq, i), v); err != nil {
					return err
				}
			}
		}
		// Keys of other lengths sort among the real ones.
		for _, k := range [][]byte{append(spanKey(2, 7), 0), spanKey(5, 3)[:11]} {
			if err := b.Put(k, []byte("stray")); err != nil {
				return err
			}
		}
		return nil
	}))
	type at struct {
		seq   uint64
		event int
	}
	var lookups []at
	for range 3000 {
		lookups = append(lookups, at{[]uint64{0, 1, 2, 3, 5, 300, 301}[rng.IntN(7)], rng.IntN(420)})
	}
	sorted := slices.Clone(lookups)
	slices.SortFunc(sorted, func(a, b at) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), cmp.Compare(a.event, b.event))
	})
	near := []at{{2, 0}, {2, 0}, {2, 1}, {2, 7}, {2, 8}, {2, 40}, {2, 41}, {2, 399}, {2, 400}, {5, 2}, {5, 3}, {5, 4}, {300, 390}, {300, 399}, {300, 401}, {300, 402}, {301, 0}}
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSpans)
		for _, run := range [][]at{sorted, lookups, near} {
			s, err := NewSpans(tx)
			require.NoError(t, err)
			found := 0
			for _, l := range run {
				want := b.Get(spanKey(l.seq, l.event))
				got := s.Value(l.seq, l.event)
				require.Equal(t, want, got, "seq %d event %d", l.seq, l.event)
				if want != nil {
					found++
				}
			}
			require.Greater(t, found, len(run)/3)
		}
		return nil
	}))
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketSpans) }))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		_, err := NewSpans(tx)
		require.ErrorContains(t, err, "bucket missing")
		return nil
	}))
}

// TestEntityKeyChangedIsDamage: a key whose event bytes changed keeps its
// name's count right, yet would list, find or check as another event; its
// tag makes every reader fail instead.
func TestEntityKeyChangedIsDamage(t *testing.T) {
	db := openTestDB(t)
	addEntityDocs(t, db)
	// "Al" as object of event 0 of #3 becomes event 9: the same name, the
	// same number of keys, one more distinct event.
	from := entityKey("Al", 3, 0, RoleObject)
	to := entityKey("Al", 3, 9, RoleObject)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEntities)
		v := bytes.Clone(b.Get(from))
		if err := b.Delete(from); err != nil {
			return err
		}
		return b.Put(to, v)
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		_, err := EntityNames(tx, "")
		require.ErrorIs(t, err, ErrDamaged)
		require.ErrorContains(t, err, `entry of "Al" does not match its digest`)
		_, err = Entity(tx, "Al")
		require.ErrorIs(t, err, ErrDamaged)
		// The other names still answer.
		got, err := Entity(tx, "Ali")
		require.NoError(t, err)
		require.Len(t, got, 2)
		missing, err := CheckEntities(tx, 3, testSpanDoc(3), entityDocs[3], nil)
		require.NoError(t, err)
		require.Equal(t, 1, missing)
		stray, err := StrayEntities(tx, func(uint64, int, Role, string) bool { return true })
		require.NoError(t, err)
		require.Equal(t, 1, stray)
		return nil
	}))
}

// TestAscending: a walk that goes back or repeats a key is damage.
func TestAscending(t *testing.T) {
	require.NoError(t, ascending(nil, []byte("a")))
	require.NoError(t, ascending([]byte("a"), []byte("b")))
	require.ErrorIs(t, ascending([]byte("b"), []byte("b")), ErrDamaged)
	require.ErrorIs(t, ascending([]byte("b"), []byte("a")), ErrDamaged)
}
