// Command conformance-server serves the fixtures of the official MCP
// conformance suite over streamable HTTP on a loopback address, built the
// way an embedder builds a wield MCP server:
//
//   - The fixture tools that wield's tool contract can express (text
//     results, errors, progress, a JSON Schema 2020-12 input schema) are
//     ordinary wield tools, served by [mcp.NewServer] through wield's
//     runner, validator and result mapping.
//   - Everything else the suite calls (image, audio and resource content,
//     logging, sampling, elicitation, prompts and resources) is added to the
//     go-sdk server that [mcp.Server.SDK] exposes: wield's tools return
//     text and data, and wield has no prompts or resources of its own.
//
// Usage:
//
//	conformance-server [-addr 127.0.0.1:0] [-json-response]
//
// It prints "serving MCP on http://ADDR/mcp" on standard error once it
// listens and serves until SIGTERM or SIGINT. The suite's scenarios that
// fail against it are listed, with the reason, in expected-failures.yml
// beside this file; scripts/mcp-interop.sh runs the suite.
//
//lint:file-ignore SA1019 the suite still tests logging and sampling, deprecated in revision 2026-07-28 (SEP-2577)
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/tool"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback `address` to serve on")
	jsonResponse := flag.Bool("json-response", false, "answer with JSON instead of SSE streams (progress, logging, sampling and elicitation then cannot reach the client during a call)")
	flag.Parse()
	if err := run(*addr, *jsonResponse); err != nil {
		log.Fatal(err)
	}
}

func run(addr string, jsonResponse bool) error {
	if err := mcp.CheckListenAddr(addr, false, ""); err != nil {
		return err
	}
	srv, err := newServer(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(&mcp.HTTPOptions{JSONResponse: jsonResponse}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "serving MCP on http://%s/mcp\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
}

// newServer returns the wield MCP server with every fixture registered.
func newServer(logger *slog.Logger) (*mcp.Server, error) {
	tools, err := wieldTools()
	if err != nil {
		return nil, err
	}
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		return nil, err
	}
	srv, err := mcp.NewServer(reg, &mcp.ServerOptions{Name: "wield-conformance-server", Version: "1.0.0", Logger: logger})
	if err != nil {
		return nil, err
	}
	addSDKTools(srv.SDK())
	addPrompts(srv.SDK())
	addResources(srv.SDK())
	return srv, nil
}

// noInput is the input of the fixtures that take no arguments.
type noInput struct{}

// schema202012 is the input schema of json_schema_2020_12_tool, which the
// suite expects to come back from tools/list keyword for keyword.
const schema202012 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "type": "object",
      "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
    }
  },
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"}
  },
  "additionalProperties": false
}`

// wieldTools are the fixtures written against wield's tool contract.
func wieldTools() ([]*tool.Tool, error) {
	readOnly := tool.Annotations{ReadOnly: true, ParallelSafe: true}
	simple := tool.New(tool.Spec{Name: "test_simple_text", Description: "Returns a simple text result.", Annotations: readOnly},
		func(context.Context, *tool.Call, noInput) (tool.Result, error) {
			return tool.Text("This is a simple text response for testing."), nil
		})
	failing := tool.New(tool.Spec{Name: "test_error_handling", Description: "Always fails, to test error results.", Annotations: readOnly},
		func(context.Context, *tool.Call, noInput) (tool.Result, error) {
			return tool.Failure("This tool intentionally returns an error for testing"), nil
		})
	progress := tool.New(tool.Spec{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100, about 50 ms apart.", Annotations: readOnly},
		func(ctx context.Context, c *tool.Call, _ noInput) (tool.Result, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					select {
					case <-time.After(50 * time.Millisecond):
					case <-ctx.Done():
						return tool.Failure("cancelled"), nil
					}
				}
				c.Emit(tool.Event{Message: fmt.Sprintf("step %d of 3", i+1), Progress: p, Total: 100})
			}
			return tool.Text("Progress reported at 0, 50 and 100 of 100."), nil
		})
	schema, err := tool.NewRaw(tool.Spec{Name: "json_schema_2020_12_tool", Description: "Takes arguments described with JSON Schema 2020-12 keywords.",
		InputSchema: json.RawMessage(schema202012), Annotations: readOnly},
		tool.HandlerFunc(func(_ context.Context, _ *tool.Call, args json.RawMessage) (tool.Result, error) {
			return tool.Text("Arguments accepted: " + string(args)), nil
		}))
	if err != nil {
		return nil, err
	}
	return []*tool.Tool{simple, failing, progress, schema}, nil
}

// A 1×1 PNG and a tiny WAV file, for the content fixtures.
var (
	pngData = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")
	wavData = mustBase64("UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=")
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// emptyObject is the input schema of the SDK fixtures without arguments.
var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

func result(content ...sdk.Content) *sdk.CallToolResult { return &sdk.CallToolResult{Content: content} }

// addSDKTools adds the fixtures whose results wield's tool contract cannot
// express: content other than text, and requests to the client.
func addSDKTools(s *sdk.Server) {
	fixed := func(name, desc string, content ...sdk.Content) {
		s.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: emptyObject},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return result(content...), nil
			})
	}
	fixed("test_image_content", "Returns an image.", &sdk.ImageContent{Data: pngData, MIMEType: "image/png"})
	fixed("test_audio_content", "Returns audio.", &sdk.AudioContent{Data: wavData, MIMEType: "audio/wav"})
	fixed("test_embedded_resource", "Returns an embedded resource.", &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
		URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}})
	fixed("test_multiple_content_types", "Returns text, an image and a resource.",
		&sdk.TextContent{Text: "Multiple content types test:"},
		&sdk.ImageContent{Data: pngData, MIMEType: "image/png"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}})

	s.AddTool(&sdk.Tool{Name: "test_tool_with_logging", Description: "Logs three messages while it runs.", InputSchema: emptyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if err := req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: msg, Logger: "conformance"}); err != nil {
					return nil, err
				}
			}
			return result(&sdk.TextContent{Text: "Tool with logging executed successfully"}), nil
		})

	s.AddTool(&sdk.Tool{Name: "test_sampling", Description: "Asks the client's model to complete a prompt.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct {
				Prompt string `json:"prompt"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 100,
				Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: in.Prompt}}}})
			if err != nil {
				return nil, fmt.Errorf("sampling: %w", err)
			}
			text := "(not text)"
			if tc, ok := res.Content.(*sdk.TextContent); ok {
				text = tc.Text
			}
			return result(&sdk.TextContent{Text: "LLM response: " + text}), nil
		})

	elicit := func(name, desc, message string, schema json.RawMessage, inputSchema json.RawMessage) {
		s.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: inputSchema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				msg := message
				if msg == "" {
					var in struct {
						Message string `json:"message"`
					}
					if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
						return nil, err
					}
					msg = in.Message
				}
				res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: msg, RequestedSchema: schema})
				if err != nil {
					return nil, fmt.Errorf("elicitation: %w", err)
				}
				content, _ := json.Marshal(res.Content)
				return result(&sdk.TextContent{Text: fmt.Sprintf("Elicitation result: action=%s, content=%s", res.Action, content)}), nil
			})
	}
	elicit("test_elicitation", "Asks the user for a username and an email address.", "",
		json.RawMessage(`{"type":"object","properties":{"username":{"type":"string","description":"Your username"},"email":{"type":"string","description":"Your email address"}},"required":["username","email"]}`),
		json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`))
	elicit("test_elicitation_sep1034_defaults", "Asks for values that have defaults (SEP-1034).", "Test defaults for primitive types",
		json.RawMessage(`{"type":"object","properties":{
			"name":{"type":"string","description":"User name","default":"John Doe"},
			"age":{"type":"integer","description":"User age","default":30},
			"score":{"type":"number","description":"User score","default":95.5},
			"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
			"verified":{"type":"boolean","description":"Verification status","default":true}}}`),
		emptyObject)
	elicit("test_elicitation_sep1330_enums", "Asks for choices from enums of every form (SEP-1330).", "Test enum schema forms",
		json.RawMessage(`{"type":"object","properties":{
			"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
			"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
			"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
			"untitledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
			"titledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`),
		emptyObject)
}

// addPrompts adds the suite's prompts.
func addPrompts(s *sdk.Server) {
	user := func(c sdk.Content) *sdk.PromptMessage { return &sdk.PromptMessage{Role: "user", Content: c} }
	s.AddPrompt(&sdk.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments."},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{user(&sdk.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.",
		Arguments: []*sdk.PromptArgument{{Name: "arg1", Description: "First argument", Required: true}, {Name: "arg2", Description: "Second argument", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			a := req.Params.Arguments
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{user(&sdk.TextContent{
				Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])})}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.",
		Arguments: []*sdk.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			uri := req.Params.Arguments["resourceUri"]
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
				user(&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				user(&sdk.TextContent{Text: "Please process the embedded resource above."}),
			}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image."},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
				user(&sdk.ImageContent{Data: pngData, MIMEType: "image/png"}),
				user(&sdk.TextContent{Text: "Please analyze the image above."}),
			}}, nil
		})
}

// addResources adds the suite's resources and resource template.
func addResources(s *sdk.Server) {
	contents := func(c *sdk.ResourceContents) *sdk.ReadResourceResult {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{c}}
	}
	s.AddResource(&sdk.Resource{URI: "test://static-text", Name: "static-text", Description: "A text resource.", MIMEType: "text/plain"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return contents(&sdk.ResourceContents{URI: "test://static-text", MIMEType: "text/plain", Text: "This is the content of the static text resource."}), nil
		})
	s.AddResource(&sdk.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A binary resource.", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return contents(&sdk.ResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: pngData}), nil
		})
	s.AddResource(&sdk.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource clients may subscribe to.", MIMEType: "text/plain"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return contents(&sdk.ResourceContents{URI: "test://watched-resource", MIMEType: "text/plain", Text: "Watched resource content."}), nil
		})
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: "A resource per id.", MIMEType: "application/json"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			uri := req.Params.URI
			id := strings.TrimSuffix(strings.TrimPrefix(uri, "test://template/"), "/data")
			b, _ := json.Marshal(map[string]string{"id": id, "templateTest": "true", "data": "Data for ID: " + id})
			return contents(&sdk.ResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}), nil
		})
}
