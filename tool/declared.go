package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A Declared is a tool described in a JSON file rather than in Go: its
// command receives the arguments as JSON on standard input, its standard
// output is the result's output, and a non-zero exit is a failure with
// standard error as the message.
//
//	{"name": "word_count", "description": "Count words in text.",
//	 "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
//	 "command": ["wc", "-w"], "timeout_ms": 5000}
type Declared struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Command     []string        `json:"command"`
	TimeoutMs   int64           `json:"timeout_ms,omitempty"`
	Annotations Annotations     `json:"annotations,omitzero"`
}

// maxDeclaredOutput caps what a declared tool's command may print; the
// runner bounds what the model sees far below this.
const maxDeclaredOutput = 16 << 20

// Tool builds the tool. dir is the directory relative command paths
// (containing a '/') are resolved against: the declaring file's directory.
// Commands run in the call's workspace root directory when it has one.
func (d Declared) Tool(dir string) (*Tool, error) {
	if len(d.Command) == 0 || d.Command[0] == "" {
		return nil, fmt.Errorf("tool %s: \"command\" must be a non-empty array of strings", d.Name)
	}
	if d.TimeoutMs < 0 {
		return nil, fmt.Errorf("tool %s: \"timeout_ms\" must not be negative", d.Name)
	}
	argv := slices.Clone(d.Command)
	if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
		argv[0] = filepath.Join(dir, argv[0])
	}
	spec := Spec{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema,
		Annotations: d.Annotations, Timeout: time.Duration(d.TimeoutMs) * time.Millisecond}
	return NewRaw(spec, commandHandler{argv: argv})
}

type commandHandler struct{ argv []string }

func (h commandHandler) Handle(ctx context.Context, c *Call, args json.RawMessage) (Result, error) {
	cmd := exec.CommandContext(ctx, h.argv[0], h.argv[1:]...)
	cmd.Stdin = bytes.NewReader(args)
	if c != nil && c.Root != nil {
		cmd.Dir = c.Root.Name()
	}
	var stdout, stderr boundedBuffer
	stdout.max, stderr.max = maxDeclaredOutput, 64<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return Text(stdout.String()), nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = "command " + exit.String()
		}
		return Result{Output: stdout.String(), Error: msg, Data: map[string]any{"exitCode": exit.ExitCode()}}, nil
	}
	return Failure(fmt.Sprintf("cannot run %s: %v", h.argv[0], err)), nil
}

// boundedBuffer keeps at most max bytes and counts the rest.
type boundedBuffer struct {
	bytes.Buffer
	max     int
	dropped int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	room := b.max - b.Len()
	if room < len(p) {
		b.dropped += len(p) - max(room, 0)
		p = p[:max(room, 0)]
	}
	b.Buffer.Write(p)
	return n, nil
}

func (b *boundedBuffer) String() string {
	if b.dropped > 0 {
		return b.Buffer.String() + fmt.Sprintf("\n[%d more bytes not kept]", b.dropped)
	}
	return b.Buffer.String()
}

// maxDeclaredFile caps the size of a declared-tool file.
const maxDeclaredFile = 4 << 20

// ReadDeclared reads the declarations in the JSON file path: one tool
// object or an array of them. A declaration that does not decode (an
// unknown key, a wrong type) does not stop the others: the ones that
// decode are returned, with an error naming the file and each bad one,
// joined. A file that cannot be read, is too large or is not JSON gives
// none.
func ReadDeclared(path string) ([]Declared, error) {
	ns, err := readDeclared(path)
	ds := make([]Declared, len(ns))
	for i, n := range ns {
		ds[i] = n.Declared
	}
	return ds, err
}

// numbered is a declaration with its place in its file, from 1.
type numbered struct {
	Declared
	n int
}

func readDeclared(path string) ([]numbered, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("declared tools: %w", err)
	}
	if len(data) > maxDeclaredFile {
		return nil, fmt.Errorf("declared tools %s: file is %d bytes, at most %d allowed", path, len(data), maxDeclaredFile)
	}
	var raws []json.RawMessage
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &raws)
	} else {
		raws = []json.RawMessage{trimmed}
		if !json.Valid(trimmed) {
			err = json.Unmarshal(trimmed, new(any))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("declared tools %s: not valid JSON: %w", path, err)
	}
	var ds []numbered
	var errs []error
	for i, raw := range raws {
		var d Declared
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			errs = append(errs, fmt.Errorf("declared tools %s: tool %d: %w", path, i+1, err))
			continue
		}
		ds = append(ds, numbered{d, i + 1})
	}
	return ds, errors.Join(errs...)
}

// LoadDeclared reads the declared tools in the JSON file path (see
// [ReadDeclared]) and builds them. A tool that is invalid does not stop
// the others: the valid tools are returned, with an error naming the file
// and each bad tool, joined.
func LoadDeclared(path string) ([]*Tool, error) {
	ds, err := readDeclared(path)
	if len(ds) == 0 && err != nil {
		return nil, err
	}
	errs := []error{err}
	dir := filepath.Dir(path)
	var tools []*Tool
	for _, d := range ds {
		t, err := d.Tool(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("declared tools %s: tool %d: %w", path, d.n, err))
			continue
		}
		tools = append(tools, t)
	}
	return tools, errors.Join(errs...)
}

// LoadDeclaredDir loads every *.json file in dir, in name order, as
// [LoadDeclared] does. A missing dir is not an error.
func LoadDeclaredDir(dir string) ([]*Tool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var tools []*Tool
	var errs []error
	for _, f := range files {
		ts, err := LoadDeclared(f)
		tools = append(tools, ts...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return tools, errors.Join(errs...)
}
