package anthropictest

import (
	"crypto/sha256"
	"encoding/json"

	"github.com/wieldhq/wield/llm"
)

// cache simulates the API's prompt cache; see the package documentation.
// The server's mutex guards it.
type cache struct {
	// prefixes holds the hash of every prefix that ended at a breakpoint.
	prefixes map[[32]byte]bool
}

// A part is one cacheable piece of a request, in cache order.
type part struct {
	data       []byte // its JSON without cache_control, which is what is counted
	key        string // what else makes it what it is: its kind, its role
	breakpoint bool
}

// tokens counts n bytes as the simulation does: ceil(n/4).
func tokens(n int) int { return (n + 3) / 4 }

// parts returns the parts of req: tools, system blocks, then every
// message's blocks.
func parts(req *Request) []part {
	var out []part
	for _, t := range req.Tools {
		bp := t.CacheControl != nil
		t.CacheControl = nil
		data, _ := json.Marshal(t)
		out = append(out, part{data: data, key: "tool", breakpoint: bp})
	}
	for _, b := range req.System {
		out = append(out, blockPart("system", b))
	}
	for _, m := range req.Messages {
		for i, b := range m.Content {
			key := m.Role
			if i == 0 {
				key += " message"
			}
			out = append(out, blockPart(key, b))
		}
	}
	return out
}

func blockPart(key string, b Block) part {
	bp := b.CacheControl != nil
	b.CacheControl = nil
	data, _ := json.Marshal(b)
	return part{data: data, key: key, breakpoint: bp}
}

// use counts the input tokens of req, what it reads from and writes to the
// cache, and remembers its breakpoints.
func (c *cache) use(req *Request) llm.Usage {
	if c.prefixes == nil {
		c.prefixes = map[[32]byte]bool{}
	}
	h := sha256.Sum256([]byte(req.Model)) // each model has its own cache
	var total, read, written int
	var marks [][32]byte
	for _, p := range parts(req) {
		buf := append(h[:], p.key...)
		buf = append(buf, 0)
		h = sha256.Sum256(append(buf, p.data...))
		total += tokens(len(p.data))
		if c.prefixes[h] {
			read = total // the longest remembered prefix so far
		}
		if p.breakpoint {
			marks = append(marks, h)
			written = total // up to the last breakpoint, less what is read
		}
	}
	for _, m := range marks {
		c.prefixes[m] = true
	}
	return llm.Usage{InputTokens: total, CachedTokens: read, CacheWriteTokens: max(0, written-read)}
}
