package cli

// -o: the output file, checked before the work and written beside its target, then renamed.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"tecaj/internal/report"
)

// Writer is the -o flag: the result of the first variant that passes goes to a file. The path
// is checked before anything is computed (Check), and the file is written beside its target and
// renamed onto it once whole, so that a failed write leaves what was there.
type Writer struct {
	Path    string
	Exts    []string // the extensions it takes (".npy", ".png"), matched case-insensitively
	written bool
}

// Flags adds -o, for files with one of the extensions exts.
func (w *Writer) Flags(fs *flag.FlagSet, what string, exts ...string) {
	w.Exts = exts
	fs.StringVar(&w.Path, "o", "", "write "+what+" of the first variant that passes to this file")
}

// Ext is -o's extension in lower case ("" without -o).
func (w *Writer) Ext() string { return strings.ToLower(filepath.Ext(w.Path)) }

// Check refuses, before any computing, an -o whose extension is not one of Exts or whose folder
// does not exist or cannot take a new file; others are the files written beside the target
// (FILE.values.npy), which must be writable too.
func (w *Writer) Check(others ...string) error {
	if w.Path == "" {
		return nil
	}
	ok := false
	for _, e := range w.Exts {
		ok = ok || w.Ext() == e
	}
	if !ok {
		return usagef("-o %s: the file must end in %s", w.Path, strings.Join(w.Exts, " or "))
	}
	for _, target := range append([]string{w.Path}, others...) {
		if target == "" {
			continue
		}
		if st, err := os.Stat(target); err == nil && st.IsDir() {
			return usagef("-o %s: %s is a directory", w.Path, target)
		}
		f, err := os.CreateTemp(filepath.Dir(target), ".tecaj-check-*")
		if err != nil {
			return usagef("-o %s: cannot write in %s: %v", w.Path, filepath.Dir(target), errors.Unwrap(err))
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}

// Write calls write once, for the first row that passes, with temp(target): the file to write
// for target (-o's path, or a file beside it), a temporary one in the same folder with the same
// extension. Once write returns, every temporary file is renamed onto its target; where it
// fails, none is, and the targets keep what they held.
func (w *Writer) Write(row report.Row, write func(temp func(target string) string) error) error {
	if w.Path == "" || w.written || !row.Pass {
		return nil
	}
	w.written = true
	var targets, temps []string
	temp := func(target string) string {
		t := filepath.Join(filepath.Dir(target), fmt.Sprintf(".tmp-%d-%d-%s", os.Getpid(), len(temps), filepath.Base(target)))
		targets, temps = append(targets, target), append(temps, t)
		return t
	}
	err := write(temp)
	failed := w.Path // the target whose temporary file failed (-o's, unless a file beside it)
	var pe *fs.PathError
	wrote := errors.As(err, &pe)
	var renamed []string
	for i := range temps {
		if err == nil {
			if err = os.Rename(temps[i], targets[i]); err != nil {
				failed = targets[i]
			} else {
				renamed = append(renamed, targets[i])
			}
		} else if wrote && pe.Path == temps[i] {
			failed = targets[i]
		}
		if err != nil {
			os.Remove(temps[i])
		}
	}
	if err == nil {
		return nil
	}
	kept := "what was there is kept"
	if len(renamed) > 0 { // (a rename past the first failed: those before it are the new files)
		kept = strings.Join(renamed, ", ") + " was written; " + failed + " keeps what it held"
	}
	return fmt.Errorf("-o: writing %s: %v (%s)", failed, report.Cause(err), kept)
}
