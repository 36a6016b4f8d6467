package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/wieldhq/wield/agent"
)

// streamPieces are what the texts of TestStreamView are made of: words,
// runs of spaces, newlines and tabs, hyphens, and characters that are
// wide, combine, join or do not break.
var streamPieces = []string{
	"word", "a", "streaming", "supercalifragilisticexpialidocious", " ", " ", " ", "  ", "   ", "\n", "\n\n", "\t",
	"-", "a-b", "--", "—", "é", "e\u0301", "中文字", "👍", "👨\u200d👩\u200d👧", "🇫🇷", "\u00a0", "\u3000", "\u200b",
	"\u0600" + "1", "\u1100\u1161\u11a8", "क्षि", "\u0085", "!", "`code`", "**bold**",
}

// streamRaw are pieces that lipgloss renders in ways a streamView does not
// extend, which it must hand to lipgloss: an escape sequence, carriage
// returns, bytes that are not UTF-8.
var streamRaw = []string{"\x1b[1m", "\x1b[0m", "\r\n", "\r", "\xff", "\x9b"}

// streamText returns a text of n pieces drawn by r, with a raw piece
// among them when raw is set.
func streamText(r *rand.Rand, n int, raw bool) string {
	var b strings.Builder
	for range n {
		b.WriteString(streamPieces[r.IntN(len(streamPieces))])
	}
	if raw {
		s := b.String()
		i := r.IntN(len(s) + 1)
		return s[:i] + streamRaw[r.IntN(len(streamRaw))] + s[i:]
	}
	return b.String()
}

// checkStream streams text into a streamView in the parts cuts gives
// (byte counts, cutting characters in two too) and checks each frame
// against lipgloss rendering the text so far whole.
func checkStream(t *testing.T, v *streamView, text string, width int, cuts func() int) {
	t.Helper()
	for end := 0; end < len(text); {
		end = min(end+cuts(), len(text))
		got := v.render(text[:end], width)
		want := lipgloss.NewStyle().Width(width).Render(strings.TrimRight(text[:end], "\n"))
		if got != want {
			t.Fatalf("width %d, the text so far %q:\nstreamView renders %q\nlipgloss renders   %q", width, text[:end], got, want)
		}
	}
}

// TestStreamView checks that the screen's view of a streaming message is
// byte for byte what lipgloss renders from the whole text, frame after
// frame, at widths from 1 column on: texts drawn from fixed seeds, in
// parts of a few bytes, some with what only lipgloss renders.
func TestStreamView(t *testing.T) {
	r := rand.New(rand.NewPCG(20261129, 8))
	cuts := func() int { return 1 + r.IntN(8) }
	for i := range 24 {
		raw := i%4 == 3
		text := streamText(r, 20+r.IntN(60), raw)
		for _, width := range []int{1, 2, 3, 5, 8, 13, 21, 80} {
			t.Run(fmt.Sprintf("text%d/width%d", i, width), func(t *testing.T) {
				checkStream(t, &streamView{}, text, width, cuts)
			})
		}
	}
	t.Run("anew", func(t *testing.T) {
		// One view through messages that follow each other, and a
		// screen that changes width mid-message.
		var v streamView
		for _, step := range []struct {
			text  string
			width int
		}{
			{streamText(r, 60, false), 20},
			{streamText(r, 60, false), 20},
			{"", 20},
			{streamText(r, 60, true), 13},
			{streamText(r, 60, false), 13},
		} {
			checkStream(t, &v, step.text, step.width, cuts)
			checkStream(t, &v, step.text, step.width+7, func() int { return len(step.text) })
		}
	})
}

// FuzzStreamView: a streaming message renders, at every frame, as
// lipgloss renders its text so far.
func FuzzStreamView(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		f.Add(streamText(r, 30, i%5 == 4), uint8(1+r.IntN(40)), []byte{3, 1, 7, 2})
	}
	f.Fuzz(func(t *testing.T, text string, width uint8, cuts []byte) {
		if width == 0 || len(cuts) == 0 {
			return
		}
		n := 0
		checkStream(t, &streamView{}, text, int(width), func() int {
			n++
			return 1 + int(cuts[n%len(cuts)]%16)
		})
	})
}

// BenchmarkChatScreen_StreamingFrame measures the frames of the chat's
// screen while a long reply streams in: a reply of 600 words, one word
// a frame, as the replay provider streams it; ns/frame is the cost of
// one.
func BenchmarkChatScreen_StreamingFrame(b *testing.B) {
	words := make([]string, 600)
	for i := range words {
		words[i] = fmt.Sprintf(" word%d", i)
	}
	m := &chatModel{width: 80, input: newChatInput(false), running: true}
	m.input.SetWidth(79)
	b.ReportAllocs()
	for b.Loop() {
		m.text.Reset()
		for _, w := range words {
			m.event(agent.Event{Kind: agent.EventText, Text: w})
			m.screen()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/frame")
}
