package db

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The budget is taken in batch order: a later file waits for the earlier
// ones even when there is room, and a file waits for room once its turn
// comes; one file always gets in, whatever its size.
func TestByteBudgetInOrder(t *testing.T) {
	b := newByteBudget(100)
	got := make(chan int, 3)
	go func() { b.acquire(1, 10); got <- 1 }()
	select {
	case <-got:
		t.Fatal("file 1 took its share before file 0")
	case <-time.After(50 * time.Millisecond):
	}
	require.True(t, b.acquire(0, 50))
	require.Equal(t, 1, <-got)
	go func() { b.acquire(2, 45); got <- 2 }()
	select {
	case <-got:
		t.Fatal("file 2 got in over the limit")
	case <-time.After(50 * time.Millisecond):
	}
	b.release(50)
	require.Equal(t, 2, <-got)
	b.release(55)
	require.True(t, b.acquire(3, 500), "a file larger than the budget gets in alone")
	b.close()
	require.False(t, b.acquire(5, 1), "a closed budget stops its waiters")
}
