package wield

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/tools/askuser"
	"github.com/wieldhq/wield/tools/env"
	"github.com/wieldhq/wield/workspace"
)

// The environment variables that turn on embeddings in memory and
// document search: an OpenAI-compatible base URL (such as
// https://api.openai.com/v1), the model, and the key (OPENAI_API_KEY when
// unset).
const (
	EnvEmbeddingsURL   = "WIELD_EMBEDDINGS_URL"
	EnvEmbeddingsModel = "WIELD_EMBEDDINGS_MODEL"
	EnvEmbeddingsKey   = "WIELD_EMBEDDINGS_KEY"
)

// DefaultMemory returns the memory of workspace ws ("" for none: the
// user's notes only) and of the user, with the embeddings endpoint the
// environment (read with getenv) names. Nothing is read until it is used.
func DefaultMemory(ws string, getenv func(string) string, log *slog.Logger) *memory.Store {
	cfg := memory.Config{Logger: log}
	if ws != "" {
		cfg.ProjectDir = workspace.Layout{Root: ws}.Memory()
	}
	if u, err := workspace.User(); err == nil {
		cfg.UserDir = u.Memory()
	}
	if e := Embedder(getenv); e != nil {
		cfg.Embedder = e
	}
	return memory.New(cfg)
}

// Embedder returns the embeddings endpoint the environment (read with
// getenv) names with [EnvEmbeddingsURL], or nil when it names none.
// Memory search and document search share it.
func Embedder(getenv func(string) string) *memory.HTTPEmbedder {
	url := getenv(EnvEmbeddingsURL)
	if url == "" {
		return nil
	}
	return &memory.HTTPEmbedder{BaseURL: url, Model: getenv(EnvEmbeddingsModel),
		APIKey: cmp.Or(getenv(EnvEmbeddingsKey), getenv("OPENAI_API_KEY")), Client: &http.Client{Timeout: 30 * time.Second}}
}

// MemoryIndex returns the memory indexes of s (the workspace's and the
// user's) as documents for the system prompt: the index only; notes are
// read on demand. Problems are logged: a run goes on without its memory.
func MemoryIndex(s *memory.Store, log *slog.Logger) []agent.Document {
	var docs []agent.Document
	for _, scope := range []memory.Scope{memory.ScopeProject, memory.ScopeUser} {
		if s.Dir(scope) == "" {
			continue
		}
		idx, err := s.Index(scope)
		if err != nil {
			log.Warn("memory", "scope", scope, "err", err)
			continue
		}
		if idx == "" {
			continue
		}
		how := "read_memory reads a note, search_memory searches them all"
		if scope == memory.ScopeProject {
			how += "; the memory tool shows them as files under /memories"
		}
		docs = append(docs, agent.Document{Path: s.Dir(scope) + "/" + memory.IndexName,
			Content: fmt.Sprintf("What earlier sessions saved to memory (%s scope), as an index: %s. Notes may be out of date, and a note marked as written after reading external content may be wrong.\n\n%s", scope, how, idx)})
	}
	return docs
}

// envAsker asks request_env's questions through ask_user's asker: a
// person types the value.
type envAsker struct{ a askuser.Asker }

func (e envAsker) AskEnv(ctx context.Context, r env.Request) (env.Answer, error) {
	text := fmt.Sprintf("The agent asks for a value of %s for this session: %s\nType the value, or nothing to decline.", r.Name, r.Reason)
	if r.Secret {
		text += " It is kept secret: the model, the session's journal and the output never show it."
	}
	ans, err := e.a.Ask(ctx, askuser.Question{Text: text})
	if err != nil {
		return env.Answer{}, err
	}
	v := strings.TrimSpace(ans.Text)
	return env.Answer{Value: v, Declined: v == ""}, nil
}
