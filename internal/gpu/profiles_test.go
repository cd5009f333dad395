package gpu

import (
	"errors"
	"testing"
)

// planners plan a variant at n in every shape its program takes (each program's P_test.go adds
// its own), for TestPlansFitEveryProfile; an error other than ErrOutsideDomain fails the test.
var planners = map[string]func(d *Device, v Variant, n int64) ([]Launch, error){}

// Every variant of every program, planned for every emulated profile (no GPU needed), launches
// within that profile's limits: threads a block, blocks a grid, shared memory a block. And the
// plans are the profile's: a grid-stride best fills that device's multiprocessors, no more.
// Floors: every variant plans a launch, and each program at least one for half its variants and
// sizes (200 in all), so a table that refuses everything fails.
func TestPlansFitEveryProfile(t *testing.T) {
	names := Profiles()
	if len(names) < 4 {
		t.Fatalf("profiles: %v", names)
	}
	for _, name := range names {
		d, err := Profile(name)
		if err != nil {
			t.Fatal(err)
		}
		lim := d.desc
		sizes := []int64{1, 33, 1025, 65537, 1000000, 1<<24 + 3, 1 << 28}
		planned := 0
		for _, p := range Programs() {
			plan, ok := planners[p.Name]
			if !ok {
				t.Errorf("%s: no planner (register one in internal/gpu/%s_test.go)", p.Name, p.Name)
				continue
			}
			variants, programPlanned := 0, 0
			for _, v := range p.Variants() {
				if v.Library {
					continue // (the library sizes its own launches, and asks a GPU for its scratch)
				}
				variants++
				variantPlanned := 0
				for _, n := range sizes {
					launches, err := plan(d, v, n)
					if err != nil && !errors.Is(err, ErrOutsideDomain) {
						t.Errorf("%s: %s %s n=%d: %v", name, p.Name, v.Name, n, err)
						continue
					}
					for _, l := range launches {
						variantPlanned++
						if l.Threads > int(lim.max_threads_per_block) || l.Blocks > int(lim.max_grid_x) ||
							l.SharedBytes > int64(lim.shared_per_block_optin) || l.Blocks < 0 || l.Threads < 0 {
							t.Errorf("%s: %s %s n=%d: %d threads x %d blocks, %d bytes of shared memory: past the profile's "+
								"%d threads, %d blocks, %d bytes", name, p.Name, v.Name, n, l.Threads, l.Blocks, l.SharedBytes,
								lim.max_threads_per_block, lim.max_grid_x, lim.shared_per_block_optin)
						}
					}
				}
				if variantPlanned == 0 {
					t.Errorf("%s: %s %s planned no launch at n = %v", name, p.Name, v.Name, sizes)
				}
				programPlanned += variantPlanned
			}
			if floor := variants * len(sizes) / 2; programPlanned < floor {
				t.Errorf("%s: %s planned %d launches, want at least %d (half its %d variants times %d sizes)",
					name, p.Name, programPlanned, floor, variants, len(sizes))
			}
			planned += programPlanned
		}
		if planned < 200 {
			t.Errorf("%s: only %d plans", name, planned)
		}
	}
}

// A resident wave is the profile's: best's grid of a large reduction is at most its SMs times
// the blocks an SM holds, and grows with the SMs.
func TestBestGridFollowsTheProfile(t *testing.T) {
	grids := map[string]int{}
	for _, name := range Profiles() {
		d, _ := Profile(name)
		pl, err := d.PlanRedukcija(RedukcijaRequest{Request: Request{Variant: find(t, Redukcija, "best"), N: 1 << 28}})
		if err != nil {
			t.Fatal(err)
		}
		if wave := d.Multiprocessors * int(d.desc.max_blocks_per_multiprocessor); pl.Blocks > wave || pl.Blocks < d.Multiprocessors {
			t.Errorf("%s: best's grid %d blocks, want %d..%d (its SMs .. a resident wave)", name, pl.Blocks, d.Multiprocessors, wave)
		}
		grids[name] = pl.Blocks
	}
	if grids["rtx3060"] >= grids["a100"] {
		t.Errorf("grids %v: 28 SMs plan no fewer blocks than 108", grids)
	}
	if _, err := Profile("h42"); err == nil {
		t.Error("an unknown profile was accepted")
	}
}
