package shellcmd_test

import (
	"fmt"

	"github.com/wieldhq/wield/shellcmd"
)

func ExampleSplit() {
	cmds, err := shellcmd.Split(`cd web && npm test 2>&1 | tee log.txt; rm -rf "$(mktemp -d)"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cmds {
		fmt.Printf("%-8s args=%d context=%q", c.Name(), len(c.Args), c.Context)
		for _, r := range c.Redirects {
			fmt.Printf(" redirect %s%s%s file=%v output=%v", r.Fd, r.Op, r.Target.Value, r.File(), r.Output)
		}
		for _, w := range c.Args {
			if w.Dynamic {
				fmt.Printf(" dynamic=%s", w.Value)
			}
		}
		fmt.Println()
	}
	// Output:
	// cd       args=2 context=""
	// npm      args=2 context="pipeline" redirect 2>&1 file=false output=true
	// tee      args=2 context="pipeline"
	// mktemp   args=2 context="substitution"
	// rm       args=3 context="" dynamic="$(mktemp -d)"
}

func ExampleParse() {
	line, err := shellcmd.Parse(`a='x[$(touch pwned)]'; echo "$a" ${a:-none} $((a))`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range line.Commands {
		fmt.Printf("command: %q\n", c.Name())
	}
	for _, e := range line.Evals {
		fmt.Println("eval:", e)
	}
	// Output:
	// command: ""
	// command: "echo"
	// eval: arithmetic expansion $((a)) evaluates a variable's value as code
}
