package mcp_test

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/mcp"
)

// Diagnose starts each server in a manager of its own and says what it
// found; a server that fails says where, why and what to do.
func ExampleManager_Diagnose() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "greeter", Version: "1.2"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, _ *sdk.CallToolRequest, in greetInput) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	inProcess := func(ctx context.Context) (sdk.Transport, error) {
		client, server := sdk.NewInMemoryTransports()
		_, err := srv.Connect(ctx, server, nil)
		return client, err
	}
	m := mcp.NewManager(map[string]mcp.ServerConfig{
		"greeter": {Transport: inProcess},
		"missing": {Command: "wield-example-no-such-command"},
	}, nil)
	defer m.Close()
	rep, err := m.Diagnose(context.Background())
	if err != nil {
		fmt.Println(err)
	}
	for _, d := range rep.Servers {
		fmt.Println(d.Name, d.Status, d.ServerName, d.ServerVersion, d.Mounted)
		if d.Status == mcp.StatusFailed {
			fmt.Printf("  %s: %s\n", d.Stage, d.Problem)
		}
	}
	fmt.Println("healthy:", rep.Healthy())
	// Output:
	// greeter ok greeter 1.2 [mcp__greeter__greet]
	// missing failed   []
	//   start: command "wield-example-no-such-command" was not found
	// healthy: false
}
