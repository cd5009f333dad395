package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"tecaj/internal/cli/clitest"
	"tecaj/internal/data"
)

// seq, the sequential network, runs without a GPU beside cpu and passes the same check, for
// keys, argsorts, descending sorts and batches of sizes that are not powers of two; from a file,
// its output is cpu's word for word (NaN as the canonical one, -0.0 kept).
func TestSeq(t *testing.T) {
	ran := 0
	for _, args := range [][]string{
		{"-n", "1"}, {"-n", "33", "-batch", "3", "-pairs", "-desc"}, {"-n", "1025", "-type", "int32", "-dist", "few", "-pairs"},
		{"-n", "65537", "-type", "uint32", "-dist", "reversed", "-desc"},
	} {
		code, stdout, stderr := clitest.Run(t, "urejanje", append([]string{"-variant", "seq,cpu", "-reps", "1", "-json"}, args...)...)
		var r struct {
			Rows []struct {
				Variant string
				Pass    bool
				Note    string
			}
		}
		if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil || len(r.Rows) != 2 {
			t.Fatalf("%v: exit %d, %v\n%s%s", args, code, err, stdout, stderr)
		}
		for _, row := range r.Rows {
			if !row.Pass {
				t.Errorf("%v: %s failed: %s", args, row.Variant, row.Note)
			}
		}
		ran++
	}
	dir := fixtures(t)
	out := map[string][]uint32{}
	for _, v := range []string{"seq", "cpu"} {
		o := filepath.Join(dir, v+".npy")
		if code, stdout, stderr := clitest.Run(t, "urejanje", "-variant", v, "-keys", filepath.Join(dir, "f4.npy"), "-pairs", "-o", o); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", v, code, stdout, stderr)
		}
		for _, f := range []string{o, filepath.Join(dir, v+".values.npy")} {
			a, err := data.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := a.Words()
			out[v] = append(out[v], w...)
		}
	}
	if len(out["seq"]) != 10 || fmt.Sprint(out["seq"]) != fmt.Sprint(out["cpu"]) {
		t.Errorf("seq wrote %08x, cpu %08x", out["seq"], out["cpu"])
	}
	if ran != 4 {
		t.Fatalf("ran %d", ran)
	}
}

// seq's domain: past 2^25 keys in all the network takes minutes, and it is refused when named
// (exit 2, before any work) and skipped under -variant all.
func TestSeqDomain(t *testing.T) {
	for _, args := range [][]string{{"-n", "2^25+1"}, {"-n", "2^21", "-batch", "17"}} {
		code, stdout, stderr := clitest.Run(t, "urejanje", append(args, "-variant", "seq")...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "at most 2^25 keys") {
			t.Errorf("urejanje %v -variant seq: exit %d, %q; want 2 and its domain", args, code, stderr)
		}
	}
}
