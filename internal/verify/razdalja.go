package verify

// SquaredDistance is the float64 reference of razdalja's sum of squares, summed with Neumaier's
// compensation within and across chunks, so that its own error (about 2^-53 of the sum) stays
// far below even best's float64 bound; NaN and Inf propagate as IEEE says.
func SquaredDistance(a, b []float32) float64 {
	parts := make([]neumaier, (len(a)+chunk-1)/chunk)
	parallel(len(a), func(c, lo, hi int) {
		for i := lo; i < hi; i++ {
			d := float64(a[i]) - float64(b[i])
			parts[c].add(d * d)
		}
	})
	var total neumaier
	for _, p := range parts {
		total.add(p.sum()) // each rounds once: 2^-53 of its part
	}
	return total.sum()
}

// SquaredDistanceCPU is razdalja's host variant: each difference (exact) and its square in
// float64, as best computes them, so inputs near 1e20 or 1e-41 give the right distance where
// float32 squares overflow or vanish; each core sums its chunks in float64, the chunk sums added
// in order.
func SquaredDistanceCPU(a, b []float32) float64 {
	return sumChunks(len(a), func(lo, hi int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			d := float64(a[i]) - float64(b[i])
			s += d * d
		}
		return s
	})
}

// DistanceCPUTolerance bounds SquaredDistanceCPU's distance: the float64 square rounds once and
// the float64 sums at most n times (gamma_(n+1) with u = 2^-53); the root halves the relative
// error of the sum and adds a rounding of its own.
func DistanceCPUTolerance(n int64) float64 {
	return 0.5*gamma(float64(n)+1, 0x1p-53) + 0x1p-52
}
