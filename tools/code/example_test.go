package code_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/code"
)

func ExampleNewRunCode() {
	ctx := context.Background()
	exe, _ := os.Executable() // this program calls sandbox.Enter first thing (see TestMain)
	sb, err := sandbox.New(ctx, sandbox.Config{Helper: []string{exe, sandbox.HelperArg}})
	if err != nil {
		fmt.Println(err) // names what to install
		return
	}
	sessions := code.NewSessions(0)
	defer sessions.Close()
	t := code.NewRunCode(code.Config{Sandbox: sb, Sessions: sessions})

	args := json.RawMessage(`{"language": "bash", "code": "echo \"hello $name\"; echo '{\"n\": 2}' > \"$WIELD_RESULT\"", "context": {"name": "sandbox"}}`)
	res, _ := t.Handler().Handle(ctx, &tool.Call{}, args)
	d := res.Data.(code.RunData)
	fmt.Printf("%t %q %s\n", res.Success, d.Stdout, d.Result)
	// Output: true "hello sandbox\n" {"n": 2}
}
