package cli

// -list and -info: the variants with their domains, and their kernels.

import (
	"fmt"
	"io"

	"tecaj/internal/gpu"
)

func (c Command) list(w io.Writer, device []gpu.Variant) {
	fmt.Fprintf(w, "%s: %s\n\n", c.name(), c.About)
	for _, v := range device {
		extra := ""
		if v.Managed {
			extra = " [unified memory]"
		}
		fmt.Fprintf(w, "%-6s %s%s\n       domain: %s\n       bytes moved: %s\n", v.Name, v.Summary, extra, v.Domain, v.Bytes)
	}
	for _, h := range c.HostVariants {
		domain := "any n"
		if h.Outside != nil {
			domain = h.Outside(1<<62) + ";"
		}
		fmt.Fprintf(w, "%-6s %s\n       domain: %s (host, no GPU needed)\n", h.Name, h.Summary, domain)
	}
	c.listClaims(w)
}

// infoNames lists every kernel a variant can launch, by name (what -info shows without a GPU).
func (c Command) infoNames(w io.Writer, device []gpu.Variant) {
	fmt.Fprintf(w, "%-8s %s\n", "variant", "kernel")
	for _, v := range device {
		if len(v.Kernels) == 0 {
			fmt.Fprintf(w, "%-8s %s\n", v.Name, "(library baseline: its kernels are the library's)")
		}
		for _, k := range v.Kernels {
			fmt.Fprintf(w, "%-8s %s\n", v.Name, k)
		}
	}
}

func (c Command) info(stdout, stderr io.Writer, device []gpu.Variant) int {
	fmt.Fprintf(stdout, "%-8s %-36s %9s %13s %11s %11s %11s\n", "variant", "kernel", "registers", "static shared", "local bytes", "const bytes", "max threads")
	for _, v := range device {
		ks, err := c.Program.KernelInfos(v)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
			return ExitFailed
		}
		if len(ks) == 0 {
			fmt.Fprintf(stdout, "%-8s %s\n", v.Name, "(library baseline: its kernels are the library's)")
		}
		for _, k := range ks {
			fmt.Fprintf(stdout, "%-8s %-36s %9d %13d %11d %11d %11d\n", v.Name, k.Kernel, k.Registers, k.StaticSharedBytes,
				k.LocalBytes, k.ConstBytes, k.MaxThreadsPerBlock)
		}
	}
	return ExitOK
}
