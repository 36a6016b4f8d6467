package wire

import (
	"bytes"
	"slices"
	"sync"

	"github.com/wieldhq/wield/llm"
)

// Recent remembers the encoding of each message of a provider's last
// requests by its position. A conversation resends its whole history every
// round, so the next request finds each earlier message by comparing it
// with the message kept at its position (for the strings a caller passes
// again, a comparison of pointers) instead of hashing it into a
// [CacheKey]: a round then costs a comparison per old message, not a hash
// of each.
//
// It keeps the messages of the last few conversations (see [RecentSize]),
// so that the runs that share a provider, such as subagents, do not take
// each other's. A request takes the memory of its conversation with
// [Recent.Take] while it builds and gives it back with
// [RecentMessages.Done]. The zero value is ready; it is safe for
// concurrent use.
type Recent struct {
	mu   sync.Mutex
	kept []*RecentMessages // most recently given back first
}

// RecentSize is how many conversations a [Recent] keeps the messages of.
const RecentSize = 8

// RecentMessages is the memory of one request's messages, taken from a
// [Recent] by one request at a time.
type RecentMessages struct {
	from  *Recent
	msgs  []recentMessage
	wires []string // scratch: the wire names of the message looked up
}

// recentMessage is one message as it was sent: its own copy of every
// slice the encoding reads (a caller may change its slices in place), the
// wire names of its calls, and its encoding with the context it was made
// in (see [RecentMessages.SetEncoding]).
type recentMessage struct {
	msg     llm.Message
	wires   []string
	enc     []byte
	context uint64
}

// Take returns the memory of the conversation msgs continues: the one
// whose first message and last message kept are those of msgs at their
// positions, or else the least recently used, or an empty one.
func (r *Recent) Take(msgs []llm.Message) *RecentMessages {
	r.mu.Lock()
	defer r.mu.Unlock()
	pick := -1
	for i, t := range r.kept {
		if t.continues(msgs) {
			pick = i
			break
		}
	}
	if pick < 0 && len(r.kept) >= RecentSize {
		pick = len(r.kept) - 1
	}
	t := &RecentMessages{}
	if pick >= 0 {
		t = r.kept[pick]
		r.kept = slices.Delete(r.kept, pick, pick+1)
	}
	t.from = r
	return t
}

// continues reports whether msgs starts as the messages kept did, judged
// by the first and the last kept.
func (t *RecentMessages) continues(msgs []llm.Message) bool {
	n := min(len(t.msgs), len(msgs))
	if n == 0 {
		return false
	}
	for _, i := range [2]int{0, n - 1} {
		if len(msgs[i].Images) > 0 || !sameMessage(&t.msgs[i].msg, &msgs[i]) {
			return false
		}
	}
	return true
}

// Done keeps the first n messages, those of the request just built, for
// the next request, and gives the memory back to the Recent it came from.
// t must not be used afterwards.
func (t *RecentMessages) Done(n int) {
	if n < len(t.msgs) {
		clear(t.msgs[n:])
		t.msgs = t.msgs[:n]
	}
	r := t.from
	t.from = nil
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kept = slices.Insert(r.kept, 0, t)
	if len(r.kept) > RecentSize {
		clear(r.kept[RecentSize:])
		r.kept = r.kept[:RecentSize]
	}
}

// Lookup returns the encoding kept for message i when the message kept
// there is m: the same in every field [MessageKey] reads, its calls
// under the same wire names. As MessageKey does, it gives m's calls their
// wire names in names. A message with images is never kept (their bytes
// would have to be copied and compared), nor found.
func (t *RecentMessages) Lookup(i int, m llm.Message, names *Names) ([]byte, bool, error) {
	t.wires = t.wires[:0]
	for _, c := range m.ToolCalls {
		w, err := names.Wire(c.Name)
		if err != nil {
			return nil, false, err
		}
		t.wires = append(t.wires, w)
	}
	if i >= len(t.msgs) || len(m.Images) > 0 {
		return nil, false, nil
	}
	k := &t.msgs[i]
	if !sameMessage(&k.msg, &m) || !slices.Equal(k.wires, t.wires) {
		return nil, false, nil
	}
	return k.enc, true, nil
}

// Keep remembers enc as the encoding of message i, m, whose calls have
// the wire names the last [RecentMessages.Lookup] of m gave. Messages are
// kept in order: i is at most the number kept.
func (t *RecentMessages) Keep(i int, m llm.Message, enc []byte) {
	if i > len(t.msgs) {
		return
	}
	k := recentMessage{enc: enc}
	if len(m.Images) == 0 {
		k.msg = llm.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName,
			Thinking: slices.Clone(m.Thinking)}
		if len(m.ToolCalls) > 0 {
			k.msg.ToolCalls = make([]llm.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Arguments = bytes.Clone(c.Arguments)
				k.msg.ToolCalls[j] = c
			}
			k.wires = slices.Clone(t.wires)
		}
	} else {
		// A placeholder no message with images matches.
		k.msg = llm.Message{Images: []llm.Image{{}}}
	}
	if i == len(t.msgs) {
		t.msgs = append(t.msgs, k)
	} else {
		t.msgs[i] = k
	}
}

// SetEncoding replaces the encoding kept for message i, which this
// request found ([RecentMessages.Lookup]) or kept ([RecentMessages.Keep]),
// by enc, made in context: a number that stands for whatever besides
// message i itself the encoding depends on. Keep sets the context to zero.
//
// It serves an encoding of more than one message, such as a run of tool
// results sent as one: kept at the run's first message, with the run's
// length (and what else it depends on) in the context, and nil at the
// others, it is good for a later request that finds every message of the
// run again and asks for the same context ([RecentMessages.Context]).
// A request that uses it so must set the encoding of every message it
// sends, and give back with [RecentMessages.Done] only the messages whose
// encodings it has set.
func (t *RecentMessages) SetEncoding(i int, enc []byte, context uint64) {
	if i < len(t.msgs) {
		t.msgs[i].enc, t.msgs[i].context = enc, context
	}
}

// Context returns the context of the encoding kept for message i (see
// [RecentMessages.SetEncoding]): zero when none was set or nothing is
// kept at i.
func (t *RecentMessages) Context(i int) uint64 {
	if i < len(t.msgs) {
		return t.msgs[i].context
	}
	return 0
}

// sameMessage reports whether kept and m agree in every field
// [MessageKey] reads but the wire names of the calls. Neither may carry
// images.
func sameMessage(kept, m *llm.Message) bool {
	if kept.Role != m.Role || kept.Content != m.Content || kept.ToolCallID != m.ToolCallID || kept.ToolName != m.ToolName ||
		len(kept.Thinking) != len(m.Thinking) || len(kept.ToolCalls) != len(m.ToolCalls) || len(kept.Images) != 0 || len(m.Images) != 0 {
		return false
	}
	for j := range m.Thinking {
		if kept.Thinking[j] != m.Thinking[j] {
			return false
		}
	}
	for j := range m.ToolCalls {
		a, b := &kept.ToolCalls[j], &m.ToolCalls[j]
		if a.ID != b.ID || a.Name != b.Name || a.Signature != b.Signature || !bytes.Equal(a.Arguments, b.Arguments) {
			return false
		}
	}
	return true
}
