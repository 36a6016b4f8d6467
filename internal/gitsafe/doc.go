// Package gitsafe makes git run nothing that the repository it works on
// chose. A repository someone else wrote (an archive unpacked with its
// .git directory, a clone of a stranger's project) can name programs in
// its .git/config, in files that config includes, and in .gitattributes;
// git runs them on commands as plain as git status. gitsafe reads the
// configuration git would use and returns the command-line configuration
// (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n) that overrides
// every such setting, so that git and the gits it starts run only what
// the user configured, or nothing.
//
//	env, err := gitsafe.Load(ctx, "git", dir, os.Environ(), gitsafe.Options{})
//	cmd := exec.CommandContext(ctx, "git", "status")
//	cmd.Dir, cmd.Env = dir, env
//
// # What the repository's configuration decides
//
// A setting belongs to the repository when git config --show-scope
// reports its scope as local or worktree (with whatever those files
// include, include.path and includeIf alike); system, global and command
// settings are the user's. Configuration on git's command line has the
// last word over every file, so an override wins wherever the
// repository set the key. Overrides travel in the environment, so the
// gits that git starts (a submodule's status, a local upload-pack, gc)
// inherit them.
//
// These keys are overridden on every command, whoever set them:
//
//   - core.hooksPath is /dev/null, so no hook runs (.git/hooks/* or
//     elsewhere), unless [Options.Hooks];
//   - core.fsmonitor is the user's value or false;
//   - core.pager is cat; core.editor and sequence.editor are ":", which
//     git takes as "no editor" and runs nothing for;
//   - core.sshCommand is the user's value, or $GIT_SSH, or ssh;
//   - core.askPass is the user's value, or $SSH_ASKPASS, or empty (none);
//   - credential.helper is reset (an empty value empties git's list of
//     helpers, those of credential.<url>.helper too), then the user's
//     helpers are given again in their order;
//   - gpg.program and gpg.openpgp.program are the user's value or gpg,
//     gpg.ssh.program the user's or ssh-keygen, gpg.x509.program the
//     user's or gpgsm;
//   - protocol.ext.allow is never, whatever protocol.allow says, so no
//     ext:: URL (nor remote.<name>.vcs = ext) runs a command.
//
// These are overridden when the repository sets them, with the user's
// value if the user set the same key, else with the value shown:
//
//   - filter.<driver>.clean, .smudge and .process: empty, which git
//     takes as "no filter" (a filter marked required then fails);
//   - diff.<driver>.command, diff.<driver>.textconv, diff.external,
//     merge.<driver>.driver, alias.<name>, core.alternateRefsCommand,
//     gpg.ssh.defaultKeyCommand, tar.<format>.command, man.<tool>.cmd and
//     .path, browser.<tool>.cmd and .path, web.browser, help.browser,
//     difftool.<tool>.cmd and .path, mergetool.<tool>.cmd and .path,
//     diff.tool, diff.guitool, merge.tool, merge.guitool, guitool.<name>.cmd,
//     interactive.diffFilter, imap.tunnel, sendemail.smtpServer, .toCmd,
//     .ccCmd, .headerCmd and .sendmailCmd (with or without an identity),
//     lfs.customTransfer.<name>.path, lfs.extension.<name>.clean and
//     .smudge: empty, so that the command that needs the program fails
//     ("cannot run") instead of running it;
//   - pager.<command>: false; man.viewer and help.format: man;
//   - commit.gpgSign, tag.gpgSign, push.gpgSign, log.showSignature and
//     submodule.recurse: false;
//   - submodule.<name>.update when it is a !command: none;
//   - core.gitProxy: git takes the first value that matches, so an
//     override cannot follow it; GIT_PROXY_COMMAND is set empty in the
//     environment instead (unless it is set), which git reads first;
//   - remote.<name>.uploadpack and .receivepack: git takes the first
//     value, so an override cannot follow it; protocol.file.allow is
//     never instead, so such a repository cannot fetch from or push to a
//     local path, where git would run them. Over ssh they run on the
//     server, as the remote's own programs.
//
// # What is not guaranteed
//
// gitsafe sees the configuration of one repository, the one git finds
// from the directory given to [Load], as it is when Load runs. It does
// not see:
//
//   - the configuration of other repositories git works in: a
//     submodule's own .git/modules/<name>/config, a nested repository a
//     command changes into (cd sub && git diff, git -C sub), a local
//     remote's. The keys of the first list reach them through the
//     environment; drivers, aliases and remotes they define do not;
//   - configuration that changes while a command runs: a shell line that
//     switches branches and then runs git again can make an includeIf
//     "onbranch:" true after Load read the configuration;
//   - configuration given on git's own command line or in
//     GIT_CONFIG_PARAMETERS (git -c, --config-env), which git reads after
//     GIT_CONFIG_COUNT: it is the caller's choice, not the repository's;
//   - programs that the user's own settings run, and what they read:
//     the user's filter (git-lfs), credential helper or ssh runs on the
//     repository's files, and git-lfs reads lfs.* settings of its own
//     beyond those listed;
//   - a process that drops the environment (env -i git status) or
//     changes PATH to find another git;
//   - the repository's other powers that are not running programs:
//     core.worktree pointing outside the directory, hooks of
//     remote servers, git's own bugs.
//
// The list follows git 2.39; a key a later git adds is not covered until
// it is added here.
package gitsafe
