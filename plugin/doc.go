// Package plugin reads plugins in Claude Code's layout, keeps the user's
// installed plugins, and pins the user's trust in each to a hash of its
// content.
//
// # Layout
//
// A plugin is a directory:
//
//	my-plugin/
//	  .claude-plugin/plugin.json   (or .wield-plugin/plugin.json) the manifest: name, version, …
//	  commands/*.md                prompt templates, offered as /name
//	  agents/*.md                  agent definitions (see package agent/subagent)
//	  skills/NAME/SKILL.md         skills (see package skill)
//	  hooks/hooks.json             hooks, in the settings' hook schema
//	  .mcp.json                    MCP servers
//
// The manifest may name more component paths ("commands", "agents",
// "skills", "hooks", "mcpServers"), each relative to the plugin and
// starting with "./"; they add to the default directories. "hooks" and
// "mcpServers" may also be given inline. ${CLAUDE_PLUGIN_ROOT} and
// ${WIELD_PLUGIN_ROOT} are replaced with the plugin's directory in
// commands, hooks and MCP server definitions.
//
// A marketplace is a marketplace.json (in .claude-plugin/ or the
// directory itself) listing plugins by name and source: a directory
// relative to the marketplace, or a git repository ([ReadMarketplace]).
//
// # Trust
//
// Hooks and MCP servers run code, and a command's text steers the model,
// so an installed plugin does nothing until the user enables it. Enabling
// records a hash of the plugin's content ([Hash]); a plugin whose content
// has changed since is not loaded again until the user enables it again
// ([Registry.Load] reports it). A tool may ask for a plugin, never enable
// one.
//
// Plugin agents cannot set hooks or a permission mode: such keys are
// reported and never applied.
package plugin
