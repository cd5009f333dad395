// Package clitest runs the built commands as a user runs them, for the tests of internal/cli and
// of each command. Set TECAJ_BIN to a folder holding the commands to test prebuilt binaries (the
// GPU bundle does, on hosts without Go); otherwise ./cmd/... is built once into a temporary folder.
package clitest

import (
	"bytes"
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

// root is the module's folder (where go.mod is), found from the working directory up.
func root() (string, error) {
	dir, err := os.Getwd()
	for err == nil {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
	return "", err
}

// Main runs a package's tests, then removes the commands built for them (165 MB a test binary;
// left behind, every `go test ./...` leaked six copies). Each package that runs commands:
// func TestMain(m *testing.M) { clitest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// Bin is the folder of the commands: TECAJ_BIN, or ./cmd/... built once (and removed by Main).
func Bin(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("TECAJ_BIN"); dir != "" {
		return dir
	}
	buildOnce.Do(func() {
		var src string
		if src, buildErr = root(); buildErr != nil {
			return
		}
		if binDir, buildErr = os.MkdirTemp("", "tecaj-bin"); buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir, "./cmd/...")
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building the commands: %v", buildErr)
	}
	return binDir
}

// Commands lists every command (the files of Bin): the list is derived, never written out.
func Commands(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(Bin(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) < 3 {
		t.Fatalf("found only the commands %v", names)
	}
	return names
}

// Run runs a command and returns its exit code, stdout and stderr.
func Run(t *testing.T, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return RunEnv(t, nil, name, args...)
}

// RunEnv is Run with env ("KEY=value") added to this process's environment.
func RunEnv(t *testing.T, env []string, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(Bin(t), name), args...)
	cmd.Env = append(os.Environ(), env...)
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

// NoGPU is why there is no usable GPU, or "" where there is one.
func NoGPU() string {
	if _, err := gpu.Open(); err != nil {
		return err.Error()
	}
	return ""
}

// OneLine says whether a message is one line.
func OneLine(s string) bool { return !strings.Contains(strings.TrimSpace(s), "\n") }
