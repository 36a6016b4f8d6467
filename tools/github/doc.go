// Package github holds wield's GitHub tools, on
// github.com/google/go-github: they read a repository, its issues, pull
// requests, diffs, checks and workflow runs, and (after the user approves)
// comment, open issues and pull requests, and start workflows.
//
//	tools, err := github.New(github.Config{Token: token})
//
// # What they work on
//
// The repository is the one a call names (repo: "owner/name"), else
// [Config.Repo], else the one the workspace's origin remote points at,
// read with git on each call ([ParseRemote] reads its url). A pull request
// is opened from the workspace's current branch into the repository's
// default branch; the tools never push, so the branch must be on GitHub
// already. GitHub Enterprise Server is reached through [Config.BaseURL];
// a remote on another host than the configured one is refused, not
// guessed at.
//
// # Tokens
//
// The tools are given their token in [Config.Token] and never look for
// one. A host reads GITHUB_TOKEN, or the GitHub CLI's hosts.yml, whose
// place [GHHostsPath] gives and which [GHToken] parses (read only; gh's
// system keyring is not read). Without a token the tools read public
// repositories at GitHub's anonymous rate, and the tools that write say
// a token is needed.
//
// # Failures the model can act on
//
// Every API failure is a result that says what to do: a 404 says the
// thing does not exist or the token cannot see it; a 403 names the
// permission a token needs; a rate limit says "rate limited until HH:MM
// UTC" with the requests left; a 422 gives GitHub's reasons (for a pull
// request, that the branch may need pushing). A result made with few
// requests left says how many.
//
// # Permissions and untrusted text
//
// The tools that read are annotated ReadOnly and ParallelSafe; the tools
// that write (github_add_comment, github_create_issue,
// github_create_pull_request, github_run_workflow) are annotated
// Destructive, so a policy asks the user before each unless a rule allows
// it. Every tool is OpenWorld. Text that people wrote on GitHub (bodies,
// comments, reviews, diffs) comes inside an <untrusted-github-content>
// element whose first line says it is data, not instructions; the
// element's tags inside the text are defused.
package github
