package github

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"text/template"
	"time"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/git"
)

// Limits and defaults of the GitHub tools. The descriptions the model
// reads are rendered from these.
const (
	// DefaultTimeout bounds one tool call, all its requests included.
	DefaultTimeout = 60 * time.Second
	// DefaultLimit is the number of items a list or search returns when
	// the call gives no limit; MaxLimit is the most it may ask for.
	DefaultLimit = 30
	MaxLimit     = 200
	// MaxComments is the number of comments github_get_issue reads.
	MaxComments = 200
	// DefaultMaxDiff caps the bytes of a pull request's diff one result
	// keeps.
	DefaultMaxDiff = 1 << 20
	// perPage is the page size asked of the API.
	perPage = 100
	// lowRate is the number of requests left below which a result says
	// how many are left.
	lowRate = 50
)

// Config configures the GitHub tools. The zero Config gives tools that
// reach github.com without a token: they can read public repositories at
// GitHub's low anonymous rate, and the tools that write say a token is
// needed. [New] copies the Config.
type Config struct {
	// Client makes the HTTP requests; nil means a client of its own. Its
	// transport is wrapped to send the token.
	Client *http.Client
	// Token authenticates the requests: a personal access token, an app's
	// token or gh's OAuth token. Empty means anonymous requests. The tools
	// never read the environment or gh's files: the host does (see
	// [GHToken]).
	Token string
	// BaseURL is the REST API's url of a GitHub Enterprise Server, such as
	// "https://ghe.example.com/api/v3/" ("/api/v3/" is added when
	// missing). Empty means github.com.
	BaseURL string
	// Repo is the repository the tools work on, "owner/name". Empty means
	// the one the workspace's git remote (Remote) points at, found on each
	// call; a call may name another with its repo argument.
	Repo string
	// Remote is the git remote whose url names the repository when Repo
	// is empty; empty means "origin".
	Remote string
	// MaxDiff caps the bytes of a pull request's diff a result keeps;
	// zero means DefaultMaxDiff.
	MaxDiff int
	// Timeout bounds one call; zero means DefaultTimeout.
	Timeout time.Duration
	// Now returns the current time, for saying when a rate limit ends;
	// nil means time.Now.
	Now func() time.Time
	// Logger receives debug records of requests; nil discards them.
	Logger *slog.Logger
}

// New returns the GitHub tools in display order: the readers
// github_get_repository, github_get_issue, github_search_issues,
// github_list_pull_requests, github_get_pull_request_diff,
// github_get_pull_request_checks and github_get_workflow_run, then the
// writers github_add_comment, github_create_issue,
// github_create_pull_request and github_run_workflow, which are
// annotated destructive. It returns an error for a bad BaseURL or Repo.
func New(cfg Config) ([]*tool.Tool, error) {
	g, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	return []*tool.Tool{
		g.getRepository(), g.getIssue(), g.searchIssues(), g.listPullRequests(),
		g.getPullRequestDiff(), g.getPullRequestChecks(), g.getWorkflowRun(),
		g.addComment(), g.createIssue(), g.createPullRequest(), g.runWorkflow(),
	}, nil
}

// A client is a Config with its defaults applied and the API client made.
type client struct {
	cfg  Config
	api  *githubsdk.Client
	host string // the web host repositories live on, for checking remotes
	repo Repo   // the configured repository; zero means the remote's
	log  *slog.Logger
}

func newClient(cfg Config) (*client, error) {
	if cfg.Remote == "" {
		cfg.Remote = "origin"
	}
	if cfg.MaxDiff <= 0 {
		cfg.MaxDiff = DefaultMaxDiff
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	g := &client{cfg: cfg, host: "github.com", log: cfg.Logger}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	hc := cfg.Client
	if hc == nil {
		hc = &http.Client{Timeout: cfg.Timeout}
	}
	api := githubsdk.NewClient(hc)
	if cfg.Token != "" {
		api = api.WithAuthToken(cfg.Token)
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, fmt.Errorf("github: base url %q is not an http(s) url", cfg.BaseURL)
		}
		if api, err = api.WithEnterpriseURLs(cfg.BaseURL, cfg.BaseURL); err != nil {
			return nil, fmt.Errorf("github: base url %q: %w", cfg.BaseURL, err)
		}
		g.host = strings.ToLower(u.Hostname())
	}
	g.api = api
	if cfg.Repo != "" {
		r, err := ParseRepo(cfg.Repo)
		if err != nil {
			return nil, fmt.Errorf("github: %w", err)
		}
		g.repo = r
	}
	return g, nil
}

// numbers returns the values the descriptions are rendered with.
func (g *client) numbers() map[string]any {
	return map[string]any{
		"DefaultLimit": DefaultLimit,
		"MaxLimit":     MaxLimit,
		"MaxComments":  MaxComments,
		"MaxDiffKiB":   g.cfg.MaxDiff >> 10,
		"LatestRuns":   latestRuns,
	}
}

// spec returns a tool spec with the description rendered from text.
func (g *client) spec(name, text string, ann tool.Annotations) tool.Spec {
	var b strings.Builder
	template.Must(template.New(name).Parse(text)).Execute(&b, g.numbers())
	ann.OpenWorld = true
	effect := tool.EffectRead | tool.EffectNetwork
	if !ann.ReadOnly {
		effect = tool.EffectState | tool.EffectNetwork // a comment, an issue, a workflow run
	}
	return tool.Spec{Name: name, Description: b.String(), Annotations: ann, Effect: effect, Timeout: g.cfg.Timeout}
}

var (
	readOnly    = tool.Annotations{ReadOnly: true, ParallelSafe: true}
	destructive = tool.Annotations{Destructive: true}
)

// target returns the repository a call works on: the one its repo
// argument names, else the configured one, else the one the workspace's
// git remote points at.
func (g *client) target(ctx context.Context, c *tool.Call, arg string) (Repo, error) {
	if arg != "" {
		return ParseRepo(arg)
	}
	if g.repo != (Repo{}) {
		return g.repo, nil
	}
	dir, err := workspaceDir(c)
	if err != nil {
		return Repo{}, fmt.Errorf("%w (%v)", errNoRepo, err)
	}
	u, err := git.RemoteURL(ctx, dir, g.cfg.Remote)
	if err != nil {
		return Repo{}, fmt.Errorf("%w: the workspace's remote %s cannot be read: %v", errNoRepo, g.cfg.Remote, err)
	}
	r, err := ParseRemote(u)
	if err != nil {
		return Repo{}, fmt.Errorf("%w: %v", errNoRepo, err)
	}
	if r.Host != g.host && !(g.host == "github.com" && r.Host == "ssh.github.com") {
		return Repo{}, fmt.Errorf("the remote %s points at %s, but the GitHub tools are set up for %s; give repo as owner/name, or configure the server's base url", g.cfg.Remote, r.Host, g.host)
	}
	return r, nil
}

// workspaceDir returns the directory of the call's workspace.
func workspaceDir(c *tool.Call) (string, error) {
	if c == nil || c.Root == nil {
		return "", errors.New("this call has no workspace")
	}
	return git.WorkspaceDir(c.Root)
}

// failure turns an API error into a result the model can act on. what
// names the thing asked for ("issue #12 in owner/name").
func (g *client) failure(ctx context.Context, err error, what string) tool.Result {
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			return tool.Failure(fmt.Sprintf("GitHub did not answer within %s; try again later", g.cfg.Timeout))
		}
		return tool.Failure("cancelled")
	}
	var rate *githubsdk.RateLimitError
	var abuse *githubsdk.AbuseRateLimitError
	var resp *githubsdk.ErrorResponse
	switch {
	case errors.As(err, &rate):
		return tool.Failure(g.rateLimited(rate.Rate))
	case errors.As(err, &abuse):
		wait := "a few minutes"
		if d := abuse.GetRetryAfter(); d > 0 {
			wait = d.Round(time.Second).String()
		}
		return tool.Failure(fmt.Sprintf("GitHub's secondary rate limit stopped the request for %s: wait %s before trying again, and make fewer requests at once", what, wait))
	case errors.As(err, &resp) && resp.Response != nil:
		return tool.Failure(statusFailure(resp, what, g.cfg.Token != ""))
	}
	return tool.Failure(fmt.Sprintf("GitHub could not be reached for %s: %v", what, err))
}

// rateLimited says when a rate limit ends and what is left.
func (g *client) rateLimited(r githubsdk.Rate) string {
	reset := r.Reset.UTC()
	msg := fmt.Sprintf("GitHub rate limited until %s UTC", reset.Format("15:04"))
	if d := reset.Sub(g.cfg.Now()).Round(time.Minute); d > 0 {
		msg += fmt.Sprintf(" (in %s)", strings.TrimSuffix(d.String(), "0s"))
	}
	msg += fmt.Sprintf("; %d requests left of %d an hour.", r.Remaining, r.Limit)
	if g.cfg.Token == "" {
		msg += " Requests without a token get 60 an hour: set GITHUB_TOKEN or log in with gh auth login for 5000."
	} else {
		msg += " Wait until then, or do something else meanwhile."
	}
	return msg
}

// statusFailure explains an error status.
func statusFailure(e *githubsdk.ErrorResponse, what string, token bool) string {
	msg := strings.TrimSpace(e.Message)
	for _, d := range e.Errors {
		switch {
		case d.Message != "":
			msg += "; " + d.Message
		case d.Code != "":
			msg += fmt.Sprintf("; %s %s %s", d.Resource, d.Field, d.Code)
		}
	}
	switch code := e.Response.StatusCode; code {
	case http.StatusNotFound:
		hint := "check the number or name"
		if !token {
			hint += "; a private repository needs a token (set GITHUB_TOKEN or log in with gh auth login)"
		} else {
			hint += ", and that the token can see the repository"
		}
		return fmt.Sprintf("not found: %s (404): it does not exist, or is not visible to this token; %s", what, hint)
	case http.StatusUnauthorized:
		return fmt.Sprintf("GitHub refused the token (401 %s): it is wrong or expired; set a valid GITHUB_TOKEN or log in again with gh auth login", msg)
	case http.StatusForbidden:
		return fmt.Sprintf("forbidden: %s (403 %s): the token lacks the permission for this; a fine-grained token needs access to the repository and the scope (issues, pull requests, contents or actions: write) the call uses", what, msg)
	case http.StatusUnprocessableEntity:
		return fmt.Sprintf("GitHub rejected %s (422): %s", what, msg)
	default:
		return fmt.Sprintf("GitHub answered %d for %s: %s", code, what, msg)
	}
}

// rateNote returns a note about the rate limit when few requests are
// left, or "".
func (g *client) rateNote(resp *githubsdk.Response) string {
	if resp == nil || resp.Rate.Limit == 0 || resp.Rate.Remaining >= lowRate {
		return ""
	}
	return fmt.Sprintf("\n\n[GitHub rate limit: %d requests left until %s UTC]", resp.Rate.Remaining, resp.Rate.Reset.UTC().Format("15:04"))
}

// limit checks a limit argument: zero means DefaultLimit.
func limit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultLimit, nil
	case n < 0 || n > MaxLimit:
		return 0, fmt.Errorf("limit must be between 1 and %d", MaxLimit)
	}
	return n, nil
}

// withTimeout bounds a call.
func (g *client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, g.cfg.Timeout)
}

// collect reads pages from list until it has n items or there are no more
// pages (the API's Link header has no next), and returns at most n items
// and the last response.
func collect[T any](n int, list func(githubsdk.ListOptions) ([]T, *githubsdk.Response, error)) ([]T, *githubsdk.Response, error) {
	var all []T
	opt := githubsdk.ListOptions{PerPage: min(n, perPage)}
	for {
		items, resp, err := list(opt)
		if err != nil {
			return all, resp, err
		}
		all = append(all, items...)
		if len(all) >= n || resp == nil || resp.NextPage == 0 {
			return all[:min(n, len(all))], resp, nil
		}
		opt.Page = resp.NextPage
	}
}
