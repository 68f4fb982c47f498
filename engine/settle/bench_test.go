package settle

import (
	"strconv"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/engine"
)

// BenchmarkQuerySmall is the benchmark story of CONTRACT 14 (four records).
func BenchmarkQuerySmall(b *testing.B) {
	s, err := engine.NewStore([]byte(strings.Join([]string{
		borrowed("Ahmed", "Khalid", "100", "SAR", "T1"),
		intermediary("Saud", "Khalid", "T2"),
		paid("Ahmed", "Saud", "40", "SAR", "T3"),
		rec("Ahmed", "TRANSFER_TO", "Saud", "60", "SAR", "T4", "UNCERTAIN", "POSITIVE", "PENDING"),
	}, "\n")), 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Query(s, "Ahmed Khalid"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryMaxEvents settles a debt against 4095 payments (the event
// limit), each through the same intermediary link.
func BenchmarkQueryMaxEvents(b *testing.B) {
	lines := []string{borrowed("A", "B", "1000000", "SAR", "T1"), intermediary("S", "B", "T0")}
	for i := 2; i < engine.MaxEvents; i++ {
		lines = append(lines, paid("A", "S", "1", "SAR", "T"+strconv.Itoa(i)))
	}
	s, err := engine.NewStore([]byte(strings.Join(lines, "\n")), 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Query(s, "A B"); err != nil {
			b.Fatal(err)
		}
	}
}
