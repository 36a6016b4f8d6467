package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
)

// MaxNameLength is the longest tool name providers accept.
const MaxNameLength = 64

// Names maps tool names to names a provider accepts, and back. Providers
// allow only [A-Za-z0-9_-] and at most [MaxNameLength] characters: a name
// like "math.factorial" becomes "math_factorial". A Names is safe for
// concurrent use; its zero value is ready to use.
type Names struct {
	mu       sync.Mutex
	toWire   map[string]string
	fromWire map[string]string
}

// Add returns the provider-legal form of name and remembers the mapping.
// Two different names that would reach the provider as the same name are
// an error naming both: the mapping never depends on the order of Add calls.
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
// replaced by '_'. A result longer than [MaxNameLength] is cut and ends in
// '_' and eight hex digits of the SHA-256 of the original name, so that
// distinct long names stay distinct.
func SanitizeName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	if len(b) > MaxNameLength {
		sum := sha256.Sum256([]byte(name))
		b = append(b[:MaxNameLength-9], '_')
		b = append(b, hex.EncodeToString(sum[:4])...)
	}
	return string(b)
}
