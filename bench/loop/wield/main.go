// Command wield is the loop benchmark's driver for wield: the agent loop of
// the agent package with the OpenAI chat completions provider against the
// scripted server, one small tool, an in-memory session (-journal: a
// journaled one, fsync at every commit, as `wield run` keeps it).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"runtime/pprof"
	"time"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm/openai"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// AddInput is the benchmark tool's input.
type AddInput struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

func main() {
	url := flag.String("url", "", "the scripted server's base URL")
	rounds := flag.Int("rounds", 10, "tool rounds in the run")
	journal := flag.Bool("journal", false, "journal the session to disk, as wield run does")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the run to this file")
	flag.Parse()

	add := tool.New(tool.Spec{Name: "add", Description: "Add two integers.", Annotations: tool.Annotations{ReadOnly: true}},
		func(_ context.Context, _ *tool.Call, in AddInput) (tool.Result, error) {
			return tool.Text(fmt.Sprint(in.A + in.B)), nil
		})
	reg, err := tool.NewRegistry(add)
	if err != nil {
		log.Fatal(err)
	}
	model := fmt.Sprintf("loop-%d", *rounds)
	p, err := openai.New(openai.Config{BaseURL: *url, NoKey: true, Model: model})
	if err != nil {
		log.Fatal(err)
	}
	a, err := agent.New(agent.Config{Provider: p, Tools: reg, MaxRounds: *rounds + 1})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	var s agent.Session = agent.NewMemorySession("bench")
	if *journal {
		dir, err := os.MkdirTemp("", "wield-loop-bench")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		store := &session.Store{Dir: dir, Logger: slog.New(slog.DiscardHandler)}
		js, err := store.Create(ctx, session.Header{ID: "bench", Model: model})
		if err != nil {
			log.Fatal(err)
		}
		defer js.Close()
		s = js
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	out, err := a.Run(ctx, s, "Add numbers until told to stop.")
	if err != nil {
		log.Fatal(err)
	}
	if out.Rounds != *rounds+1 || out.Text != "done" {
		log.Fatalf("the run ended after %d rounds with %q (%s), want %d rounds and \"done\"", out.Rounds, out.Text, out.Reason, *rounds+1)
	}
	elapsed := time.Since(start)
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
	fmt.Printf("rounds=%d seconds=%.6f\n", *rounds, elapsed.Seconds())
}
