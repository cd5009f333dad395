package cli

import (
	"flag"
	"fmt"
	"math"
	"os"

	"tecaj/internal/data"
	"tecaj/internal/gpu"
	"tecaj/internal/verify"
	"tecaj/internal/vocab"
)

// VectorFiles are the -a and -b flags: two float32 vectors from .npy files instead of the seed.
type VectorFiles struct {
	A, B string
	a, b []float32
}

// Flags adds -a and -b.
func (v *VectorFiles) Flags(fs *flag.FlagSet) {
	fs.StringVar(&v.A, "a", "", "vector a from a 1-D .npy file (float32, or float64 rounded to float32); sets -n")
	fs.StringVar(&v.B, "b", "", "vector b from a 1-D .npy file of the same length as -a")
}

// Load reads the files, when given, and sets o.N to their length (an -n that disagrees is an
// error). Rounding float64 to float32 is noted on stderr.
func (v *VectorFiles) Load(program string, o *Options) error {
	if v.A == "" && v.B == "" {
		return nil
	}
	if v.A == "" || v.B == "" {
		return fmt.Errorf("-a and -b go together (got only %s)", map[bool]string{true: "-a", false: "-b"}[v.A != ""])
	}
	var err error
	var notes [2]string
	if v.a, notes[0], err = readVector(program, v.A); err != nil {
		return err
	}
	if v.b, notes[1], err = readVector(program, v.B); err != nil {
		return err
	}
	if len(v.a) != len(v.b) {
		return fmt.Errorf("%s has %d elements and %s has %d: a and b must have the same length", v.A, len(v.a), v.B, len(v.b))
	}
	if o.Set["n"] && o.N != int64(len(v.a)) {
		return fmt.Errorf("-n %d does not match the %d elements of %s (leave -n out with -a and -b)", o.N, len(v.a), v.A)
	}
	o.N = int64(len(v.a))
	for _, note := range notes {
		if note != "" {
			fmt.Fprintln(os.Stderr, note)
		}
	}
	return nil
}

// readVector reads a 1-D float vector; the note says where float64 values were rounded.
func readVector(program, path string) (values []float32, note string, err error) {
	a, err := data.LoadVector(path, vocab.Float32, vocab.Float64)
	if err != nil {
		return nil, "", err
	}
	values, changed, err := a.Float32s()
	return values, data.RoundingNote(program, path, changed, len(values)), err
}

// Inputs are two float32 vectors a and b, from files or random from the seed, on the host
// (pinned where a device will copy them) and, with a device, on the device.
type Inputs struct {
	A, B   *gpu.Host
	DA, DB *gpu.Buffer // nil without a device
	H2DMs  float64     // copying both to the device (NaN without a device)
}

// OpenInputs takes a and b from files (when loaded), else draws a from seed and b from seed+1,
// and copies them to the device when there is one.
func OpenInputs(n, seed int64, files *VectorFiles, dev *gpu.Device) (in *Inputs, err error) {
	in = &Inputs{H2DMs: math.NaN()}
	defer func() {
		if err != nil {
			in.Free()
		}
	}()
	if in.A, err = gpu.AllocHost(n, dev != nil); err != nil {
		return nil, err
	}
	if in.B, err = gpu.AllocHost(n, dev != nil); err != nil {
		return nil, err
	}
	if files != nil && files.a != nil {
		copy(in.A.Floats, files.a)
		copy(in.B.Floats, files.b)
	} else {
		verify.Uniform(in.A.Floats, seed)
		verify.Uniform(in.B.Floats, seed+1)
	}
	if dev == nil {
		return in, nil
	}
	if in.DA, err = gpu.Alloc(4*n, false); err != nil {
		return nil, err
	}
	if in.DB, err = gpu.Alloc(4*n, false); err != nil {
		return nil, err
	}
	timer, err := gpu.NewTimer()
	if err != nil {
		return nil, err
	}
	defer timer.Free()
	in.H2DMs, err = timer.Milliseconds(func() error {
		if err := in.DA.Upload(in.A.Floats); err != nil {
			return err
		}
		return in.DB.Upload(in.B.Floats)
	})
	return in, err
}

// Free releases everything; safe on a partly opened value.
func (in *Inputs) Free() {
	in.DA.Free()
	in.DB.Free()
	in.A.Free()
	in.B.Free()
}
