// Package planmode keeps the mode a session is in and the plan that goes
// with it, as records in the session's journal ([session.Record]): the
// plan tools (package tools/plan) and a host's commands set it, the
// policy reads it on every call through the host, and the agent pins the
// plan in every prompt. It survives resume: the latest record holds.
package planmode

import (
	"fmt"

	"github.com/wieldhq/wield/session"
)

// Kind is the kind of the records ([session.Record.Kind]).
const Kind = "mode"

// The modes the plan tools record.
const (
	// Plan: only what changes nothing runs, and the plan is written.
	Plan = "plan"
	// Default: the session left plan mode; the run's own mode applies.
	Default = "default"
)

// A Setting is the mode a session was put in, with its plan.
type Setting struct {
	// Mode is a permission mode such as Plan or Default; empty means none
	// was set, and the run's own mode applies.
	Mode string `json:"mode,omitempty"`
	// Plan is the workspace path of the plan proposed or approved with
	// the change; empty when none.
	Plan string `json:"plan,omitempty"`
}

// Set records that session s is now in mode, with plan the workspace
// path of the plan proposed or approved with the change ("" for none).
func Set(s *session.Session, mode, plan string) error {
	if mode == "" {
		return fmt.Errorf("session %s: planmode.Set needs a mode", s.ID())
	}
	_, err := s.Append(Kind, Setting{Mode: mode, Plan: plan})
	return err
}

// Of returns the setting last recorded in src, a session or its state;
// the zero Setting when none was, or when the latest record does not
// read as one.
func Of(src session.RecordSource) Setting {
	r, ok := src.Latest(Kind)
	if !ok {
		return Setting{}
	}
	var s Setting
	if r.Decode(&s) != nil {
		return Setting{}
	}
	return s
}
