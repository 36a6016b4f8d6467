package git

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_checkout.md
var checkoutDescription string

// CheckoutInput is the argument object of git_checkout.
type CheckoutInput struct {
	Branch string `json:"branch" jsonschema:"the branch to switch to (or to create)"`
	Create bool   `json:"create,omitempty" jsonschema:"create the branch from the current commit, then switch to it"`
}

// NewCheckout returns git_checkout: it switches the working tree to a
// branch, creating the branch first with create. It runs git switch,
// which refuses to overwrite uncommitted changes and to detach HEAD. It
// rewrites the files of the working tree, so it is annotated destructive.
func NewCheckout(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_checkout",
		Effect:       tool.EffectState,
		Description:  r.description("git_checkout", checkoutDescription),
		OutputSchema: tool.SchemaOf[Data](),
		Annotations:  tool.Annotations{Destructive: true},
	}, r.checkout)
}

func (r *runner) checkout(ctx context.Context, c *tool.Call, in CheckoutInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	if err := checkRef("branch", in.Branch); err != nil {
		return tool.Failure(err.Error()), nil
	}
	valid := request{args: []string{"check-ref-format", "--branch", in.Branch}, read: true}
	out, err := r.run(ctx, dir, valid)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if out.exitCode != 0 {
		return tool.Failure(fmt.Sprintf("%q is not a valid branch name: %s", in.Branch, gitMessage(out))), nil
	}
	args := []string{"switch"}
	if in.Create {
		args = append(args, "--create")
	}
	args = append(args, in.Branch)
	out, err = r.run(ctx, dir, request{args: args})
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if out.exitCode != 0 {
		return r.render(request{args: args}, out, ""), nil
	}
	// git switch reports on standard error.
	msg := out.stderr
	if s := out.stdout; s != "" {
		msg = s + "\n" + msg
	}
	if msg == "" {
		msg = "Switched to branch " + in.Branch
	}
	return tool.Result{Success: true, Output: msg, Data: Data{OutputBytes: out.total}}, nil
}
