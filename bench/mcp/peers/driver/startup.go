package main

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startupGoalMS is issue 25's goal for `wield mcp`: the initialize answer
// within 10 ms of exec.
const startupGoalMS = 10

// startupOnly measures only the time from exec to the initialize answer,
// n starts per server taken in turns, and prints median, p90 and minimum;
// then it runs wield n times more with GODEBUG=inittrace=1 and prints the
// package initialisation it reports: totals, and the ten packages that
// take the longest. It returns the exit status: 1 when wield misses the
// goal, unless explore.
func startupOnly(servers []server, n int, explore bool) int {
	// Every server starts in the same empty directory with an empty home,
	// so that no configuration (of MCP servers to mount, say) is read.
	dir, err := os.MkdirTemp("", "wield-startup")
	if err != nil {
		fmt.Fprintf(os.Stderr, "driver: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir+"/.config")

	times, cpu, faults := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for i := range n {
		for j := range servers {
			s := servers[(i+j)%len(servers)] // rotate the order
			r, err := startToInitializeIn(s.stdio, dir, env)
			if err != nil {
				fmt.Fprintf(os.Stderr, "driver: %s: start: %v\n", s.name, err)
				return 1
			}
			times[s.name] = append(times[s.name], ms(r.answer))
			cpu[s.name] = append(cpu[s.name], ms(r.cpu))
			faults[s.name] = append(faults[s.name], float64(r.faults))
		}
	}
	fmt.Printf("exec to initialize answer over stdio, %d starts each (ms); cpu is the process's\n", n)
	fmt.Printf("user+system time over its whole life, which a loaded machine inflates less, and\n")
	fmt.Printf("faults its page faults (each first touch of a page of memory or of the binary)\n\n")
	fmt.Printf("%-28s %8s %8s %8s %10s %8s\n", "", "median", "p90", "min", "cpu median", "faults")
	missed := false
	for _, s := range servers {
		v := times[s.name]
		fmt.Printf("%-28s %8.2f %8.2f %8.2f %10.2f %8.0f", s.name, median(v), quantile(v, 0.9), slices.Min(v), median(cpu[s.name]), median(faults[s.name]))
		if strings.HasPrefix(s.name, "wield") {
			if median(v) <= startupGoalMS {
				fmt.Printf("  goal ≤ %d ms (met)", startupGoalMS)
			} else {
				fmt.Printf("  goal ≤ %d ms (MISSED)", startupGoalMS)
				missed = true
			}
		}
		fmt.Println()
	}

	// Package initialisation of each wield, as the runtime reports it.
	traceEnv := append(slices.Clone(env), "GODEBUG=inittrace=1")
	for _, wield := range servers {
		if !strings.HasPrefix(wield.name, "wield") || strings.Contains(wield.name, "--tools") {
			continue
		}
		var runs [][]initRecord
		for range n {
			r, err := startToInitializeIn(wield.stdio, dir, traceEnv)
			if err != nil {
				fmt.Fprintf(os.Stderr, "driver: %s: inittrace: %v\n", wield.name, err)
				return 1
			}
			runs = append(runs, parseInittrace(r.stderr))
		}
		printInittrace(wield.name, runs)
	}

	if missed {
		if explore {
			fmt.Fprintln(os.Stderr, "driver: start-up goal MISSED (-explore: exit status 0)")
			return 0
		}
		fmt.Fprintln(os.Stderr, "driver: start-up goal MISSED (run with -explore to exit 0)")
		return 1
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// startResult is what [startToInitializeIn] measured of one start.
type startResult struct {
	answer time.Duration // exec to the initialize answer
	cpu    time.Duration // user and system time of the process, to its exit
	faults int64         // its page faults, minor and major, to its exit
	stderr []byte
}

// startToInitializeIn starts a server in dir with env and times its
// answer to initialize.
func startToInitializeIn(argv []string, dir string, env []string) (startResult, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return startResult{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return startResult{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return startResult{}, err
	}
	if _, err := io.WriteString(in, initialize+"\n"); err != nil {
		return startResult{}, err
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	d := time.Since(start)
	in.Close()
	werr := cmd.Wait()
	if err != nil {
		return startResult{}, fmt.Errorf("%w (stderr: %s)", err, stderr.Bytes())
	}
	if !bytes.Contains(line, []byte(`"protocolVersion"`)) {
		return startResult{}, fmt.Errorf("initialize answer: %s", line)
	}
	ps := cmd.ProcessState
	var faults int64
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		faults = ru.Minflt + ru.Majflt
	}
	return startResult{d, ps.UserTime() + ps.SystemTime(), faults, stderr.Bytes()}, werr
}

// initRecord is one line of GODEBUG=inittrace=1 output:
//
//	init PKG @START ms, CLOCK ms clock, BYTES bytes, ALLOCS allocs
type initRecord struct {
	pkg           string
	clockMS       float64
	bytes, allocs int64
}

var inittraceLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, ([0-9]+) bytes, ([0-9]+) allocs$`)

func parseInittrace(stderr []byte) []initRecord {
	var recs []initRecord
	for line := range strings.Lines(string(stderr)) {
		m := inittraceLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		clock, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.ParseInt(m[3], 10, 64)
		a, _ := strconv.ParseInt(m[4], 10, 64)
		recs = append(recs, initRecord{m[1], clock, b, a})
	}
	return recs
}

// printInittrace prints, over runs, the median total of package
// initialisation and the ten packages whose median clock time is longest.
func printInittrace(name string, runs [][]initRecord) {
	var totalClock []float64
	perPkg := map[string][]float64{}
	last := map[string]initRecord{} // bytes and allocs hardly vary: the last run's
	for _, run := range runs {
		var sum float64
		for _, r := range run {
			sum += r.clockMS
			perPkg[r.pkg] = append(perPkg[r.pkg], r.clockMS)
			last[r.pkg] = r
		}
		totalClock = append(totalClock, sum)
	}
	var bytes, allocs, ownBytes, ownAllocs int64
	for _, r := range last {
		bytes += r.bytes
		allocs += r.allocs
		if strings.HasPrefix(r.pkg, "github.com/wieldhq/wield") {
			ownBytes += r.bytes
			ownAllocs += r.allocs
		}
	}
	fmt.Printf("\npackage init of %s (GODEBUG=inittrace=1, %d runs)\n", name, len(runs))
	fmt.Printf("  %d packages, total %.2f ms clock (median; p90 %.2f), %d bytes, %d allocs\n",
		len(last), median(totalClock), quantile(totalClock, 0.9), bytes, allocs)
	fmt.Printf("  wield's own packages: %d bytes, %d allocs\n", ownBytes, ownAllocs)
	pkgs := make([]string, 0, len(perPkg))
	for p := range perPkg {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b string) int {
		return cmp.Or(cmp.Compare(median(perPkg[b]), median(perPkg[a])), strings.Compare(a, b))
	})
	fmt.Printf("  top 10 by median clock:\n")
	for _, p := range pkgs[:min(10, len(pkgs))] {
		fmt.Printf("    %7.3f ms %9d bytes %6d allocs  %s\n", median(perPkg[p]), last[p].bytes, last[p].allocs, p)
	}
}

// quantile returns the q-quantile of v (nearest rank).
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}
