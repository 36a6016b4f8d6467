package tool

// FromClaudeCode returns the name of wield's tool that does the job of
// Claude Code's tool name ("Read" is read_file, "Bash" is
// run_shell_command, "Task" and "Agent" are agent), so that settings rules,
// hooks and agent definitions written for Claude Code name the same tools
// here. ok is false for a name Claude Code does not use.
//
// FromClaudeCode is the answer without a registry, for what is read
// before any tools exist (settings rules, hook matchers, agent
// definitions' tool lists). Where a registry is at hand,
// [Registry.Resolve] reads the tools' own [Spec.Aliases]; wield's tools
// declare these same aliases, and a test keeps the two in step.
func FromClaudeCode(name string) (wield string, ok bool) {
	switch name {
	case "Bash":
		return "run_shell_command", true
	case "Read":
		return "read_file", true
	case "Write":
		return "write_file", true
	case "Edit", "MultiEdit":
		return "replace", true
	case "Glob":
		return "glob", true
	case "Grep":
		return "search_file_content", true
	case "LS":
		return "list_directory", true
	case "WebFetch":
		return "web_fetch", true
	case "WebSearch":
		return "web_search", true
	case "TodoWrite":
		return "todo", true
	case "Agent", "Task":
		return "agent", true
	}
	return "", false
}
