package main

import (
	"errors"
	"fmt"

	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/session"
)

// headlessHint ends the reason of a call the policy denied because nobody
// could approve it: the libraries name no file of wield's, so the command
// line says where allow rules go (policy.Policy.HeadlessHint).
const headlessHint = "add an allow rule to .wield/settings.json to permit it"

// untrustedRules says where allow rules go in a workspace the user has not
// trusted, whose own settings' allow rules are ignored (see project.go).
const untrustedRules = "~/.config/wield/settings.json (this folder's .wield/settings.json is not trusted: wield trust)"

// rulesFile names where an allow rule for workspace ws takes effect: its
// .wield/settings.json when the workspace is trusted, else the user's own
// settings.
func (g *globals) rulesFile(ws string) string {
	if g.trustFor(ws).trusted {
		return ".wield/settings.json"
	}
	return untrustedRules
}

// hint returns what the user can do about err, in wield's own commands, or
// "" when there is nothing to add. The libraries return typed errors and
// leave this advice to the command line; the line that prints an error
// appends its hint.
func hint(err error) string {
	if busy, ok := errors.AsType[*session.BusyError](err); ok {
		return fmt.Sprintf("; wait for it to finish, or fork the session with `wield session fork %s --at N`", busy.ID)
	}
	if errors.Is(err, session.ErrNotFound) {
		return "; list sessions with `wield session ls`"
	}
	if errors.Is(err, catalog.ErrUnknownModel) {
		// wield never guesses an endpoint: a name it does not know needs a
		// provider or a server.
		return "; or, for a model an OpenAI-compatible server serves, set OPENAI_BASE_URL (or \"base_url\" in .wield/config.json, or --base-url) to that server; wield models lists the models it knows"
	}
	return ""
}
