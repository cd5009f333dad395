package verify

// SquaredDistance is the float64 reference of razdalja's sum of squares (NaN and Inf
// propagate as IEEE says).
func SquaredDistance(a, b []float32) float64 {
	return sumChunks(len(a), func(lo, hi int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			d := float64(a[i]) - float64(b[i])
			s += d * d
		}
		return s
	})
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
