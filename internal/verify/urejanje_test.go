package verify

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strings"
	"tecaj/internal/vocab"
	"testing"
	"time"
)

// sortTypes are urejanje's key types (gpu.SortTypes, which this package does not import).
var sortTypes = []vocab.Dtype{vocab.Float32, vocab.Int32, vocab.Uint32}

func TestCheckSortAcceptsTheCPUSortAndRejectsWrongOnes(t *testing.T) {
	for _, tt := range []vocab.Dtype{vocab.Float32, vocab.Int32, vocab.Uint32} {
		for _, desc := range []bool{false, true} {
			n, batch := int64(1001), int64(3)
			in := make([]uint32, n*batch)
			SortKeys(in, tt, "few", 9)
			out, values := make([]uint32, len(in)), make([]uint32, len(in))
			SortCPU(in, nil, out, values, n, batch, tt, desc)
			if c := CheckSort(in, out, values, n, batch, tt, desc); c.Bad != 0 {
				t.Fatalf("type %d desc %v: correct sort rejected: %+v", tt, desc, c)
			}
			unsorted := append([]uint32(nil), out...)
			unsorted[5], unsorted[n-5] = unsorted[n-5], unsorted[5]
			if c := CheckSort(in, unsorted, nil, n, batch, tt, desc); c.Bad == 0 {
				t.Errorf("type %d: an unsorted output passed", tt)
			}
			notPerm := append([]uint32(nil), out...)
			notPerm[2*n+7] = notPerm[2*n+6] // sorted still, but one key duplicated, one lost
			if c := CheckSort(in, notPerm, nil, n, batch, tt, desc); c.Bad == 0 && out[2*n+7] != out[2*n+6] {
				t.Errorf("type %d: a sorted non-permutation passed", tt)
			}
			badValues := append([]uint32(nil), values...)
			badValues[10] = badValues[11]
			if c := CheckSort(in, out, badValues, n, batch, tt, desc); c.Bad == 0 {
				t.Errorf("type %d: repeated values passed", tt)
			}
		}
	}
}

// Arrays from wideArray keys on are sorted and checked over every core; below 2^16 keys by a
// comparison sort, and between by the radix passes on one core. Each path accepts the CPU's sort
// and names the first wrong position, as a one-core scan would.
func TestCheckSortEveryPathAndTheFirstProblem(t *testing.T) {
	for _, c := range []struct {
		n, batch int64
		tt       vocab.Dtype
		desc     bool
	}{{wideArray + 3, 2, vocab.Float32, true}, {wideArray*2 + 17, 1, vocab.Int32, false},
		{1<<16 + 5, 3, vocab.Uint32, true}, {1<<16 - 1, 2, vocab.Float32, false}, {7, 5, vocab.Int32, true}} {
		in := make([]uint32, c.n*c.batch)
		SortKeys(in, c.tt, "uniform", 11)
		in[3], in[4], in[c.n-1] = 0x7fc00000, 0x80000000, 0 // (a NaN, -0.0 and +0.0 as floats)
		out, values := make([]uint32, len(in)), make([]uint32, len(in))
		SortCPU(in, nil, out, values, c.n, c.batch, c.tt, c.desc)
		ref := NewSortReference(in, c.n, c.batch, c.tt, c.desc)
		if r := ref.Check(out, values); r.Bad != 0 {
			t.Fatalf("%+v: the CPU's sort rejected: %+v", c, r)
		}
		late := (c.batch-1)*c.n + c.n - 3 // a late pair of positions swapped, then an early pair: First names the early one
		bad := append([]uint32(nil), out...)
		bad[late], bad[late+1] = bad[late+1], bad[late]
		bad[5], bad[6] = bad[6], bad[5]
		r := ref.Check(bad, nil)
		want := "array 0 position 5: not the key the CPU sort has here"
		if r.Bad != 4 || r.First != want {
			t.Errorf("%+v: two pairs of keys swapped: %+v, want 4 and %q", c, r, want)
		}
		badValues := append([]uint32(nil), values...)
		badValues[late] = badValues[late+1] // a value twice: this place names another key; the later one, right, is not flagged
		badValues[late+2] = uint32(c.n)     // out of range
		r = ref.Check(out, badValues)
		want = fmt.Sprintf("array %d position %d: key differs", c.batch-1, c.n-3)
		if r.Bad != 2 || !strings.HasPrefix(r.First, want) {
			t.Errorf("%+v: a repeated and an out-of-range value: %+v, want 2 and the first at %q", c, r, want)
		}
	}
}

// oneCoreCheck is the check as one scan states it: position by position against each array's
// stable argsort (orders: a comparison sort's, not the radix passes'), an index counting as
// repeated once an earlier position that passed held it.
func oneCoreCheck(in, out, values []uint32, orders [][]uint32, n, batch int64, tt vocab.Dtype) SortCheck {
	var res SortCheck
	for b := int64(0); b < batch; b++ {
		kin, order, seen := in[b*n:(b+1)*n], orders[b], make([]bool, n)
		for i := int64(0); i < n; i++ {
			why := ""
			if OrderKey(out[b*n+i], tt) != OrderKey(kin[order[i]], tt) {
				why = "not the key the CPU sort has here"
			} else if values != nil {
				switch v := int64(values[b*n+i]); {
				case v >= n || seen[v]:
					why = "value out of range or repeated"
				case !sameBits(out[b*n+i], kin[v], tt):
					why = "key differs from the input key its value indexes"
				default:
					seen[v] = true
				}
			}
			if why != "" {
				if res.Bad == 0 {
					res.First = fmt.Sprintf("array %d position %d: %s", b, i, why)
				}
				res.Bad++
			}
		}
	}
	return res
}

// comparisonOrders is each array's stable argsort by a comparison sort: (order word, index) words,
// all distinct, in sort.Slice.
func comparisonOrders(in []uint32, n, batch int64, tt vocab.Dtype, desc bool) [][]uint32 {
	orders := make([][]uint32, batch)
	for b := range orders {
		a := make([]uint64, n)
		for i := range a {
			w := OrderKey(in[int64(b)*n+int64(i)], tt)
			if desc {
				w = ^w
			}
			a[i] = uint64(w)<<32 | uint64(i)
		}
		sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
		orders[b] = make([]uint32, n)
		for i, w := range a {
			orders[b][i] = uint32(w)
		}
	}
	return orders
}

// The reference's check (its radix passes and positions over several cores, its indices by a
// bitmap) counts and names what the one-core scan does, for outputs wrong in every way, with the
// wide arrays' passes split in 1, 3 and 1500 parts.
func TestCheckSortIsTheOneCoreScan(t *testing.T) {
	defer func(p func() int) { sortParts = p }(sortParts)
	small := func(n, batch int64, keys, values []uint32) { // hand-made cases, the review's
		in := []uint32{10, 20, 30, 40}
		c := NewSortReference(in, n, batch, vocab.Uint32, false).Check(keys, values)
		if want := oneCoreCheck(in, keys, values, comparisonOrders(in, n, batch, vocab.Uint32, false), n, batch, vocab.Uint32); c != want {
			t.Errorf("keys %v values %v: %+v, the scan %+v", keys, values, c, want)
		}
	}
	small(4, 1, []uint32{10, 20, 30, 40}, []uint32{1, 1, 2, 3}) // one bad, not two
	small(4, 1, []uint32{10, 20, 99, 40}, []uint32{0, 1, 3, 3})
	small(2, 2, []uint32{10, 20, 30, 40}, []uint32{1, 0, 0, 0})
	r := rand.New(rand.NewSource(5))
	for _, c := range []struct {
		n, batch int64
		tt       vocab.Dtype
		desc     bool
		parts    int
	}{{wideArray + 63, 1, vocab.Float32, false, 3},
		{wideArray + 1, 2, vocab.Uint32, true, 1500}, // (more parts than n's square root: some would be empty)
		{wideArray + 5, 1, vocab.Int32, false, 1}, {1<<16 + 3, 2, vocab.Float32, true, 0}, {300, 7, vocab.Float32, false, 0}} {
		if c.parts > 0 {
			parts := c.parts
			sortParts = func() int { return parts }
		}
		in := make([]uint32, c.n*c.batch)
		SortKeys(in, c.tt, "few", 8)
		for i := 0; i < 40; i++ { // NaNs, zeros of both signs and infinities among them
			in[r.Intn(len(in))] = []uint32{0x7fc00000, 0xffc00001, 0, 0x80000000, 0x7f800000, 0xff800000}[i%6]
		}
		out, values := make([]uint32, len(in)), make([]uint32, len(in))
		SortCPU(in, nil, out, values, c.n, c.batch, c.tt, c.desc)
		ref, orders := NewSortReference(in, c.n, c.batch, c.tt, c.desc), comparisonOrders(in, c.n, c.batch, c.tt, c.desc)
		for trial := 0; trial < 6; trial++ {
			k, v := append([]uint32(nil), out...), append([]uint32(nil), values...)
			for j := 0; j < 1+trial; j++ {
				at, from := r.Intn(len(k)), r.Intn(len(k))
				switch (trial + j) % 5 {
				case 0: // a value copied from elsewhere in its array: repeated, and it may name another key
					v[at] = v[int64(at)/c.n*c.n+int64(from)%c.n]
				case 1:
					v[at] = uint32(c.n) + uint32(j)
				case 2:
					k[at] = k[from]
				case 3:
					k[at], k[from] = k[from], k[at]
					v[at], v[from] = v[from], v[at]
				case 4:
					v[at], v[from] = v[from], v[at]
				}
			}
			for _, vals := range [][]uint32{nil, v} {
				got, want := ref.Check(k, vals), oneCoreCheck(in, k, vals, orders, c.n, c.batch, c.tt)
				if got != want {
					t.Fatalf("%+v trial %d values %v: %+v, the scan %+v", c, trial, vals != nil, got, want)
				}
			}
		}
	}
}

func TestOrderKeyFloats(t *testing.T) {
	f := func(x float32) uint32 { return OrderKey(math.Float32bits(x), vocab.Float32) }
	nan := math.Float32bits(float32(math.NaN()))
	if !(f(float32(math.Inf(-1))) < f(-1) && f(-1) < f(0) && f(0) == OrderKey(0x80000000, vocab.Float32) &&
		f(0) < f(1) && f(1) < f(float32(math.Inf(1))) && f(float32(math.Inf(1))) < OrderKey(nan, vocab.Float32) &&
		OrderKey(nan|0x80000000, vocab.Float32) == OrderKey(nan, vocab.Float32)) {
		t.Error("float order: want -Inf < -1 < -0 == +0 < 1 < +Inf < every NaN")
	}
	if !(OrderKey(0x80000000, vocab.Int32) < OrderKey(0, vocab.Int32) && OrderKey(0xffffffff, vocab.Int32) < OrderKey(1, vocab.Int32)) {
		t.Error("int32 order")
	}
}

func TestCheckPairsFollowsTheValues(t *testing.T) {
	n, batch := int64(500), int64(2)
	in, valuesIn := make([]uint32, n*batch), make([]uint32, n*batch)
	SortKeys(in, vocab.Float32, "few", 3)
	SortKeys(valuesIn, vocab.Uint32, "uniform", 4)
	out, values := make([]uint32, len(in)), make([]uint32, len(in))
	SortCPU(in, valuesIn, out, values, n, batch, vocab.Float32, false)
	if c := CheckPairs(in, valuesIn, out, values, n, batch, vocab.Float32, false); c.Bad != 0 {
		t.Fatalf("correct pairs rejected: %+v", c)
	}
	values[n+3] ^= 1 // a value that did not travel with its key
	if c := CheckPairs(in, valuesIn, out, values, n, batch, vocab.Float32, false); c.Bad == 0 {
		t.Error("a changed value passed")
	}
}

// The passes from any digit up are a stable sort on those digits, whether their count is even
// (the result lands back in place) or odd (it is copied back), and an empty array is left alone.
func TestRadixSortFromAnyDigit(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	a := make([]uint64, 1<<17+3)
	for i := range a {
		a[i] = uint64(r.Intn(50))<<54 | uint64(r.Uint32())<<8 | uint64(i%256) // (few values in the top digit)
	}
	for _, low := range []int{16, 32} {
		want := append([]uint64(nil), a...)
		sort.SliceStable(want, func(i, j int) bool { return want[i]>>low < want[j]>>low })
		got := append([]uint64(nil), a...)
		radixSortFrom(got, true, low)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("from bit %d: not the stable sort on those bits", low)
		}
	}
	radixSortFrom([]uint32{}, true, 0)
}

// Pairs the user gave are checked as multisets of (key, value) on every path, wide arrays too: a
// value moved between equal keys passes, one moved to another key or changed fails its array.
func TestCheckPairsEveryPath(t *testing.T) {
	defer func(p func() int) { sortParts = p }(sortParts)
	sortParts = func() int { return 3 }
	r := rand.New(rand.NewSource(6))
	for _, c := range []struct{ n, batch int64 }{{wideArray + 7, 1}, {1<<16 + 1, 2}, {999, 5}} {
		in, valuesIn := make([]uint32, c.n*c.batch), make([]uint32, c.n*c.batch)
		SortKeys(in, vocab.Float32, "few", 12)
		SortKeys(valuesIn, vocab.Uint32, "uniform", 13)
		out, values := make([]uint32, len(in)), make([]uint32, len(in))
		SortCPU(in, valuesIn, out, values, c.n, c.batch, vocab.Float32, true)
		ref := NewSortReference(in, c.n, c.batch, vocab.Float32, true)
		if got := ref.CheckPairs(valuesIn, out, values); got.Bad != 0 {
			t.Fatalf("%+v: the CPU's pairs rejected: %+v", c, got)
		}
		b := c.batch - 1
		i := b*c.n + int64(r.Intn(int(c.n)-1))
		j := i + 1
		for OrderKey(out[j], vocab.Float32) != OrderKey(out[i], vocab.Float32) {
			i, j = i+1, j+1 // (16 distinct keys: a neighbour with the same key comes soon)
		}
		moved := append([]uint32(nil), values...)
		moved[i], moved[j] = moved[j], moved[i]
		if got := ref.CheckPairs(valuesIn, out, moved); got.Bad != 0 {
			t.Errorf("%+v: values swapped between equal keys rejected: %+v", c, got)
		}
		k := b*c.n + c.n - 1 - int64(r.Intn(10))
		for OrderKey(out[k], vocab.Float32) == OrderKey(out[b*c.n], vocab.Float32) {
			k--
		}
		moved[b*c.n], moved[k] = moved[k], moved[b*c.n] // across different keys
		want := fmt.Sprintf("array %d: the output's key-value pairs are not the input's", b)
		if got := ref.CheckPairs(valuesIn, out, moved); got.Bad != 1 || got.First != want {
			t.Errorf("%+v: values swapped between different keys: %+v, want 1 and %q", c, got, want)
		}
		changed := append([]uint32(nil), values...)
		changed[k]++
		if got := ref.CheckPairs(valuesIn, out, changed); got.Bad != 1 || got.First != want {
			t.Errorf("%+v: a changed value: %+v", c, got)
		}
	}
}

// A value keeps its key's sign of zero: -0.0's value moved to +0.0 (the keys still in order) fails;
// any NaN still matches any NaN.
func TestCheckPairsKeepsZerosApart(t *testing.T) {
	in, valuesIn := []uint32{0x80000000, 0, 0x7fc00001}, []uint32{5, 7, 9}
	for _, c := range []struct {
		keys, values []uint32
		ok           bool
	}{{[]uint32{0, 0x80000000, CanonicalNaN}, []uint32{7, 5, 9}, true}, {[]uint32{0x80000000, 0, CanonicalNaN}, []uint32{5, 7, 9}, true},
		{[]uint32{0, 0x80000000, CanonicalNaN}, []uint32{5, 7, 9}, false}} {
		if got := CheckPairs(in, valuesIn, c.keys, c.values, 3, 1, vocab.Float32, false); (got.Bad == 0) != c.ok {
			t.Errorf("keys %08x values %v: %+v, want ok %v", c.keys, c.values, got, c.ok)
		}
	}
}

// The host sort gives every NaN as the canonical NaN, as the devices' sorts do: payloads and
// signs do not survive (README's promise), and the other keys keep their bits.
func TestSortCPUCanonicalNaN(t *testing.T) {
	in := []uint32{0xffc00000, 0x3f800000, 0x7f800001, 0x80000000, 0x7fc00000}
	for _, desc := range []bool{false, true} {
		out := make([]uint32, len(in))
		SortCPU(in, nil, out, nil, int64(len(in)), 1, vocab.Float32, desc)
		nans := 0
		for _, w := range out {
			if w&0x7fffffff > 0x7f800000 {
				nans++
				if w != CanonicalNaN {
					t.Errorf("desc=%v: NaN %08x came out, want %08x", desc, w, CanonicalNaN)
				}
			}
		}
		if nans != 3 || (!desc && (out[0] != 0x80000000 || out[1] != 0x3f800000)) {
			t.Errorf("desc=%v: %08x", desc, out)
		}
		if c := CheckSort(in, out, nil, int64(len(in)), 1, vocab.Float32, desc); c.Bad != 0 {
			t.Errorf("desc=%v: the check fails the host sort: %+v", desc, c)
		}
	}
}

// The check costs O(n log n) an array: 2^17 arrays of one key took seconds (two 16-bit radix
// passes a array, each clearing 2^16 counters); the comparison sort for short arrays gives the
// same order as the radix passes.
func TestCheckSortShortArraysIsCheap(t *testing.T) {
	const batch = 1 << 17
	in := make([]uint32, batch)
	SortKeys(in, vocab.Float32, "uniform", 3)
	out := make([]uint32, batch)
	copy(out, in)
	start := time.Now()
	if c := CheckSort(in, out, nil, 1, batch, vocab.Float32, false); c.Bad != 0 {
		t.Fatalf("%+v", c)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("checking %d arrays of one key took %v", batch, d)
	}
	keys := make([]uint32, 1<<14+3) // past the radix threshold: both paths on the same keys
	SortKeys(keys, vocab.Float32, "few", 4)
	radix := StableOrder(keys, vocab.Float32, true)
	for _, cut := range []int{1, 2, 100, 1 << 13} {
		small := StableOrder(keys[:cut], vocab.Float32, true)
		k := 0
		for _, i := range radix {
			if int(i) < cut {
				if small[k] != i {
					t.Fatalf("prefix %d: position %d: %d, the radix order has %d", cut, k, small[k], i)
				}
				k++
			}
		}
	}
}

// seqCase sorts one input with SortSeq and SortCPU: the independent check passes seq's keys
// (and values), and seq's output is SortCPU's word for word (equal keys in input order).
func seqCase(t *testing.T, in, valuesIn []uint32, n, batch int64, tt vocab.Dtype, desc, pairs bool) {
	t.Helper()
	out, want := make([]uint32, len(in)), make([]uint32, len(in))
	var values, wantValues []uint32
	if pairs || valuesIn != nil {
		values, wantValues = make([]uint32, len(in)), make([]uint32, len(in))
		for i := range values {
			values[i], wantValues[i] = 0xdeadbeef, 0xfeedface // poisons that differ
		}
	}
	for i := range out {
		out[i], want[i] = 0x7fc00001, 0x12345678
	}
	SortSeq(in, valuesIn, out, values, n, batch, tt, desc)
	SortCPU(in, valuesIn, want, wantValues, n, batch, tt, desc)
	var c SortCheck
	if valuesIn != nil {
		c = CheckPairs(in, valuesIn, out, values, n, batch, tt, desc)
	} else {
		c = CheckSort(in, out, values, n, batch, tt, desc)
	}
	if c.Bad != 0 {
		t.Fatalf("n=%d batch=%d type %v desc=%v pairs=%v: %d wrong, %s", n, batch, tt, desc, pairs, c.Bad, c.First)
	}
	for i := range out {
		if out[i] != want[i] || values != nil && values[i] != wantValues[i] {
			t.Fatalf("n=%d batch=%d type %v desc=%v pairs=%v: position %d holds %08x (value %v), the stable sort %08x (value %v)",
				n, batch, tt, desc, pairs, i, out[i], values != nil && values[i] == wantValues[i], want[i], wantValues != nil)
		}
	}
}

// seq, the sequential network, over sizes that are not powers of two, every key type and
// distribution, ascending and descending, keys, argsorts and user values, batches.
func TestSortSeq(t *testing.T) {
	ran := 0
	for _, n := range []int64{1, 2, 31, 33, 1023, 1025, 65537} {
		for _, tt := range sortTypes {
			for di, dist := range Distributions {
				for _, desc := range []bool{false, true} {
					batch := int64(1)
					if n < 2000 {
						batch = 3
					}
					in := make([]uint32, n*batch)
					SortKeys(in, tt, dist, int64(7*di)+n)
					pairs := (di+int(n))%2 == 0
					var valuesIn []uint32
					if di == 4 && desc { // user values, with ties among the few keys
						valuesIn = make([]uint32, len(in))
						SortKeys(valuesIn, vocab.Uint32, "uniform", n)
					}
					seqCase(t, in, valuesIn, n, batch, tt, desc, pairs)
					ran++
				}
			}
		}
	}
	if ran < 7*3*5*2 {
		t.Fatalf("ran %d cases", ran)
	}
}

// Floats' order: NaNs of every sign and payload last (first descending, the exact reverse) as the
// canonical NaN, -0.0 == +0.0 in input order, ±Inf, huge, tiny and subnormal keys in place.
func TestSortSeqSpecialFloats(t *testing.T) {
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 0,
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1.17549435e-38, 1, -1}
	for _, n := range []int64{1, 33, 1<<20 + 3} {
		in := make([]uint32, n)
		SortKeys(in, vocab.Float32, "uniform", n)
		r := rand.New(rand.NewSource(n))
		for i := range in {
			if r.Intn(3) == 0 {
				in[i] = math.Float32bits(specials[r.Intn(len(specials))])
				if in[i] == 0x7fc00000 {
					in[i] |= uint32(r.Intn(1<<22)) | uint32(r.Intn(2))<<31 // payloads and signs
				}
			}
		}
		for _, desc := range []bool{false, true} {
			seqCase(t, in, nil, n, 1, vocab.Float32, desc, desc)
		}
	}
}

// 2^20+3 keys of each type, and a batch of arrays of 2^20+3: the padding (to 2^21) sorts last.
func TestSortSeqLarge(t *testing.T) {
	n := int64(1<<20 + 3)
	for _, tt := range sortTypes {
		in := make([]uint32, n)
		SortKeys(in, tt, "uniform", 11)
		seqCase(t, in, nil, n, 1, tt, tt == vocab.Int32, tt == vocab.Uint32)
	}
	in := make([]uint32, 2*n)
	SortKeys(in, vocab.Int32, "few", 12)
	seqCase(t, in, nil, n, 2, vocab.Int32, false, true)
}

// 2^24+1 keys (padded to 2^25: about 10^10 steps of the triple loop on one core, and the stable
// sort and the check beside it): TECAJ_LARGE=1.
func TestSortSeqPastTwoToThe24(t *testing.T) {
	if os.Getenv("TECAJ_LARGE") == "" {
		t.Skip("set TECAJ_LARGE=1: 2^24+1 keys through the sequential network, one core, with the stable sort to compare")
	}
	n := int64(1<<24 + 1)
	in := make([]uint32, n)
	SortKeys(in, vocab.Float32, "uniform", 13)
	start := time.Now()
	seqCase(t, in, nil, n, 1, vocab.Float32, false, true)
	t.Logf("2^24+1 float32 pairs: seq and the checks took %v", time.Since(start))
}
