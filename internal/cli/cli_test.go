package cli

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tecaj/internal/gpu"
	"tecaj/internal/report"
)

// The memory advice cannot wrap: its sizes are float64, and the n it suggests is positive and fits.
func TestMemoryAdviceSuggestsAPositiveNThatFits(t *testing.T) {
	bytes := func(n int64) float64 { return 24*float64(n) + 64<<20 }
	free := 79e9
	for _, n := range []int64{1 << 40, 1 << 62, 1<<62 + 1<<61, 4e9} {
		msg := memoryAdvice(n, bytes, free, 512<<20, "device")
		i := strings.Index(msg, "use -n ")
		if i < 0 {
			t.Fatalf("n=%d: %q has no suggestion", n, msg)
		}
		most, err := strconv.ParseInt(strings.Fields(msg[i+len("use -n "):])[0], 10, 64)
		if err != nil || most < 1 || memoryAdvice(most, bytes, free, 512<<20, "device") != "" || memoryAdvice(most+1, bytes, free, 512<<20, "device") == "" {
			t.Errorf("n=%d: suggests %d (%v): it must be the largest n that fits", n, most, err)
		}
	}
	if msg := memoryAdvice(1000, bytes, free, 512<<20, "device"); msg != "" {
		t.Errorf("1000 elements do not fit: %q", msg)
	}
	if msg := memoryAdvice(5, bytes, 1e6, 512<<20, "device"); !strings.Contains(msg, "not even -n 1") {
		t.Errorf("a full device: %q", msg)
	}
}

// A slot is unwritten only where it holds each run's poison; any other value, even one poison
// alone (a legal integer), was written.
func TestUnwrittenNeedsBothPoisons(t *testing.T) {
	first := []uint32{0xFFFFFFFF, 0xFFFFFFFF, 7, 0x5A5A5A5A}
	second := []uint32{0x5A5A5A5A, 0xFFFFFFFF, 7, 0x5A5A5A5A}
	if n := UnwrittenWords(first, second); n != 1 {
		t.Errorf("UnwrittenWords: %d, want 1", n)
	}
	if !UnwrittenBytes([]byte{0xFF, 0xFF}, []byte{0x5A, 0x5A}) || UnwrittenBytes([]byte{0xFF, 0xFF}, []byte{0x5A, 0x00}) {
		t.Error("UnwrittenBytes")
	}
}

// -o writes beside its target and renames: a write that fails part-way leaves the target as it
// was and no temporary file; one that succeeds replaces both files of a pair.
func TestWriterKeepsTheTargetWhenAWriteFails(t *testing.T) {
	dir := t.TempDir()
	target, values := filepath.Join(dir, "exist.npy"), filepath.Join(dir, "exist.values.npy")
	for _, f := range []string{target, values} {
		if err := os.WriteFile(f, []byte("before"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := &Writer{Path: target, Exts: []string{".npy"}}
	err := w.Write(report.Row{Pass: true}, func(temp func(string) string) error {
		if err := os.WriteFile(temp(target), []byte("whole"), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(temp(values), []byte("half"), 0o644); err != nil {
			return err
		}
		return errors.New("no space left on device")
	})
	entries, _ := os.ReadDir(dir)
	for _, f := range []string{target, values} {
		if b, _ := os.ReadFile(f); err == nil || string(b) != "before" || len(entries) != 2 {
			t.Errorf("a failed write: %v; %s holds %q; %d files in the folder", err, f, b, len(entries))
		}
	}
	w = &Writer{Path: target, Exts: []string{".npy"}}
	err = w.Write(report.Row{Pass: true}, func(temp func(string) string) error {
		return FirstError(os.WriteFile(temp(target), []byte("new"), 0o644), os.WriteFile(temp(values), []byte("new values"), 0o644))
	})
	a, _ := os.ReadFile(target)
	b, _ := os.ReadFile(values)
	if entries, _ = os.ReadDir(dir); err != nil || string(a) != "new" || string(b) != "new values" || len(entries) != 2 {
		t.Errorf("a whole write: %v; %q, %q; %d files", err, a, b, len(entries))
	}
}

// -o is checked before computing: its extension (in any case) and its folder.
func TestWriterCheck(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(dir, "out.npy"), true},
		{filepath.Join(dir, "OUT.NPY"), true},
		{filepath.Join(dir, "out.txt"), false},
		{filepath.Join(dir, "out"), false},
		{filepath.Join(dir, "missing", "out.npy"), false},
		{dir + "/", false},
	} {
		w := &Writer{Path: c.path, Exts: []string{".npy", ".png"}}
		if err := w.Check(); (err == nil) != c.ok {
			t.Errorf("-o %s: %v, want ok=%v", c.path, err, c.ok)
		}
	}
}

// The no-GPU hint is the user's command line with -variant cpu: under `go run` as `go run
// ./cmd/NAME`, with any -variant of theirs (two words, or -variant=X, or --variant) replaced.
func TestHostCommandLine(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"bin/razdalja", "-n", "1e6"}, "bin/razdalja -n 1e6 -variant cpu"},
		{[]string{"/tmp/go-build123/b001/exe/razdalja", "-variant", "best", "-n", "5"}, "go run ./cmd/razdalja -n 5 -variant cpu"},
		{[]string{"./razdalja", "-variant=all", "--variant", "g", "-a", "x.npy"}, "./razdalja -a x.npy -variant cpu"},
		{nil, "razdalja -variant cpu"},
	} {
		if got := hostCommandLine(c.argv, "razdalja", "cpu"); got != c.want {
			t.Errorf("%v: %q, want %q", c.argv, got, c.want)
		}
	}
}

// Progress appears only once a step has taken its delay, says what and how long, and is
// cleared when the step ends; a quick step writes nothing.
func TestProgress(t *testing.T) {
	var quick, slow strings.Builder
	progressTo(&quick, "x: running cpu", 200*time.Millisecond, 50*time.Millisecond)()
	stop := progressTo(&slow, "x: running cpu", 20*time.Millisecond, 20*time.Millisecond)
	time.Sleep(90 * time.Millisecond)
	stop()
	out := slow.String()
	if quick.Len() != 0 || !strings.Contains(out, "x: running cpu (0 s)") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("quick step: %q; slow step: %q", quick.String(), out)
	}
}

// hostSession is a host-only Session whose run fails at one size.
type hostSession struct {
	n, failAt int64
}

func (s hostSession) RunDevice(gpu.Plan, *gpu.Buffer, *gpu.Timer) (report.Row, error) {
	return report.Row{}, errors.New("no device here")
}

func (s hostSession) RunHost(string) (report.Row, error) {
	if s.n == s.failAt {
		return report.Row{}, errors.New("the host ran out of something")
	}
	return report.Row{Pass: true, KernelMs: report.Num(1), Bytes: report.Num(float64(4 * s.n))}, nil
}

func (s hostSession) H2DMs() float64 { return math.NaN() }
func (s hostSession) Free()          {}

// A sweep that stops part-way keeps the sizes that finished: in the table, the CSV and the picture
// (issue 46, item 1); the exit status is the failure's.
func TestSweepKeepsFinishedSizes(t *testing.T) {
	dir := t.TempDir()
	c := Command{Program: gpu.Razlika, About: "test", DefaultN: 1, Default: "cpu", Baseline: "cpu",
		HostVariants: []HostVariant{{Name: "cpu", Summary: "host"}},
		DeviceBytes:  func(n int64) float64 { return float64(n) },
		HostBytes:    func(n int64, _ bool) float64 { return float64(n) },
		Check:        func(*Options) error { return nil },
		Plan:         func(*gpu.Device, gpu.Request) (gpu.Plan, error) { return nil, errors.New("no plans") },
		Open: func(o Options, _ *gpu.Device) (Session, error) {
			return hostSession{n: o.N, failAt: 4096}, nil
		},
	}
	csv, svg := filepath.Join(dir, "s.csv"), filepath.Join(dir, "s.svg")
	var stdout, stderr strings.Builder
	code := c.run([]string{"-n", "1024,2048,4096,8192", "-variant", "cpu", "-reps", "1", "-csv", csv, "-plot", svg}, &stdout, &stderr)
	b, _ := os.ReadFile(csv)
	p, _ := os.ReadFile(svg)
	if code != ExitFailed || strings.Count(stdout.String(), "n=") != 2 || strings.Count(string(b), "\n") != 3 ||
		!strings.Contains(string(p), "<polyline") || !strings.Contains(stderr.String(), "the sweep stopped at -n 4096") {
		t.Errorf("exit %d\nstdout %s\nstderr %s\ncsv %s\nsvg %d bytes", code, stdout.String(), stderr.String(), b, len(p))
	}
}

// A failed write names its target and the cause, not the temporary file beside it (item 6).
func TestWriteErrorsNameTheTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.npy")
	w := &Writer{Path: target, Exts: []string{".npy"}}
	err := w.Write(report.Row{Pass: true}, func(temp func(string) string) error {
		return &fs.PathError{Op: "write", Path: temp(target), Err: syscall.ENOSPC}
	})
	if err == nil || strings.Contains(err.Error(), ".tmp-") || !strings.Contains(err.Error(), "writing "+target+": no space left on device") {
		t.Errorf("-o: %v", err)
	}
	err = report.WriteCSVFile(filepath.Join(dir, "gone", "x.csv"), nil)
	if err == nil || strings.Contains(err.Error(), ".tmp-") || !strings.Contains(err.Error(), filepath.Join(dir, "gone", "x.csv")) {
		t.Errorf("-csv: %v", err)
	}
}
