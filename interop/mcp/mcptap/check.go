package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// defaultRev is the revision assumed for frames before any revision is
// known: the newest handshake revision.
const defaultRev = "2025-11-25"

// runCheck validates recorded frames against the MCP schemas.
func runCheck(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	dir := fs.String("schemas", "", "the `directory` holding <revision>/schema.json and methods.json")
	fs.Parse(args)
	if *dir == "" || fs.NArg() == 0 {
		return errors.New("check needs -schemas DIR and record files")
	}
	schemas, err := loadSchemas(*dir)
	if err != nil {
		return err
	}
	bad := 0
	for _, name := range fs.Args() {
		rep, err := checkFile(schemas, name)
		if err != nil {
			return err
		}
		rep.print(out, filepath.Base(name))
		bad += len(rep.problems)
	}
	if bad > 0 {
		fmt.Fprintf(out, "%d invalid frames\n", bad)
		return exitCode(1)
	}
	return nil
}

// A revision is one protocol revision's schema and method index.
type revision struct {
	name     string
	url      string
	compiler *jsonschema.Compiler
	defs     string // "#/$defs/" or "#/definitions/"
	methods  map[string]method
	compiled map[string]*jsonschema.Schema
}

// method is an entry of methods.json.
type method struct {
	Kind                    string   `json:"kind"`
	Definition              string   `json:"definition"`
	DefinitionIncludesEnvel bool     `json:"definitionIncludesEnvelope"`
	SentBy                  []string `json:"sentBy"`
	Result                  string   `json:"result"`
	Response                string   `json:"response"`
	AlternativeResult       string   `json:"alternativeResult"`
	ResultWhenTask          string   `json:"resultWhenParamsHasTask"`
}

func loadSchemas(dir string) (map[string]*revision, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	revs := map[string]*revision{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name(), "schema.json")
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		r := &revision{name: e.Name(), url: "file://" + filepath.ToSlash(abs), compiler: jsonschema.NewCompiler(),
			compiled: map[string]*jsonschema.Schema{}, defs: "#/$defs/"}
		if m, ok := doc.(map[string]any); ok {
			if _, ok := m["definitions"]; ok {
				r.defs = "#/definitions/"
			}
		}
		if err := r.compiler.AddResource(r.url, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var idx struct {
			Methods map[string]method `json:"methods"`
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "methods.json"))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &idx); err != nil {
			return nil, fmt.Errorf("%s/methods.json: %w", e.Name(), err)
		}
		r.methods = idx.Methods
		revs[r.name] = r
	}
	if len(revs) == 0 {
		return nil, fmt.Errorf("no <revision>/schema.json under %s", dir)
	}
	return revs, nil
}

// validate checks v against the definition at ptr ("#/$defs/X" or a bare
// name).
func (r *revision) validate(ptr string, v any) error {
	if !strings.HasPrefix(ptr, "#") {
		ptr = r.defs + ptr
	}
	s, ok := r.compiled[ptr]
	if !ok {
		var err error
		s, err = r.compiler.Compile(r.url + ptr)
		if err != nil {
			return fmt.Errorf("compile %s: %w", ptr, err)
		}
		r.compiled[ptr] = s
	}
	return s.Validate(v)
}

// frame is the part of a JSON-RPC message the checker looks at.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Meta            map[string]json.RawMessage `json:"_meta"`
		Task            json.RawMessage            `json:"task"`
	} `json:"params"`
	Result *struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

// pending is a request waiting for its response.
type pending struct {
	method string
	rev    string
	task   bool
}

// report is what checking one file found.
type report struct {
	frames   int
	revs     map[string]int
	methods  map[string]int
	problems []string
	notes    []string
}

func (rep *report) print(w io.Writer, name string) {
	var revs []string
	for r, n := range rep.revs {
		revs = append(revs, fmt.Sprintf("%s×%d", r, n))
	}
	sort.Strings(revs)
	status := "ok"
	if len(rep.problems) > 0 {
		status = fmt.Sprintf("%d INVALID", len(rep.problems))
	}
	fmt.Fprintf(w, "%s: %d frames, %d methods, revisions %s: %s\n", name, rep.frames, len(rep.methods), strings.Join(revs, " "), status)
	for i, p := range rep.problems {
		if i == 20 {
			fmt.Fprintf(w, "  ... and %d more\n", len(rep.problems)-i)
			break
		}
		fmt.Fprintf(w, "  invalid: %s\n", p)
	}
	for _, n := range compact(rep.notes) {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// compact counts repeated notes.
func compact(notes []string) []string {
	counts := map[string]int{}
	var order []string
	for _, n := range notes {
		if counts[n] == 0 {
			order = append(order, n)
		}
		counts[n]++
	}
	for i, n := range order {
		if c := counts[n]; c > 1 {
			order[i] = fmt.Sprintf("%s (×%d)", n, c)
		}
	}
	return order
}

// checker follows the sessions of one record file.
type checker struct {
	revs       map[string]*revision
	rep        *report
	sessionRev map[string]string  // negotiated by initialize
	lastRev    map[string]string  // named by the last request's _meta (2026-07-28 on)
	bySession  map[string]pending // session|dir|id → request
	byExchange map[string]pending // exchange|dir|id → request
}

func checkFile(revs map[string]*revision, name string) (*report, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &checker{revs: revs, rep: &report{revs: map[string]int{}, methods: map[string]int{}},
		sessionRev: map[string]string{}, lastRev: map[string]string{}, bySession: map[string]pending{}, byExchange: map[string]pending{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var rec record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		c.check(rec)
	}
	return c.rep, sc.Err()
}

func (c *checker) check(rec record) {
	rep := c.rep
	rep.frames++
	if rec.Frame == nil {
		rep.problems = append(rep.problems, fmt.Sprintf("%s: not JSON: %s", rec.Dir, clip(rec.Raw)))
		return
	}
	if t := bytes.TrimSpace(rec.Frame); len(t) > 0 && t[0] == '[' {
		rep.problems = append(rep.problems, fmt.Sprintf("%s: a batch, which no revision since 2025-06-18 allows: %s", rec.Dir, clip(string(rec.Frame))))
		return
	}
	var fr frame
	if err := json.Unmarshal(rec.Frame, &fr); err != nil {
		rep.problems = append(rep.problems, fmt.Sprintf("%s: %v: %s", rec.Dir, err, clip(string(rec.Frame))))
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Frame))
	if err != nil {
		rep.problems = append(rep.problems, fmt.Sprintf("%s: %v", rec.Dir, err))
		return
	}
	other := map[string]string{"send": "recv", "recv": "send"}[rec.Dir]
	var req pending
	var found bool
	isResponse := fr.Method == "" && (fr.Result != nil || fr.Error != nil)
	if isResponse && !isNull(fr.ID) {
		if rec.Exchange != 0 {
			req, found = c.byExchange[fmt.Sprint(rec.Exchange, "|", other, "|", string(fr.ID))]
		}
		if !found {
			req, found = c.bySession[rec.Session+"|"+other+"|"+string(fr.ID)]
		}
	}

	rev := c.revisionOf(rec, fr, req, found)
	r := c.revs[rev]
	rep.revs[rev]++
	where := fmt.Sprintf("%s %s", rec.Dir, describe(fr, req.method))
	fail := func(err error) {
		rep.problems = append(rep.problems, fmt.Sprintf("%s (%s): %s\n    frame: %s", where, rev, firstLines(err.Error(), 6), clip(string(rec.Frame))))
	}
	if err := r.validate("JSONRPCMessage", inst); err != nil {
		fail(err)
		return
	}

	switch {
	case fr.Method != "":
		rep.methods[fr.Method]++
		m, ok := r.methods[fr.Method]
		if !ok {
			rep.notes = append(rep.notes, fmt.Sprintf("%s: method %s is not in revision %s; only the envelope was checked", rec.Dir, fr.Method, rev))
		} else {
			sender := map[string]string{"send": "client", "recv": "server"}[rec.Dir]
			if !slices.Contains(m.SentBy, sender) {
				fail(fmt.Errorf("the %s does not send %s in revision %s", sender, fr.Method, rev))
				return
			}
			v := inst
			if !m.DefinitionIncludesEnvel {
				v = withoutEnvelope(inst)
			}
			if err := r.validate(m.Definition, v); err != nil {
				fail(err)
				return
			}
		}
		if !isNull(fr.ID) && len(fr.ID) > 0 {
			p := pending{method: fr.Method, rev: rev, task: len(fr.Params.Task) > 0 && !isNull(fr.Params.Task)}
			c.bySession[rec.Session+"|"+rec.Dir+"|"+string(fr.ID)] = p
			if rec.Exchange != 0 {
				c.byExchange[fmt.Sprint(rec.Exchange, "|", rec.Dir, "|", string(fr.ID))] = p
			}
		}
	case fr.Error != nil:
		name := "JSONRPCErrorResponse"
		if rev == "2025-06-18" {
			name = "JSONRPCError"
		}
		if err := r.validate(name, inst); err != nil {
			fail(err)
		}
	case fr.Result != nil:
		if !found {
			rep.notes = append(rep.notes, fmt.Sprintf("%s: a response to no recorded request; only the envelope was checked", rec.Dir))
			return
		}
		if req.method == "initialize" && fr.Result.ProtocolVersion != "" {
			c.sessionRev[rec.Session] = fr.Result.ProtocolVersion
		}
		m, ok := r.methods[req.method]
		if !ok {
			return // noted with the request
		}
		var err error
		switch {
		case m.Response != "":
			err = r.validate(m.Response, inst)
		case req.task && m.ResultWhenTask != "":
			err = r.validate(m.ResultWhenTask, resultOf(inst))
		default:
			err = r.validate(m.Result, resultOf(inst))
		}
		if err != nil && m.AlternativeResult != "" && r.validate(m.AlternativeResult, resultOf(inst)) == nil {
			err = nil
		}
		if err != nil {
			fail(err)
		}
	}
}

// revisionOf picks the revision a frame is checked against: the one named
// in a 2026-07-28 request's _meta, the session's negotiated one, the HTTP
// header's, or the newest handshake revision.
func (c *checker) revisionOf(rec record, fr frame, req pending, isAnswer bool) string {
	known := func(r string) bool { _, ok := c.revs[r]; return ok }
	if isAnswer && req.method == "initialize" && fr.Result != nil && known(fr.Result.ProtocolVersion) {
		return fr.Result.ProtocolVersion
	}
	if isAnswer && known(req.rev) {
		return req.rev
	}
	if fr.Method == "initialize" && known(fr.Params.ProtocolVersion) {
		return fr.Params.ProtocolVersion
	}
	if raw, ok := fr.Params.Meta["io.modelcontextprotocol/protocolVersion"]; ok {
		var r string
		if json.Unmarshal(raw, &r) == nil && known(r) {
			c.lastRev[rec.Session] = r
			return r
		}
	}
	if r := c.sessionRev[rec.Session]; known(r) {
		return r
	}
	if r := c.lastRev[rec.Session]; known(r) {
		return r
	}
	if known(rec.Rev) {
		return rec.Rev
	}
	if known(defaultRev) {
		return defaultRev
	}
	for r := range c.revs {
		return r
	}
	return ""
}

func isNull(id json.RawMessage) bool { return len(id) == 0 || string(id) == "null" }

func describe(fr frame, answered string) string {
	switch {
	case fr.Method != "" && !isNull(fr.ID):
		return fmt.Sprintf("request %s id %s", fr.Method, fr.ID)
	case fr.Method != "":
		return "notification " + fr.Method
	case answered != "":
		return fmt.Sprintf("response to %s id %s", answered, fr.ID)
	default:
		return fmt.Sprintf("response id %s", fr.ID)
	}
}

func withoutEnvelope(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if k != "jsonrpc" && k != "id" {
			out[k] = x
		}
	}
	return out
}

func resultOf(v any) any {
	if m, ok := v.(map[string]any); ok {
		return m["result"]
	}
	return nil
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n    ")
}
