package multi

import (
	"fmt"
	"net"
	"strconv"
)

// MaxRanks bounds -nranks (one listener hands NCCL's id to every rank): a typo is refused
// before any work.
const MaxRanks = 4096

// DefaultCoordinator is where rank 0 listens when every rank is on one host and neither
// -coordinator nor TECAJ_COORDINATOR says otherwise.
const DefaultCoordinator = "127.0.0.1:29500"

// Launch is what a launcher (mpiexec, srun) told this process through its environment: its rank
// among Size, and its place on its host, LocalRank among LocalSize (0: the launcher does not say).
type Launch struct {
	From                 string // the launcher; "" where none started this process
	Size, Rank           int
	LocalSize, LocalRank int
	SizeVar, RankVar     string // where Size and Rank came from, for messages
}

// OneHost says whether every rank runs on this host.
func (l Launch) OneHost() bool { return l.LocalSize == l.Size }

// launcher names one launcher's variables; localSize "" where it has none.
type launcher struct{ name, size, rank, localSize, localRank string }

// The MPI launchers first: started inside a Slurm job, mpiexec's ranks inherit the job's SLURM_
// variables, which describe the batch script, not them (Slurm's count only without an MPI's).
var launchers = []launcher{
	{"OpenMPI", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
	{"MPICH/PMI", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS", "MPI_LOCALRANKID"},
	{"Slurm", "SLURM_NTASKS", "SLURM_PROCID", "", "SLURM_LOCALID"},
}

// FromEnv reads the launchers' variables through getenv (os.Getenv). Two MPI launchers that
// disagree, a variable that is not a number, or a rank outside its size are errors naming the
// variable.
func FromEnv(getenv func(string) string) (Launch, error) {
	var found []Launch
	for _, l := range launchers {
		if getenv(l.rank) == "" && (getenv(l.size) == "" || l.name == "Slurm") {
			continue // (a Slurm job's batch script has SLURM_NTASKS, and no task's rank)
		}
		if l.name == "Slurm" && len(found) > 0 {
			break
		}
		got := Launch{From: l.name, SizeVar: l.size, RankVar: l.rank}
		num := func(name string, lo, hi int) (int, error) {
			s := getenv(name)
			v, err := strconv.Atoi(s)
			switch {
			case s == "":
				return 0, fmt.Errorf("%s is set but %s is not (%s)", other(l, name), name, l.name)
			case err != nil:
				return 0, fmt.Errorf("%s=%q is not a whole number (%s)", name, s, l.name)
			case v < lo || v > hi:
				return 0, fmt.Errorf("%s=%d is outside %d..%d (%s)", name, v, lo, hi, l.name)
			}
			return v, nil
		}
		var err error
		if got.Size, err = num(l.size, 1, MaxRanks); err != nil {
			return Launch{}, err
		}
		if got.Rank, err = num(l.rank, 0, got.Size-1); err != nil {
			return Launch{}, err
		}
		if l.localSize != "" && getenv(l.localSize) != "" {
			if got.LocalSize, err = num(l.localSize, 1, got.Size); err != nil {
				return Launch{}, err
			}
		}
		if l.name == "Slurm" && (getenv("SLURM_STEP_NUM_NODES") == "1" || getenv("SLURM_NNODES") == "1") {
			got.LocalSize = got.Size // (Slurm gives tasks a node as a pattern: only "one node" is read)
		}
		if getenv(l.localRank) != "" {
			hi := got.Size - 1
			if got.LocalSize > 0 {
				hi = got.LocalSize - 1
			}
			if got.LocalRank, err = num(l.localRank, 0, hi); err != nil {
				return Launch{}, err
			}
		} else if got.OneHost() {
			got.LocalRank = got.Rank
		}
		found = append(found, got)
	}
	if len(found) == 0 {
		return Launch{}, nil
	}
	for _, f := range found[1:] {
		a := found[0]
		if f.Size != a.Size {
			return Launch{}, fmt.Errorf("%s=%d and %s=%d disagree (%s and %s): unset the stale one", a.SizeVar, a.Size, f.SizeVar, f.Size, a.From, f.From)
		}
		if f.Rank != a.Rank {
			return Launch{}, fmt.Errorf("%s=%d and %s=%d disagree (%s and %s): unset the stale one", a.RankVar, a.Rank, f.RankVar, f.Rank, a.From, f.From)
		}
	}
	return found[0], nil
}

// other is the variable of l's pair (size, rank) that is not name.
func other(l launcher, name string) string {
	if name == l.size {
		return l.rank
	}
	return l.size
}

// CheckAddr checks a coordinator's address: HOST:PORT, the port from 1 to 65535.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("%q: the port must be from 1 to 65535", addr)
	}
	if host == "" {
		return fmt.Errorf("%q names no host (127.0.0.1 for this one)", addr)
	}
	return nil
}
