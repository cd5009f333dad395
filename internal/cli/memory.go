package cli

// Memory checks: whether a size fits the host's or the device's memory, and what does.

import (
	"fmt"
	"os"
	"strings"
)

// memoryAdvice is "" when a run of n items fits in free bytes of device memory beside the copy
// ceiling's two buffers; otherwise it says how much n needs and the largest n that fits. Sizes are
// float64 so that no n wraps them; the largest n is found by bisection on the same function.
func memoryAdvice(n int64, bytes func(int64) float64, free, reserve float64, what string) string {
	fits := func(m int64) bool { return bytes(m)+reserve <= free }
	if fits(n) {
		return ""
	}
	need := fmt.Sprintf("-n %d needs %.1f GB of %s memory", n, (bytes(n)+reserve)/1e9, what)
	if !fits(1) {
		return need + "; not even -n 1 fits"
	}
	lo, hi := int64(1), n // fits(lo), !fits(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return fmt.Sprintf("%s: use -n %d or less", need, lo)
}

// hostAvailable is the host memory available to a new run (Linux's MemAvailable), 0 where unknown.
func hostAvailable() float64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "MemAvailable: %f kB", &kb); err == nil {
			return kb * 1024
		}
	}
	return 0
}
