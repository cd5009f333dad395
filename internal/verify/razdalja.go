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

// SquaredDistanceCPU is razdalja's host variant: float32 differences and squares as on the
// device, each core summing its chunks in float64, the chunk sums added in order.
func SquaredDistanceCPU(a, b []float32) float64 {
	return sumChunks(len(a), func(lo, hi int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			d := a[i] - b[i]
			s += float64(d * d)
		}
		return s
	})
}

// DistanceCPUTolerance bounds SquaredDistanceCPU's distance: the float32 difference and square
// round twice (gamma_2 with u = 2^-24), the float64 sums at most n times (gamma_n with 2^-53),
// and the root halves the relative error of the sum.
func DistanceCPUTolerance(n int64) float64 {
	return 0.5*(gamma(2, 0x1p-24)+gamma(float64(n), 0x1p-53)) + 0x1p-52
}
