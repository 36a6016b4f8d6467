package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/tool"
	memorytools "github.com/wieldhq/wield/tools/memory"
)

func ExampleTools() {
	dir, _ := os.MkdirTemp("", "memory")
	defer os.RemoveAll(dir)
	store := memory.New(memory.Config{ProjectDir: filepath.Join(dir, ".wield", "memory")})
	reg, _ := tool.NewRegistry(memorytools.Tools(memorytools.Config{Store: store})...)
	runner := tool.NewRunner(reg, nil)
	for _, req := range []tool.Request{
		{Name: "memory", Arguments: json.RawMessage(`{"command":"create","path":"/memories/build.md","file_text":"Build with make all."}`)},
		{Name: "memory", Arguments: json.RawMessage(`{"command":"str_replace","path":"/memories/build.md","old_str":"make all","new_str":"make build"}`)},
		{Name: "memory", Arguments: json.RawMessage(`{"command":"view","path":"/memories/build.md"}`)},
		{Name: "memory", Arguments: json.RawMessage(`{"command":"view","path":"/memories/../secrets.md"}`)},
	} {
		res, _ := runner.Call(context.Background(), tool.Call{}, req)
		fmt.Println(res.ForModel())
	}
	// Output:
	// File created successfully at: /memories/build.md
	// The memory file has been edited.
	// Here's the content of /memories/build.md with line numbers:
	//      1	Build with make build.
	// Error: /memories/../secrets.md is not a clean path: no .., . or doubled slashes
}
