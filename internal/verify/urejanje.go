package verify

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"tecaj/internal/vocab"
	"unsafe"
)

// OrderKey maps a key's bits to an unsigned word that orders as the sort promises: floats with
// -0.0 == +0.0 and every NaN last; int32 signed.
func OrderKey(bits uint32, t vocab.Dtype) uint32 {
	switch t {
	case vocab.Int32:
		return bits ^ 0x80000000
	case vocab.Uint32:
		return bits
	}
	if bits&0x7fffffff > 0x7f800000 {
		return 0xffffffff
	}
	if bits == 0x80000000 {
		bits = 0
	}
	if bits&0x80000000 != 0 {
		return ^bits
	}
	return bits | 0x80000000
}

// Distributions of sort inputs.
var Distributions = []string{"uniform", "sorted", "reversed", "equal", "few"}

// SortKeys fills keys (raw bits) from seed: uniform (floats in [-1000, 1000), integers over the
// whole range), sorted, reversed, equal (one value) or few (16 distinct values).
func SortKeys(keys []uint32, t vocab.Dtype, dist string, seed int64) {
	parallel(len(keys), func(c, lo, hi int) {
		r := rand.New(rand.NewSource(seed*1_000_003 + int64(c)))
		for i := lo; i < hi; i++ {
			switch {
			case dist == "few" && t == vocab.Float32:
				keys[i] = math.Float32bits(float32(r.Intn(16) - 8))
			case dist == "few":
				keys[i] = uint32(r.Intn(16)) * 0x10000001
			case t == vocab.Float32:
				keys[i] = math.Float32bits(2000*r.Float32() - 1000)
			default:
				keys[i] = r.Uint32()
			}
		}
	})
	switch dist {
	case "equal":
		for i := range keys {
			keys[i] = keys[0]
		}
	case "sorted", "reversed":
		order := StableOrder(keys, t, false)
		sorted := make([]uint32, len(keys))
		for i, j := range order {
			sorted[i] = keys[j]
		}
		if dist == "reversed" {
			for i, j := 0, len(sorted)-1; i < j; i, j = i+1, j-1 {
				sorted[i], sorted[j] = sorted[j], sorted[i]
			}
		}
		copy(keys, sorted)
	}
}

// StableOrder returns the indices of keys in stable sorted order: each key's order word above its
// index, sorted by the radix passes over the words' digits alone (the indices start in order, and
// the passes are stable), or for short arrays a stable comparison sort (O(n log n)).
func StableOrder(keys []uint32, t vocab.Dtype, descending bool) []uint32 {
	word := func(i uint32) uint32 { return orderWord(keys[i], t, descending) }
	idx := make([]uint32, len(keys))
	for i := range idx {
		idx[i] = uint32(i)
	}
	if len(keys) < 1<<14 {
		sort.SliceStable(idx, func(x, y int) bool { return word(idx[x]) < word(idx[y]) })
		return idx
	}
	a := make([]uint64, len(keys))
	for i := range a {
		a[i] = uint64(word(uint32(i)))<<32 | uint64(i)
	}
	radixSortFrom(a, len(a) >= wideArray, 32)
	for i, w := range a {
		idx[i] = uint32(w)
	}
	return idx
}

// SortCheck is the outcome of verifying a sort.
type SortCheck struct {
	Bad   int64  // misplaced or wrong elements
	First string // the first problem, for the report
}

// add counts c's problems after s's: the first problem stays s's, where s has one.
func (s *SortCheck) add(c SortCheck) {
	if s.Bad == 0 {
		s.First = c.First
	}
	s.Bad += c.Bad
}

// SortReference is what a sort of in must give: each array's order words (OrderKey, complemented
// when descending) in ascending order. A run builds it once and checks every variant against it.
type SortReference struct {
	in, want   []uint32
	pairsIn    []uint64 // each array's (key bits, value) pairs, sorted: CheckPairs' reference
	n, batch   int64
	t          vocab.Dtype
	descending bool
}

// wideArray is the length from which one array's sort and check are spread over every core (below
// it, arrays are the unit of parallel work).
const wideArray = chunk

// NewSortReference sorts in's order words, each array on its own: two 16-bit LSD passes (short
// arrays: a comparison sort), a wide array's counting and scattering split over every core.
func NewSortReference(in []uint32, n, batch int64, t vocab.Dtype, descending bool) *SortReference {
	r := &SortReference{in: in, want: make([]uint32, n*batch), n: n, batch: batch, t: t, descending: descending}
	r.arrays(func(b int64, wide bool) SortCheck { r.sortWords(b, wide); return SortCheck{} })
	return r
}

// arrays runs fn on every array: a wide one at a time (fn spreads it over the cores), short ones
// in parallel groups of about a chunk's keys; fn's results are kept in array order.
func (r *SortReference) arrays(fn func(b int64, wide bool) SortCheck) SortCheck {
	var res SortCheck
	if r.n >= wideArray {
		for b := int64(0); b < r.batch; b++ {
			res.add(fn(b, true))
		}
		return res
	}
	per := int64(chunk)/r.n + 1
	groups := make([]SortCheck, (r.batch+per-1)/per)
	parallel(len(groups)*chunk, func(g, _, _ int) {
		for b := int64(g) * per; b < int64(g+1)*per && b < r.batch; b++ {
			groups[g].add(fn(b, false))
		}
	})
	for _, c := range groups {
		res.add(c)
	}
	return res
}

func (r *SortReference) word(k uint32) uint32 { return orderWord(k, r.t, r.descending) }

// orderWord is the word a sort orders keys by: OrderKey, complemented when descending.
func orderWord(k uint32, t vocab.Dtype, descending bool) uint32 {
	w := OrderKey(k, t)
	if descending {
		w = ^w
	}
	return w
}

// sortParts is how many parts a wide array's passes are split into (a variable for the tests).
var sortParts = runtime.NumCPU

type ascending[T uint32 | uint64] []T

func (a ascending[T]) Len() int           { return len(a) }
func (a ascending[T]) Less(i, j int) bool { return a[i] < a[j] }
func (a ascending[T]) Swap(i, j int)      { a[i], a[j] = a[j], a[i] }

// radixSort sorts a ascending: LSD passes of 16-bit digits over every digit of T, each pass's
// counting and scattering split into parts, one a core (wide) or one part; short arrays, where 2^16
// counters a pass would cost more than the words, by a comparison sort.
func radixSort[T uint32 | uint64](a []T, wide bool) {
	if len(a) < 1<<16 {
		sort.Sort(ascending[T](a))
		return
	}
	radixSortFrom(a, wide, 0)
}

// radixSortFrom is radixSort's passes over the digits from bit low up (stable: words equal there
// keep their order), at any length.
func radixSortFrom[T uint32 | uint64](a []T, wide bool, low int) {
	if len(a) == 0 {
		return
	}
	parts := 1
	if wide {
		parts = sortParts()
	}
	size := (len(a) + parts - 1) / parts
	parts = (len(a) + size - 1) / size      // (every part holds words: each pass clears and counts them all)
	split := func(fn func(p, lo, hi int)) { // the array in parts, in order, one a core
		var wg sync.WaitGroup
		for p := 0; p < parts; p++ {
			lo, hi := p*size, (p+1)*size
			if hi > len(a) {
				hi = len(a)
			}
			wg.Add(1)
			go func(p int) { defer wg.Done(); fn(p, lo, hi) }(p)
		}
		wg.Wait()
	}
	count := make([][1 << 16]int, parts)
	from, to := a, make([]T, len(a))
	for shift := low; shift < 8*int(unsafe.Sizeof(a[0])); shift += 16 {
		split(func(p, lo, hi int) {
			c := &count[p]
			*c = [1 << 16]int{}
			for _, w := range from[lo:hi] {
				c[(w>>shift)&0xffff]++
			}
		})
		at := 0 // each part's first slot for each digit: digits in order, parts in order (stable)
		for d := 0; d < 1<<16; d++ {
			for p := range count {
				at, count[p][d] = at+count[p][d], at
			}
		}
		split(func(p, lo, hi int) {
			c := &count[p]
			for _, w := range from[lo:hi] {
				d := (w >> shift) & 0xffff
				to[c[d]] = w
				c[d]++
			}
		})
		from, to = to, from
	}
	if &from[0] != &a[0] { // (an odd count of passes)
		copy(a, from)
	}
}

// sortWords fills array b's want with its input's words, sorted.
func (r *SortReference) sortWords(b int64, wide bool) {
	src, dst := r.in[b*r.n:(b+1)*r.n], r.want[b*r.n:(b+1)*r.n]
	fill := func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = r.word(src[i])
		}
	}
	if wide {
		parallel(len(src), fill)
	} else {
		fill(0, 0, len(src))
	}
	radixSort(dst, wide)
}

// CheckSort verifies batch sorted arrays of n keys: each array's keys equal, position by
// position, those of the CPU's sort of the input (in the sort's order: any NaN matches any NaN
// and -0.0 matches +0.0); with values, every value indexes an input key with the same bits (NaN:
// any NaN) and each index appears once.
func CheckSort(in, out, values []uint32, n, batch int64, t vocab.Dtype, descending bool) SortCheck {
	return NewSortReference(in, n, batch, t, descending).Check(out, values)
}

// Check is CheckSort against the reference: arrays as the reference sorted them, a wide array's
// positions in chunks over every core; the first problem is the first in position order.
func (r *SortReference) Check(out, values []uint32) SortCheck {
	return r.arrays(func(b int64, wide bool) SortCheck {
		first := r.firstPositions(out, values, b, wide)
		if !wide {
			return r.checkPositions(out, values, first, b, 0, r.n)
		}
		var res SortCheck
		parts := make([]SortCheck, (r.n+chunk-1)/chunk)
		parallel(int(r.n), func(c, lo, hi int) { parts[c] = r.checkPositions(out, values, first, b, int64(lo), int64(hi)) })
		for _, c := range parts {
			res.add(c)
		}
		return res
	})
}

// firstPositions gives, for array b's values, the first position that holds each index and
// passes (the CPU sort's key there, and the key the index names): a later position holding the
// index counts as repeated. MaxUint32 where no position passes; nil without values, or where every
// position with the right key holds an index that no other does and names the same key (on a wide
// array, a bitmap of the indices seen shows that on every core).
func (r *SortReference) firstPositions(out, values []uint32, b int64, wide bool) []uint32 {
	if values == nil {
		return nil
	}
	kin, kout, want, vs := r.in[b*r.n:(b+1)*r.n], out[b*r.n:(b+1)*r.n], r.want[b*r.n:(b+1)*r.n], values[b*r.n:(b+1)*r.n]
	holds := func(i int) (uint32, bool) { // position i's index, where its key is right
		v := vs[i]
		return v, r.word(kout[i]) == want[i] && int64(v) < r.n
	}
	if wide {
		seen := make([]uint32, (r.n+31)/32)
		var doubts int64 // indices seen twice, or naming another key
		parallel(int(r.n), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				v, ok := holds(i)
				if !ok {
					continue
				}
				if !sameBits(kout[i], kin[v], r.t) {
					atomic.AddInt64(&doubts, 1)
					continue
				}
				word, bit := &seen[v/32], uint32(1)<<(v%32)
				for old := atomic.LoadUint32(word); ; old = atomic.LoadUint32(word) {
					if old&bit != 0 {
						atomic.AddInt64(&doubts, 1)
						break
					}
					if atomic.CompareAndSwapUint32(word, old, old|bit) {
						break
					}
				}
			}
		})
		if doubts == 0 {
			return nil
		}
	}
	first := make([]uint32, r.n)
	for i := range first {
		first[i] = math.MaxUint32
	}
	for i := range vs {
		if v, ok := holds(i); ok && first[v] == math.MaxUint32 && sameBits(kout[i], kin[v], r.t) {
			first[v] = uint32(i)
		}
	}
	return first
}

// checkPositions checks positions lo..hi-1 of array b.
func (r *SortReference) checkPositions(out, values, first []uint32, b, lo, hi int64) SortCheck {
	var res SortCheck
	kin, kout, want := r.in[b*r.n:(b+1)*r.n], out[b*r.n:(b+1)*r.n], r.want[b*r.n:(b+1)*r.n]
	for i := lo; i < hi; i++ {
		why := ""
		if r.word(kout[i]) != want[i] {
			why = "not the key the CPU sort has here"
		} else if values != nil {
			v := int64(values[b*r.n+i])
			switch {
			case v >= r.n || first != nil && int64(first[v]) < i:
				why = "value out of range or repeated"
			case !sameBits(kout[i], kin[v], r.t):
				why = "key differs from the input key its value indexes"
			}
		}
		if why != "" {
			if res.Bad == 0 {
				res.First = fmt.Sprintf("array %d position %d: %s", b, i, why)
			}
			res.Bad++
		}
	}
	return res
}

func sameBits(a, b uint32, t vocab.Dtype) bool {
	return a == b || (t == vocab.Float32 && a&0x7fffffff > 0x7f800000 && b&0x7fffffff > 0x7f800000)
}

// CheckPairs verifies a sort of key-value pairs whose values the user gave: the keys as
// CheckSort, and each array's (key, value) pairs the same multiset as the input's, keys by their
// bits (values travel with their keys, -0.0's with -0.0; any NaN matches any NaN; among equal keys
// their order is the variant's: by value in the network, by input position in a radix sort).
func CheckPairs(in, valuesIn, out, valuesOut []uint32, n, batch int64, t vocab.Dtype, descending bool) SortCheck {
	return NewSortReference(in, n, batch, t, descending).CheckPairs(valuesIn, out, valuesOut)
}

// CheckPairs is the package's CheckPairs against the reference, whose input pairs it sorts once.
func (r *SortReference) CheckPairs(valuesIn, out, valuesOut []uint32) SortCheck {
	res := r.Check(out, nil)
	pairs := func(dst []uint64, keys, values []uint32, wide bool) { // (key's bits, value), sorted
		for i, k := range keys {
			if r.t == vocab.Float32 && k&0x7fffffff > 0x7f800000 {
				k = CanonicalNaN // (any NaN matches any NaN; -0.0 and +0.0 stay apart: a value keeps its key's sign)
			}
			dst[i] = uint64(k)<<32 | uint64(values[i])
		}
		radixSort(dst, wide)
	}
	if r.pairsIn == nil {
		r.pairsIn = make([]uint64, r.n*r.batch)
		r.arrays(func(b int64, wide bool) SortCheck {
			lo, hi := b*r.n, (b+1)*r.n
			pairs(r.pairsIn[lo:hi], r.in[lo:hi], valuesIn[lo:hi], wide)
			return SortCheck{}
		})
	}
	moved := r.arrays(func(b int64, wide bool) SortCheck {
		lo, hi := b*r.n, (b+1)*r.n
		got := make([]uint64, r.n)
		pairs(got, out[lo:hi], valuesOut[lo:hi], wide)
		for i, p := range got {
			if p != r.pairsIn[lo+int64(i)] {
				return SortCheck{Bad: 1, First: fmt.Sprintf("array %d: the output's key-value pairs are not the input's", b)}
			}
		}
		return SortCheck{}
	})
	res.add(moved)
	return res
}

// CanonicalNaN is the one NaN sorted float keys come out as.
const CanonicalNaN = 0x7fffffff

// SortCPU is urejanje's host variant: Go's sort.SliceStable on each array, arrays in parallel;
// with values it sorts indices (an argsort) and gathers the keys, and the values (valuesIn's,
// or where it is nil the indices themselves).
func SortCPU(in, valuesIn, out, values []uint32, n, batch int64, t vocab.Dtype, descending bool) {
	sortHost(in, valuesIn, out, values, n, batch, t, func(kin []uint32) []uint32 {
		idx := make([]uint32, len(kin))
		for i := range idx {
			idx[i] = uint32(i)
		}
		sort.SliceStable(idx, func(x, y int) bool {
			return orderWord(kin[idx[x]], t, descending) < orderWord(kin[idx[y]], t, descending)
		})
		return idx
	})
}

// SortSeq is urejanje's sequential bitonic network, seed 001's triple loop on the host, arrays in
// parallel. Each element is one word, its order key above its index: every word differs, so the
// network, not stable itself, puts equal keys in input order, and the result is SortCPU's.
func SortSeq(in, valuesIn, out, values []uint32, n, batch int64, t vocab.Dtype, descending bool) {
	sortHost(in, valuesIn, out, values, n, batch, t, func(kin []uint32) []uint32 {
		size := 1
		for size < len(kin) {
			size *= 2
		}
		a := make([]uint64, size)
		for i := range a {
			a[i] = math.MaxUint64 // the padding: above every key's word (its index is below 2^32-1)
		}
		for i, k := range kin {
			a[i] = uint64(orderWord(k, t, descending))<<32 | uint64(i)
		}
		// seed 001's loops run to n, a power of two; to the padded size they sort any n
		for k := 2; k <= size; k *= 2 {
			for j := k / 2; j > 0; j /= 2 {
				for i := 0; i < size; i++ {
					if l := i ^ j; l > i {
						if (i&k == 0 && a[i] > a[l]) || (i&k != 0 && a[i] < a[l]) {
							a[i], a[l] = a[l], a[i]
						}
					}
				}
			}
		}
		idx := make([]uint32, len(kin))
		for i := range idx {
			idx[i] = uint32(a[i])
		}
		return idx
	})
}

// sortHost runs a host sort over every array, in parallel: order gives an array's indices in
// sorted order; the keys are gathered (every NaN as the canonical one), and the values (valuesIn's,
// or where it is nil the indices themselves).
func sortHost(in, valuesIn, out, values []uint32, n, batch int64, t vocab.Dtype, order func(kin []uint32) []uint32) {
	work := func(b int64) {
		kin := in[b*n : (b+1)*n]
		for i, j := range order(kin) {
			out[b*n+int64(i)] = kin[j]
			if t == vocab.Float32 && kin[j]&0x7fffffff > 0x7f800000 {
				out[b*n+int64(i)] = CanonicalNaN // as the devices' sorts give every NaN
			}
			if values != nil {
				values[b*n+int64(i)] = j
				if valuesIn != nil {
					values[b*n+int64(i)] = valuesIn[b*n+int64(j)]
				}
			}
		}
	}
	parallel(int(batch)*chunk, func(c, _, _ int) { work(int64(c)) })
}
