package multi

import (
	"strings"
	"testing"
)

// Each launcher's variables, as mpiexec (OpenMPI's, MPICH's Hydra) and srun set them, read into
// one Launch; stale or broken ones refused naming the variable.
func TestFromEnv(t *testing.T) {
	ompi := map[string]string{"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name string
		env  map[string]string
		want Launch // From "" and err "": no launcher
		err  string // a part of the error
	}{
		{"none", map[string]string{"PATH": "/bin"}, Launch{}, ""},
		{"OpenMPI", ompi, Launch{From: "OpenMPI", Size: 4, Rank: 2, LocalSize: 4, LocalRank: 1, SizeVar: "OMPI_COMM_WORLD_SIZE", RankVar: "OMPI_COMM_WORLD_RANK"}, ""},
		{"OpenMPI on two hosts", with(ompi, "OMPI_COMM_WORLD_LOCAL_SIZE", "2"), Launch{From: "OpenMPI", Size: 4, Rank: 2, LocalSize: 2, LocalRank: 1, SizeVar: "OMPI_COMM_WORLD_SIZE", RankVar: "OMPI_COMM_WORLD_RANK"}, ""},
		{"Hydra", map[string]string{"PMI_SIZE": "3", "PMI_RANK": "0", "MPI_LOCALNRANKS": "3", "MPI_LOCALRANKID": "0", "PMI_FD": "9"},
			Launch{From: "MPICH/PMI", Size: 3, Rank: 0, LocalSize: 3, LocalRank: 0, SizeVar: "PMI_SIZE", RankVar: "PMI_RANK"}, ""},
		{"PMI without local ids, rank beyond 0", map[string]string{"PMI_SIZE": "8", "PMI_RANK": "7"},
			Launch{From: "MPICH/PMI", Size: 8, Rank: 7, SizeVar: "PMI_SIZE", RankVar: "PMI_RANK"}, ""},
		{"srun on two nodes", map[string]string{"SLURM_NTASKS": "8", "SLURM_PROCID": "5", "SLURM_LOCALID": "1", "SLURM_NNODES": "2"},
			Launch{From: "Slurm", Size: 8, Rank: 5, LocalRank: 1, SizeVar: "SLURM_NTASKS", RankVar: "SLURM_PROCID"}, ""},
		{"srun on one node", map[string]string{"SLURM_NTASKS": "4", "SLURM_PROCID": "3", "SLURM_LOCALID": "3", "SLURM_STEP_NUM_NODES": "1"},
			Launch{From: "Slurm", Size: 4, Rank: 3, LocalSize: 4, LocalRank: 3, SizeVar: "SLURM_NTASKS", RankVar: "SLURM_PROCID"}, ""},
		{"a batch script's SLURM_NTASKS alone", map[string]string{"SLURM_NTASKS": "4", "SLURM_JOB_ID": "7"}, Launch{}, ""},
		{"mpiexec inside a Slurm job", with(ompi, "SLURM_NTASKS", "2", "SLURM_PROCID", "0", "SLURM_LOCALID", "0"),
			Launch{From: "OpenMPI", Size: 4, Rank: 2, LocalSize: 4, LocalRank: 1, SizeVar: "OMPI_COMM_WORLD_SIZE", RankVar: "OMPI_COMM_WORLD_RANK"}, ""},
		{"OpenMPI and PMI agree", with(ompi, "PMI_SIZE", "4", "PMI_RANK", "2"),
			Launch{From: "OpenMPI", Size: 4, Rank: 2, LocalSize: 4, LocalRank: 1, SizeVar: "OMPI_COMM_WORLD_SIZE", RankVar: "OMPI_COMM_WORLD_RANK"}, ""},
		{"sizes disagree", with(ompi, "PMI_SIZE", "2", "PMI_RANK", "0"), Launch{}, "OMPI_COMM_WORLD_SIZE=4 and PMI_SIZE=2 disagree"},
		{"ranks disagree", with(ompi, "PMI_SIZE", "4", "PMI_RANK", "3"), Launch{}, "OMPI_COMM_WORLD_RANK=2 and PMI_RANK=3 disagree"},
		{"rank outside", with(ompi, "OMPI_COMM_WORLD_RANK", "4"), Launch{}, "OMPI_COMM_WORLD_RANK=4 is outside 0..3"},
		{"negative rank", map[string]string{"SLURM_NTASKS": "2", "SLURM_PROCID": "-1"}, Launch{}, "SLURM_PROCID=-1 is outside 0..1"},
		{"size zero", map[string]string{"PMI_SIZE": "0", "PMI_RANK": "0"}, Launch{}, "PMI_SIZE=0 is outside 1..4096"},
		{"size beyond", map[string]string{"PMI_SIZE": "100000", "PMI_RANK": "0"}, Launch{}, "PMI_SIZE=100000 is outside 1..4096"},
		{"not a number", with(ompi, "OMPI_COMM_WORLD_SIZE", "four"), Launch{}, `OMPI_COMM_WORLD_SIZE="four" is not a whole number`},
		{"rank without size", map[string]string{"PMI_RANK": "1"}, Launch{}, "PMI_RANK is set but PMI_SIZE is not"},
		{"size without rank", map[string]string{"OMPI_COMM_WORLD_SIZE": "2"}, Launch{}, "OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK is not"},
		{"srun's task count missing", map[string]string{"SLURM_PROCID": "1"}, Launch{}, "SLURM_PROCID is set but SLURM_NTASKS is not"},
		{"local rank outside the host's", with(ompi, "OMPI_COMM_WORLD_LOCAL_RANK", "4"), Launch{}, "OMPI_COMM_WORLD_LOCAL_RANK=4 is outside 0..3"},
		{"more on a host than in all", with(ompi, "OMPI_COMM_WORLD_LOCAL_SIZE", "5"), Launch{}, "OMPI_COMM_WORLD_LOCAL_SIZE=5 is outside 1..4"},
		{"Slurm local id outside one node's", map[string]string{"SLURM_NTASKS": "2", "SLURM_PROCID": "1", "SLURM_LOCALID": "2", "SLURM_NNODES": "1"},
			Launch{}, "SLURM_LOCALID=2 is outside 0..1"},
	}
	ran := 0
	for _, c := range cases {
		got, err := FromEnv(func(k string) string { return c.env[k] })
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.err)
		case got != c.want:
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
		ran++
	}
	if ran < 20 {
		t.Fatalf("ran %d cases", ran)
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:29500": "", "host0:1": "", "[::1]:65535": "",
		"host0": "not HOST:PORT", "host0:": "port must be", "host0:0": "port must be", "host0:65536": "port must be",
		"host0:http": "port must be", ":29500": "names no host", "": "not HOST:PORT",
	} {
		err := CheckAddr(addr)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", addr, err, want)
		}
	}
}
