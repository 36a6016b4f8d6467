package wire

import (
	"fmt"

	"github.com/wieldhq/wield/llm"
)

// A Turn is a run of consecutive messages, msgs[Lo:Hi], that a provider
// sends as one message of its API: one message, or a run of tool results
// sent together. Flag is one more bit its encoding depends on (Anthropic's
// prompt-cache breakpoint).
type Turn struct {
	Lo, Hi int
	Flag   bool
}

// Turns returns the encodings of turns of msgs, in order. A turn whose
// messages the conversation's last request sent at the same positions, as
// the same turn, is found again through r by comparing them (see
// [Recent]); encode encodes the others (turn k of turns). The messages
// between turns, which are sent in none, are kept too, so that the next
// round finds its turns at their positions.
//
// Besides its messages, a turn's encoding depends on their number, on its
// Flag and, for a run of tool results, on the calls of the last assistant
// message before it, which order and name the results: that message must
// be the one found again at the same position. Errors name provider and
// the messages.
func Turns(r *Recent, msgs []llm.Message, turns []Turn, names *Names, provider string, encode func(k int) ([]byte, error)) ([][]byte, error) {
	parts := make([][]byte, len(turns))
	recent := r.Take(msgs)
	settled := 0 // the messages whose encodings are set
	defer func() { recent.Done(settled) }()
	from, fromFound := -1, false // the last assistant message so far, and whether it was found
	// look looks message i up, keeping it when it is not found; the
	// encoding kept is set afterwards.
	look := func(i int) ([]byte, bool, error) {
		b, ok, err := recent.Lookup(i, msgs[i], names)
		if err != nil {
			return nil, false, fmt.Errorf("%s: message %d: %w", provider, i+1, err)
		}
		if !ok {
			recent.Keep(i, msgs[i], nil)
		}
		if msgs[i].Role == llm.RoleAssistant {
			from, fromFound = i, ok
		}
		return b, ok, nil
	}
	skipTo := func(end int) error {
		for ; settled < end; settled++ {
			if _, _, err := look(settled); err != nil {
				return err
			}
			recent.SetEncoding(settled, nil, 0)
		}
		return nil
	}
	for k, t := range turns {
		if err := skipTo(t.Lo); err != nil {
			return nil, err
		}
		callsAt, callsFound := -1, true
		if msgs[t.Lo].Role == llm.RoleTool {
			callsAt, callsFound = from, fromFound || from < 0
		}
		context := uint64(t.Hi-t.Lo)<<33 | uint64(callsAt+1)<<1
		if t.Flag {
			context |= 1
		}
		var b []byte
		found := callsFound
		for i := t.Lo; i < t.Hi; i++ {
			enc, ok, err := look(i)
			if err != nil {
				return nil, err
			}
			if i == t.Lo {
				b = enc
			}
			found = found && ok
		}
		if !found || b == nil || recent.Context(t.Lo) != context {
			var err error
			if b, err = encode(k); err != nil {
				if t.Hi-t.Lo > 1 {
					return nil, fmt.Errorf("%s: messages %d to %d: %w", provider, t.Lo+1, t.Hi, err)
				}
				return nil, fmt.Errorf("%s: message %d: %w", provider, t.Lo+1, err)
			}
		}
		parts[k] = b
		recent.SetEncoding(t.Lo, b, context)
		for i := t.Lo + 1; i < t.Hi; i++ {
			recent.SetEncoding(i, nil, 0)
		}
		settled = t.Hi
	}
	if err := skipTo(len(msgs)); err != nil {
		return nil, err
	}
	return parts, nil
}

// LastCalls returns the calls of the last assistant message of msgs: the
// calls a run of tool results that follows msgs answers.
func LastCalls(msgs []llm.Message) []llm.ToolCall {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			return msgs[i].ToolCalls
		}
	}
	return nil
}
