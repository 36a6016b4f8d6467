package trust

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The kinds of [Item], in the order a listing shows them.
const (
	// KindHook is a command run on an agent event (a PreToolUse hook).
	KindHook = "hook"
	// KindAllow is a permission rule that lets calls run without asking.
	KindAllow = "allow rule"
	// KindMode is a permission mode more permissive than the default.
	KindMode = "mode"
	// KindEndpoint is a URL the model's requests, and the key, go to.
	KindEndpoint = "endpoint"
	// KindProvider is a provider or model entry of the catalogue.
	KindProvider = "provider"
	// KindModel is the model a run uses, or a setting that picks one.
	KindModel = "model"
	// KindSetting is any other setting that needs trust.
	KindSetting = "setting"
	// KindServer is an MCP server, started as a command or reached at a URL.
	KindServer = "MCP server"
	// KindTool is a declared tool, which runs a command.
	KindTool = "tool"
	// KindGrant is a skill's allowed-tools, which pre-approve calls.
	KindGrant = "skill grant"
	// KindAgent is an agent definition's setting that needs trust.
	KindAgent = "agent"
	// KindGitHook is a git hook that a commit would run.
	KindGitHook = "git hook"
)

var kindOrder = []string{KindHook, KindAllow, KindMode, KindEndpoint, KindProvider, KindModel, KindSetting,
	KindServer, KindTool, KindGrant, KindAgent, KindGitHook}

// An Item is one thing a folder's configuration would enable.
type Item struct {
	// Kind is one of the Kind constants (another string sorts last).
	Kind string `json:"kind"`
	// Source is the file the item comes from, relative to the folder,
	// with forward slashes.
	Source string `json:"source"`
	// Name tells items of one kind and file apart: a hook's event and
	// index, a server's name, a rule's text.
	Name string `json:"name,omitempty"`
	// Text is what the user reads: the command, URL or rule. It never
	// holds a secret's value.
	Text string `json:"text"`
	// Value is the whole element the item stands for, as JSON (a hook
	// with its matcher and timeout, a server with its arguments and
	// environment). It is what [Manifest.Hash] pins, so a change the
	// Text does not show still asks again. A secret in it must be
	// replaced by its hash: the trust file is not a secret store.
	Value json.RawMessage `json:"value,omitempty"`
}

// String returns the item as a listing shows it: "hook PreToolUse: touch
// pwned".
func (it Item) String() string {
	return it.Kind + " " + it.Text
}

func (it Item) key() string {
	return it.Kind + "\x00" + it.Source + "\x00" + it.Name + "\x00" + string(canonical(it.Value))
}

// A Manifest is what the configuration of the folder Root would enable.
// Root is the folder's real path ([filepath.EvalSymlinks]), so that a link
// to a folder is the folder.
type Manifest struct {
	Root  string `json:"root"`
	Items []Item `json:"items"`
}

// Sorted returns the items in listing order: by kind, then file, then
// name. The manifest's own slice is left as it is.
func (m Manifest) Sorted() []Item {
	items := slices.Clone(m.Items)
	slices.SortStableFunc(items, compareItems)
	return items
}

func compareItems(a, b Item) int {
	ka, kb := slices.Index(kindOrder, a.Kind), slices.Index(kindOrder, b.Kind)
	if ka < 0 {
		ka = len(kindOrder)
	}
	if kb < 0 {
		kb = len(kindOrder)
	}
	return cmp.Or(cmp.Compare(ka, kb), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Source, b.Source),
		cmp.Compare(a.Name, b.Name), cmp.Compare(a.Text, b.Text))
}

// Hash returns the SHA-256 of the manifest's items, in hex: their kinds,
// sources, names and values, in any order. Text is not part of it, so a
// new wording of a listing does not ask again; Root is not either (the
// store keys records by it).
func (m Manifest) Hash() string {
	keys := make([]string, len(m.Items))
	for i, it := range m.Items {
		keys[i] = it.key()
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%d:%s\n", len(k), k)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Summary returns what the manifest enables in a few words, counted by kind
// and file, for one line: ".wield/settings.json (1 hook, 2 allow rules),
// .mcp.json (1 MCP server)".
func (m Manifest) Summary() string {
	type count struct {
		source string
		kinds  []string
		n      map[string]int
	}
	var files []*count
	for _, it := range m.Sorted() {
		i := slices.IndexFunc(files, func(c *count) bool { return c.source == it.Source })
		if i < 0 {
			files = append(files, &count{source: it.Source, n: map[string]int{}})
			i = len(files) - 1
		}
		c := files[i]
		if c.n[it.Kind] == 0 {
			c.kinds = append(c.kinds, it.Kind)
		}
		c.n[it.Kind]++
	}
	slices.SortFunc(files, func(a, b *count) int { return cmp.Compare(a.source, b.source) })
	var parts []string
	for _, c := range files {
		var ks []string
		for _, k := range c.kinds {
			ks = append(ks, plural(c.n[k], k))
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", c.source, strings.Join(ks, ", ")))
	}
	return strings.Join(parts, ", ")
}

// plural returns "1 hook" or "2 hooks"; a kind that ends in a capital
// letter's word ("MCP server") takes an s all the same.
func plural(n int, kind string) string {
	if n == 1 {
		return "1 " + kind
	}
	return fmt.Sprintf("%d %ss", n, kind)
}

// Diff returns the items of now that old lacks (added) and those of old
// that now lacks (removed), each in listing order. An item whose value
// changed is in both.
func Diff(old, now []Item) (added, removed []Item) {
	in := func(items []Item, it Item) bool {
		return slices.ContainsFunc(items, func(x Item) bool { return x.key() == it.key() })
	}
	for _, it := range now {
		if !in(old, it) {
			added = append(added, it)
		}
	}
	for _, it := range old {
		if !in(now, it) {
			removed = append(removed, it)
		}
	}
	slices.SortStableFunc(added, compareItems)
	slices.SortStableFunc(removed, compareItems)
	return added, removed
}

// Value returns v as an item's value: JSON with object keys sorted and no
// spacing. A v that cannot be encoded gives its %v text as a JSON string,
// still pinned.
func Value(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(fmt.Sprint(v))
	}
	return canonical(data)
}

// SecretValue returns what an item's value holds of a secret: its SHA-256,
// so that a changed secret asks again while the trust file never holds it.
func SecretValue(secret string) json.RawMessage {
	sum := sha256.Sum256([]byte(secret))
	return Value("sha256:" + hex.EncodeToString(sum[:]))
}

// canonical returns raw JSON re-encoded with object keys sorted, so that
// two spellings of one value hash alike; raw that is not JSON is returned
// as it is.
func canonical(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// RealPath returns dir's absolute path with every symbolic link resolved:
// the key a folder is trusted by.
func RealPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return real, nil
}
