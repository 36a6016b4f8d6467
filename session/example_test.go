package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// tempStore returns a Store in a new temporary directory and a function
// that removes it.
func tempStore(secrets ...string) (*session.Store, func()) {
	dir, err := os.MkdirTemp("", "wield-sessions-")
	if err != nil {
		log.Fatal(err)
	}
	return &session.Store{Dir: dir, Secrets: secrets}, func() { os.RemoveAll(dir) }
}

// check stops the example on an error.
func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// printTurns prints one line per turn.
func printTurns(turns []session.Turn) {
	for i, t := range turns {
		switch t.Kind {
		case session.TurnUserTask:
			fmt.Printf("%d %s %q\n", i+1, t.Kind, t.Text)
		case session.TurnModelResponse:
			fmt.Printf("%d %s calls %s\n", i+1, t.Kind, t.Calls[0].Name)
		case session.TurnFunctionCalling:
			fmt.Printf("%d %s %s %s\n", i+1, t.Kind, t.Tool, t.Arguments)
		case session.TurnToolResponse:
			fmt.Printf("%d %s %s %q\n", i+1, t.Kind, t.Status, t.Output)
		}
	}
}

// Example records one round of work: the task opens a transaction, the
// model's reply, its tool call and the result join the pool, and Commit
// makes them turns. A reader loads the journal without taking the lock.
// The API key listed in Secrets never reaches the journal.
func Example() {
	ctx := context.Background()
	st, cleanup := tempStore("sk-example-0123456789")
	defer cleanup()

	s, err := st.Create(ctx, session.Header{ID: "demo", Purpose: "say hello"})
	if err != nil {
		log.Fatal(err)
	}
	args := json.RawMessage(`{"text":"hello"}`)
	call := &tool.Call{SessionID: s.ID(), ID: "c1", Tool: "echo"}
	check(s.Begin(ctx, "say hello; the key is sk-example-0123456789"))
	check(s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: call.ID, Name: call.Tool, Arguments: args}}}}))
	check(s.RecordCall(ctx, call, args))
	check(s.RecordResult(ctx, call, tool.Text("hello")))
	check(s.Commit(ctx))
	check(s.Close())

	state, err := st.Load(ctx, "demo")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(state.Header.Purpose, "- open:", state.Open())
	printTurns(state.Turns)
	// Output:
	// say hello - open: false
	// 1 user_task "say hello; the key is [REDACTED]"
	// 2 model_response calls echo
	// 3 function_calling echo {"text":"hello"}
	// 4 tool_response succeeded "hello"
}

// Example_repair shows what Open does with a journal whose run stopped
// mid-transaction: the transaction is closed as aborted, and the call
// that never got a result gets an interrupted one, so the next prompt has
// a result for every call.
func Example_repair() {
	ctx := context.Background()
	st, cleanup := tempStore()
	defer cleanup()

	s, err := st.Create(ctx, session.Header{ID: "crashed"})
	if err != nil {
		log.Fatal(err)
	}
	call := &tool.Call{ID: "c1", Tool: "run_shell_command"}
	check(s.Begin(ctx, "build it"))
	check(s.RecordCall(ctx, call, json.RawMessage(`{"command":"make"}`)))
	check(s.Close()) // the run stops here, without a result or a commit

	s, err = st.Open(ctx, "crashed")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	state := s.State()
	printTurns(state.Turns)
	fmt.Println("transaction:", state.Pools[0].Status)
	// Output:
	// 1 user_task "build it"
	// 2 function_calling run_shell_command {"command":"make"}
	// 3 tool_response failed "Error: interrupted: the run stopped before this call finished"
	// transaction: aborted
}

// ExampleBusyError shows the error a second writer gets. One process
// writes a session at a time; the error says which session is taken, and
// the host decides what to suggest (wield's command line suggests waiting
// or forking it).
func ExampleBusyError() {
	ctx := context.Background()
	st, cleanup := tempStore()
	defer cleanup()

	s, err := st.Create(ctx, session.Header{ID: "taken"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	_, err = st.Open(ctx, "taken")
	if busy, ok := errors.AsType[*session.BusyError](err); ok {
		fmt.Println("busy:", busy.ID)
	}
	_, err = st.Open(ctx, "missing")
	fmt.Println("not found:", errors.Is(err, session.ErrNotFound))
	// Output:
	// busy: taken
	// not found: true
}

// ExampleStore_Fork copies a session up to a turn into a new session whose
// header names its parent.
func ExampleStore_Fork() {
	ctx := context.Background()
	st, cleanup := tempStore()
	defer cleanup()

	s, err := st.Create(ctx, session.Header{ID: "parent"})
	if err != nil {
		log.Fatal(err)
	}
	check(s.Begin(ctx, "first task"))
	check(s.Commit(ctx))
	check(s.Begin(ctx, "second task"))
	check(s.Commit(ctx))
	check(s.Close())

	id, err := st.Fork(ctx, "parent", 1)
	if err != nil {
		log.Fatal(err)
	}
	fork, err := st.Load(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("parent:", fork.Header.ParentID, "at turn", fork.ForkedFrom.Turn)
	printTurns(fork.Turns)
	// Output:
	// parent: parent at turn 1
	// 1 user_task "first task"
}
