package main

import (
	"path/filepath"
	"strings"
	"testing"

	"tecaj/internal/cli/clitest"
	"tecaj/internal/data"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// a and b from files, c written with -o and read back: exactly a - b.
func TestFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy"), filepath.Join(dir, "c.npy")
	av, bv := []float32{1.5, -2, 1e30, 0.25, 7}, []float32{0.5, 2, -1e30, 0.25, -1}
	if err := data.WriteFloat32s(a, av); err != nil {
		t.Fatal(err)
	}
	if err := data.WriteFloat32s(b, bv); err != nil {
		t.Fatal(err)
	}
	variants := "cpu"
	if clitest.NoGPU() == "" {
		variants = "all"
	}
	if code, stdout, stderr := clitest.Run(t, "razlika", "-variant", variants, "-a", a, "-b", b, "-o", c); code != 0 {
		t.Fatalf("razlika -a -b -o: exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := data.Read(c)
	if err != nil {
		t.Fatal(err)
	}
	cv, _, _ := got.Float32s()
	for i := range av {
		if cv[i] != av[i]-bv[i] {
			t.Errorf("c[%d] = %v, want %v", i, cv[i], av[i]-bv[i])
		}
	}
}

func TestDomainRefusal(t *testing.T) {
	if reason := clitest.NoGPU(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	code, _, stderr := clitest.Run(t, "razlika", "-variant", "1", "-n", "5000")
	if code != 2 || !strings.Contains(stderr, "n <= 1024") {
		t.Errorf("razlika -variant 1 -n 5000: exit %d %q; want 2 and its domain", code, stderr)
	}
}
