package wield

import (
	"cmp"
	"errors"
	"log/slog"
	"path/filepath"

	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/plugin"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/workspace"
)

// PluginRegistry returns the user's installed plugins: the folder plugins
// in wield's configuration directory. It is an error when the user has
// none (neither XDG_CONFIG_HOME nor HOME is set).
func PluginRegistry() (*plugin.Registry, error) {
	user, _ := workspace.User()
	if user.Dir == "" {
		return nil, errors.New("plugins: the user has no configuration directory (set XDG_CONFIG_HOME or HOME)")
	}
	return &plugin.Registry{Dir: filepath.Join(user.Dir, "plugins")}, nil
}

// TrustedPlugins returns the plugins the user enabled whose content still
// has the hash the user trusted, for [Options.Plugins]. A plugin that
// changed since is left out, and logged as a warning: it needs the user's
// trust again. enableHint, when set, says how to give it (the wield
// command: "wield plugin enable NAME"), logged as the warning's "fix".
// Problems of the plugins worth a look are logged too; a user without a
// configuration directory has no plugins.
func TrustedPlugins(log *slog.Logger, enableHint func(name string) string) []*plugin.Plugin {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	reg, err := PluginRegistry()
	if err != nil {
		return nil
	}
	plugins, pending, problems, err := reg.Load()
	if err != nil {
		log.Warn("plugins", "err", err)
		return nil
	}
	for _, p := range pending {
		if !p.Changed {
			continue
		}
		args := []any{"plugin", p.Name}
		if enableHint != nil {
			args = append(args, "fix", enableHint(p.Name))
		}
		log.Warn("plugin changed since you trusted it; it is not loaded until you enable it again", args...)
	}
	for _, p := range problems {
		if p.Severity >= plugin.Warning {
			log.Warn("plugin", "problem", p.Error())
		}
	}
	return plugins
}

// AddPluginServers adds the MCP servers of plugins to mgr, each named
// PLUGIN_SERVER, and the secrets of their configuration (see
// [MCPSecrets]) to secrets. A server mgr does not take is logged and left
// out.
func AddPluginServers(mgr *mcp.Manager, plugins []*plugin.Plugin, secrets *session.SecretSet, log *slog.Logger) {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	for _, pl := range plugins {
		for name, sc := range pl.MCPServers {
			AddSecrets(secrets, MCPSecrets(map[string]mcp.ServerConfig{pl.Name() + "_" + name: sc}), log)
			if err := mgr.Add(pl.Name()+"_"+name, sc); err != nil {
				log.Warn("plugin MCP server", "plugin", pl.Name(), "server", name, "err", err)
			}
		}
	}
}
