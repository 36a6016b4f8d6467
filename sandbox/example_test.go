package sandbox_test

import (
	"context"
	"fmt"
	"os"

	"github.com/wieldhq/wield/sandbox"
)

func ExampleSandbox_Run() {
	ctx := context.Background()
	exe, _ := os.Executable() // this program calls sandbox.Enter first thing (see TestMain)
	sb, err := sandbox.New(ctx, sandbox.Config{Helper: []string{exe, sandbox.HelperArg}})
	if err != nil {
		fmt.Println(err) // an *UnavailableError names what is missing
		return
	}
	res, err := sb.Run(ctx, &sandbox.Command{Args: []string{"sh", "-c", "echo hello > f && cat f; (echo x > /etc/f) 2>/dev/null || echo cannot write /etc"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%sexit %d\n", res.Stdout, res.ExitCode)
	// Output:
	// hello
	// cannot write /etc
	// exit 0
}
