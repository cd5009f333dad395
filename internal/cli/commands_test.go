package cli_test

// The built commands, run as a user runs them: exit codes and messages. Set TECAJ_BIN to a folder
// holding razlika and razdalja to test prebuilt binaries (the GPU bundle does, on hosts without Go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tecaj/internal/gpu"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func command(t *testing.T, name string) string {
	t.Helper()
	if dir := os.Getenv("TECAJ_BIN"); dir != "" {
		return filepath.Join(dir, name)
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "tecaj-bin")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir, "./cmd/razlika", "./cmd/razdalja", "./cmd/urejanje")
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building the commands: %v", buildErr)
	}
	return filepath.Join(binDir, name)
}

func run(t *testing.T, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(command(t, name), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("running %s: %v", name, err)
	}
	return code, o.String(), e.String()
}

func gpuReason() string {
	if _, err := gpu.Open(); err != nil {
		return err.Error()
	}
	return ""
}

func TestBadUsageExitsTwoNamingTheFlag(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "-n must be at least 1"},
		{[]string{"-n", "-3"}, "-n must be at least 1"},
		{[]string{"-n", "1.5"}, "not a whole number"},
		{[]string{"-threads", "48"}, "-threads must be a multiple of 32"},
		{[]string{"-threads", "2048"}, "-threads must be a multiple of 32"},
		{[]string{"-threads", "-32"}, "-threads must be a multiple of 32"},
		{[]string{"-blocks", "-1"}, "-blocks must be"},
		{[]string{"-reps", "0"}, "-reps must be"},
		{[]string{"-variant", "nope"}, `-variant "nope" is unknown`},
		{[]string{"-bogus"}, "flag provided but not defined"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, name := range []string{"razlika", "razdalja", "urejanje"} {
		for _, c := range cases {
			code, _, stderr := run(t, name, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 2 and %q", name, c.args, code, stderr, c.want)
			}
		}
	}
}

func TestHelpAndListNeedNoGPU(t *testing.T) {
	for name, variants := range map[string][]string{
		"razlika":  {"1", "2", "3", "4", "e4", "best", "cpu"},
		"razdalja": {"g", "ls", "ls1", "ls2", "ls3", "ls4", "la1", "la2", "best", "cub", "cpu"},
		"urejanje": {"o", "ov", "n", "nl", "best", "cub", "cpu"},
	} {
		if code, _, stderr := run(t, name, "-h"); code != 0 || !strings.Contains(stderr, "Exit status") {
			t.Errorf("%s -h: exit %d, %q", name, code, stderr)
		}
		code, stdout, _ := run(t, name, "-list")
		if code != 0 {
			t.Errorf("%s -list: exit %d", name, code)
		}
		for _, v := range variants {
			if !strings.Contains(stdout, "\n"+v+" ") && !strings.HasPrefix(stdout, v+" ") {
				t.Errorf("%s -list does not list %s:\n%s", name, v, stdout)
			}
		}
	}
}

func TestSortUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-threads", "96"}, "power of two"},
		{[]string{"-type", "float64"}, `-type "float64" is unknown`},
		{[]string{"-batch", "0"}, "-batch must be"},
		{[]string{"-dist", "zipf"}, `-dist "zipf" is unknown`},
	} {
		if code, _, stderr := run(t, "urejanje", c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("urejanje %v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestWithoutGPU(t *testing.T) {
	if gpuReason() == "" {
		t.Skip("a GPU is present: the no-GPU paths cannot be seen here")
	}
	for _, name := range []string{"razlika", "razdalja", "urejanje"} {
		for _, args := range [][]string{{"-n", "1000"}, {"-variant", "all"}, {"-info"}} {
			code, _, stderr := run(t, name, args...)
			if code != 3 || !strings.Contains(stderr, "no usable GPU") || !strings.Contains(stderr, "-variant cpu") {
				t.Errorf("%s %v without a GPU: exit %d, %q; want 3 and a pointer to -variant cpu", name, args, code, stderr)
			}
		}
		code, stdout, stderr := run(t, name, "-variant", "cpu", "-n", "2^20+3", "-reps", "2")
		if code != 0 || !strings.Contains(stdout, "PASS") {
			t.Errorf("%s -variant cpu: exit %d\n%s%s", name, code, stdout, stderr)
		}
	}
}

func TestOnGPU(t *testing.T) {
	if reason := gpuReason(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	for _, name := range []string{"razlika", "razdalja", "urejanje"} {
		code, stdout, stderr := run(t, name, "-variant", "all", "-n", "100003", "-reps", "3", "-json")
		if code != 0 {
			t.Fatalf("%s -variant all: exit %d\n%s%s", name, code, stdout, stderr)
		}
		var r struct {
			Rows []struct {
				Variant, Refused string
				Pass             bool
			}
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%s -json: %v\n%s", name, err, stdout)
		}
		ran := 0
		for _, row := range r.Rows {
			if row.Refused == "" {
				ran++
				if !row.Pass {
					t.Errorf("%s %s failed", name, row.Variant)
				}
			}
		}
		if ran < 4 {
			t.Errorf("%s: only %d variants ran: %s", name, ran, stdout)
		}
		if code, _, stderr := run(t, name, "-info"); code != 0 {
			t.Errorf("%s -info: exit %d %s", name, code, stderr)
		}
		if code, _, stderr := run(t, name, "-n", "2^40"); code != 2 || !strings.Contains(stderr, "device memory") {
			t.Errorf("%s -n 2^40: exit %d %q; want 2 and a memory message", name, code, stderr)
		}
	}
	code, _, stderr := run(t, "razlika", "-variant", "1", "-n", "5000")
	if code != 2 || !strings.Contains(stderr, "n <= 1024") {
		t.Errorf("razlika -variant 1 -n 5000: exit %d %q; want 2 and its domain", code, stderr)
	}
}
