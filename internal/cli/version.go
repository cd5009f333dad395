package cli

// The commit a command was built from, for every report.

import (
	"runtime/debug"
)

// commit is buildCommit's answer, read once.
var commit = buildCommit()

// buildCommit is the commit go build stamped into the command (vcs.revision), with "+dirty" where
// the tree had changes, or "" (go run, go test, or a build outside git).
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, kv := range info.Settings {
		switch {
		case kv.Key == "vcs.revision":
			rev = kv.Value
		case kv.Key == "vcs.modified" && kv.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}
