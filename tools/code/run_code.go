package code

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/wieldhq/wield/internal/textcut"
	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

//go:embed run_code.md
var runDescription string

//go:embed prelude/python.py
var pythonPrelude []byte

//go:embed prelude/node.js
var nodePrelude []byte

// RunInput is the argument object of run_code.
type RunInput struct {
	Language Language          `json:"language" enum:"python,javascript,bash" jsonschema:"the language of the code"`
	Code     string            `json:"code" jsonschema:"the program to run"`
	Stdin    string            `json:"stdin,omitempty" jsonschema:"the program's standard input; default: empty"`
	Timeout  int               `json:"timeout,omitempty" jsonschema:"the wall-clock limit in seconds"`
	Files    map[string]string `json:"files,omitempty" jsonschema:"text files to put in the scratch directory before the run: relative path to content"`
	Context  map[string]any    `json:"context,omitempty" jsonschema:"a JSON object handed to the code (see the description)"`
	Session  string            `json:"session,omitempty" jsonschema:"a name of letters, digits, '.', '_' and '-': calls naming the same session share a scratch directory"`
}

// RunData is the Data of run_code's results.
type RunData struct {
	Language Language `json:"language"`
	// ExitCode is the program's exit status, or -1 when a signal ended it;
	// Signal names that signal.
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	// Limit names the limit that stopped the program: "timeout",
	// "output" or "cpu"; empty when none did.
	Limit      string `json:"limit,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	// Stdout and Stderr are what the program printed, cut to the
	// configured limit; StdoutPath and StderrPath, relative to the
	// workspace root, hold the whole of a cut stream.
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	StdoutPath string `json:"stdout_path,omitempty"`
	StderrPath string `json:"stderr_path,omitempty"`
	// Result is the JSON value the program assigned to result; absent
	// when it assigned none.
	Result json.RawMessage `json:"result,omitempty"`
	// Files lists the files the program wrote or changed in its scratch
	// directory.
	Files []File `json:"files,omitempty"`
	// Session names the session the call ran in, if any.
	Session string `json:"session,omitempty"`
	// Sandbox names the sandbox mechanism the program ran under.
	Sandbox sandbox.Mechanism `json:"sandbox"`
}

// A File is a file the program wrote.
type File struct {
	// Path is relative to the scratch directory.
	Path string `json:"path"`
	Size int64  `json:"size"`
	// Content is the file's text, for text files up to the inline limit.
	Content *string `json:"content,omitempty"`
	// Saved is where, relative to the workspace root, a copy of a file
	// not inlined was saved; empty when none was (no workspace, or the
	// copies' budget spent). Files of a session also stay in its scratch
	// directory.
	Saved string `json:"saved,omitempty"`
}

// runDir is the directory in the scratch directory that holds the
// program, its context and its result: not listed among its files.
const runDir = ".wield-run"

// NewRunCode returns the run_code tool.
func NewRunCode(cfg Config) *tool.Tool {
	r := &runner{cfg: cfg.withDefaults()}
	// Never read-only, so the policy asks unless a rule allows run_code:
	// the sandbox keeps writes in the scratch directory and hides the
	// usual credential locations, but shows the rest of the file system,
	// so code could read a secret elsewhere (a .env in the workspace) and
	// print it to the model; a read_file or a cat there would ask too.
	return tool.New(tool.Spec{
		Name:         "run_code",
		Effect:       tool.EffectRun,
		Description:  r.description(),
		OutputSchema: tool.SchemaOf[RunData](),
		Annotations:  tool.Annotations{ParallelSafe: true, OpenWorld: cfg.Network || len(cfg.Hosts) > 0},
		// The sandbox's own limit ends the program; the runner's timeout
		// is a backstop.
		Timeout: r.cfg.MaxTimeout + time.Minute,
	}, r.run)
}

type runner struct{ cfg Config }

func (r *runner) description() string {
	names := make([]string, len(languages))
	for i, l := range languages {
		names[i] = fmt.Sprintf("%s (`%s`, run with %s)", titles[l], l, r.cfg.Interpreters[l])
	}
	maxSessions := 0
	if r.cfg.Sessions != nil {
		maxSessions = r.cfg.Sessions.Max()
	}
	var b bytes.Buffer
	template.Must(template.New("run_code").Parse(runDescription)).Execute(&b, map[string]any{
		"Languages":   strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1],
		"Network":     r.cfg.Network,
		"Hosts":       strings.Join(r.cfg.Hosts, ", "),
		"MaxSessions": maxSessions,
		"Timeout":     int(r.cfg.Timeout / time.Second),
		"MaxTimeout":  int(r.cfg.MaxTimeout / time.Second),
		"MemoryMiB":   r.cfg.Memory >> 20,
		"InlineLimit": r.cfg.InlineLimit,
	})
	return b.String()
}

var titles = map[Language]string{Python: "Python", JavaScript: "JavaScript", Bash: "Bash"}

// installHint says how to get each default interpreter.
var installHint = map[Language]string{
	Python:     "install Python 3 (Debian and Ubuntu: apt-get install python3; macOS: brew install python)",
	JavaScript: "install Node.js (Debian and Ubuntu: apt-get install nodejs; macOS: brew install node; or https://nodejs.org)",
	Bash:       "install bash (Debian and Ubuntu: apt-get install bash)",
}

// check validates in before anything runs; the message is for the model.
func (r *runner) check(in *RunInput) (time.Duration, error) {
	if !slices.Contains(languages, in.Language) {
		return 0, fmt.Errorf("language %q is not one of python, javascript, bash", in.Language)
	}
	if strings.TrimSpace(in.Code) == "" {
		return 0, errors.New("code is empty: give the program to run")
	}
	timeout := r.cfg.Timeout
	if in.Timeout != 0 {
		max := int(r.cfg.MaxTimeout / time.Second)
		if in.Timeout < 1 || in.Timeout > max {
			return 0, fmt.Errorf("timeout must be between 1 and %d seconds", max)
		}
		timeout = time.Duration(in.Timeout) * time.Second
	}
	size := 0
	for name, content := range in.Files {
		if err := checkFileName(name); err != nil {
			return 0, err
		}
		size += len(content)
	}
	if size > maxInputFiles {
		return 0, fmt.Errorf("files hold %d bytes, more than the %d accepted: write large inputs with code instead, or read them from the workspace", size, maxInputFiles)
	}
	if in.Session != "" {
		if !sessionName().MatchString(in.Session) {
			return 0, fmt.Errorf("session %q: use 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit", in.Session)
		}
		if r.cfg.Sessions == nil {
			return 0, errors.New("sessions are not available here; run without session and pass state in files or context")
		}
	}
	return timeout, nil
}

// checkFileName refuses names that are absolute, leave the scratch
// directory or reach into the run directory.
func checkFileName(name string) error {
	switch {
	case name == "" || strings.ContainsRune(name, 0):
		return fmt.Errorf("file name %q is empty or holds a NUL byte", name)
	case strings.Contains(name, `\`) || path.IsAbs(name) || filepath.IsAbs(name):
		return fmt.Errorf("file name %q must be a relative path with / separators, inside the scratch directory", name)
	}
	clean := path.Clean(name)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("file name %q leaves the scratch directory", name)
	}
	if clean == runDir || strings.HasPrefix(clean, runDir+"/") {
		return fmt.Errorf("file name %q is reserved", name)
	}
	return nil
}

func (r *runner) run(ctx context.Context, c *tool.Call, in RunInput) (tool.Result, error) {
	timeout, err := r.check(&in)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if r.cfg.Sandbox == nil {
		return tool.Failure(noSandbox("no sandbox is configured")), nil
	}
	interp := r.cfg.Interpreters[in.Language]
	prog, err := exec.LookPath(interp)
	if err != nil {
		msg := fmt.Sprintf("cannot run %s: %s is not installed (not found in PATH)", titles[in.Language], interp)
		if hint := installHint[in.Language]; hint != "" && interp == (Config{}).withDefaults().Interpreters[in.Language] {
			msg += ": " + hint
		}
		return tool.Failure(msg + "; nothing was run"), nil
	}

	scratch, done, err := r.scratch(in.Session)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	defer done()
	args, env, err := r.prepare(scratch, prog, c, &in)
	if err != nil {
		return tool.Result{}, fmt.Errorf("run_code: prepare the scratch directory: %w", err)
	}
	before := snapshot(scratch)
	var stdin io.Reader
	if in.Stdin != "" {
		stdin = strings.NewReader(in.Stdin)
	}
	res, err := r.cfg.Sandbox.Run(ctx, &sandbox.Command{
		Args: args, Dir: scratch, Env: env, Stdin: stdin, Scratch: scratch,
		Network: r.cfg.Network, Timeout: timeout, CPUTime: timeout, Memory: r.cfg.Memory,
	})
	if err != nil {
		if ue, ok := errors.AsType[*sandbox.UnavailableError](err); ok {
			return tool.Failure(noSandbox(ue.Error())), nil
		}
		if ctx.Err() != nil {
			return tool.Failure("cancelled; the program was stopped"), nil
		}
		return tool.Failure("the sandbox could not run the program: " + err.Error()), nil
	}
	return r.result(c, &in, scratch, before, res, timeout), nil
}

func noSandbox(why string) string {
	return "run_code runs code only in a sandbox, and none is available here (" + why + "); nothing was run"
}

// scratch returns the scratch directory of a call and what to do when the
// call ends: a new directory to remove, or the session's, locked.
func (r *runner) scratch(name string) (string, func(), error) {
	if name == "" {
		dir, err := os.MkdirTemp("", "wield-code-")
		if err != nil {
			return "", nil, fmt.Errorf("cannot make a scratch directory: %w", err)
		}
		return dir, func() { os.RemoveAll(dir) }, nil
	}
	ss, err := r.cfg.Sessions.get(name)
	if err != nil {
		return "", nil, err
	}
	ss.mu.Lock()
	if ss.gone {
		ss.mu.Unlock()
		return "", nil, ErrClosed
	}
	return ss.dir, ss.mu.Unlock, nil
}

// prepare writes the program, its context and the input files into the
// scratch directory and returns the command line and environment.
func (r *runner) prepare(scratch, prog string, c *tool.Call, in *RunInput) ([]string, []string, error) {
	run := filepath.Join(scratch, runDir)
	if err := os.RemoveAll(run); err != nil {
		return nil, nil, err
	}
	if err := os.Mkdir(run, 0o700); err != nil {
		return nil, nil, err
	}
	for name, content := range in.Files {
		p := filepath.Join(scratch, filepath.FromSlash(path.Clean(name)))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			return nil, nil, err
		}
	}
	ctxJSON := []byte("{}")
	if len(in.Context) > 0 {
		b, err := json.Marshal(in.Context)
		if err != nil {
			return nil, nil, err
		}
		ctxJSON = b
	}
	contextPath := filepath.Join(run, "context.json")
	resultPath := filepath.Join(run, "result.json")
	var codePath string
	var args []string
	switch in.Language {
	case Python:
		codePath = filepath.Join(run, "main.py")
		prelude := filepath.Join(run, "prelude.py")
		if err := os.WriteFile(prelude, pythonPrelude, 0o600); err != nil {
			return nil, nil, err
		}
		args = []string{prog, prelude, codePath, contextPath, resultPath}
	case JavaScript:
		codePath = filepath.Join(run, "main.js")
		prelude := filepath.Join(run, "prelude.js")
		if err := os.WriteFile(prelude, nodePrelude, 0o600); err != nil {
			return nil, nil, err
		}
		args = []string{prog, prelude, codePath, contextPath, resultPath}
	case Bash:
		codePath = filepath.Join(run, "main.sh")
		args = []string{prog, codePath}
	}
	for p, b := range map[string][]byte{codePath: []byte(in.Code), contextPath: ctxJSON} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return nil, nil, err
		}
	}
	pathVar := os.Getenv("PATH")
	if pathVar == "" {
		pathVar = "/usr/local/bin:/usr/bin:/bin"
	}
	env := []string{"PATH=" + pathVar, "HOME=" + scratch, "TMPDIR=" + scratch, "LANG=C.UTF-8",
		"WIELD_CONTEXT=" + contextPath, "WIELD_RESULT=" + resultPath}
	if c != nil && c.Root != nil {
		if ws, err := filepath.Abs(c.Root.Name()); err == nil {
			env = append(env, "WIELD_WORKSPACE="+ws)
		}
	}
	if in.Language == Bash {
		env = append(env, contextVars(in.Context, env)...)
	}
	return args, env, nil
}

// shellName is what a variable exported to Bash may be called.
var shellName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// contextVars returns the keys of the context object that are shell names
// with string, number or boolean values, as environment entries; names
// env already sets are skipped.
func contextVars(obj map[string]any, env []string) []string {
	var out []string
	for k, v := range obj {
		if !shellName().MatchString(k) || slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") }) {
			continue
		}
		switch v := v.(type) {
		case string:
			out = append(out, k+"="+v)
		case float64, bool:
			b, _ := json.Marshal(v)
			out = append(out, k+"="+string(b))
		}
	}
	slices.Sort(out)
	return out
}

// A fileState is what snapshot records of a file.
type fileState struct {
	size int64
	mod  time.Time
}

// snapshot records the regular files beneath dir, outside the run
// directory, so that what a call changed can be told apart.
func snapshot(dir string) map[string]fileState {
	m := map[string]fileState{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == runDir {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			m[filepath.ToSlash(rel)] = fileState{fi.Size(), fi.ModTime()}
		}
		return nil
	})
	return m
}

// result builds the tool result of a finished run.
func (r *runner) result(c *tool.Call, in *RunInput, scratch string, before map[string]fileState, res *sandbox.Result, timeout time.Duration) tool.Result {
	d := RunData{Language: in.Language, ExitCode: res.ExitCode, Signal: res.Signal, Limit: res.Limit,
		DurationMs: res.Duration.Milliseconds(), Session: in.Session, Sandbox: res.Mechanism}
	var notes []string
	d.Stdout, d.StdoutPath = r.stream(c, "stdout", res.Stdout, &notes)
	d.Stderr, d.StderrPath = r.stream(c, "stderr", res.Stderr, &notes)
	if b, err := readLimited(filepath.Join(scratch, runDir, "result.json"), maxResult); err == nil {
		if json.Valid(b) {
			d.Result = b
		} else {
			notes = append(notes, "the result file does not hold valid JSON, so no result was returned")
		}
	} else if errors.Is(err, errTooLarge) {
		notes = append(notes, fmt.Sprintf("the result is larger than %d bytes and was dropped: write large data to a file instead", maxResult))
	}
	d.Files = r.files(c, scratch, before, in.Session != "", &notes)

	var b strings.Builder
	fmt.Fprintf(&b, "exit code %d", d.ExitCode)
	if d.Signal != "" {
		fmt.Fprintf(&b, " (signal %s)", d.Signal)
	}
	fmt.Fprintf(&b, " after %s", res.Duration.Round(time.Millisecond))
	if in.Session != "" {
		fmt.Fprintf(&b, ", session %s", in.Session)
	}
	b.WriteString("\n")
	section := func(name, text string) {
		if text != "" {
			fmt.Fprintf(&b, "\n[%s]\n%s", name, text)
			if !strings.HasSuffix(text, "\n") {
				b.WriteString("\n")
			}
		}
	}
	section("stdout", d.Stdout)
	section("stderr", d.Stderr)
	if d.Result != nil {
		text := string(d.Result)
		if len(text) > r.cfg.OutputLimit {
			head, tail := textcut.HeadTail(text, r.cfg.OutputLimit)
			text = fmt.Sprintf("%s\n[... %d bytes omitted; the whole is the result's data ...]\n%s", head, len(text)-len(head)-len(tail), tail)
		}
		section("result", text)
	}
	if len(d.Files) > 0 {
		var f strings.Builder
		for _, file := range d.Files {
			switch {
			case file.Content != nil:
				fmt.Fprintf(&f, "%s (%d bytes):\n%s", file.Path, file.Size, *file.Content)
				if !strings.HasSuffix(*file.Content, "\n") {
					f.WriteString("\n")
				}
			case file.Saved != "":
				fmt.Fprintf(&f, "%s (%d bytes): saved as %s\n", file.Path, file.Size, file.Saved)
			default:
				fmt.Fprintf(&f, "%s (%d bytes)\n", file.Path, file.Size)
			}
		}
		section("files written", f.String())
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "\nnote: %s\n", n)
	}
	out := tool.Result{Success: true, Output: b.String(), Data: d}
	if msg := failure(d, timeout, r.cfg); msg != "" {
		out.Success, out.Error = false, msg
	}
	return out
}

// failure says why a run did not succeed, or returns "" when it did.
func failure(d RunData, timeout time.Duration, cfg Config) string {
	switch d.Limit {
	case "timeout":
		return fmt.Sprintf("stopped after %s, its time limit: make the program faster, or give a larger timeout (at most %d)", timeout, int(cfg.MaxTimeout/time.Second))
	case "output":
		return fmt.Sprintf("stopped: the program printed more than %d bytes; print less, or write the data to a file", sandbox.DefaultMaxOutput)
	case "cpu":
		return fmt.Sprintf("stopped: a process used more than %s of CPU time", timeout)
	}
	switch {
	case d.Signal == "SIGKILL" || d.Signal == "SIGSEGV" || d.Signal == "SIGABRT":
		return fmt.Sprintf("killed by %s: it may have run out of memory (%d MiB per process)", d.Signal, cfg.Memory>>20)
	case d.Signal != "":
		return "killed by " + d.Signal
	case d.ExitCode != 0:
		return fmt.Sprintf("exit code %d", d.ExitCode)
	}
	return ""
}

// stream renders one output stream within the limit; a cut stream is
// saved whole to the workspace, and its path returned.
func (r *runner) stream(c *tool.Call, name string, out []byte, notes *[]string) (string, string) {
	if len(out) == 0 {
		return "", ""
	}
	s := string(out)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= r.cfg.OutputLimit {
		return s, ""
	}
	head, tail := textcut.HeadTail(s, r.cfg.OutputLimit)
	cut := fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", head, len(s)-len(head)-len(tail), tail)
	p, err := save(c, tool.SpillName(c, callName(c)+"."+name, ".log"), out)
	if err != nil {
		*notes = append(*notes, fmt.Sprintf("the whole %s could not be saved: %v", name, err))
		return cut, ""
	}
	*notes = append(*notes, fmt.Sprintf("the whole %s is in %s; read it in parts rather than whole", name, p))
	return cut, p
}

func callName(c *tool.Call) string {
	if c == nil || c.ID == "" {
		return "run_code"
	}
	return c.ID
}

// errNoWorkspace is returned by save when the call has no workspace.
var errNoWorkspace = errors.New("no workspace is open")

// save writes b to rel beneath the workspace's spill directory and returns
// the path relative to the workspace root.
func save(c *tool.Call, rel string, b []byte) (string, error) {
	if c == nil || c.Root == nil {
		return "", errNoWorkspace
	}
	p := filepath.Join(workspace.Layout{}.Spill(""), rel)
	if err := c.Root.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	if err := c.Root.WriteFile(p, b, 0o644); err != nil {
		return "", err
	}
	return p, nil
}

// files lists the files the run wrote or changed in scratch: small text
// files inlined, others copied to the workspace within a budget.
func (r *runner) files(c *tool.Call, scratch string, before map[string]fileState, inSession bool, notes *[]string) []File {
	after := snapshot(scratch)
	var names []string
	for name, st := range after {
		if old, ok := before[name]; !ok || old != st {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) > maxListed {
		*notes = append(*notes, fmt.Sprintf("the program wrote %d files; the first %d are listed", len(names), maxListed))
		names = names[:maxListed]
	}
	var out []File
	budget := int64(maxSaved)
	for _, name := range names {
		f := File{Path: name, Size: after[name].size}
		p := filepath.Join(scratch, filepath.FromSlash(name))
		if f.Size <= int64(r.cfg.InlineLimit) {
			if b, err := os.ReadFile(p); err == nil && utf8.Valid(b) && !bytes.ContainsRune(b, 0) {
				s := string(b)
				f.Content = &s
				out = append(out, f)
				continue
			}
		}
		if f.Size <= budget {
			if b, err := readLimited(p, f.Size); err == nil {
				if saved, err := save(c, tool.SpillName(c, callName(c)+"-files", "")+"/"+name, b); err == nil {
					f.Saved = filepath.ToSlash(saved)
					budget -= f.Size
				}
			}
		}
		out = append(out, f)
	}
	if !inSession && slices.ContainsFunc(out, func(f File) bool { return f.Content == nil && f.Saved == "" }) {
		*notes = append(*notes, "files without content or a saved copy were removed with the scratch directory; name a session to keep them, or write them smaller")
	}
	return out
}

var errTooLarge = errors.New("file too large")

// readLimited reads the file p, failing with errTooLarge when it holds
// more than max bytes.
func readLimited(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errTooLarge
	}
	return b, nil
}
