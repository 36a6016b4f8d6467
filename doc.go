// Package wield assembles the agent the wield command runs, for Go
// programs that want the same one: wield's own tools (every family the
// command offers, built by a [Toolbox]), and, as more of the assembly moves
// here from the command, the model, the policy, the sessions, MCP servers,
// memory, skills, plugins, subagents and compaction around them.
//
// A program that wants only some of it uses the packages directly: [tool]
// for the contract and the registry, package agent for the loop, the
// tools/... packages for one family each.
package wield
