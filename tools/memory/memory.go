package memory

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/tool"
)

//go:embed memory.md
var memoryDescription string

// Dir is the virtual directory the memory tool shows the project's notes
// in, as Anthropic's memory tool does.
const Dir = "/memories"

// MemoryInput is the memory tool's argument object: Anthropic's
// memory_20250818 command set, argument for argument.
type MemoryInput struct {
	Command    string `json:"command" enum:"view,create,str_replace,insert,delete,rename" jsonschema:"what to do"`
	Path       string `json:"path,omitempty" jsonschema:"the file or directory, under /memories (view, create, str_replace, insert, delete)"`
	ViewRange  []int  `json:"view_range,omitempty" jsonschema:"view: the first and last line to show, from 1; -1 as the last means the end"`
	FileText   string `json:"file_text,omitempty" jsonschema:"create: the file's whole content"`
	OldStr     string `json:"old_str,omitempty" jsonschema:"str_replace: the text to replace, exactly as it is, occurring once"`
	NewStr     string `json:"new_str,omitempty" jsonschema:"str_replace: the text to put in its place"`
	InsertLine *int   `json:"insert_line,omitempty" jsonschema:"insert: the line after which the text goes; 0 for the top"`
	InsertText string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert"`
	OldPath    string `json:"old_path,omitempty" jsonschema:"rename: the file to rename"`
	NewPath    string `json:"new_path,omitempty" jsonschema:"rename: its new path"`
}

// Memory returns memory, Anthropic's memory tool over the project's
// notes: Dir is the project's memory directory, and each note ID is the
// file Dir/ID.md, shown without its frontmatter (which the store keeps).
// MEMORY.md, the generated index, can be viewed but not written.
func Memory(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "memory", Effect: tool.EffectRead | tool.EffectState, KeyArgs: []string{"command", "path"}, Description: memoryDescription,
		Annotations: tool.Annotations{Destructive: true}}, cfg.memory)
}

// errFailure is a failure the model reads.
type errFailure string

func (e errFailure) Error() string { return string(e) }

func (cfg Config) memory(_ context.Context, c *tool.Call, in MemoryInput) (tool.Result, error) {
	if cfg.Store == nil {
		return tool.Failure(errNoStore.Error()), nil
	}
	var out string
	var err error
	switch in.Command {
	case "view":
		out, err = cfg.view(in)
	case "create":
		out, err = cfg.create(c, in)
	case "str_replace":
		out, err = cfg.strReplace(c, in)
	case "insert":
		out, err = cfg.insert(c, in)
	case "delete":
		out, err = cfg.delete(c, in)
	case "rename":
		out, err = cfg.rename(c, in)
	default:
		err = errFailure(fmt.Sprintf("unknown command %q: use view, create, str_replace, insert, delete or rename", in.Command))
	}
	if f, ok := errors.AsType[errFailure](err); ok {
		return tool.Failure(string(f)), nil
	}
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(out), nil
}

// resolve maps a path under Dir to the path under the memory directory
// ("" for Dir itself), or reports that it names the generated index.
func resolve(p string) (id string, isIndex bool, err error) {
	if p == "" {
		return "", false, errFailure("path is required: a file under " + Dir)
	}
	rest, ok := strings.CutPrefix(p, Dir)
	if !ok || rest != "" && rest[0] != '/' {
		return "", false, errFailure(fmt.Sprintf("%s is outside %s: every memory path begins with %s/", p, Dir, Dir))
	}
	// One slash after Dir, and one at the end of a directory's path.
	rest = strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/")
	if rest == "" && p != Dir+"//" {
		return "", false, nil
	}
	if path.Clean(rest) != rest || strings.HasPrefix(rest, "/") || slices.Contains(strings.Split(rest, "/"), "..") {
		return "", false, errFailure(fmt.Sprintf("%s is not a clean path: no .., . or doubled slashes", p))
	}
	if rest == memory.IndexName {
		return "", true, nil
	}
	return rest, false, nil
}

// noteID maps a file path under Dir to a note id.
func noteID(p string) (string, error) {
	rest, isIndex, err := resolve(p)
	switch {
	case err != nil:
		return "", err
	case isIndex:
		return "", errFailure(fmt.Sprintf("%s/%s is generated from the notes and cannot be written; change the notes instead", Dir, memory.IndexName))
	case rest == "":
		return "", errFailure(Dir + " is the memory directory; name a file in it, such as " + Dir + "/topic.md")
	case !strings.HasSuffix(rest, ".md"):
		return "", errFailure(fmt.Sprintf("%s: memory files are Markdown; name it %s.md", p, strings.TrimSuffix(p, path.Ext(p))))
	}
	id := strings.TrimSuffix(rest, ".md")
	if err := memory.ValidID(id); err != nil {
		return "", errFailure(fmt.Sprintf("%s: %v", p, err))
	}
	return id, nil
}

func filePath(id string) string { return Dir + "/" + id + ".md" }

// get reads the project note at p.
func (cfg Config) get(p string) (*memory.Note, error) {
	id, err := noteID(p)
	if err != nil {
		return nil, err
	}
	n, err := cfg.Store.Get(memory.ScopeProject, id)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, errFailure(fmt.Sprintf("%s does not exist; view %s lists the files", p, Dir))
	}
	return n, err
}

// put saves a project note and journals it; it returns what to say
// about near duplicates.
func (cfg Config) put(c *tool.Call, n memory.Note) (string, error) {
	res, err := cfg.Store.Save(n)
	if dup, ok := errors.AsType[*memory.DuplicateError](err); ok {
		return "", errFailure(fmt.Sprintf("nothing was written: %s already says this", filePath(dup.ID)))
	}
	if err != nil {
		return "", errFailure(err.Error())
	}
	if err := cfg.journal(c, write{Op: "save", Scope: res.Note.Scope, ID: res.Note.ID, Tainted: res.Note.Tainted}); err != nil {
		return "", err
	}
	var b strings.Builder
	writeSimilar(&b, res.Similar)
	return b.String(), nil
}

func (cfg Config) view(in MemoryInput) (string, error) {
	prefix, isIndex, err := resolve(in.Path)
	if err != nil {
		return "", err
	}
	var body, shown string
	switch {
	case isIndex:
		if body, err = cfg.Store.Index(memory.ScopeProject); err != nil {
			return "", err
		}
		shown = Dir + "/" + memory.IndexName
	case strings.HasSuffix(prefix, ".md"):
		n, err := cfg.get(in.Path)
		if err != nil {
			return "", err
		}
		body, shown = n.Body, filePath(n.ID)
	default:
		return cfg.viewDir(prefix)
	}
	return numbered(shown, body, in.ViewRange)
}

// viewDir lists the files under the directory prefix ("" for Dir), up to
// two levels deep.
func (cfg Config) viewDir(prefix string) (string, error) {
	notes, err := cfg.Store.List(memory.ScopeProject)
	if err != nil {
		return "", err
	}
	slices.SortFunc(notes, func(a, b memory.Note) int { return strings.Compare(a.ID, b.ID) })
	dir := Dir
	if prefix != "" {
		dir += "/" + prefix
		prefix += "/"
	}
	type entry struct{ path, size string }
	var entries []entry
	dirs := map[string]bool{}
	for _, n := range notes {
		rel, ok := strings.CutPrefix(n.ID, prefix)
		if !ok {
			continue
		}
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts) && i <= 2; i++ {
			if d := strings.Join(parts[:i], "/"); !dirs[d] {
				dirs[d] = true
				entries = append(entries, entry{dir + "/" + d + "/", "-"})
			}
		}
		if len(parts) <= 2 {
			entries = append(entries, entry{dir + "/" + rel + ".md", size(len(n.Body))})
		}
	}
	if prefix != "" && len(entries) == 0 {
		return "", errFailure(fmt.Sprintf("%s does not exist; view %s lists the files", dir, Dir))
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	if prefix == "" {
		if idx, err := cfg.Store.Index(memory.ScopeProject); err == nil && idx != "" {
			entries = slices.Insert(entries, 0, entry{Dir + "/" + memory.IndexName + " (generated index, read-only)", size(len(idx))})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Here are the files and directories up to 2 levels deep in %s, excluding hidden items:", dir)
	if len(entries) == 0 {
		b.WriteString("\n(empty: create a file such as " + Dir + "/topic.md)")
	}
	for _, e := range entries {
		fmt.Fprintf(&b, "\n%s\t%s", e.size, e.path)
	}
	return b.String(), nil
}

// size formats a byte count as ls -h does.
func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%dB", n)
	}
	return fmt.Sprintf("%.1fK", float64(n)/1024)
}

// numbered returns body's lines numbered from 1, those in viewRange.
func numbered(p, body string, viewRange []int) (string, error) {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	start, end := 1, len(lines)
	if len(viewRange) > 0 {
		if len(viewRange) != 2 {
			return "", errFailure("view_range takes two numbers: the first and the last line")
		}
		start, end = viewRange[0], viewRange[1]
		if end == -1 {
			end = len(lines)
		}
		if start < 1 || start > len(lines) || end < start || end > len(lines) {
			return "", errFailure(fmt.Sprintf("view_range %v is outside the file's lines 1 to %d", viewRange, len(lines)))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Here's the content of %s with line numbers:", p)
	for i := start; i <= end; i++ {
		fmt.Fprintf(&b, "\n%6d\t%s", i, lines[i-1])
	}
	return b.String(), nil
}

func (cfg Config) create(c *tool.Call, in MemoryInput) (string, error) {
	id, err := noteID(in.Path)
	if err != nil {
		return "", err
	}
	body, tags := in.FileText, []string(nil)
	// A file given with frontmatter keeps its tags; the store writes the
	// rest of the frontmatter itself.
	if parsed, err := memory.ParseNote([]byte(body)); err == nil {
		body, tags = parsed.Body, parsed.Tags
	}
	existed := false
	if old, err := cfg.Store.Get(memory.ScopeProject, id); err == nil {
		existed = true
		if tags == nil {
			tags = old.Tags
		}
	}
	similar, err := cfg.put(c, cfg.note(c, memory.ScopeProject, id, body, tags))
	if err != nil {
		return "", err
	}
	if existed {
		return "File " + filePath(id) + " has been overwritten." + similar, nil
	}
	return "File created successfully at: " + filePath(id) + similar, nil
}

func (cfg Config) strReplace(c *tool.Call, in MemoryInput) (string, error) {
	n, err := cfg.get(in.Path)
	if err != nil {
		return "", err
	}
	if in.OldStr == "" {
		return "", errFailure("old_str is empty: give the text to replace, exactly as view shows it (without the line numbers)")
	}
	switch k := strings.Count(n.Body, in.OldStr); k {
	case 0:
		return "", errFailure(fmt.Sprintf("No replacement was performed: old_str did not appear verbatim in %s.", filePath(n.ID)))
	case 1:
	default:
		var at []string
		for i, line := range strings.Split(n.Body, "\n") {
			if strings.Contains(line, in.OldStr) {
				at = append(at, fmt.Sprint(i+1))
			}
		}
		return "", errFailure(fmt.Sprintf("No replacement was performed: old_str occurs %d times (lines %s); include more of the text around it so that it occurs once.",
			k, strings.Join(at, ", ")))
	}
	updated := *n
	updated.Body = strings.Replace(n.Body, in.OldStr, in.NewStr, 1)
	updated.Tainted = n.Tainted || cfg.tainted(c)
	updated.Source, updated.SourceSession = memory.SourceAgent, c.SessionID
	similar, err := cfg.put(c, updated)
	if err != nil {
		return "", err
	}
	return "The memory file has been edited." + similar, nil
}

func (cfg Config) insert(c *tool.Call, in MemoryInput) (string, error) {
	n, err := cfg.get(in.Path)
	if err != nil {
		return "", err
	}
	if in.InsertLine == nil {
		return "", errFailure("insert_line is required: the line after which the text goes, 0 for the top")
	}
	lines := strings.Split(strings.TrimSuffix(n.Body, "\n"), "\n")
	at := *in.InsertLine
	if at < 0 || at > len(lines) {
		return "", errFailure(fmt.Sprintf("insert_line %d is outside the file: use 0 to %d", at, len(lines)))
	}
	text := strings.Split(strings.TrimSuffix(in.InsertText, "\n"), "\n")
	lines = slices.Insert(lines, at, text...)
	updated := *n
	updated.Body = strings.Join(lines, "\n")
	updated.Tainted = n.Tainted || cfg.tainted(c)
	updated.Source, updated.SourceSession = memory.SourceAgent, c.SessionID
	similar, err := cfg.put(c, updated)
	if err != nil {
		return "", err
	}
	return "The file " + filePath(n.ID) + " has been edited." + similar, nil
}

func (cfg Config) delete(c *tool.Call, in MemoryInput) (string, error) {
	prefix, isIndex, err := resolve(in.Path)
	if err != nil {
		return "", err
	}
	if isIndex || prefix == "" {
		return "", errFailure(fmt.Sprintf("%s cannot be deleted; delete the notes in it one by one", in.Path))
	}
	var ids []string
	if strings.HasSuffix(prefix, ".md") {
		id, err := noteID(in.Path)
		if err != nil {
			return "", err
		}
		ids = []string{id}
	} else { // a directory: every note under it
		notes, err := cfg.Store.List(memory.ScopeProject)
		if err != nil {
			return "", err
		}
		for _, n := range notes {
			if strings.HasPrefix(n.ID, prefix+"/") {
				ids = append(ids, n.ID)
			}
		}
		if len(ids) == 0 {
			return "", errFailure(fmt.Sprintf("%s does not exist; view %s lists the files", in.Path, Dir))
		}
	}
	for _, id := range ids {
		err := cfg.Store.Delete(memory.ScopeProject, id)
		if errors.Is(err, memory.ErrNotFound) {
			return "", errFailure(fmt.Sprintf("%s does not exist; view %s lists the files", in.Path, Dir))
		}
		if err != nil {
			return "", errFailure(err.Error())
		}
		if err := cfg.journal(c, write{Op: "delete", Scope: memory.ScopeProject, ID: id}); err != nil {
			return "", err
		}
	}
	return "Successfully deleted " + in.Path, nil
}

func (cfg Config) rename(c *tool.Call, in MemoryInput) (string, error) {
	from, err := noteID(in.OldPath)
	if err != nil {
		return "", err
	}
	to, err := noteID(in.NewPath)
	if err != nil {
		return "", err
	}
	err = cfg.Store.Rename(memory.ScopeProject, from, to)
	if errors.Is(err, memory.ErrNotFound) {
		return "", errFailure(fmt.Sprintf("%s does not exist; view %s lists the files", in.OldPath, Dir))
	}
	if err != nil {
		return "", errFailure(err.Error())
	}
	if err := cfg.journal(c, write{Op: "rename", Scope: memory.ScopeProject, ID: from, To: to}); err != nil {
		return "", err
	}
	return fmt.Sprintf("Successfully renamed %s to %s", filePath(from), filePath(to)), nil
}
