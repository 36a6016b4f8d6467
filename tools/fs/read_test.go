package fs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	long := strings.Repeat("é", maxLineChars+10)
	dir := makeTree(t, map[string]string{
		"five.txt":           numbered(5),
		"no-final-newline":   "a\nb",
		"empty":              "",
		"crlf.txt":           "one\r\ntwo\r\n",
		"long.txt":           "short\n" + long + "\n",
		"latin1.txt":         "caf\xe9\n",
		"utf16.txt":          "\xff\xfeh\x00i\x00\n\x00",
		"bom.txt":            "\xef\xbb\xbfhello\n",
		"bin.dat":            "ELF\x00\x01\x02",
		"not_a_file.go/x.go": "package x\n",
		"sub/target.txt":     "through a link\n",
		"link.txt":           "->sub/target.txt",
		"big.txt":            numbered(3000),
		"Readme.md":          "x\n",
		"dangling":           "->nowhere",
		"d/two words.txt":    "spaces\n",
	})
	call := testCall(t, dir)
	read := NewRead(Config{})
	tests := []struct {
		name   string
		in     ReadInput
		wantOK bool
		want   []string
		not    []string
	}{
		{"whole file", ReadInput{Path: "five.txt"}, true, []string{"1\tline 1\n", "5\tline 5"}, []string{"next:"}},
		{"offset and limit", ReadInput{Path: "five.txt", Offset: 2, Limit: 2}, true,
			[]string{"2\tline 2\n3\tline 3\n", "[lines 2-3 of 5; next: offset=4]"}, []string{"line 1", "line 4"}},
		{"offset to the end", ReadInput{Path: "five.txt", Offset: 4}, true, []string{"[lines 4-5 of 5: end of file]"}, nil},
		{"default limit", ReadInput{Path: "big.txt"}, true,
			[]string{"[lines 1-", "of 3000", "next: offset="}, []string{"line 2001"}},
		{"absolute path inside", ReadInput{Path: filepath.Join(dir, "five.txt"), Limit: 1}, true, []string{"1\tline 1"}, nil},
		{"no final newline", ReadInput{Path: "no-final-newline"}, true, []string{"1\ta\n2\tb"}, nil},
		{"empty", ReadInput{Path: "empty"}, true, []string{"empty"}, nil},
		{"CRLF shown without CR", ReadInput{Path: "crlf.txt"}, true, []string{"1\tone\n2\ttwo"}, []string{"\r"}},
		{"long line cut", ReadInput{Path: "long.txt"}, true, []string{fmt.Sprintf("[line cut: %d characters]", maxLineChars+10)}, nil},
		{"invalid UTF-8", ReadInput{Path: "latin1.txt"}, true, []string{"caf\uFFFD", "not valid UTF-8"}, nil},
		{"UTF-16", ReadInput{Path: "utf16.txt"}, true, []string{"1\thi", "decoded from UTF-16LE"}, nil},
		{"UTF-8 BOM dropped", ReadInput{Path: "bom.txt"}, true, []string{"1\thello"}, []string{"\ufeff"}},
		{"binary described", ReadInput{Path: "bin.dat"}, true, []string{"binary file", "not shown"}, []string{"ELF"}},
		{"link inside", ReadInput{Path: "link.txt"}, true, []string{"through a link"}, nil},
		{"spaces in the name", ReadInput{Path: "d/two words.txt"}, true, []string{"spaces"}, nil},
		{"directory", ReadInput{Path: "not_a_file.go"}, false, []string{"not_a_file.go is a directory", "list_directory"}, nil},
		{"root", ReadInput{Path: "."}, false, []string{"is a directory"}, nil},
		{"missing", ReadInput{Path: "nope.txt"}, false, []string{"nope.txt does not exist"}, nil},
		{"missing with a suggestion", ReadInput{Path: "readme.md"}, false, []string{`did you mean "Readme.md"?`}, nil},
		{"missing parent", ReadInput{Path: "five.txt/x"}, false, []string{"five.txt/x"}, nil},
		{"dangling link", ReadInput{Path: "dangling"}, false, []string{"dangling does not exist"}, nil},
		{"offset past the end", ReadInput{Path: "five.txt", Offset: 9}, false, []string{"offset 9 is past the end of five.txt, which has 5 lines"}, nil},
		{"negative offset", ReadInput{Path: "five.txt", Offset: -1}, false, []string{"lines count from 1"}, nil},
		{"negative limit", ReadInput{Path: "five.txt", Limit: -3}, false, []string{"negative"}, nil},
		{"empty path", ReadInput{Path: " "}, false, []string{"path is empty"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, read, call, tt.in)
			checkResult(t, res, tt.wantOK, tt.want...)
			for _, n := range tt.not {
				if strings.Contains(res.Output, n) {
					t.Errorf("output contains %q:\n%s", n, res.Output)
				}
			}
		})
	}
}

// TestReadLargeFileRanges reads ranges of a text file larger than
// read_file reads whole, checked against sed printing the same lines,
// and checks what larger images, UTF-16 and binary files get.
func TestReadLargeFileRanges(t *testing.T) {
	sed, err := exec.LookPath("sed")
	if err != nil {
		t.Fatalf("sed is the oracle of this test: %v", err)
	}
	dir := t.TempDir()
	var buf bytes.Buffer
	buf.WriteString("\xef\xbb\xbf") // a UTF-8 byte-order mark, which is not shown
	n := 0
	for buf.Len() <= maxReadBytes {
		n++
		fmt.Fprintf(&buf, "line %07d of a large log\n", n)
	}
	n++
	fmt.Fprintf(&buf, "the last line, %d, has no newline", n)
	writeFile := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("big.log", buf.Bytes())
	read := NewRead(Config{})
	call := testCall(t, dir)
	for _, tt := range []struct {
		name          string
		offset, limit int
		first, last   int // the lines shown
	}{
		{"the start", 0, 100, 1, 100},
		{"a range in the middle", 500000, 40, 500000, 500039},
		{"the end", n - 2, 10, n - 2, n},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, read, call, ReadInput{Path: "big.log", Offset: tt.offset, Limit: tt.limit})
			if !res.Success {
				t.Fatalf("read failed: %s", res.Output)
			}
			d := res.Data.(ReadData)
			if d.StartLine != tt.first || d.EndLine != tt.last || d.TotalLines != n {
				t.Errorf("data %+v, want lines %d-%d of %d", d, tt.first, tt.last, n)
			}
			out, err := exec.Command(sed, "-n", fmt.Sprintf("%d,%dp", tt.first, tt.last), filepath.Join(dir, "big.log")).Output()
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSuffix(strings.TrimPrefix(string(out), "\xef\xbb\xbf"), "\n"), "\n")
			var got []string
			for _, l := range strings.Split(res.Output, "\n") {
				if _, text, ok := strings.Cut(l, "\t"); ok {
					got = append(got, text)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lines (-sed +read_file):\n%s", diff)
			}
		})
	}
	res := run(t, read, call, ReadInput{Path: "big.log", Offset: n + 1})
	checkResult(t, res, false, fmt.Sprintf("offset %d is past the end of big.log, which has %d lines", n+1, n))

	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	large := func(head []byte) []byte { return append(head, make([]byte, maxReadBytes)...) }
	writeFile("huge.png", large(pic.Bytes()))
	writeFile("utf16.txt", large([]byte{0xff, 0xfe, 'h', 0}))
	writeFile("blob.bin", large([]byte("BLOB")))
	checkResult(t, run(t, read, call, ReadInput{Path: "huge.png"}), false, "huge.png is an image (image/png) of 20.0 MiB, more than the 5.0 MiB")
	checkResult(t, run(t, read, call, ReadInput{Path: "utf16.txt"}), false, "utf16.txt is UTF-16 text of 20.0 MiB", "search_file_content")
	checkResult(t, run(t, read, call, ReadInput{Path: "blob.bin"}), true, "blob.bin is a binary file", "20.0 MiB")
}

func TestReadOutputBudget(t *testing.T) {
	dir := makeTree(t, map[string]string{"f": numbered(100)})
	res := run(t, NewRead(Config{OutputBudget: 200}), testCall(t, dir), ReadInput{Path: "f"})
	checkResult(t, res, true, "(output budget reached); next: offset=")
	data := res.Data.(ReadData)
	if data.NextOffset != data.EndLine+1 || data.EndLine >= 100 || data.EndLine < 2 {
		t.Errorf("data = %+v; want a partial read that says where to continue", data)
	}
	// A budget too small for one line still shows that line.
	res = run(t, NewRead(Config{OutputBudget: 3}), testCall(t, dir), ReadInput{Path: "f"})
	checkResult(t, res, true, "1\tline 1", "next: offset=2")
}

func TestReadImage(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	dir := makeTree(t, map[string]string{"pic.png": buf.String()})
	res := run(t, NewRead(Config{}), testCall(t, dir), ReadInput{Path: "pic.png"})
	checkResult(t, res, true, "image/png, 3×2")
	want := FileData{Path: "pic.png", MIMEType: "image/png", Size: int64(buf.Len()), Width: 3, Height: 2}
	if diff := cmp.Diff(want, res.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if len(res.Images) != 1 || !bytes.Equal(res.Images[0].Data, buf.Bytes()) ||
		res.Images[0].MIMEType != "image/png" || res.Images[0].Width != 3 || res.Images[0].Height != 2 {
		t.Errorf("images = %+v, want the picture, 3×2 png", res.Images)
	}
	if b, _ := json.Marshal(res.Data); bytes.Contains(b, []byte("base64")) {
		t.Errorf("data %s carries the picture; the result's Images do", b)
	}
}

// TestReadImageBounds checks the limits on pictures: a file too large, a
// picture too wide, a broken header. Each is a failure saying what to do.
func TestReadImageBounds(t *testing.T) {
	var wide bytes.Buffer
	if err := png.Encode(&wide, image.NewGray(image.Rect(0, 0, maxImageSide+1, 1))); err != nil {
		t.Fatal(err)
	}
	big := append([]byte("\x89PNG\r\n\x1a\n"), wide.Bytes()[8:]...)
	big = append(big, make([]byte, maxImageBytes)...) // trailing bytes after IEND
	dir := makeTree(t, map[string]string{
		"wide.png":   wide.String(),
		"big.png":    string(big),
		"broken.png": "\x89PNG\r\n\x1a\nnot a header",
	})
	tests := []struct{ path, want string }{
		{"wide.png", "more than the 8000 on a side"},
		{"big.png", "more than the 5.0 MiB that can be attached; scale it down"},
		{"broken.png", "starts like a picture, but its image/png header"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := run(t, NewRead(Config{}), testCall(t, dir), ReadInput{Path: tt.path})
			checkResult(t, res, false, tt.want)
			if len(res.Images) != 0 {
				t.Errorf("a refused picture came back: %+v", res.Images)
			}
		})
	}
}

func TestReadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	// Opening a pipe for reading would block; the tool must not open it.
	res := run(t, NewRead(Config{}), testCall(t, dir), ReadInput{Path: "pipe"})
	checkResult(t, res, false, "pipe is not a regular file but a named pipe")
}

func TestReadPermissionDenied(t *testing.T) {
	if !asUnprivileged(t) {
		return // it ran as the user nobody
	}
	dir := makeTree(t, map[string]string{"locked": "x\n"})
	if err := os.Chmod(filepath.Join(dir, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	res := run(t, NewRead(Config{}), testCall(t, dir), ReadInput{Path: "locked"})
	checkResult(t, res, false, "locked: permission denied")
}
