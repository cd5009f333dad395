// Package multi is the host's part of running one program over several GPUs: how n items are cut
// into one contiguous slice a GPU, and the fixed orders in which the GPUs' partial results are
// combined, so that a float result is the same bits from run to run for a given number of GPUs.
// The collectives that move the partials (NCCL's all-gather) are the device side's; this package
// only decides what goes where and in which order, and needs no GPU.
package multi

// Slice is one GPU's contiguous part [Lo, Hi) of the n items.
type Slice struct{ Lo, Hi int64 }

// Len is the slice's item count (0 where there are fewer items than GPUs).
func (s Slice) Len() int64 { return s.Hi - s.Lo }

// Split cuts n items into g contiguous slices in order: every slice n/g long, the first n%g one
// longer. Each GPU's input is then exactly its part of the one-GPU input.
func Split(n int64, g int) []Slice {
	if g < 1 || n < 0 {
		return nil
	}
	out := make([]Slice, g)
	base, extra := n/int64(g), n%int64(g)
	lo := int64(0)
	for i := range out {
		l := base
		if int64(i) < extra {
			l++
		}
		out[i] = Slice{lo, lo + l}
		lo += l
	}
	return out
}

// Combine folds the GPUs' partials left to right in GPU order, op(op(op(identity, p0), p1), ...):
// one fixed expression for a given number of GPUs. Empty slices contribute their identity.
func Combine[T any](parts []T, identity T, op func(a, b T) T) T {
	acc := identity
	for _, p := range parts {
		acc = op(acc, p)
	}
	return acc
}

// Offsets is what each GPU's scan starts from: the left fold of the totals of the slices before
// it (GPU 0: the identity). For segmented scans, headed[i] says that slice i holds a head, and
// totals[i] is then its total since its last head: what comes after it does not depend on the
// slices before. headed may be nil (a plain scan).
func Offsets[T any](totals []T, headed []bool, identity T, op func(a, b T) T) []T {
	out := make([]T, len(totals))
	running := identity
	for i, t := range totals {
		out[i] = running
		if headed != nil && headed[i] {
			running = t
		} else {
			running = op(running, t)
		}
	}
	return out
}
