package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// runner runs the commands of bin, the terminal getting what a person reads and the log every
// run's whole output; failed collects the lines that failed.
type runner struct {
	bin     string
	term    io.Writer
	log     io.Writer
	timeout time.Duration
	failed  []string
}

// runSpec is one run: PROGRAM ARGS, in the environment plus vars (an experiment's switch), from
// the folder bin (another bundle's in ab; default the runner's), labelled in ab's log.
type runSpec struct {
	label string
	vars  []string
	bin   string
	env   []string
	prog  string
	args  []string
}

// line is the run as a line of an ab file: "[VARS ]PROGRAM ARGS".
func (s runSpec) line() string {
	return strings.Join(append(append(append([]string{}, s.vars...), s.prog), s.args...), " ")
}

// header is the run's line in the terminal and the log: "--- [LABEL: ]LINE".
func (s runSpec) header() string {
	if s.label != "" {
		return "--- " + s.label + ": " + s.line()
	}
	return "--- " + s.line()
}

// rowPattern picks what a person reads of a run: the copy line, the table's head and its rows.
var rowPattern = regexp.MustCompile(`copy \(read|^ +variant |^ +[a-z0-9]+ +([0-9]+|-) +([0-9]+|-) `)

// hintPattern picks the line that says why a run failed.
var hintPattern = regexp.MustCompile(`(?i)-blocks|-threads|error|usable|driver|fail`)

// summary is a run's output as a person reads it: its rows (120 columns), and for a failure its
// exit status and the first line that says why (else its first line that is not a row).
func summary(output string, code int, timeout time.Duration) []string {
	var lines, hint, first []string
	for _, line := range strings.Split(output, "\n") {
		if rowPattern.MatchString(line) {
			if len(line) > 120 {
				line = line[:120]
			}
			lines = append(lines, line)
		} else if first == nil && strings.TrimSpace(line) != "" {
			first = []string{line}
		}
		if hint == nil && hintPattern.MatchString(line) {
			hint = []string{line}
		}
	}
	if hint == nil {
		hint = first // (a message the pattern does not know: the output's first line)
	}
	switch {
	case code == timedOut:
		lines = append(lines, fmt.Sprintf("    timed out after %v (see the log)", timeout))
	case code != 0:
		lines = append(lines, fmt.Sprintf("    exit %d (see the log)", code))
		lines = append(lines, hint...)
	}
	return lines
}

// timedOut is a run's status when it took longer than the runner's timeout (timeout(1)'s).
const timedOut = 124

// one runs s, shows its header and summary, keeps its whole output in the log and lists it as
// failed unless it exits 0. It returns the output.
func (r *runner) one(s runSpec) string {
	fmt.Fprintln(io.MultiWriter(r.term, r.log), s.header())
	var buf bytes.Buffer
	code := r.exec(s, io.MultiWriter(&buf, r.log))
	for _, line := range summary(buf.String(), code, r.timeout) {
		fmt.Fprintln(r.term, line)
	}
	if code != 0 {
		r.failed = append(r.failed, strings.TrimPrefix(s.header(), "--- "))
	}
	return buf.String()
}

// tee runs PROGRAM ARGS from the runner's folder, its whole output to the terminal and the log.
func (r *runner) tee(prog string, args []string) int {
	return r.exec(runSpec{prog: prog, args: args}, io.MultiWriter(r.term, r.log))
}

// exec runs s with its output to w and returns its exit status (-1: it could not start).
func (r *runner) exec(s runSpec, w io.Writer) int {
	ctx := context.Background()
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	bin := s.bin
	if bin == "" {
		bin = r.bin
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, s.prog), s.args...)
	cmd.Env = append(append(os.Environ(), s.env...), s.vars...)
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil:
		return timedOut
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	}
	fmt.Fprintln(w, err)
	return -1
}

// benchmarks is a program's benchmark lines (PROGRAM -benchmarks), one argument list each.
func (r *runner) benchmarks(bin, prog string) ([]string, error) {
	out, err := exec.Command(filepath.Join(bin, prog), "-benchmarks").Output()
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return lines, nil
}

func (r *runner) fail(what string, err error) {
	fmt.Fprintf(io.MultiWriter(r.term, r.log), "--- %s\n    %v\n", what, err)
	r.failed = append(r.failed, what)
}

// verdict prints the failed lines, or that every one passed, and returns the exit status.
func (r *runner) verdict() int {
	fmt.Fprintln(r.term)
	if len(r.failed) > 0 {
		fmt.Fprintln(io.MultiWriter(r.term, r.log), "FAILED:", strings.Join(r.failed, "; "))
		return 1
	}
	fmt.Fprintln(r.term, "all steps passed")
	return 0
}
