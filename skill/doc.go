// Package skill loads Agent Skills: folders holding a SKILL.md file (YAML
// frontmatter, then Markdown instructions) and optional scripts,
// references and assets, as Claude Code, Codex and gemini-cli read them.
//
// # Where skills come from
//
// [Roots] lists the directories searched, most specific first: in the
// workspace and each ancestor up to the repository root, .wield/skills,
// .agents/skills, .claude/skills, .codex/skills and .gemini/skills
// (project scope); the user's wield directory and the same names in the
// home directory (user scope); then the skills of plugins (plugin scope,
// added by the caller). [Load] reads them; a name found twice keeps its
// first, most specific, skill and reports the other as shadowed.
//
//	set, problems := skill.Load(skill.Roots(ws, user, home)...)
//	for _, p := range problems {
//		log.Print(p)
//	}
//
// # What a SKILL.md holds
//
// [Parse] reads the fields of the Agent Skills specification: name
// (lower-case letters, digits and single hyphens, at most 64 characters,
// the directory's name), description (at most 1024 characters), license,
// compatibility, metadata (a map of strings) and allowed-tools. A legacy
// name such as "Plugin Structure" is accepted with a warning and
// normalised to "plugin-structure"; a skill without a description is
// refused. Keys of Claude Code that wield does not act on are reported as
// information; other keys warn. Problems never stop the other skills from
// loading.
//
// # Progressive disclosure
//
// Only names and descriptions go into the prompt: [Listing] renders them
// within a budget of characters ([Budget] turns a context window into
// one), shortening every description evenly before it gives up and tells
// the model to search instead ([Set.Search]). The body and the file tree
// ([Skill.Tree]) are read when the skill is activated.
//
// # Safety
//
// A skill is read through an [os.Root] on its directory: a symbolic link
// that leaves the skill's directory, or a skill directory that is a link
// leaving its skills directory, is skipped and reported. Nothing in a
// skill is run by this package; scripts run, if at all, through the shell
// tool under the policy. [Create] writes a new skill atomically (a
// temporary directory renamed into place) inside the skills directory.
package skill
