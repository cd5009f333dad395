// Package vocab is the one vocabulary of element types and operators that every program, the C
// ABI (tc_dtype, tc_op in cuda/include/tecaj.h) and the commands share: mirrored here once, with
// the same values (internal/gpu's tests hold them equal), each with its name.
package vocab

import (
	"fmt"
	"strings"
)

// Dtype is an element type (tc_dtype).
type Dtype int

// The element types, as tc_dtype numbers them.
const (
	Float32 Dtype = 0
	Float64 Dtype = 1
	Int32   Dtype = 2
	Uint32  Dtype = 3
	Uint8   Dtype = 4
	Int64   Dtype = 5 // (an accumulator only)
)

var dtypeNames = map[Dtype]string{Float32: "float32", Float64: "float64", Int32: "int32", Uint32: "uint32", Uint8: "uint8", Int64: "int64"}

func (d Dtype) String() string {
	if s, ok := dtypeNames[d]; ok {
		return s
	}
	return fmt.Sprintf("Dtype(%d)", int(d))
}

// Bytes is an element's size.
func (d Dtype) Bytes() int {
	switch d {
	case Float64, Int64:
		return 8
	case Uint8:
		return 1
	}
	return 4
}

// Op is an operator (tc_op).
type Op int

// The operators, as tc_op numbers them.
const (
	Sum    Op = 0
	Min    Op = 1
	Max    Op = 2
	Mean   Op = 3
	Norm   Op = 4
	Dot    Op = 5
	ArgMin Op = 6
	ArgMax Op = 7
)

var opNames = map[Op]string{Sum: "sum", Min: "min", Max: "max", Mean: "mean", Norm: "norm", Dot: "dot", ArgMin: "argmin", ArgMax: "argmax"}

func (o Op) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Arg says whether the operator answers with an index (argmin, argmax).
func (o Op) Arg() bool { return o == ArgMin || o == ArgMax }

// Selects says whether the operator picks an element (min, max, argmin, argmax) rather than
// adding them up.
func (o Op) Selects() bool { return o == Min || o == Max || o.Arg() }

// Lowest says whether a selecting operator picks the smallest element (min, argmin).
func (o Op) Lowest() bool { return o == Min || o == ArgMin }

// Parse is the type or operator of that name among those a program takes; the error names them.
func Parse[T fmt.Stringer](flag, name string, among []T) (T, error) {
	for _, x := range among {
		if x.String() == name {
			return x, nil
		}
	}
	var none T
	return none, fmt.Errorf("-%s %q is unknown; choose one of %s", flag, name, Names(among))
}

// Names lists the names, comma-separated.
func Names[T fmt.Stringer](xs []T) string {
	var out []string
	for _, x := range xs {
		out = append(out, x.String())
	}
	return strings.Join(out, ", ")
}
