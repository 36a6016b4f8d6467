package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
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

// shotBytes returns a 64×48 PNG whose first pixel encodes id, so that
// each call's picture has bytes of its own.
func shotBytes(id string) []byte {
	m := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range min(len(id), 4) {
		m.Pix[i] = id[i]
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		panic(err) // cannot fail on an in-memory buffer
	}
	return buf.Bytes()
}

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
	s, err := store.Create(t.Context(), session.Header{ID: "shots"})
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
			if got, err := s.Image(t.Context(), img.Hash); err != nil || !bytes.Equal(got, shotBytes(turn.CallID)) {
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

// fakeStore is an ImageStore over a map.
type fakeStore struct {
	*MemorySession
	blobs map[string][]byte
}

func (f fakeStore) Image(_ context.Context, hash string) ([]byte, error) {
	if b, ok := f.blobs[hash]; ok {
		return b, nil
	}
	return nil, errors.New("no such blob")
}

// TestLoadImages checks what reaches a provider: pictures by hash are
// loaded, their type is the one the header says, and what cannot be
// loaded or is no picture becomes a note instead of a request the
// provider would refuse.
func TestLoadImages(t *testing.T) {
	pic := shotBytes("ok")
	s := fakeStore{NewMemorySession("s"), map[string][]byte{"h1": pic, "h2": []byte("junk")}}
	msgs := []llm.Message{
		{Role: llm.RoleTool, ToolCallID: "a", Content: "one", Images: []llm.Image{
			{MIMEType: "image/jpeg", Hash: "h1"},                     // loaded, its type corrected
			{MIMEType: "image/png", Width: 2, Height: 2, Hash: "h2"}, // no picture
			{MIMEType: "image/png", Hash: "h3"},                      // missing
		}},
		{Role: llm.RoleTool, ToolCallID: "b", Images: []llm.Image{{MIMEType: "image/bmp", Data: []byte("BM")}}},
	}
	shared := msgs[0].Images
	cache := map[string][]byte{"stale": nil}
	loadImages(t.Context(), s, msgs, cache)
	if len(msgs[0].Images) != 1 || msgs[0].Images[0].MIMEType != "image/png" || msgs[0].Images[0].Width != 64 || !bytes.Equal(msgs[0].Images[0].Data, pic) {
		t.Errorf("images of a = %+v, want the loaded PNG", msgs[0].Images)
	}
	want := "one\n[image from call a not shown: 2x2 png; not a PNG, JPEG, GIF or WebP picture]\n" +
		"[image from call a not shown: png; no such blob]"
	if msgs[0].Content != want {
		t.Errorf("content of a =\n%s\nwant\n%s", msgs[0].Content, want)
	}
	if msgs[1].Images != nil || msgs[1].Content != "[image from call b not shown: bmp; not a PNG, JPEG, GIF or WebP picture]" {
		t.Errorf("b = %+v", msgs[1])
	}
	if shared[0].Data != nil {
		t.Errorf("loadImages wrote into the session's image slice")
	}
	if _, ok := cache["stale"]; ok || !bytes.Equal(cache["h1"], pic) {
		t.Errorf("cache = %v, want h1 only", cache)
	}
}
