package cli

import (
	"strconv"
	"strings"
	"testing"
)

// The memory advice cannot wrap: its sizes are float64, and the n it suggests is positive and fits.
func TestMemoryAdviceSuggestsAPositiveNThatFits(t *testing.T) {
	bytes := func(n int64) float64 { return 24*float64(n) + 64<<20 }
	free := 79e9
	for _, n := range []int64{1 << 40, 1 << 62, 1<<62 + 1<<61, 4e9} {
		msg := memoryAdvice(n, bytes, free)
		i := strings.Index(msg, "use -n ")
		if i < 0 {
			t.Fatalf("n=%d: %q has no suggestion", n, msg)
		}
		most, err := strconv.ParseInt(strings.Fields(msg[i+len("use -n "):])[0], 10, 64)
		if err != nil || most < 1 || memoryAdvice(most, bytes, free) != "" || memoryAdvice(most+1, bytes, free) == "" {
			t.Errorf("n=%d: suggests %d (%v): it must be the largest n that fits", n, most, err)
		}
	}
	if msg := memoryAdvice(1000, bytes, free); msg != "" {
		t.Errorf("1000 elements do not fit: %q", msg)
	}
	if msg := memoryAdvice(5, bytes, 1e6); !strings.Contains(msg, "not even -n 1") {
		t.Errorf("a full device: %q", msg)
	}
}

// A slot is unwritten only where it holds each run's poison; any other value, even one poison
// alone (a legal integer), was written.
func TestUnwrittenNeedsBothPoisons(t *testing.T) {
	first := []uint32{0xFFFFFFFF, 0xFFFFFFFF, 7, 0x5A5A5A5A}
	second := []uint32{0x5A5A5A5A, 0xFFFFFFFF, 7, 0x5A5A5A5A}
	if n := UnwrittenWords(first, second); n != 1 {
		t.Errorf("UnwrittenWords: %d, want 1", n)
	}
	if !UnwrittenBytes([]byte{0xFF, 0xFF}, []byte{0x5A, 0x5A}) || UnwrittenBytes([]byte{0xFF, 0xFF}, []byte{0x5A, 0x00}) {
		t.Error("UnwrittenBytes")
	}
}
