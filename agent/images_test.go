package agent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// shotTool returns a tool that answers each call with a picture of its
// own bytes, as the desktop tool's screenshot does.
func shotTool() *tool.Tool {
	return tool.New(tool.Spec{Name: "shot", Description: "takes a screenshot"}, func(_ context.Context, c *tool.Call, _ textIn) (tool.Result, error) {
		return tool.Result{Success: true, Output: "screenshot " + c.ID,
			Images: []tool.Image{{MIMEType: "image/png", Width: 64, Height: 48, Data: shotBytes(c.ID)}}}, nil
	})
}

func shotBytes(id string) []byte { return []byte("\x89PNG\r\n\x1a\npicture of " + id) }

// TestImageBudget runs five screenshots over two tasks in a journaled
// session: the last request carries only the last three pictures (one of
// them read back from the blob store), the two older ones are one-line
// stubs that stayed the same from round to round, and the journal names
// all five by hash with their bytes in the blob store.
func TestImageBudget(t *testing.T) {
	call := func(turn, round int, id string) string {
		return fmt.Sprintf(`{"turn":%d,"round":%d,"tool_calls":[{"id":%q,"name":"shot","arguments":{"text":"x"}}]}`, turn, round, id)
	}
	p := script(t,
		call(1, 1, "c1"), call(1, 2, "c2"), call(1, 3, "c3"),
		`{"turn":1,"round":4,"text":"looked three times"}`,
		call(2, 1, "c4"), call(2, 2, "c5"),
		`{"turn":2,"round":3,"text":"looked twice more"}`)
	a := newAgent(t, p, testRegistry(t, shotTool()), Config{})
	store := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	s, err := store.Create(session.Header{ID: "shots"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, task := range []string{"look", "look again"} {
		if out, err := a.Run(t.Context(), s, task); err != nil || out.Reason != StopAnswer {
			t.Fatalf("Run(%q) = %+v, %v", task, out, err)
		}
	}

	reqs := p.Requests()
	last := reqs[len(reqs)-1]
	var kept []string
	stubs := map[string]string{}
	for _, m := range last.Messages {
		for _, img := range m.Images {
			if !bytes.Equal(img.Data, shotBytes(m.ToolCallID)) {
				t.Errorf("image of %s carries %q, want its bytes", m.ToolCallID, img.Data)
			}
			kept = append(kept, m.ToolCallID)
		}
		if m.Role == llm.RoleTool && strings.Contains(m.Content, "omitted") {
			stubs[m.ToolCallID] = m.Content
		}
	}
	if diff := cmp.Diff([]string{"c3", "c4", "c5"}, kept); diff != "" {
		t.Errorf("images in the last request (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"c1": "screenshot c1\n[image from call c1 omitted: 64x48 png; call shot again to see it]",
		"c2": "screenshot c2\n[image from call c2 omitted: 64x48 png; call shot again to see it]",
	}
	if diff := cmp.Diff(want, stubs); diff != "" {
		t.Errorf("stubs in the last request (-want +got):\n%s", diff)
	}
	// The stub of c1 was written when c4 came in and never changed after.
	prev := reqs[len(reqs)-2]
	for _, m := range prev.Messages {
		if m.ToolCallID == "c1" && m.Content != want["c1"] {
			t.Errorf("c1 in the request before the last = %q, want the same stub %q", m.Content, want["c1"])
		}
	}

	st := s.State()
	var hashes []string
	for _, turn := range st.Turns {
		for _, img := range turn.Images {
			if img.Data != nil {
				t.Errorf("turn of %s keeps image bytes in the journal", turn.CallID)
			}
			hashes = append(hashes, img.Hash)
			if got, err := s.Image(img.Hash); err != nil || !bytes.Equal(got, shotBytes(turn.CallID)) {
				t.Errorf("blob of %s = %q, %v; want its bytes", turn.CallID, got, err)
			}
		}
	}
	if len(hashes) != 5 {
		t.Errorf("the journal names %d images, want 5", len(hashes))
	}
}

func TestKeepImages(t *testing.T) {
	img := llm.Image{MIMEType: "image/jpeg", Width: 10, Height: 20, Data: []byte("x")}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "task"},
		{Role: llm.RoleTool, ToolCallID: "a", ToolName: "read_file", Content: "two", Images: []llm.Image{img, img}},
		{Role: llm.RoleTool, ToolCallID: "b", ToolName: "desktop", Images: []llm.Image{img}},
	}
	tests := []struct {
		keep int
		want []string // content, then the number of images, per tool message
	}{
		{keep: 3, want: []string{"two", "2", "", "1"}},
		{keep: 2, want: []string{"two\n[image from call a omitted: 10x20 jpeg; call read_file again to see it]", "1", "", "1"}},
		{keep: 0, want: []string{"two\n[image from call a omitted: 10x20 jpeg; call read_file again to see it]\n[image from call a omitted: 10x20 jpeg; call read_file again to see it]", "0",
			"[image from call b omitted: 10x20 jpeg; call desktop again to see it]", "0"}},
		{keep: -1, want: []string{"two\n[image from call a omitted: 10x20 jpeg; call read_file again to see it]\n[image from call a omitted: 10x20 jpeg; call read_file again to see it]", "0",
			"[image from call b omitted: 10x20 jpeg; call desktop again to see it]", "0"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.keep), func(t *testing.T) {
			got := KeepImages(msgs, tt.keep)
			var sum []string
			for _, m := range got[1:] {
				sum = append(sum, m.Content, fmt.Sprint(len(m.Images)))
			}
			if diff := cmp.Diff(tt.want, sum); diff != "" {
				t.Errorf("KeepImages(%d) (-want +got):\n%s", tt.keep, diff)
			}
			if len(msgs[1].Images) != 2 || msgs[1].Content != "two" {
				t.Errorf("KeepImages changed its input: %+v", msgs[1])
			}
		})
	}
}
