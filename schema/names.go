package schema

import (
	"fmt"
	"sync"
)

// Names maps tool names to names a provider accepts, and back. Providers
// allow only [A-Za-z0-9_-] and at most 64 characters; a name like
// "math.factorial" becomes "math_factorial". A Names is safe for concurrent
// use. Its zero value is ready to use.
type Names struct {
	mu       sync.Mutex
	toWire   map[string]string
	fromWire map[string]string
}

// Add returns the provider-legal form of name and remembers the mapping.
// It returns an error when two different names would map to the same
// provider name.
func (n *Names) Add(name string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if w, ok := n.toWire[name]; ok {
		return w, nil
	}
	w := SanitizeName(name)
	if other, ok := n.fromWire[w]; ok && other != name {
		return "", fmt.Errorf("tool names %q and %q both become %q for the provider; rename one", other, name, w)
	}
	if n.toWire == nil {
		n.toWire, n.fromWire = map[string]string{}, map[string]string{}
	}
	n.toWire[name], n.fromWire[w] = w, name
	return w, nil
}

// Original returns the tool name that was sent to the provider as wire.
// It reports false if wire was never returned by [Names.Add].
func (n *Names) Original(wire string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	name, ok := n.fromWire[wire]
	return name, ok
}

// SanitizeName returns name with every character outside [A-Za-z0-9_-]
// replaced by '_', cut to 64 characters.
func SanitizeName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}
