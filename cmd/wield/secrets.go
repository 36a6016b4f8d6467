package main

import (
	"os"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/llm/catalog"
)

// hideSecrets adds secrets to the process's SecretSet of workspace ws,
// which the session store, the log, the printed events and the tool
// results all hide (see package wield's secrets.go), warning about the
// ones it cannot hide reliably.
func (g *globals) hideSecrets(ws string, secrets []wield.Secret) {
	wield.AddSecrets(g.extensions(ws).secrets, secrets, g.logger())
}

// hideModelKeys hides, from now on, the keys of a run's models: the key
// variables of the providers of cat (the built-in catalogue with the
// config's additions) and the keys in use, which a config file may give
// rather than a variable (its api_key; the chosen model's key).
func (g *globals) hideModelKeys(ws string, cat *catalog.Catalog, keys ...string) {
	g.hideSecrets(ws, wield.ModelKeys(os.Getenv, cat, keys...))
}
