package cli

import "testing"

func TestParseCount(t *testing.T) {
	good := map[string]int64{"1": 1, "1000000": 1000000, "1e6": 1000000, "2^20": 1 << 20, "1<<28": 1 << 28,
		"2^20+3": 1<<20 + 3, " 33 ": 33, "3<<2": 12, "10^3": 1000}
	for s, want := range good {
		if got, err := ParseCount(s); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "x", "1.5", "1e-3", "2^-1", "2^70", "1<<63", "2^62+2^62", "1+", "abc^2"} {
		if got, err := ParseCount(s); err == nil {
			t.Errorf("ParseCount(%q) = %d; want an error", s, got)
		}
	}
}
