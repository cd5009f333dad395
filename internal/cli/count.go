package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Count is an element count flag that also takes 1e6, 2^20 and 1<<20.
type Count int64

func (c *Count) String() string { return strconv.FormatInt(int64(*c), 10) }

// Set parses the forms above; anything that is not a whole number is an error.
func (c *Count) Set(s string) error {
	v, err := ParseCount(s)
	if err != nil {
		return err
	}
	*c = Count(v)
	return nil
}

// Extent is a Count held in an int, at most 2^31 - 1 (an image's -width and -height).
type Extent int

func (e *Extent) String() string { return strconv.Itoa(int(*e)) }

// Set parses Count's forms.
func (e *Extent) Set(s string) error {
	v, err := ParseCount(s)
	if err == nil && v > math.MaxInt32 {
		err = fmt.Errorf("%s is past %d", s, math.MaxInt32)
	}
	if err != nil {
		return err
	}
	*e = Extent(v)
	return nil
}

// SizeList is -n: one count, a comma-separated list of counts, or a range of powers of two
// FROM..TO (FROM..TOx4: every other power of two).
type SizeList []int64

func (l *SizeList) String() string {
	if l == nil {
		return ""
	}
	var parts []string
	for _, n := range *l {
		parts = append(parts, strconv.FormatInt(n, 10))
	}
	return strings.Join(parts, ",")
}

// Set parses the forms above.
func (l *SizeList) Set(s string) error {
	*l = nil
	if from, to, ok := strings.Cut(s, ".."); ok {
		step := int64(2)
		if strings.HasSuffix(to, "x4") {
			to, step = strings.TrimSuffix(to, "x4"), 4
		}
		lo, err1 := ParseCount(from)
		hi, err2 := ParseCount(to)
		if err := FirstError(err1, err2); err != nil {
			return err
		}
		if lo < 1 || hi < lo || lo&(lo-1) != 0 || hi&(hi-1) != 0 {
			return fmt.Errorf("%q: a range runs from a power of two to a larger one (2^10..2^28)", s)
		}
		for n := lo; n <= hi && n > 0; n *= step {
			*l = append(*l, n)
		}
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		n, err := ParseCount(part)
		if err != nil {
			return err
		}
		*l = append(*l, n)
	}
	return nil
}

// ParseCount reads a whole number written as 1000000, 1e6, 2^20 or 1<<20, or a sum of such
// terms (2^20+3), at most 2^62.
func ParseCount(s string) (int64, error) {
	if terms := strings.Split(s, "+"); len(terms) > 1 {
		var sum int64
		for _, t := range terms {
			v, err := parseTerm(t)
			if err != nil {
				return 0, err
			}
			if v > 1<<62-sum {
				return 0, tooLarge(s)
			}
			sum += v
		}
		return sum, nil
	}
	return parseTerm(s)
}

func parseTerm(s string) (int64, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("%q is not a whole number (write 1000000, 1e6, 2^20, 1<<20 or 2^20+3)", s)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	// pow is base^exp, or base<<exp (base * 2^exp) when shift.
	pow := func(base, exp string, shift bool) (int64, error) {
		b, err1 := strconv.ParseInt(strings.TrimSpace(base), 10, 64)
		e, err2 := strconv.ParseInt(strings.TrimSpace(exp), 10, 64)
		if err1 != nil || err2 != nil || e < 0 {
			return 0, bad
		}
		f := math.Pow(float64(b), float64(e))
		if shift {
			f = float64(b) * math.Pow(2, float64(e))
		}
		if math.Abs(f) > 1<<62 {
			return 0, tooLarge(s)
		}
		return int64(f), nil
	}
	if parts := strings.SplitN(s, "^", 2); len(parts) == 2 {
		return pow(parts[0], parts[1], false)
	}
	if parts := strings.SplitN(s, "<<", 2); len(parts) == 2 {
		return pow(parts[0], parts[1], true)
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err == nil && math.Abs(f) > 1<<62 && !math.IsInf(f, 0):
		return 0, tooLarge(s)
	case err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62:
		return 0, bad
	}
	return int64(f), nil
}

// tooLarge is the error of a whole number past 2^62 (1e300, 2^100).
func tooLarge(s string) error {
	return fmt.Errorf("%q is too large: a count is at most 2^62 (every machine's memory runs out far below)", s)
}
