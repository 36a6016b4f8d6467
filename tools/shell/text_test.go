package shell

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		from   int64
		want   string
	}{
		{"fits", 16, []string{"abc", "def"}, 0, "abcdef"},
		{"from an offset", 16, []string{"abc", "def"}, 2, "cdef"},
		{"head and wrapped tail", 8, []string{"0123", "4567", "89ab"}, 0, "01\n[... 4 bytes of output not kept ...]\n6789ab"},
		{"one write larger than the tail", 8, []string{"0123456789abcdef"}, 0, "01\n[... 8 bytes of output not kept ...]\nabcdef"},
		{"from inside the tail", 8, []string{"0123", "4567", "89ab"}, 8, "89ab"},
		{"from the end", 8, []string{"0123"}, 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(tt.limit)
			for _, w := range tt.writes {
				c.write([]byte(w))
			}
			got, end := c.since(tt.from)
			if string(got) != tt.want || end != c.size() {
				t.Errorf("since(%d) = %q, %d; want %q, %d", tt.from, got, end, tt.want, c.size())
			}
		})
	}
}

// TestCaptureKeepsHeadAndTail writes many small chunks and checks the
// kept bytes against the whole.
func TestCaptureKeepsHeadAndTail(t *testing.T) {
	c := newCapture(1000)
	var all bytes.Buffer
	for i := range 3000 {
		chunk := []byte(strings.Repeat(string(rune('a'+i%26)), i%7+1))
		all.Write(chunk)
		c.write(chunk)
	}
	got, _ := c.since(0)
	head, tail := all.Bytes()[:250], all.Bytes()[all.Len()-750:]
	if !bytes.HasPrefix(got, head) || !bytes.HasSuffix(got, tail) {
		t.Errorf("kept output does not start with the first 250 bytes and end with the last 750")
	}
}

func TestRender(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes
	tests := []struct {
		name    string
		out     string
		limit   int
		want    string
		partial bool
	}{
		{"empty", "", 100, "", false},
		{"text", "hello\n", 100, "hello\n", false},
		{"NUL is binary", "a\x00b", 100, "[binary output: 3 bytes, not shown]", true},
		{"mostly invalid is binary", "\xff\xfe\xfd\xfc ok", 100, "[binary output: 7 bytes, not shown]", true},
		{"some invalid is text", "a fairly long line with one \xff bad byte", 100, "a fairly long line with one \uFFFD bad byte", false},
		{"carriage returns", "a\rb\rc\nd\r\n", 100, "c\nd\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, partial := render([]byte(tt.out), tt.limit)
			if got != tt.want || partial != tt.partial {
				t.Errorf("render(%q) = %q, %v; want %q, %v", tt.out, got, partial, tt.want, tt.partial)
			}
		})
	}
	got, partial := render([]byte(long), 1000)
	if !partial || !utf8.ValidString(got) || len(got) > 1100 || !strings.Contains(got, "bytes omitted") {
		t.Errorf("render of 6000 bytes at 1000 = %d bytes, partial %v: %q", len(got), partial, got)
	}
}

func TestTailLines(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 1, "c\n"},
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc\n", 5, "a\nb\nc\n"},
		{"a\nb\nc", 1, "c"},
		{"", 3, ""},
		{"a\n", 0, ""},
	}
	for _, tt := range tests {
		if got := tailLines(tt.in, tt.n); got != tt.want {
			t.Errorf("tailLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestPartialRune(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{{"abc", 0}, {"ab\xc3", 1}, {"ab\xe2\x82", 2}, {"é", 0}, {"\xf0\x9f\x98", 3}, {"", 0}} {
		if got := partialRune([]byte(tt.in)); got != tt.want {
			t.Errorf("partialRune(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "OPENAI_API_KEY": true, "AWS_SECRET_ACCESS_KEY": true, "PGPASSWORD": true,
		"DB_PASS": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "npm_config__authToken": true, "HF_TOKEN": true,
		"PATH": false, "HOME": false, "SSH_AUTH_SOCK": false, "TOKENIZERS_PARALLELISM": false, "KEYBOARD": false, "PWD": false,
	} {
		if got := secretName(name); got != want {
			t.Errorf("secretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParseStat(t *testing.T) {
	line := []byte("1234 (a (weird) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 98765 1000 10 18446744073709551615\n")
	p, ok := parseStat(line)
	want := pinfo{pid: 1234, ppid: 1, pgid: 1234, sid: 1234, state: 'S', start: 98765}
	if !ok || p != want {
		t.Errorf("parseStat = %+v, %v; want %+v", p, ok, want)
	}
	for _, bad := range []string{"", "1234", "x (a) S 1", "1234 (a) S 1 2 3"} {
		if _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

// FuzzParseStat formats /proc/PID/stat lines the way the kernel does
// (fs/proc/array.c), from fields the fuzzer picks, with command names
// that hold spaces, parentheses and newlines, and checks that parseStat
// gives the fields back.
func FuzzParseStat(f *testing.F) {
	f.Add(uint32(1234), []byte("a (weird) name"), byte('S'), uint32(1), uint32(1234), uint32(1234), uint64(98765), int64(0))
	f.Add(uint32(1), []byte(")"), byte('R'), uint32(0), uint32(0), uint32(0), uint64(0), int64(-1))
	f.Add(uint32(7), []byte(") R 1 2 3 4"), byte('Z'), uint32(2), uint32(3), uint32(4), uint64(1<<63), int64(42))
	f.Add(uint32(4194304), []byte("x)\n(y"), byte('D'), uint32(4194303), uint32(1), uint32(1), uint64(18446744073709551615), int64(7))
	f.Fuzz(func(t *testing.T, pid uint32, comm []byte, state byte, ppid, pgid, sid uint32, start uint64, seed int64) {
		// The kernel's names are at most 15 bytes with no NUL (64 for
		// kernel threads); fuzz longer ones all the same.
		comm = bytes.ReplaceAll(comm, []byte{0}, nil)
		if len(comm) > 64 {
			comm = comm[:64]
		}
		const states = "RSDTtXZPIKWx"
		want := pinfo{pid: int(pid%(1<<22)) + 1, ppid: int(ppid % (1 << 22)), pgid: int(pgid % (1 << 22)),
			sid: int(sid % (1 << 22)), state: states[int(state)%len(states)], start: start}
		line := formatStat(want, comm, seed)
		got, ok := parseStat(line)
		if !ok || got != want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v", line, got, ok, want)
		}
		// A line cut short before the start time must be refused, not
		// misread.
		cut := line[:bytes.LastIndexByte(line, ')')+2+len(fmt.Sprintf("%c", want.state))]
		if p, ok := parseStat(cut); ok {
			t.Errorf("parseStat(%q) = %+v, want a failure for a truncated line", cut, p)
		}
	})
}

// formatStat writes p as the kernel writes /proc/PID/stat: pid, (comm),
// state, ppid, pgrp, session, then the other fields up to and past the
// start time (field 22), which are filled from seed and may be negative.
func formatStat(p pinfo, comm []byte, seed int64) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d (%s) %c %d %d %d", p.pid, comm, p.state, p.ppid, p.pgid, p.sid)
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	for field := 7; field <= 52; field++ {
		if field == 22 {
			fmt.Fprintf(&b, " %d", p.start)
			continue
		}
		v := r.Int64()
		switch r.IntN(3) {
		case 0:
			v %= 100
		case 1:
			v = -v % 1000
		}
		fmt.Fprintf(&b, " %d", v)
	}
	b.WriteByte('\n')
	return b.Bytes()
}
