package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// TestRecordResultKeepsImagesInBlobs checks that a result's images go to
// the blob store and the journal keeps only their hashes, and that the
// projection hands the hashes back with the bytes one Image call away.
func TestRecordResultKeepsImagesInBlobs(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{})
	must(t, err)
	defer s.Close()
	png := []byte("\x89PNG\r\n\x1a\n not really a picture, but bytes to keep")
	must(t, s.Begin(ctx, "look"))
	must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "desktop", Arguments: json.RawMessage(`{}`)}}}}))
	must(t, s.RecordCall(ctx, call("c1", "desktop"), json.RawMessage(`{}`)))
	res := tool.Result{Success: true, Output: "a screenshot", Images: []tool.Image{{MIMEType: "image/png", Width: 4, Height: 3, Data: png}}}
	must(t, s.RecordResult(ctx, call("c1", "desktop"), res))
	must(t, s.Commit(ctx))
	if res.Images[0].Data == nil || res.Images[0].Hash != "" {
		t.Errorf("RecordResult changed the caller's image: %+v", res.Images[0])
	}

	journal, err := os.ReadFile(st.Path(s.ID()))
	must(t, err)
	hash := HashBytes(png)
	if !bytes.Contains(journal, []byte(hash)) {
		t.Errorf("the journal does not name the image by its hash %s", hash)
	}
	if enc, _ := json.Marshal(png); bytes.Contains(journal, enc[1:len(enc)-1]) {
		t.Errorf("the journal holds the image's bytes inline")
	}
	got, err := s.Image(ctx, hash)
	must(t, err)
	if !bytes.Equal(got, png) {
		t.Errorf("Image(%s) = %q, want the recorded bytes", hash[:12], got)
	}

	want := []llm.Image{{MIMEType: "image/png", Width: 4, Height: 3, Hash: hash}}
	hist := s.History()
	if diff := cmp.Diff(want, hist[len(hist)-1].Images); diff != "" {
		t.Errorf("History's tool message images (-want +got):\n%s", diff)
	}
	loaded, err := st.Load(ctx, s.ID())
	must(t, err)
	last := loaded.Turns[len(loaded.Turns)-1]
	if diff := cmp.Diff([]tool.Image{{MIMEType: "image/png", Width: 4, Height: 3, Hash: hash}}, last.Images); diff != "" {
		t.Errorf("the reloaded turn's images (-want +got):\n%s", diff)
	}
}

// TestStoreRecordPutsImagesInBlobs checks the MCP server's path: a pair
// recorded from outside a run, into a closed session.
func TestStoreRecordPutsImagesInBlobs(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), Header{})
	must(t, err)
	id := s.ID()
	must(t, s.Close())
	gif := []byte("GIF89a and some more")
	r := tool.Result{Success: true, Images: []tool.Image{{MIMEType: "image/gif", Data: gif}}}
	must(t, st.Record(context.Background(), id, call("m1", "read_file"), json.RawMessage(`{"path":"a.gif"}`), r))
	loaded, err := st.Load(t.Context(), id)
	must(t, err)
	last := loaded.Turns[len(loaded.Turns)-1]
	if len(last.Images) != 1 || last.Images[0].Hash != HashBytes(gif) || last.Images[0].Data != nil {
		t.Fatalf("recorded images = %+v, want one by hash without bytes", last.Images)
	}
	if !st.Blobs(id).Has(t.Context(), HashBytes(gif)) {
		t.Errorf("the blob store lacks the image")
	}
}

// TestForkKeepsImages: a fork's journal names the pictures of the turns
// it keeps by hash, so its blob store must hold them too.
func TestForkKeepsImages(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{})
	must(t, err)
	pic := []byte("\x89PNG\r\n\x1a\n a picture")
	must(t, s.Begin(ctx, "look"))
	must(t, s.RecordCall(ctx, call("c1", "desktop"), json.RawMessage(`{}`)))
	must(t, s.RecordResult(ctx, call("c1", "desktop"), tool.Result{Success: true, Images: []tool.Image{{MIMEType: "image/png", Data: pic}}}))
	must(t, s.Commit(ctx))
	must(t, s.Close())
	id, err := st.Fork(ctx, s.ID(), 3)
	must(t, err)
	f, err := st.Open(ctx, id)
	must(t, err)
	defer f.Close()
	if got, err := f.Image(ctx, HashBytes(pic)); err != nil || !bytes.Equal(got, pic) {
		t.Errorf("the fork's Image = %q, %v; want the picture", got, err)
	}
}

// TestPruneBlobsDropsOldImagesFirst: over the limit, the pictures of old
// results go before any file content, the newest PruneKeepImages stay,
// and a picture that is also a file's content is left to the file order.
func TestPruneBlobsDropsOldImagesFirst(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{})
	must(t, err)
	defer s.Close()
	pic := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 1000) }
	fileContent, err := s.Blobs().Put(ctx, pic(99))
	must(t, err)
	must(t, s.AppendFileRecords([]FileRecord{{Root: "/r", Path: "a.png", AfterHash: fileContent, Source: SourceTool}}))
	must(t, s.Begin(ctx, "look"))
	n := PruneKeepImages + 4
	for i := range n {
		c := call(fmt.Sprint("c", i), "desktop")
		must(t, s.RecordCall(ctx, c, json.RawMessage(`{}`)))
		imgs := []tool.Image{{MIMEType: "image/png", Data: pic(i)}}
		if i == 0 {
			imgs = append(imgs, tool.Image{MIMEType: "image/png", Data: pic(99)}) // read_file of a.png
		}
		must(t, s.RecordResult(ctx, c, tool.Result{Success: true, Images: imgs}))
	}
	must(t, s.Commit(ctx))
	rep, err := s.PruneBlobs(ctx, int64(1000*(PruneKeepImages+2)))
	must(t, err)
	if rep.Dropped != 3 {
		t.Errorf("PruneBlobs = %+v, want 3 pictures dropped", rep)
	}
	for i := range n {
		if got, want := s.Blobs().Has(ctx, HashBytes(pic(i))), i >= 3; got != want {
			t.Errorf("picture %d kept = %v, want %v", i, got, want)
		}
	}
	if !s.Blobs().Has(ctx, fileContent) {
		t.Errorf("the newest content of a.png was dropped")
	}
}
