//go:build !temporal

package main

import (
	"context"
	"errors"

	"github.com/wieldhq/wield/tool"
)

// The commands of durable.go in a wield built without -tags temporal:
// each says how to get the build that has them.

func (g *globals) runWorker(context.Context, *runFlags, *durableFlags) error {
	return &exitError{exitUsage, errors.New(temporalBuildHelp)}
}

func (g *globals) runDurable(context.Context, *runFlags, *durableFlags, string) error {
	return &exitError{exitUsage, errors.New(temporalBuildHelp)}
}

func (g *globals) approveDurable(context.Context, *durableFlags, string, string, tool.Verdict, string) error {
	return &exitError{exitUsage, errors.New(temporalBuildHelp)}
}

// temporalNote ends the one-line help of the durable commands, which
// this build has only to say how to get them.
const temporalNote = " (not in this build: needs -tags temporal)"

const temporalBuildHelp = `this wield was built without Temporal support; build the one that has it with
  go install -tags temporal github.com/wieldhq/wield/cmd/wield@latest
(the Temporal SDK stays out of the default build, which starts faster)`
