package gpu

/*
#include "tecaj.h"
*/
import "C"

import (
	"fmt"

	"tecaj/internal/vocab"
)

// vocabularyMismatches lists where Go's mirror of tc_dtype and tc_op (package vocab) differs from
// the library's values (none: TestVocabularyMirrorsTheABI).
func vocabularyMismatches() []string {
	var out []string
	dtypes := map[vocab.Dtype]C.tc_dtype{vocab.Float32: C.TC_FLOAT32, vocab.Float64: C.TC_FLOAT64, vocab.Int32: C.TC_INT32,
		vocab.Uint32: C.TC_UINT32, vocab.Uint8: C.TC_UINT8, vocab.Int64: C.TC_INT64}
	for g, c := range dtypes {
		if int(g) != int(c) {
			out = append(out, fmt.Sprintf("%v is %d in Go, %d in tecaj.h", g, int(g), int(c)))
		}
	}
	ops := map[vocab.Op]C.tc_op{vocab.Sum: C.TC_SUM, vocab.Min: C.TC_MIN, vocab.Max: C.TC_MAX, vocab.Mean: C.TC_MEAN,
		vocab.Norm: C.TC_NORM, vocab.Dot: C.TC_DOT, vocab.ArgMin: C.TC_ARGMIN, vocab.ArgMax: C.TC_ARGMAX}
	for g, c := range ops {
		if int(g) != int(c) {
			out = append(out, fmt.Sprintf("%v is %d in Go, %d in tecaj.h", g, int(g), int(c)))
		}
	}
	return out
}
