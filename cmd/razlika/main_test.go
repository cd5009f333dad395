package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// Outside its domain 2 is refused (exit 2, with or without a GPU: the domain is host knowledge).
func TestDomainRefusal(t *testing.T) {
	code, _, stderr := clitest.Run(t, "razlika", "-variant", "2", "-n", "5000")
	if code != 2 || !strings.Contains(stderr, "n <= threads <= 1024") {
		t.Errorf("razlika -variant 2 -n 5000: exit %d %q; want 2 and its domain", code, stderr)
	}
}

// 1 and 3 named past their domain run as the lecture's failure: no usage error (exit 3 without a
// GPU); with one, the row says WRONG and counts what went wrong, and the exit status is 0 (as
// redukcija's race). Under -variant all they are skipped as outside their domain.
func TestLessonsRunWhenNamed(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the row's note, with a GPU
	}{
		{[]string{"-variant", "1", "-n", "1000", "-threads", "1024"}, "24 elements written past n (guard words overwritten), 0 of 1000 left unwritten"},
		{[]string{"-variant", "1", "-n", "5000", "-threads", "256"}, "0 elements written past n (guard words overwritten), 4744 of 5000 left unwritten"},
		{[]string{"-variant", "3,4", "-n", "2^20", "-blocks", "7"}, "0 elements written past n (guard words overwritten), 1046784 of 1048576 left unwritten"},
	} {
		args := append(c.args, "-reps", "3")
		code, stdout, stderr := clitest.Run(t, "razlika", args...)
		if reason := clitest.NoGPU(); reason != "" {
			if code != 3 {
				t.Errorf("razlika %v without a GPU: exit %d %q; want 3 (no GPU), not a refusal", c.args, code, stderr)
			}
			continue
		}
		if code != 0 || !strings.Contains(stdout, "WRONG") || !strings.Contains(stdout, c.want) {
			t.Errorf("razlika %v: exit %d\n%s%s\nwant 0, WRONG and %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if clitest.NoGPU() != "" {
		return
	}
	code, stdout, stderr := clitest.Run(t, "razlika", "-variant", "all", "-n", "5000", "-reps", "3")
	// (no row's check says WRONG; the skip's domain text names the lesson's WRONG in words)
	if code != 0 || regexp.MustCompile(`(?m) WRONG(  |$)`).MatchString(stdout) || !strings.Contains(stdout, "outside domain: n <= 1024") {
		t.Errorf("razlika -variant all -n 5000: exit %d\n%s%s\nwant 0, 1 skipped, no WRONG", code, stdout, stderr)
	}
}

// A lesson that fails writes no -o, and says so (no variant passed), exit 0 as for race.
func TestLessonWritesNoOutputAndSaysSo(t *testing.T) {
	if reason := clitest.NoGPU(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	out := filepath.Join(t.TempDir(), "c.npy")
	code, _, stderr := clitest.Run(t, "razlika", "-variant", "1", "-n", "5000", "-reps", "2", "-o", out)
	if _, err := os.Stat(out); code != 0 || err == nil || !strings.Contains(stderr, "-o "+out+" not written: no variant passed its check") {
		t.Errorf("razlika -variant 1 -n 5000 -o: exit %d, %q (file: %v)", code, stderr, err)
	}
}
