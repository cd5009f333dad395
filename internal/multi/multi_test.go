package multi

import (
	"bytes"
	"math"
	"math/rand"
	"net"
	"sync"
	"testing"
	"time"
)

// Every GPU count from 1 to 8 and sizes not divisible by it, down to slices of length 0 and 1:
// the slices cover 0..n in order, contiguously, their lengths differ by at most one.
func TestSplitCoversEveryItemOnce(t *testing.T) {
	for g := 1; g <= 8; g++ {
		for _, n := range []int64{0, 1, 2, 3, 7, 8, 9, 31, 1000003, 1<<31 + 5} {
			s := Split(n, g)
			if len(s) != g || s[0].Lo != 0 || s[g-1].Hi != n {
				t.Fatalf("g=%d n=%d: %v", g, n, s)
			}
			short, long := s[g-1].Len(), s[0].Len()
			for i := range s {
				if i > 0 && s[i].Lo != s[i-1].Hi {
					t.Fatalf("g=%d n=%d: slice %d starts at %d after %d", g, n, i, s[i].Lo, s[i-1].Hi)
				}
				if l := s[i].Len(); l < short || l > long || long-short > 1 || l < 0 {
					t.Fatalf("g=%d n=%d: lengths %v", g, n, s)
				}
			}
		}
	}
	if Split(5, 0) != nil || Split(-1, 2) != nil {
		t.Error("no GPUs, or a negative n, split")
	}
}

// The combine is one left fold in GPU order: a non-commutative operator shows the order, and
// float sums of the same partials are the same bits every time.
func TestCombineOrder(t *testing.T) {
	parts := []string{"a", "b", "", "c"}
	if got := Combine(parts, "", func(x, y string) string { return "(" + x + y + ")" }); got != "((((a)b))c)" {
		t.Errorf("order: %s", got)
	}
	r := rand.New(rand.NewSource(3))
	for g := 1; g <= 8; g++ {
		p := make([]float32, g)
		for i := range p {
			p[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.Intn(12)-6)))
		}
		sum := func(a, b float32) float32 { return a + b }
		first := Combine(p, float32(math.Copysign(0, -1)), sum)
		for k := 0; k < 10; k++ {
			if got := Combine(p, float32(math.Copysign(0, -1)), sum); math.Float32bits(got) != math.Float32bits(first) {
				t.Fatalf("g=%d: %v then %v", g, first, got)
			}
		}
	}
}

// A scan over g slices, each offset by the fold of the slices before (and restarted at heads),
// equals the one-GPU scan exactly on integers, plain and segmented, for every g and sizes that
// leave slices of 0 and 1.
func TestOffsetsGiveTheOneGPUScan(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for g := 1; g <= 8; g++ {
		for _, n := range []int64{1, 2, 5, 8, 9, 33, 1000} {
			in, heads := make([]int64, n), make([]bool, n)
			for i := range in {
				in[i] = int64(r.Intn(2001) - 1000)
				heads[i] = i == 0 || r.Intn(9) == 0
			}
			for _, segmented := range []bool{false, true} {
				want := make([]int64, n) // the one-GPU inclusive scan
				acc := int64(0)
				for i, x := range in {
					if segmented && heads[i] {
						acc = 0
					}
					acc += x
					want[i] = acc
				}
				s := Split(n, g)
				totals, headed := make([]int64, g), make([]bool, g)
				for k, sl := range s { // each GPU: its slice's total since its last head
					for i := sl.Lo; i < sl.Hi; i++ {
						if segmented && heads[i] {
							totals[k], headed[k] = 0, true
						}
						totals[k] += in[i]
					}
				}
				var hs []bool
				if segmented {
					hs = headed
				}
				off := Offsets(totals, hs, 0, func(a, b int64) int64 { return a + b })
				for k, sl := range s {
					acc := off[k]
					for i := sl.Lo; i < sl.Hi; i++ {
						if segmented && heads[i] {
							acc = 0
						}
						acc += in[i]
						if acc != want[i] {
							t.Fatalf("%s g=%d n=%d: position %d: %d, want %d", map[bool]string{true: "segmented", false: "plain"}[segmented], g, n, i, acc, want[i])
						}
					}
				}
			}
		}
	}
}

// The id reaches every rank, from rank 0 over TCP, whichever order they come in; a wrong rank
// number or no rank 0 is an error within the wait.
func TestBootstrap(t *testing.T) {
	const size = 128
	id := make([]byte, size)
	rand.New(rand.NewSource(1)).Read(id)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no TCP here:", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	const nranks = 4
	got := make([][]byte, nranks)
	errs := make([]error, nranks)
	var wg sync.WaitGroup
	for r := nranks - 1; r >= 0; r-- { // the others first: they wait for rank 0
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			var mine []byte
			if r == 0 {
				time.Sleep(200 * time.Millisecond)
				mine = id
			}
			got[r], errs[r] = Bootstrap(addr, r, nranks, mine, size, 10*time.Second)
		}(r)
	}
	wg.Wait()
	for r := range got {
		if errs[r] != nil || !bytes.Equal(got[r], id) {
			t.Errorf("rank %d: %v, %d bytes", r, errs[r], len(got[r]))
		}
	}
	if _, err := Bootstrap(addr, 1, 2, nil, size, 300*time.Millisecond); err == nil {
		t.Error("rank 1 got an id with no rank 0")
	}
	if _, err := Bootstrap(addr, 2, 2, nil, size, time.Second); err == nil {
		t.Error("rank 2 of 2 was taken")
	}
	if got, err := Bootstrap(addr, 0, 1, id, size, time.Second); err != nil || !bytes.Equal(got, id) {
		t.Errorf("one rank: %v", err)
	}
}

// Split puts every empty slice last: where n < g, GPUs 0..n-1 hold one item each. A scan over
// several GPUs relies on it (the carries a GPU with items folds all come from GPUs with items).
func TestSplitEmptySlicesComeLast(t *testing.T) {
	for _, g := range []int{1, 2, 3, 4, 8} {
		for n := int64(0); n <= int64(2*g+1); n++ {
			empty := false
			for i, s := range Split(n, g) {
				if s.Len() == 0 {
					empty = true
				} else if empty {
					t.Errorf("Split(%d, %d): slice %d has items after an empty one", n, g, i)
				}
			}
		}
	}
}
