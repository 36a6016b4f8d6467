package tool

import (
	"encoding/json"
	"fmt"
	"strings"
)

// An Effect is a set of the kinds of thing a tool's calls may do to the
// world outside the call: read, write files, change other state, run
// commands, reach the network, ask a person. It is a fact about the tool, declared on its
// [Spec], that other packages read instead of keeping lists of tool names:
// a session ledger records the files written by the tools whose effect
// has [EffectWrite], a policy knows which tools run commands.
//
// The zero Effect means unknown: the tool declared nothing (a declared or
// mounted tool, or a tool written before effects). Code that decides by
// effects must treat unknown as "may do anything" where that matters, as
// [Effect.ReadOnly] does.
type Effect uint8

// The kinds of effect. A tool that only looks has [EffectRead] alone.
const (
	// EffectRead: the tool reads the workspace or other state and changes
	// nothing. A tool whose calls touch nothing outside themselves (echo)
	// declares it too.
	EffectRead Effect = 1 << iota
	// EffectWrite: the tool creates, changes or removes the workspace's
	// files at paths it is given; the first of [Spec.KeyArgs] names the
	// file (write_file, replace).
	EffectWrite
	// EffectState: the tool changes state other than files at a path it
	// is given: a session, a memory store, a repository's index, history
	// or branch, a process, a remote service.
	EffectState
	// EffectRun: the tool runs commands or code; the first of
	// [Spec.KeyArgs], if any, is the command line (run_shell_command).
	EffectRun
	// EffectNetwork: the tool reaches the network.
	EffectNetwork
	// EffectAsk: the tool asks a person and waits for the answer.
	EffectAsk

	effectAll = EffectRead | EffectWrite | EffectState | EffectRun | EffectNetwork | EffectAsk
)

// kindName returns the name of one kind: the words of [Effect.String]
// and of the JSON form.
func kindName(k Effect) string {
	switch k {
	case EffectRead:
		return "read"
	case EffectWrite:
		return "write"
	case EffectState:
		return "state"
	case EffectRun:
		return "run"
	case EffectNetwork:
		return "network"
	case EffectAsk:
		return "ask"
	}
	return ""
}

// kindList lists the kinds' names, for error messages.
const kindList = "read, write, state, run, network, ask"

// Has reports whether e includes every kind in k. Nothing has the kinds
// of an unknown effect, and every effect has the empty set.
func (e Effect) Has(k Effect) bool { return e&k == k }

// Known reports whether the tool declared its effect.
func (e Effect) Known() bool { return e != 0 }

// ReadOnly reports whether the effect is known and is reading alone. An
// unknown effect is not read-only.
func (e Effect) ReadOnly() bool { return e == EffectRead }

// String returns the kinds in e joined by '|' ("read|network"), or
// "unknown" for the zero Effect.
func (e Effect) String() string {
	if e == 0 {
		return "unknown"
	}
	var names []string
	for k := EffectRead; k <= EffectAsk; k <<= 1 {
		if e&k != 0 {
			names = append(names, kindName(k))
		}
	}
	if rest := e &^ effectAll; rest != 0 {
		names = append(names, fmt.Sprintf("0x%x", uint8(rest)))
	}
	return strings.Join(names, "|")
}

// ParseEffect returns the effect named by s: kinds joined by '|', as
// [Effect.String] writes them. "unknown" and "" are the zero Effect.
func ParseEffect(s string) (Effect, error) {
	if s == "" || s == "unknown" {
		return 0, nil
	}
	var e Effect
	for w := range strings.SplitSeq(s, "|") {
		k, err := effectKind(strings.TrimSpace(w))
		if err != nil {
			return 0, err
		}
		e |= k
	}
	return e, nil
}

func effectKind(name string) (Effect, error) {
	for k := EffectRead; k <= EffectAsk; k <<= 1 {
		if kindName(k) == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown effect %q (want %s)", name, kindList)
}

// MarshalJSON writes e as a list of its kinds, ["read","network"]; the
// zero Effect is null.
func (e Effect) MarshalJSON() ([]byte, error) {
	if e == 0 {
		return []byte("null"), nil
	}
	if e&^effectAll != 0 {
		return nil, fmt.Errorf("effect %s: unknown kinds", e)
	}
	return json.Marshal(strings.Split(e.String(), "|"))
}

// UnmarshalJSON reads a list of kinds, as [Effect.MarshalJSON] writes it.
// null and [] are the zero Effect; an unknown kind is an error.
func (e *Effect) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return fmt.Errorf("effect: want a list of %s: %w", kindList, err)
	}
	var out Effect
	for _, n := range names {
		k, err := effectKind(n)
		if err != nil {
			return err
		}
		out |= k
	}
	*e = out
	return nil
}
