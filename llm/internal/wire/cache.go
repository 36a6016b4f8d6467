package wire

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"sync"

	"github.com/wieldhq/wield/llm"
)

// DefaultCacheBytes bounds an [EncodeCache] whose Max is zero.
const DefaultCacheBytes = 64 << 20

// An EncodeCache keeps the wire encoding of the messages a conversation
// sends again with every request. A conversation only grows, so a round
// encodes its new messages and copies the bytes of the others: the cost
// of building a request no longer grows with the encoder's work on the
// whole history, only with a copy of it.
//
// Entries are keyed by a 128-bit hash of everything the encoding depends
// on (two [maphash] hashes with seeds of the process's own, which no input
// can aim at). When the cached bytes pass Max, the cache starts empty
// again. It is safe for concurrent use; the zero value is ready.
type EncodeCache struct {
	// Max bounds the bytes kept; zero means [DefaultCacheBytes].
	Max int

	once    sync.Once
	seeds   [2]maphash.Seed
	mu      sync.Mutex
	entries map[[2]uint64][]byte
	size    int
}

// A CacheKey is the hash of what one encoding depends on. Write every
// input of the encoding to it, each field once and in a fixed order. A
// key is prepared by [EncodeCache.Reset] and can be reused after another
// Reset.
type CacheKey struct {
	h [2]maphash.Hash
}

// Reset prepares k for the inputs of a new encoding.
func (c *EncodeCache) Reset(k *CacheKey) {
	c.once.Do(func() { c.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()} })
	k.h[0].SetSeed(c.seeds[0])
	k.h[1].SetSeed(c.seeds[1])
}

// String adds s, with its length, so that fields cannot run into each
// other.
func (k *CacheKey) String(s string) {
	k.Int(len(s))
	k.h[0].WriteString(s)
	k.h[1].WriteString(s)
}

// Bytes adds b, with its length.
func (k *CacheKey) Bytes(b []byte) {
	k.Int(len(b))
	k.h[0].Write(b)
	k.h[1].Write(b)
}

// Int adds n.
func (k *CacheKey) Int(n int) {
	var b [8]byte
	u := uint64(n)
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	k.h[0].Write(b[:])
	k.h[1].Write(b[:])
}

func (k *CacheKey) sum() [2]uint64 { return [2]uint64{k.h[0].Sum64(), k.h[1].Sum64()} }

// Get returns the bytes cached for k. They must not be changed.
func (c *EncodeCache) Get(k *CacheKey) ([]byte, bool) {
	sum := k.sum()
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.entries[sum]
	return b, ok
}

// Put keeps b as the encoding for k. The cache owns b from then on.
func (c *EncodeCache) Put(k *CacheKey, b []byte) {
	sum := k.sum()
	max := c.Max
	if max <= 0 {
		max = DefaultCacheBytes
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || c.size+len(b) > max {
		c.entries = make(map[[2]uint64][]byte)
		c.size = 0
	}
	if len(b) <= max {
		c.entries[sum] = b
		c.size += len(b)
	}
}

// Encoded returns the bytes cached for k, or calls encode, keeps what it
// returns and returns that. An error is returned and nothing kept. The
// bytes returned must not be changed.
func (c *EncodeCache) Encoded(k *CacheKey, encode func() ([]byte, error)) ([]byte, error) {
	if b, ok := c.Get(k); ok {
		return b, nil
	}
	b, err := encode()
	if err != nil {
		return nil, err
	}
	c.Put(k, b)
	return b, nil
}

// Len returns how many encodings the cache holds.
func (c *EncodeCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// ToolsKey writes a request's tool list to k, for a cached encoding of
// it: each tool's wire name, name, description and schema, in order. It
// gives every tool its wire name in names, as a request must whether the
// encoding is cached or not, and returns the wire names.
func ToolsKey(k *CacheKey, tools []llm.ToolDef, names *Names) ([]string, error) {
	wires := make([]string, len(tools))
	k.Int(len(tools))
	for i, t := range tools {
		w, err := names.Wire(t.Name)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		wires[i] = w
		k.String(w)
		k.String(t.Name)
		k.String(t.Description)
		k.Bytes(t.InputSchema)
	}
	return wires, nil
}

// Assemble returns a request body made of cached pieces: the JSON object
// envelope with the field list first, holding parts as an array (null
// when parts is nil, as json.Marshal writes a nil slice), then "tools"
// holding tools unless tools is nil, then envelope's own fields.
func Assemble(list string, parts [][]byte, tools, envelope []byte) ([]byte, error) {
	b, err := AssembleBody(list, parts, tools, envelope)
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// A Body is a request body made of pieces, read in turn rather than
// joined: a request that resends a long conversation then costs no copy
// of it before the one into the connection.
type Body struct {
	head  []byte   // up to the first part
	parts [][]byte // joined by commas
	tail  []byte   // after the last part
}

// AssembleBody is [Assemble] without joining the parts. The body holds
// parts, which must not change while it is read.
func AssembleBody(list string, parts [][]byte, tools, envelope []byte) (*Body, error) {
	if len(envelope) < 2 || envelope[0] != '{' {
		return nil, fmt.Errorf("encode request: unexpected envelope %.40q", envelope)
	}
	b := &Body{head: []byte(`{"` + list + `":`), parts: parts}
	tail := make([]byte, 0, len(tools)+len(envelope)+16)
	if parts == nil {
		b.head = append(b.head, "null"...)
	} else {
		b.head = append(b.head, '[')
		tail = append(tail, ']')
	}
	if tools != nil {
		tail = append(tail, `,"tools":`...)
		tail = append(tail, tools...)
	}
	if rest := bytes.TrimSpace(envelope[1:]); len(rest) > 0 && rest[0] != '}' {
		tail = append(tail, ',')
	}
	b.tail = append(tail, envelope[1:]...)
	return b, nil
}

var comma = []byte(",")

// pieces returns how many pieces the body is read in.
func (b *Body) pieces() int { return 2 + max(0, 2*len(b.parts)-1) }

// piece returns piece j of the body.
func (b *Body) piece(j int) []byte {
	switch k := j - 1; {
	case j == 0:
		return b.head
	case j == b.pieces()-1:
		return b.tail
	case k%2 == 1:
		return comma
	default:
		return b.parts[k/2]
	}
}

// Len returns the body's length in bytes.
func (b *Body) Len() int {
	n := len(b.head) + len(b.tail) + max(0, len(b.parts)-1)
	for _, p := range b.parts {
		n += len(p)
	}
	return n
}

// Bytes returns the body joined.
func (b *Body) Bytes() []byte {
	out := make([]byte, 0, b.Len())
	for j := range b.pieces() {
		out = append(out, b.piece(j)...)
	}
	return out
}

// Reader returns a reader of the body from its start.
func (b *Body) Reader() io.Reader { return &bodyReader{b: b} }

type bodyReader struct {
	b      *Body
	j, off int // the piece read and the offset in it
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n, pieces := 0, r.b.pieces()
	for n < len(p) && r.j < pieces {
		piece := r.b.piece(r.j)
		c := copy(p[n:], piece[r.off:])
		n += c
		r.off += c
		if r.off == len(piece) {
			r.j, r.off = r.j+1, 0
		}
	}
	if n == 0 && r.j == pieces {
		return 0, io.EOF
	}
	return n, nil
}

// WriteTo writes the rest of the body to w.
func (r *bodyReader) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for pieces := r.b.pieces(); r.j < pieces; r.j, r.off = r.j+1, 0 {
		c, err := w.Write(r.b.piece(r.j)[r.off:])
		n += int64(c)
		r.off += c
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// MessageKey writes one message to k, for a cached encoding of it: every
// field a provider's encoding can depend on (a field one provider leaves
// out only makes two equal encodings two entries), the calls under their
// wire names, which it gives them in names.
func MessageKey(k *CacheKey, m llm.Message, names *Names) error {
	k.String(string(m.Role))
	k.String(m.Content)
	k.String(m.ToolCallID)
	k.String(m.ToolName)
	k.Int(len(m.Thinking))
	for _, t := range m.Thinking {
		k.String(t.Provider)
		k.String(t.ID)
		k.String(t.Text)
		k.String(t.Signature)
		k.String(t.Redacted)
	}
	k.Int(len(m.ToolCalls))
	for _, c := range m.ToolCalls {
		w, err := names.Wire(c.Name)
		if err != nil {
			return err
		}
		k.String(c.ID)
		k.String(w)
		k.Bytes(c.Arguments)
		k.String(c.Signature)
	}
	k.Int(len(m.Images))
	for _, img := range m.Images {
		k.String(img.MIMEType)
		k.Int(img.Width)
		k.Int(img.Height)
		k.Bytes(img.Data)
	}
	return nil
}
