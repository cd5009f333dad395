package cli

// A progress line at a terminal for steps that take seconds.

import (
	"fmt"
	"io"
	"os"
	"time"
)

// showProgress tells a person at a terminal what a step is doing once it has taken over two
// seconds: one line on w, rewritten each second with the time so far, cleared when stop is called.
// Where w is not a terminal (a pipe, a file, a test), nothing is written.
func showProgress(w io.Writer, what string) (stop func()) {
	f, ok := w.(*os.File)
	if !ok {
		return func() {}
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return func() {}
	}
	return progressTo(f, what, 2*time.Second, time.Second)
}

// progressTo writes what and the seconds since the start to w after delay, every tick, until
// stop, which clears the line it wrote (and waits for the writer to finish).
func progressTo(w io.Writer, what string, delay, tick time.Duration) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		wrote := false
		timer := time.NewTimer(delay)
		defer timer.Stop()
		for {
			select {
			case <-done:
				if wrote {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-timer.C:
				fmt.Fprintf(w, "\r\033[K%s (%.0f s)", what, time.Since(start).Seconds())
				wrote = true
				timer.Reset(tick)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
