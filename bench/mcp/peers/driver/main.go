// Command driver measures MCP echo servers side by side: wield mcp --tools
// echo, the same server built with mcp-go, and with go-sdk's generic
// AddTool. It speaks JSON-RPC itself, so that no client library's costs
// are measured, and it alternates the servers: each measurement is cut
// into ten pieces and the servers take turns piece by piece (in an order
// that rotates each round), so that drift in the machine's load touches
// them all alike. bench/mcp/bench.sh builds the servers and runs it.
//
// Usage:
//
//	driver -wield PATH -mcpgo PATH -gosdk PATH [-rounds 3]
//	driver -startup-only -startups 50 -wield PATH [-mcpgo PATH -gosdk PATH -floor PATH] [-also NAME=PATH ...]
//
// With -startup-only it measures only the time from exec to the initialize
// answer (median, p90 and minimum over the starts; wield both with all its
// tools and with --tools echo) and prints the package initialisation of
// wield that GODEBUG=inittrace=1 reports: the goal is issue 25's 10 ms.
//
// Each round starts the servers afresh and measures, over stdio: the
// time from process start to the initialize answer, pipelined throughput
// (all calls written at once), sequential latency (one call at a time)
// and throughput with 16 calls in flight; over streamable HTTP: latency
// one call at a time and throughput with 16 concurrent clients. It prints
// the median over rounds and the ratio of each server to mcp-go.
//
// The exit status is 1 when wield misses a goal it prints as MISSED (or a
// measurement fails), so that a script or CI job notices; with -explore,
// or with WIELD_BENCH_EXPLORE=1 in the environment, missed goals are only
// printed and the exit status is 0.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Call counts, as the issue that asked for the bench sets them.
var (
	pipelinedCalls  = flag.Int("pipelined", 20000, "calls in the pipelined stdio run")
	sequentialCalls = flag.Int("sequential", 5000, "calls in the sequential stdio run")
	inflightCalls   = flag.Int("inflight-calls", 20000, "calls in the 16-in-flight stdio run")
	httpSeqCalls    = flag.Int("http-sequential", 3000, "calls in the one-at-a-time HTTP run")
	httpConcCalls   = flag.Int("http-concurrent", 10000, "calls in the 16-concurrent HTTP run")
	startups        = flag.Int("startups", 10, "process starts per server and round for the initialize time")
)

const window = 16

type server struct {
	name  string
	stdio []string // command line
	http  []string
}

// metric names, in the order printed, and whether higher is better.
var metrics = []struct {
	name   string
	higher bool
	goal   string
}{
	{"stdio pipelined (calls/s)", true, "≥ 0.6×"},
	{"stdio sequential mean (µs)", false, "≤ 1.0×"},
	{"stdio sequential p99 (µs)", false, "≤ 1.0×"},
	{"stdio 16 in flight (calls/s)", true, "≥ 1/1.3×"},
	{"http one at a time mean (µs)", false, "≤ 1.3×"},
	{"http one at a time p99 (µs)", false, "≤ 1.3×"},
	{"http 16 concurrent (calls/s)", true, "≥ 1/1.3×"},
	{"start to initialize answer (ms)", false, "≤ 20 ms"},
}

func main() {
	wield := flag.String("wield", "", "the wield binary")
	mcpgo := flag.String("mcpgo", "", "the mcp-go echo server")
	gosdk := flag.String("gosdk", "", "the go-sdk generic echo server")
	floor := flag.String("floor", "", "with -startup-only: the floor server (bench/mcp/peers/floor), a Go program that answers initialize with a constant")
	rounds := flag.Int("rounds", 3, "rounds; each measures every server once")
	explore := flag.Bool("explore", os.Getenv("WIELD_BENCH_EXPLORE") == "1", "exploratory run: exit 0 even when a goal is missed (default: $WIELD_BENCH_EXPLORE=1)")
	onlyStartup := flag.Bool("startup-only", false, "measure only exec to initialize answer (-startups starts per server; -mcpgo and -gosdk optional) and wield's package init")
	var others []string
	flag.Func("also", "with -startup-only: another wield `NAME=PATH` (another build) to measure in turns with -wield; repeatable", func(v string) error {
		if name, path, ok := strings.Cut(v, "="); !ok || name == "" || path == "" {
			return errors.New("want NAME=PATH")
		}
		others = append(others, v)
		return nil
	})
	flag.Parse()
	if *onlyStartup && *wield != "" {
		servers := []server{
			{name: "wield mcp", stdio: []string{*wield, "mcp"}},
			{name: "wield mcp --tools echo", stdio: []string{*wield, "mcp", "--tools", "echo"}},
		}
		for _, o := range others {
			name, path, _ := strings.Cut(o, "=")
			servers = append(servers, server{name: "wield mcp (" + name + ")", stdio: []string{path, "mcp"}})
		}
		if *mcpgo != "" {
			servers = append(servers, server{name: "mcp-go", stdio: []string{*mcpgo}})
		}
		if *gosdk != "" {
			servers = append(servers, server{name: "go-sdk generic", stdio: []string{*gosdk}})
		}
		if *floor != "" {
			servers = append(servers, server{name: "floor (no MCP library)", stdio: []string{*floor}})
		}
		os.Exit(startupOnly(servers, *startups, *explore))
	}
	if *wield == "" || *mcpgo == "" || *gosdk == "" {
		flag.Usage()
		os.Exit(2)
	}
	servers := []server{
		{"wield", []string{*wield, "mcp", "--tools", "echo"}, []string{*wield, "mcp", "--tools", "echo", "--json-response", "--http", "127.0.0.1:0"}},
		{"mcp-go", []string{*mcpgo}, []string{*mcpgo, "-http", "127.0.0.1:0"}},
		{"go-sdk generic", []string{*gosdk}, []string{*gosdk, "-http", "127.0.0.1:0"}},
	}
	results := map[string]map[string][]float64{} // server → metric → per round
	for _, s := range servers {
		results[s.name] = map[string][]float64{}
	}
	for r := range *rounds {
		// Rotate the order each round.
		order := append(slices.Clone(servers[r%len(servers):]), servers[:r%len(servers)]...)
		fmt.Fprintf(os.Stderr, "round %d of %d\n", r+1, *rounds)
		m, err := measureRound(order)
		if err != nil {
			fmt.Fprintf(os.Stderr, "driver: %v\n", err)
			os.Exit(1)
		}
		for name, vals := range m {
			for k, v := range vals {
				results[name][k] = append(results[name][k], v)
			}
		}
	}
	missed := printTable(servers, results, *rounds)
	if len(missed) > 0 {
		if *explore {
			fmt.Fprintf(os.Stderr, "driver: %d goals MISSED (-explore: exit status 0)\n", len(missed))
			return
		}
		fmt.Fprintf(os.Stderr, "driver: goals MISSED: %s (run with -explore to exit 0)\n", strings.Join(missed, "; "))
		os.Exit(1)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// printTable prints the results and returns the metrics whose goal wield
// missed.
func printTable(servers []server, results map[string]map[string][]float64, rounds int) (missed []string) {
	fmt.Printf("median of %d rounds; ratios are to mcp-go\n\n", rounds)
	fmt.Printf("%-32s", "")
	for _, s := range servers {
		fmt.Printf(" %15s", s.name)
	}
	fmt.Printf(" %13s %15s  %s\n", "wield/mcp-go", "go-sdk/mcp-go", "goal for wield")
	for _, m := range metrics {
		fmt.Printf("%-32s", m.name)
		vals := map[string]float64{}
		for _, s := range servers {
			vals[s.name] = median(results[s.name][m.name])
			fmt.Printf(" %15.1f", vals[s.name])
		}
		ref := vals["mcp-go"]
		ratio := func(v float64) string {
			if ref == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f×", v/ref)
		}
		goal := m.goal
		fmt.Printf(" %13s %15s  %s", ratio(vals["wield"]), ratio(vals["go-sdk generic"]), goal)
		if met, ok := goalMet(m.name, vals["wield"], ref); ok {
			if met {
				fmt.Print(" (met)")
			} else {
				fmt.Print(" (MISSED)")
				missed = append(missed, m.name)
			}
		}
		fmt.Println()
	}
	fmt.Println("\nthroughput: higher is better; latency and start time: lower is better")
	return missed
}

// goalMet checks wield against the goals.
func goalMet(metric string, wield, ref float64) (met, ok bool) {
	switch {
	case strings.HasPrefix(metric, "start"):
		return wield <= 20, true
	case ref == 0:
		return false, false
	case strings.HasPrefix(metric, "stdio pipelined"):
		return wield/ref >= 0.6, true
	case strings.HasPrefix(metric, "stdio sequential"):
		return wield/ref <= 1.0, true
	case strings.HasSuffix(metric, "(calls/s)"):
		return wield/ref >= 1/1.3, true
	default:
		return wield/ref <= 1.3, true
	}
}

// chunks is how many pieces each measurement is cut into; the servers
// take turns piece by piece, so that a change in the machine's load
// touches them alike.
const chunks = 10

// measureRound runs every measurement once against every server, in turns.
func measureRound(order []server) (map[string]map[string]float64, error) {
	m := map[string]map[string]float64{}
	for _, s := range order {
		m[s.name] = map[string]float64{}
	}
	starts := map[string][]float64{}
	for range *startups {
		for _, s := range order {
			d, err := startToInitialize(s.stdio)
			if err != nil {
				return nil, fmt.Errorf("%s: start: %w", s.name, err)
			}
			starts[s.name] = append(starts[s.name], float64(d.Microseconds())/1000)
		}
	}
	for name, v := range starts {
		m[name]["start to initialize answer (ms)"] = median(v)
	}

	stdio := make([]*stdioClient, len(order))
	defer func() {
		for _, c := range stdio {
			if c != nil {
				c.close()
			}
		}
	}()
	for i, s := range order {
		c, err := startStdio(s.stdio)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		stdio[i] = c
		if _, err := c.sequential(500); err != nil { // warm up
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	// turns runs f on each server chunks times, in turns.
	turns := func(what string, f func(i int) error) error {
		for range chunks {
			for i, s := range order {
				if err := f(i); err != nil {
					return fmt.Errorf("%s: %s: %w", s.name, what, err)
				}
			}
		}
		return nil
	}
	elapsed := make([]time.Duration, len(order))
	err := turns("pipelined", func(i int) error {
		d, err := stdio[i].pipelined(*pipelinedCalls / chunks)
		elapsed[i] += d
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, s := range order {
		m[s.name]["stdio pipelined (calls/s)"] = float64(*pipelinedCalls/chunks*chunks) / elapsed[i].Seconds()
	}
	lat := make([][]time.Duration, len(order))
	err = turns("sequential", func(i int) error {
		l, err := stdio[i].sequential(*sequentialCalls / chunks)
		lat[i] = append(lat[i], l...)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, s := range order {
		m[s.name]["stdio sequential mean (µs)"], m[s.name]["stdio sequential p99 (µs)"] = meanP99(lat[i])
	}
	clear(elapsed)
	err = turns("16 in flight", func(i int) error {
		d, err := stdio[i].inflight(*inflightCalls/chunks, window)
		elapsed[i] += d
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, s := range order {
		m[s.name]["stdio 16 in flight (calls/s)"] = float64(*inflightCalls/chunks*chunks) / elapsed[i].Seconds()
		if err := stdio[i].close(); err != nil {
			return nil, fmt.Errorf("%s: exit after EOF: %w", s.name, err)
		}
	}

	web := make([]*httpClient, len(order))
	defer func() {
		for _, h := range web {
			if h != nil {
				h.close()
			}
		}
	}()
	for i, s := range order {
		h, err := startHTTP(s.http)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		web[i] = h
		if _, err := h.sequential(300); err != nil { // warm up
			return nil, fmt.Errorf("%s: http: %w", s.name, err)
		}
	}
	clear(lat)
	err = turns("http one at a time", func(i int) error {
		l, err := web[i].sequential(*httpSeqCalls / chunks)
		lat[i] = append(lat[i], l...)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, s := range order {
		m[s.name]["http one at a time mean (µs)"], m[s.name]["http one at a time p99 (µs)"] = meanP99(lat[i])
	}
	clear(elapsed)
	err = turns("http 16 concurrent", func(i int) error {
		d, err := web[i].concurrent(*httpConcCalls/chunks, window)
		elapsed[i] += d
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, s := range order {
		m[s.name]["http 16 concurrent (calls/s)"] = float64(*httpConcCalls/chunks*chunks) / elapsed[i].Seconds()
	}
	return m, nil
}

func meanP99(lat []time.Duration) (mean, p99 float64) {
	s := slices.Clone(lat)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	return us(sum / time.Duration(len(s))), us(s[len(s)*99/100])
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

func callFrame(id int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call %d"}}}`, id, id)
}

// answer is the part of a response the driver checks.
type answer struct {
	ID     int `json:"id"`
	Result *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// check decodes a response to call id and checks it echoed its text, as
// its first content. (wield's echo declares an output schema, so it also
// sends its data as structured content and repeats it as JSON text.)
func check(line []byte) (int, error) {
	var a answer
	if err := json.Unmarshal(line, &a); err != nil {
		return 0, fmt.Errorf("answer %q: %w", line, err)
	}
	if a.Error != nil || a.Result == nil || a.Result.IsError || len(a.Result.Content) == 0 {
		return a.ID, fmt.Errorf("answer to %d is not an echo: %s", a.ID, line)
	}
	if want := fmt.Sprintf("call %d", a.ID); a.Result.Content[0].Text != want {
		return a.ID, fmt.Errorf("answer to %d says %q", a.ID, a.Result.Content[0].Text)
	}
	return a.ID, nil
}

// startToInitialize starts a server and times its answer to initialize.
func startToInitialize(argv []string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = os.TempDir()
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	if _, err := io.WriteString(in, initialize+"\n"); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	d := time.Since(start)
	in.Close()
	werr := cmd.Wait()
	if err != nil {
		return 0, err
	}
	if !bytes.Contains(line, []byte(`"protocolVersion"`)) {
		return 0, fmt.Errorf("initialize answer: %s", line)
	}
	return d, werr
}

// stdioClient speaks newline-delimited JSON-RPC to a server process.
type stdioClient struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	w    *bufio.Writer
	r    *bufio.Reader
	next int
	done bool
}

func startStdio(argv []string) (*stdioClient, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = os.TempDir()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &stdioClient{cmd: cmd, in: in, w: bufio.NewWriterSize(in, 64<<10), r: bufio.NewReaderSize(out, 64<<10), next: 1}
	c.w.WriteString(initialize + "\n")
	c.w.Flush()
	if _, err := c.r.ReadBytes('\n'); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	c.w.WriteString(initialized + "\n")
	c.w.Flush()
	return c, nil
}

// close ends standard input and waits for the server to exit.
func (c *stdioClient) close() error {
	if c.done {
		return nil
	}
	c.done = true
	c.in.Close()
	timer := time.AfterFunc(5*time.Second, func() { c.cmd.Process.Kill() })
	defer timer.Stop()
	return c.cmd.Wait()
}

func (c *stdioClient) sequential(n int) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for range n {
		id := c.next
		c.next++
		start := time.Now()
		c.w.Write(callFrame(id))
		c.w.WriteByte('\n')
		if err := c.w.Flush(); err != nil {
			return nil, err
		}
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(start))
		if got, err := check(line); err != nil {
			return nil, err
		} else if got != id {
			return nil, fmt.Errorf("sent %d, got the answer to %d", id, got)
		}
	}
	return lat, nil
}

// pipelined writes n calls as fast as the pipe takes them while reading
// the answers, and returns the time they took.
func (c *stdioClient) pipelined(n int) (time.Duration, error) {
	first := c.next
	c.next += n
	start := time.Now()
	werr := make(chan error, 1)
	go func() {
		for i := range n {
			c.w.Write(callFrame(first + i))
			c.w.WriteByte('\n')
		}
		werr <- c.w.Flush()
	}()
	err := c.readAnswers(first, n)
	elapsed := time.Since(start)
	if err := errors.Join(err, <-werr); err != nil {
		return 0, err
	}
	return elapsed, nil
}

// inflight keeps k calls outstanding until n have been answered, and
// returns the time they took.
func (c *stdioClient) inflight(n, k int) (time.Duration, error) {
	first := c.next
	c.next += n
	tokens := make(chan struct{}, k)
	stop := make(chan struct{})
	start := time.Now()
	werr := make(chan error, 1)
	go func() {
		for i := range n {
			select {
			case tokens <- struct{}{}:
			case <-stop:
				werr <- nil
				return
			}
			c.w.Write(callFrame(first + i))
			c.w.WriteByte('\n')
			if err := c.w.Flush(); err != nil {
				werr <- err
				return
			}
		}
		werr <- nil
	}()
	err := c.readAnswersThen(first, n, func() { <-tokens })
	close(stop)
	elapsed := time.Since(start)
	if err := errors.Join(err, <-werr); err != nil {
		return 0, err
	}
	return elapsed, nil
}

func (c *stdioClient) readAnswers(first, n int) error {
	return c.readAnswersThen(first, n, func() {})
}

// readAnswersThen reads n answers to the calls numbered from first, each
// exactly once, calling each after every one.
func (c *stdioClient) readAnswersThen(first, n int, each func()) error {
	seen := make([]bool, n)
	for range n {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			return err
		}
		id, err := check(line)
		if err != nil {
			return err
		}
		if id < first || id >= first+n || seen[id-first] {
			return fmt.Errorf("unexpected or repeated answer to %d", id)
		}
		seen[id-first] = true
		each()
	}
	return nil
}

// httpClient speaks streamable HTTP to a server process.
type httpClient struct {
	cmd     *exec.Cmd
	url     string
	session string
	client  *http.Client
	mu      sync.Mutex
	next    int
}

var addrRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

func startHTTP(argv []string) (*httpClient, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = os.TempDir()
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := &httpClient{cmd: cmd, next: 1, client: &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 2 * window},
		Timeout:   30 * time.Second,
	}}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			if m := addrRE.FindString(sc.Text()); m != "" {
				select {
				case found <- m:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		h.url = u + "/mcp"
	case <-time.After(10 * time.Second):
		h.close()
		return nil, fmt.Errorf("%s printed no address", argv[0])
	}
	resp, body, err := h.post([]byte(initialize))
	if err != nil {
		h.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if !bytes.Contains(body, []byte(`"protocolVersion"`)) {
		h.close()
		return nil, fmt.Errorf("initialize answer: %s", body)
	}
	h.session = resp.Header.Get("Mcp-Session-Id")
	if _, _, err := h.post([]byte(initialized)); err != nil {
		h.close()
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return h, nil
}

func (h *httpClient) close() {
	h.cmd.Process.Signal(os.Interrupt)
	timer := time.AfterFunc(5*time.Second, func() { h.cmd.Process.Kill() })
	defer timer.Stop()
	h.cmd.Wait()
}

// post sends one frame and returns the JSON of the answer, from a JSON
// body or the first data line of an SSE stream.
func (h *httpClient) post(frame []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, h.url, bytes.NewReader(frame))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("status %s: %s", resp.Status, body)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range bytes.SplitSeq(body, []byte("\n")) {
			if data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:")); ok && len(bytes.TrimSpace(data)) > 0 {
				return resp, bytes.TrimSpace(data), nil
			}
		}
	}
	return resp, body, nil
}

func (h *httpClient) call() (time.Duration, error) {
	h.mu.Lock()
	id := h.next
	h.next++
	h.mu.Unlock()
	start := time.Now()
	_, body, err := h.post(callFrame(id))
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	got, err := check(body)
	if err == nil && got != id {
		err = fmt.Errorf("sent %d, got the answer to %d", id, got)
	}
	return d, err
}

func (h *httpClient) sequential(n int) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for range n {
		d, err := h.call()
		if err != nil {
			return nil, err
		}
		lat = append(lat, d)
	}
	return lat, nil
}

// concurrent runs n calls from k goroutines and returns the time they
// took.
func (h *httpClient) concurrent(n, k int) (time.Duration, error) {
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	var wg sync.WaitGroup
	errs := make([]error, k)
	start := time.Now()
	for w := range k {
		wg.Go(func() {
			for range jobs {
				if _, err := h.call(); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return elapsed, nil
}
