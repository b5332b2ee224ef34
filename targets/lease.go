package targets

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A lease is a run's hold on a device, kept on the device itself so that runs from every machine that reaches it
// see each other: a directory in the workdir that only one mkdir can make, holding who made it (host, process,
// start) and a counter that the holder renews while its run lasts. A second run waits, saying who holds the device,
// until the holder removes the lease, or until the lease is seen to be left behind: by a process of this machine
// that is gone, or by a holder whose counter has stopped moving.

// leaseName is the lease's directory in the device's workdir.
const leaseName = ".bench-bridge-lease"

// leaseMark starts the line by which each lease script says what it did, after anything a login shell printed.
const leaseMark = "bench-bridge-lease "

// They are variables only so that tests need not wait for them.
var (
	// leaseRenew is how often the holder renews its lease.
	leaseRenew = 10 * time.Second
	// leasePoll is how often a waiting run looks at the lease again.
	leasePoll = 5 * time.Second
	// leaseStale is how long a waiting run sees a lease's counter stand still before it takes the lease as left
	// behind: well over a renewal and the bound of the command that renews it.
	leaseStale = 2 * time.Minute
)

// LeaseOptions say how a run takes a device.
type LeaseOptions struct {
	// Wait is how long to wait for a device another run holds; 0 waits until it is free.
	Wait time.Duration
	// Log is told who holds a device the run waits for, and of a lease recovered.
	Log io.Writer
}

// Lease is a run's hold on one device, renewed until Release.
type Lease struct {
	site  leaseSite
	owner leaseOwner
	stop  context.CancelFunc
	done  chan struct{}
	lost  chan struct{}

	mu  sync.Mutex
	err error // why the lease was lost
}

// leaseSite is where a device's lease lives: the device's shell and the lease's directory there.
type leaseSite struct {
	label   string // how messages name the device
	workdir string
	path    string
	shell   func(ctx context.Context, command string) ([]byte, error)
	// tidy removes what the run keeps on the device (its run directory), which the lease guards. One it cannot
	// remove it names itself, and the next connection removes it.
	tidy func() error
}

// leaseSite is a device's other than this machine: the lease sits beside the run directories in the workdir.
func (r *device) leaseSite() *leaseSite {
	return &leaseSite{label: r.label, workdir: r.workdir, path: remoteJoin(r.workdir, leaseName),
		shell: func(ctx context.Context, command string) ([]byte, error) { return r.output(ctx, command, nil) },
		tidy:  r.cleanup}
}

// leaseOwner is who holds a lease: the machine (its host name and, where the kernel tells it, its boot), the process
// and when it took the lease.
type leaseOwner struct {
	Host, Boot string
	PID        int
	Start      time.Time
}

// me is this process, taking a lease now.
func me() leaseOwner {
	host, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return leaseOwner{Host: strings.Join(strings.Fields(host), "-"), Boot: strings.TrimSpace(string(boot)),
		PID: os.Getpid(), Start: time.Now().UTC()}
}

// String is the owner as the lease holds it: one line of key=value words.
func (o leaseOwner) String() string {
	return fmt.Sprintf("host=%s pid=%d start=%s boot=%s", o.Host, o.PID, o.Start.Format(time.RFC3339Nano), o.Boot)
}

// parseOwner reads an owner line; a lease whose owner is not (yet) written reads as the zero owner.
func parseOwner(line string) leaseOwner {
	var o leaseOwner
	for _, w := range strings.Fields(line) {
		k, v, _ := strings.Cut(w, "=")
		switch k {
		case "host":
			o.Host = v
		case "boot":
			o.Boot = v
		case "pid":
			o.PID, _ = strconv.Atoi(v)
		case "start":
			o.Start, _ = time.Parse(time.RFC3339Nano, v)
		}
	}
	return o
}

// describe says who the owner is, for a person: "host lab1, pid 4242, since 10:02:03 UTC".
func (o leaseOwner) describe() string {
	if o.Host == "" {
		return "a run whose lease names no owner yet"
	}
	return fmt.Sprintf("host %s, pid %d, since %s", o.Host, o.PID, o.Start.Format("2006-01-02 15:04:05 MST"))
}

// gone reports whether the owner is a process of this machine, in this boot, that no longer runs.
func (o leaseOwner) gone() bool {
	self := me()
	return o.Boot != "" && o.Host == self.Host && o.Boot == self.Boot && processGone(o.PID)
}

// HeldError is a device that another run still held when the wait (--wait) ran out.
type HeldError struct {
	Device string
	Holder string
	Waited time.Duration
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is held by another run (%s): still held after waiting %s (--wait)", e.Device, e.Holder, e.Waited)
}

// Acquire takes the device of t for a run, waiting while another run holds it. A target without a device of its own
// to share (the local machine: no lease in its Capabilities) is not leased: its lease holds nothing. The lease is
// renewed until Release.
func Acquire(ctx context.Context, t Target, o LeaseOptions) (*Lease, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	l := &Lease{owner: me(), done: make(chan struct{}), lost: make(chan struct{})}
	site := t.Capabilities().lease
	if site == nil {
		close(l.done)
		return l, nil
	}
	l.site = *site
	if err := l.take(ctx, o); err != nil {
		return nil, err
	}
	renew, stop := context.WithCancel(context.WithoutCancel(ctx))
	l.stop = stop
	go l.renew(renew)
	return l, nil
}

// take makes the lease, waiting as o says while another run holds it, and taking over one left behind.
func (l *Lease) take(ctx context.Context, o LeaseOptions) error {
	start := time.Now()
	var told, seen string // the holder last named in the log, and the lease last seen (holder and counter)
	var seenAt time.Time
	for {
		l.owner.Start = time.Now().UTC() // the lease says since when it is held
		var out []byte
		err := within(ctx, shortOp, "taking the device's lease", func(ctx context.Context) (err error) {
			out, err = l.site.shell(ctx, acquireScript(l.site.workdir, l.site.path, l.owner.String()))
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: taking the device's lease: %w", l.site.label, err)
		}
		state, holderLine, counter := parseLease(out)
		switch state {
		case "taken":
			if told != "" {
				fmt.Fprintf(o.Log, "%s: free after %s; measuring\n", l.site.label, time.Since(start).Round(time.Second))
			}
			return nil
		case "held":
		default:
			return fmt.Errorf("%s: taking the device's lease in %s: the shell printed %q", l.site.label, l.site.path, strings.TrimSpace(string(out)))
		}
		holder := parseOwner(holderLine)
		if now := holderLine + "\n" + counter; now != seen {
			seen, seenAt = now, time.Now()
		}
		left := ""
		switch {
		case holder.gone():
			left = "its process is gone"
		case time.Since(seenAt) >= leaseStale:
			left = fmt.Sprintf("it was not renewed for %s", time.Since(seenAt).Round(time.Second))
		}
		if left != "" {
			if err := l.breakStale(ctx, holderLine); err != nil {
				return err
			}
			fmt.Fprintf(o.Log, "%s: took over the lease of %s: %s\n", l.site.label, holder.describe(), left)
			continue
		}
		if holderLine != told {
			told = holderLine
			until := "until it is free"
			if o.Wait > 0 {
				until = "up to " + o.Wait.String() + " (--wait)"
			}
			fmt.Fprintf(o.Log, "%s is held by another run (%s); waiting %s\n", l.site.label, holder.describe(), until)
		}
		pause := leasePoll
		if o.Wait > 0 {
			left := o.Wait - time.Since(start)
			if left <= 0 {
				return &HeldError{Device: l.site.label, Holder: holder.describe(), Waited: o.Wait}
			}
			pause = min(pause, left)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: waiting for the device, held by %s: %w", l.site.label, holder.describe(), ctx.Err())
		case <-time.After(pause):
		}
	}
}

// breakStale removes a lease left behind, if it is still the one whose owner line was seen.
func (l *Lease) breakStale(ctx context.Context, ownerLine string) error {
	return within(ctx, shortOp, "removing a lease left behind", func(ctx context.Context) error {
		_, err := l.site.shell(ctx, breakScript(l.site.path, ownerLine))
		if err != nil {
			return fmt.Errorf("%s: removing the lease left in %s: %w", l.site.label, l.site.path, err)
		}
		return nil
	})
}

// renew moves the lease's counter every leaseRenew until ctx ends; when the lease turns out to be another run's, it
// says so through Lost and stops.
func (l *Lease) renew(ctx context.Context) {
	defer close(l.done)
	tick := time.NewTicker(leaseRenew)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var out []byte
		err := within(ctx, shortOp, "renewing the device's lease", func(ctx context.Context) (err error) {
			out, err = l.site.shell(ctx, renewScript(l.site.path, l.owner.String(), n))
			return err
		})
		if err != nil {
			continue // a device that does not answer now is asked again; the run's own steps report it
		}
		if state, holder, _ := parseLease(out); state == "lost" {
			l.mu.Lock()
			l.err = fmt.Errorf("%s: the device's lease was taken by another run (%s): measurements may overlap",
				l.site.label, parseOwner(holder).describe())
			l.mu.Unlock()
			close(l.lost)
			return
		}
	}
}

// Lost is closed when the lease turned out to be another run's: the device is no longer this run's alone.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Err is why the lease was lost, or nil.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Release stops renewing the lease, removes the run's directory, then the lease, each within its own bound: the run's
// context may be over (Ctrl-C). In that order a device given back holds nothing of the run's, and a device whose
// lease is left behind (a run killed) also keeps the run's directory: the run that takes the lease over says so, then
// removes the directory. Were the lease to go first, a run killed later (while it measured another device) would
// leave a directory on a device it no longer held, which the next run would remove without a word of the lease. A
// directory that cannot be removed is named by the target and removed at the next connection; a lease that cannot
// be removed is taken over by the next run once its counter stands still.
func (l *Lease) Release() error {
	if l.stop == nil {
		return nil
	}
	l.stop()
	<-l.done
	if l.site.tidy != nil {
		l.site.tidy() // it says what it left itself
	}
	return within(context.Background(), shortOp, "releasing the device's lease", func(ctx context.Context) error {
		if _, err := l.site.shell(ctx, releaseScript(l.site.path, l.owner.String())); err != nil {
			return fmt.Errorf("%s: releasing the device's lease %s: %w", l.site.label, l.site.path, err)
		}
		return nil
	})
}

// parseLease reads what a lease script printed: its state on the marked line, then the holder's line and counter.
func parseLease(out []byte) (state, holder, counter string) {
	lines := strings.Split(string(out), "\n")
	for i, line := range lines {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), strings.TrimSpace(leaseMark)); ok {
			rest := append(lines[i+1:], "", "")
			return strings.TrimSpace(s), strings.TrimSpace(rest[0]), strings.TrimSpace(rest[1])
		}
	}
	return "", "", ""
}

// The lease scripts, one line each (novacom carries one line per command). The owner is compared as a whole line;
// it holds no character a shell or echo would change.

// acquireScript makes the lease with owner in it and prints "taken", or prints "held", the holder and its counter.
func acquireScript(workdir, lease, owner string) string {
	return "mkdir -p " + shellPath(workdir) + " 2>/dev/null; L=" + shellPath(lease) + "; " +
		"if mkdir \"$L\" 2>/dev/null; then printf '%s\\n' " + shellQuote(owner) + " > \"$L/owner\" && echo 0 > \"$L/renewed\" && " +
		"echo '" + leaseMark + "taken'; else echo '" + leaseMark + "held'; " +
		"echo \"$(cat \"$L/owner\" 2>/dev/null)\"; echo \"$(cat \"$L/renewed\" 2>/dev/null)\"; fi"
}

// renewScript writes n to the counter of a lease that owner holds, and prints "renewed"; of a lease another run
// holds it prints "lost" and that run's owner line.
func renewScript(lease, owner string, n int) string {
	return "L=" + shellPath(lease) + "; if [ \"$(cat \"$L/owner\" 2>/dev/null)\" = " + shellQuote(owner) + " ]; then " +
		"echo " + strconv.Itoa(n) + " > \"$L/renewed\" && echo '" + leaseMark + "renewed'; " +
		"else echo '" + leaseMark + "lost'; echo \"$(cat \"$L/owner\" 2>/dev/null)\"; fi"
}

// releaseScript removes the lease if owner holds it.
func releaseScript(lease, owner string) string {
	return "L=" + shellPath(lease) + "; if [ \"$(cat \"$L/owner\" 2>/dev/null)\" = " + shellQuote(owner) + " ]; then " +
		"rm -rf \"$L\"; fi; echo '" + leaseMark + "released'"
}

// breakScript removes a lease left behind whose owner line is owner. It moves the lease aside first, which only one
// mv can do, and checks the owner of what it moved: a lease another run took in the meantime is put back, or, when
// yet another run has made one since, removed, which its holder's next renewal reports.
func breakScript(lease, owner string) string {
	return "L=" + shellPath(lease) + "; B=\"$L.stale.$$\"; if mv \"$L\" \"$B\" 2>/dev/null; then " +
		"if [ \"$(cat \"$B/owner\" 2>/dev/null)\" != " + shellQuote(owner) + " ] && [ ! -e \"$L\" ]; then mv \"$B\" \"$L\"; fi; " +
		"rm -rf \"$B\"; fi; echo '" + leaseMark + "checked'"
}
