package gpu

import "testing"

// Go's mirror of tc_dtype and tc_op (package vocab) holds the library's values.
func TestVocabularyMirrorsTheABI(t *testing.T) {
	for _, m := range vocabularyMismatches() {
		t.Error(m)
	}
}
