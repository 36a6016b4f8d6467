// Package trust decides whether a folder's own configuration may act for
// the user, and remembers the folders the user trusted.
//
// A repository can carry configuration that runs commands (hooks, MCP
// servers, declared tools), loosens the permission policy (allow rules, a
// permissive mode, skills that grant tools) or sends the user's
// credentials somewhere (a model endpoint, a provider entry). Anyone who
// can commit to the repository can write it. Such configuration is inert
// until the user trusts the folder; what only restricts (deny and ask
// rules) always applies.
//
// The caller lists what a folder's configuration would enable as a
// [Manifest] of [Item]s, one per hook, rule, server, endpoint or tool, each
// with the whole element it stands for. A [Store] records the folders the
// user trusted in one file of the user's configuration directory, keyed by
// the folder's real path and pinned to the [Manifest.Hash] of what was
// trusted:
//
//	st := &trust.Store{Path: filepath.Join(userDir, "trusted.json")}
//	v, err := st.Check(m)
//	switch v.Status {
//	case trust.Trusted, trust.Nothing:
//		// load the folder's configuration whole
//	case trust.Changed:
//		// show v.Added and v.Removed, ask again
//	default:
//		// load only what restricts
//	}
//
// # What a record trusts
//
// A folder record trusts exactly the items it was made from: a hook whose
// command changed, a new server, a new allow rule or endpoint, or one
// moved to another file makes [Store.Check] report [Changed], with what
// was added and removed. A tree record ([Record.Tree], `wield trust
// --tree`) trusts every folder beneath its path whatever their
// configuration says, as gemini-cli's trusted parent folders do; it is
// meant for the user's own projects directory, not for one that receives
// clones.
//
// # What is not guaranteed
//
// The store fails closed: a trust file that cannot be read or parsed
// makes [Store.Check] return an error and [Untrusted], never [Trusted].
// A record is only as good as the caller's [Manifest]: configuration the
// caller does not list is not pinned. The file is the user's, written
// with mode 0600 under a lock and replaced whole (a crash leaves the old
// file or the new one); it is not protected against the user's own
// programs, which can write it as they can write any of the user's files.
package trust
