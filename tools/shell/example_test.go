package shell_test

import (
	"context"
	"fmt"
	"os"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/shell"
)

func Example() {
	dir, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(dir)
	root, _ := os.OpenRoot(dir)
	defer root.Close()

	// The host owns the job table and closes it on exit, which stops
	// every command still running.
	jobs, err := shell.NewJobs(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer jobs.Close()
	reg, _ := tool.NewRegistry(shell.Tools(shell.Config{Jobs: jobs})...)
	runner := tool.NewRunner(reg, nil)

	res, err := runner.Call(context.Background(), tool.Call{Root: root}, tool.Request{
		Name:      "run_shell_command",
		Arguments: []byte(`{"command":"echo hello; echo oops >&2; exit 2"}`),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("success=%v error=%q\n%s", res.Success, res.Error, res.Output)
	// Output:
	// success=false error="exit code 2"
	// hello
	// oops
}
