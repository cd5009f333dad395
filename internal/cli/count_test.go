package cli

import (
	"fmt"
	"strconv"
	"testing"
)

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

// -n takes one size, a list, or a range of powers of two (every one, or every other one).
func TestSizeList(t *testing.T) {
	for in, want := range map[string][]int64{
		"1000":         {1000},
		"2^10,2^20,5":  {1024, 1 << 20, 5},
		"2^10..2^14":   {1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14},
		"2^10..2^16x4": {1 << 10, 1 << 12, 1 << 14, 1 << 16},
		"2^20+3":       {1<<20 + 3},
		"1024..1024":   {1024},
		"2^10..2^28x4": {1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28},
	} {
		var l SizeList
		if err := l.Set(in); err != nil || fmt.Sprint([]int64(l)) != fmt.Sprint(want) {
			t.Errorf("-n %s: %v %v, want %v", in, []int64(l), err, want)
		}
	}
	for _, bad := range []string{"2^10..1000", "3..2^10", "2^20..2^10", "1,x", "2^10.."} {
		var l SizeList
		if err := l.Set(bad); err == nil {
			t.Errorf("-n %s: accepted as %v", bad, []int64(l))
		}
	}
}

// An image's -width and -height take Count's forms and fit an int32.
func TestExtent(t *testing.T) {
	var e Extent
	for s, want := range map[string]int{"8192": 8192, "2^13": 8192, "1<<10": 1024, "2^12+3": 4099} {
		if err := e.Set(s); err != nil || int(e) != want || e.String() != strconv.Itoa(want) {
			t.Errorf("%s: %d, %v; want %d", s, e, err, want)
		}
	}
	for _, s := range []string{"2^31", "x", "1.5"} {
		if err := e.Set(s); err == nil {
			t.Errorf("%s: accepted as %d", s, e)
		}
	}
}
