// Package wield assembles the agent the wield command runs, for Go
// programs that want the same one.
//
// [New] takes [Options] — the model, the workspace and whether it is
// trusted, the tools to offer, the policy and who approves, the store of
// sessions, MCP servers, memory, skills and plugins — and returns an
// [Agent]: the loop of package agent with wield's own tools (built by a
// [Toolbox]), declared tools and MCP tools, judged by the policy of the
// settings files (with the grants of active skills and the hooks of
// plugins), the workspace's instructions with the memory index and the
// skill listing in the prompt, subagents, compaction with its reviewer,
// and undo snapshots around each round. [Agent.Close] releases what New
// opened, in the reverse order. The wield command maps its flags and
// configuration files onto Options and adds only what a terminal needs:
// asking for trust and approvals, and rendering.
//
// A zero field of Options means what the command does by default, so
//
//	a, err := wield.New(ctx, wield.Options{Provider: p, Model: "claude-sonnet-4-5"})
//
// is the agent of `wield run` in the current directory's workspace,
// headless: calls that need approval are denied, with the reason in their
// results.
//
// A program that wants only some of it uses the packages directly: [tool]
// for the contract and the registry, package agent for the loop, the
// tools/... packages for one family each, and [NewRegistry],
// [SelectTools], [DefaultPolicy] and [Definitions] here for one part of
// the assembly.
package wield
