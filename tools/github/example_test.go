package github_test

import (
	"fmt"

	"github.com/wieldhq/wield/tools/github"
)

func ExampleParseRemote() {
	for _, u := range []string{
		"https://github.com/octo/hello.git",
		"git@ghe.example.com:team/svc.git",
		"ssh://git@github.com:22/octo/hello",
	} {
		r, err := github.ParseRemote(u)
		fmt.Println(r.Host, r, err)
	}
	// Output:
	// github.com octo/hello <nil>
	// ghe.example.com team/svc <nil>
	// github.com octo/hello <nil>
}

func ExampleGHToken() {
	hosts := []byte("github.com:\n    user: octocat\n    oauth_token: gho_example\n    git_protocol: https\n")
	token, err := github.GHToken(hosts, "github.com")
	fmt.Println(token, err)
	// Output: gho_example <nil>
}

func ExampleNew() {
	tools, err := github.New(github.Config{Token: "ghp_example", Repo: "octo/hello"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range tools {
		if t.Spec().Annotations.Destructive {
			fmt.Println(t.Name(), "asks first")
		}
	}
	// Output:
	// github_add_comment asks first
	// github_create_issue asks first
	// github_create_pull_request asks first
	// github_run_workflow asks first
}
