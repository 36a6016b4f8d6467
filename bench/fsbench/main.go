// Command fsbench runs one wield file tool over a directory and prints
// its complete result in the form ripgrep prints it, so that bench/fs.sh
// can time the two and compare what they found.
//
//	fsbench [-root dir] grep [-i] [-F] PATTERN   # path:line, like rg -n
//	fsbench [-root dir] glob PATTERN             # paths, like rg --files
//
// With -time FILE it appends the milliseconds the tool call itself took
// (without starting the process and building the tool) to FILE.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
)

func main() {
	root := flag.String("root", ".", "the workspace root")
	profile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	timing := flag.String("time", "", "append the milliseconds the tool call took to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fsbench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(*root, *timing, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "fsbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(dir, timing string, args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: fsbench [-root dir] grep [-i] [-F] PATTERN | glob PATTERN")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	// Lift the limits so that the whole result can be compared.
	cfg := fs.Config{OutputBudget: 1 << 30, GlobLimit: 1 << 30}
	call := &tool.Call{Root: root}
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	defer w.Flush()
	switch args[0] {
	case "grep":
		in := fs.SearchInput{MaxMatches: 1 << 30}
		for _, a := range args[1 : len(args)-1] {
			switch a {
			case "-i":
				f := false
				in.CaseSensitive = &f
			case "-F":
				in.FixedStrings = true
			default:
				return fmt.Errorf("unknown grep flag %s", a)
			}
		}
		in.Pattern = args[len(args)-1]
		zero := 0
		in.Context = &zero
		res, err := call1(fs.NewSearch(cfg), call, in, timing)
		if err != nil {
			return err
		}
		for _, m := range res.Data.(fs.SearchData).Matches {
			fmt.Fprintf(w, "%s:%d\n", m.Path, m.Line)
		}
	case "glob":
		res, err := call1(fs.NewGlob(cfg), call, fs.GlobInput{Pattern: args[1], CaseSensitive: true}, timing)
		if err != nil {
			return err
		}
		for _, f := range res.Data.(fs.GlobData).Files {
			fmt.Fprintln(w, f)
		}
	default:
		return fmt.Errorf("unknown command %s", args[0])
	}
	return nil
}

// call1 calls t with in and, when timing names a file, appends the call's
// time in milliseconds to it.
func call1(t *tool.Tool, c *tool.Call, in any, timing string) (tool.Result, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return tool.Result{}, err
	}
	start := time.Now()
	res, err := t.Handler().Handle(context.Background(), c, raw)
	if timing != "" {
		f, ferr := os.OpenFile(timing, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if ferr != nil {
			return res, ferr
		}
		fmt.Fprintf(f, "%d\n", time.Since(start).Milliseconds())
		f.Close()
	}
	if err != nil {
		return res, err
	}
	if !res.Success {
		return res, fmt.Errorf("%s: %s", t.Name(), res.Error)
	}
	return res, nil
}
