package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"tecaj/internal/cli/clitest"
	"tecaj/internal/data"
)

// Past 2^31 elements, where an index no longer fits int32 (scan tiles, argmin's index, grid
// strides): best and the library at n = 2^31 + 5, each row checked against the float64 reference;
// argmin's minimum placed past 2^31. Minutes and about 60 GB of host memory: run with
// TECAJ_LARGE=1 (run.sh large) on an H100.
func TestPastTwoToThe31(t *testing.T) {
	if os.Getenv("TECAJ_LARGE") == "" {
		t.Skip("set TECAJ_LARGE=1: minutes, and inputs of 8.6 GB each")
	}
	if reason := clitest.NoGPU(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	const n = "2147483653"
	runs := [][]string{
		{"razdalja", "-n", n, "-variant", "best,cub"},
		{"redukcija", "-n", n, "-variant", "best,cub"},
		{"prefiks", "-n", n, "-variant", "best,cub"},
		{"razlika", "-n", n, "-variant", "best"},
	}
	// argmin's minimum at 2^31 + 3, among values repeating every 1000 elements
	path := filepath.Join(t.TempDir(), "past31.npy")
	values := make([]float32, 1<<31+5)
	for i := range values {
		values[i] = float32(i%1000) / 1000
	}
	values[1<<31+3] = -1
	if err := data.WriteFloat32s(path, values); err != nil {
		t.Fatal(err)
	}
	values = nil
	runs = append(runs, []string{"redukcija", "-a", path, "-op", "argmin", "-variant", "best,cub"})
	for _, args := range runs {
		rows := multiRun(t, args[0], append(args[1:], "-reps", "3")...)
		for name, row := range rows {
			if !row.Pass {
				t.Errorf("%v: %s failed (%s)", args, name, row.Note)
			}
			if args[len(args)-3] == "argmin" && (row.Index == nil || *row.Index != 1<<31+3) {
				t.Errorf("%v: %s gives index %v, want %d", args, name, row.Index, 1<<31+3)
			}
		}
		if len(rows) == 0 {
			t.Errorf("%v: no rows", args)
		}
		fmt.Println(args, "passed")
	}
}
