package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/wieldhq/wield/internal/imageinfo"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// DefaultMaxImages is the number of tool images a prompt keeps when
// [Config.MaxImages] is zero: a screenshot costs about a thousand tokens,
// and a model acting on a screen needs the last few, not all of them.
const DefaultMaxImages = 3

// ImageStore is implemented by sessions that keep the bytes of tool
// images apart from their history, as [*session.Session] keeps them in
// its blob store: a tool message from History or Pool may then carry an
// image's Hash without its Data, and Image returns the bytes. It must be
// safe for concurrent use.
type ImageStore interface {
	Image(ctx context.Context, hash string) ([]byte, error)
}

// KeepImages returns msgs with only the last keep images of tool messages
// left in them; each older image is replaced by a one-line note at the
// end of its message's text, saying which call it came from (see
// [OmittedImageNote]). The note depends only on the image and its call,
// so that a prompt's stubbed prefix stays the same from one round to the
// next. A negative keep drops every image. msgs is not changed.
func KeepImages(msgs []llm.Message, keep int) []llm.Message {
	keep = max(keep, 0)
	total := 0
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			total += len(m.Images)
		}
	}
	drop := total - keep
	if drop <= 0 {
		return msgs
	}
	out := make([]llm.Message, len(msgs))
	copy(out, msgs)
	for i := range out {
		m := &out[i]
		if m.Role != llm.RoleTool || len(m.Images) == 0 || drop == 0 {
			continue
		}
		n := min(drop, len(m.Images))
		content := m.Content
		for _, img := range m.Images[:n] {
			content = withNote(content, OmittedImageNote(m.ToolCallID, m.ToolName, img))
		}
		m.Content = content
		m.Images = m.Images[n:len(m.Images):len(m.Images)]
		if len(m.Images) == 0 {
			m.Images = nil
		}
		drop -= n
	}
	return out
}

// OmittedImageNote is the line that stands in a prompt for an image
// [KeepImages] left out.
func OmittedImageNote(callID, toolName string, img llm.Image) string {
	return fmt.Sprintf("[image from call %s omitted: %s; call %s again to see it]", callID, img.Describe(), toolName)
}

// badImageNote stands for an image that could not be loaded or is no
// picture a model takes.
func badImageNote(callID string, img llm.Image, err error) string {
	return fmt.Sprintf("[image from call %s not shown: %s; %v]", callID, img.Describe(), err)
}

func withNote(content, note string) string {
	if content == "" {
		return note
	}
	return content + "\n" + note
}

// loadImages fills in the bytes of the images in msgs that carry only a
// hash, from s when it is an [ImageStore], caching them in cache (which
// it trims to the images of msgs), and checks every image's header: an
// image that cannot be loaded, or is no picture a model takes (a PNG,
// JPEG, GIF or WebP of at most imageinfo.MaxSide pixels a side), becomes
// a note, since one bad picture would make the provider refuse every
// request of the session. The type sent is the one the header says. It
// changes the messages of msgs in place (they are the prompt's own) but
// not their image slices, which may be shared with the session.
func loadImages(ctx context.Context, s Session, msgs []llm.Message, cache map[string][]byte) {
	store, _ := s.(ImageStore)
	used := map[string]bool{}
	for i := range msgs {
		m := &msgs[i]
		if m.Role != llm.RoleTool || len(m.Images) == 0 {
			continue
		}
		var imgs []llm.Image
		for _, img := range m.Images {
			if len(img.Data) == 0 {
				data, ok := cache[img.Hash]
				var err error
				switch {
				case ok:
				case img.Hash == "" || store == nil:
					err = errors.New("its bytes were not kept")
				default:
					data, err = store.Image(ctx, img.Hash)
				}
				if err != nil {
					m.Content = withNote(m.Content, badImageNote(m.ToolCallID, img, err))
					continue
				}
				cache[img.Hash], used[img.Hash] = data, true
				img.Data = data
			}
			info, err := imageinfo.Read(img.Data)
			if err == nil && (info.Width > imageinfo.MaxSide || info.Height > imageinfo.MaxSide) {
				err = fmt.Errorf("it is %dx%d, more than the %d pixels a side models take", info.Width, info.Height, imageinfo.MaxSide)
			}
			if err != nil {
				m.Content = withNote(m.Content, badImageNote(m.ToolCallID, img, err))
				continue
			}
			img.MIMEType = info.MIMEType
			if img.Width <= 0 || img.Height <= 0 {
				img.Width, img.Height = info.Width, info.Height
			}
			imgs = append(imgs, img)
		}
		m.Images = imgs
	}
	for h := range cache {
		if !used[h] {
			delete(cache, h)
		}
	}
}

// toolMessage is the tool message of call req's result.
func toolMessage(req tool.Request, res tool.Result) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: req.ID, ToolName: req.Name, Content: res.ForModel(), Images: llmImages(res.Images)}
}

// llmImages converts a result's images for a message.
func llmImages(imgs []tool.Image) []llm.Image {
	if len(imgs) == 0 {
		return nil
	}
	out := make([]llm.Image, len(imgs))
	for i, img := range imgs {
		out[i] = llm.Image{MIMEType: img.MIMEType, Width: img.Width, Height: img.Height, Hash: img.Hash, Data: img.Data}
	}
	return out
}
