package fs

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/internal/imageinfo"
	"github.com/wieldhq/wield/internal/levenshtein"
	"github.com/wieldhq/wield/tool"
)

// Limits of read_file.
const (
	readDefaultLimit = 2000              // lines read when no limit is given
	maxLineChars     = 2000              // characters of one line shown; the rest is cut
	maxReadBytes     = 20 << 20          // larger files are streamed, not read whole
	maxImageBytes    = 5 << 20           // larger images are refused (providers take 5 MB at most)
	maxImageSide     = imageinfo.MaxSide // wider or taller images are refused, as providers refuse them
	sniffBytes       = 8 << 10           // a NUL byte in this much of a file makes it binary
)

//go:embed read.md
var readDescription string

// ReadInput is the argument object of read_file.
type ReadInput struct {
	Path   string `json:"path" jsonschema:"the file to read, relative to the workspace root or absolute inside it"`
	Offset int    `json:"offset,omitempty" default:"1" jsonschema:"the first line to show, counting from 1"`
	Limit  int    `json:"limit,omitempty" default:"2000" jsonschema:"how many lines to show"`
}

// ReadData is the structured result of read_file for a text file.
type ReadData struct {
	Path       string `json:"path"`
	StartLine  int    `json:"startLine"`
	EndLine    int    `json:"endLine"`
	TotalLines int    `json:"totalLines"`
	// NextOffset is the offset that continues the read; zero at the end.
	NextOffset int `json:"nextOffset,omitempty"`
	// Changed reports whether the file changed while it was read.
	Changed bool `json:"changed,omitempty"`
}

// FileData describes a file read_file does not show as text: an image,
// whose picture is in the result's Images, or another binary file.
type FileData struct {
	Path     string `json:"path"`
	MIMEType string `json:"mimeType"`
	Size     int64  `json:"size"`
	// Width and Height are an image's size in pixels.
	Width  int  `json:"width,omitempty"`
	Height int  `json:"height,omitempty"`
	Binary bool `json:"binary,omitempty"`
}

// NewRead returns the read_file tool.
func NewRead(cfg Config) *tool.Tool {
	r := reader{cfg: cfg.withDefaults()}
	return tool.New(tool.Spec{
		Name:        "read_file",
		Effect:      tool.EffectRead,
		KeyArgs:     []string{"path"},
		Aliases:     []string{"Read"},
		Description: describe("read_file", readDescription, r.cfg),
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, inWorkspace(r.read))
}

type reader struct{ cfg Config }

func (r reader) read(ctx context.Context, c *tool.Call, w *fstree.Tree, in ReadInput) (tool.Result, error) {
	if in.Offset < 0 {
		return tool.Failure(fmt.Sprintf("offset %d is not a line number: lines count from 1", in.Offset)), nil
	}
	if in.Limit < 0 {
		return tool.Failure(fmt.Sprintf("limit %d is negative: give the number of lines to show", in.Limit)), nil
	}
	if strings.TrimSpace(in.Path) == "" {
		return tool.Failure("path is empty: give the file to read"), nil
	}
	rel, err := w.Rel(in.Path)
	if err != nil {
		return pathFailure(in.Path, err), nil
	}
	if fi, err := w.Stat(rel); err == nil && fi.Mode().IsRegular() && fi.Size() > maxReadBytes {
		return r.readLarge(ctx, w, in, rel), nil
	}
	data, res, ok := readWhole(w, in.Path, rel, maxReadBytes, "read_file")
	if !ok {
		return res, nil
	}
	if data.isDir {
		return tool.Failure(in.Path + " is a directory: use list_directory to see what it holds, or glob to find files in it"), nil
	}
	if imageinfo.Format(data.bytes) != "" {
		return readImage(in.Path, data.bytes), nil
	}
	text, decoded, binary := decodeText(data.bytes)
	if binary {
		return describeBinary(in.Path, data.bytes, data.size), nil
	}
	if s, ok := r.cfg.referenceSession(c); ok {
		return addReferences(s, []string{rel}, []int{countLines(text)}), nil
	}
	return r.readText(in, numberedLines(text), countLines(text), decoded, data.changed), nil
}

// numberedLines yields the lines of text, numbered from 1, without their
// newlines.
func numberedLines(text []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		rest := text
		for n := 1; len(rest) > 0; n++ {
			line := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line, rest = rest[:i], rest[i+1:]
			} else {
				rest = nil
			}
			if !yield(n, line) {
				return
			}
		}
	}
}

// readLarge reads a range of lines of rel, a file too large to read
// whole: it streams the file once to count its lines and once more up to
// the range's end, holding only the range, so a range of any file reads.
// Images and UTF-16 text that large are refused, and binary files
// described, from their first bytes.
func (r reader) readLarge(ctx context.Context, w *fstree.Tree, in ReadInput, rel string) tool.Result {
	f, err := w.Open(rel)
	if err != nil {
		return pathFailure(in.Path, err)
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return pathFailure(in.Path, err)
	}
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return tool.Failure(fstree.DescribeError(in.Path, err))
	}
	head = head[:n]
	switch {
	case imageinfo.Format(head) != "":
		return tool.Failure(fmt.Sprintf("%s is an image (%s) of %s, more than the %s of a picture read_file shows", in.Path, imageinfo.Format(head), formatSize(before.Size()), formatSize(maxImageBytes)))
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}), bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return tool.Failure(fmt.Sprintf("%s is UTF-16 text of %s; read_file decodes UTF-16 in files up to %s. Search it with search_file_content, or convert it to UTF-8 first", in.Path, formatSize(before.Size()), formatSize(maxReadBytes)))
	case bytes.IndexByte(head, 0) >= 0:
		return describeBinary(in.Path, head, before.Size())
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return tool.Failure(fstree.DescribeError(in.Path, err))
	}
	total, err := countReaderLines(ctx, f)
	if err != nil {
		return tool.Failure(fstree.DescribeError(in.Path, err))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return tool.Failure(fstree.DescribeError(in.Path, err))
	}
	var readErr error
	lines := func(yield func(int, []byte) bool) {
		br := bufio.NewReaderSize(f, 64<<10)
		if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
			_, _ = br.Discard(3)
		}
		var long []byte // a line longer than the buffer, gathered
		for n := 1; ; {
			chunk, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				long = append(long, chunk...)
				continue
			}
			line := chunk
			if long != nil {
				line, long = append(long, chunk...), nil
			}
			if len(line) > 0 && !yield(n, bytes.TrimSuffix(line, []byte{'\n'})) {
				return
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
			n++
		}
	}
	res := r.readText(in, lines, total, "", false)
	if readErr != nil {
		return tool.Failure(fstree.DescribeError(in.Path, readErr))
	}
	if after, err := f.Stat(); err == nil && res.Success && (after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime())) {
		if d, ok := res.Data.(ReadData); ok {
			d.Changed, res.Data = true, d
		}
		res.Output += fmt.Sprintf("\n[%s changed while it was read; read it again if the lines look inconsistent]", in.Path)
	}
	return res
}

// countReaderLines counts the lines from r to its end, as countLines
// does, in chunks, stopping when ctx ends.
func countReaderLines(ctx context.Context, r io.Reader) (int, error) {
	buf := make([]byte, 1<<20)
	n, last := 0, byte('\n')
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// wholeFile is a file read in one go.
type wholeFile struct {
	bytes   []byte
	size    int64
	isDir   bool
	changed bool // the size or time changed while it was read
}

// readWhole reads the regular file rel (arg as the model wrote it) of at
// most limit bytes. On failure it returns the result to give and false.
func readWhole(w *fstree.Tree, arg, rel string, limit int64, toolName string) (wholeFile, tool.Result, bool) {
	fi, err := w.Stat(rel)
	if err != nil {
		return wholeFile{}, notFound(w, arg, rel, err), false
	}
	if fi.IsDir() {
		return wholeFile{isDir: true}, tool.Result{}, true
	}
	if !fi.Mode().IsRegular() {
		return wholeFile{}, tool.Failure(fmt.Sprintf("%s is not a regular file but a %s; it cannot be read", arg, fileKind(fi.Mode()))), false
	}
	if fi.Size() > limit {
		return wholeFile{}, tool.Failure(fmt.Sprintf("%s is %s, more than the %s %s reads. Use search_file_content with path=%q to find the lines you need, "+
			"or a shell command such as sed -n '1000,1100p' to print a range", arg, formatSize(fi.Size()), formatSize(limit), toolName, arg)), false
	}
	f, err := w.Open(rel)
	if err != nil {
		return wholeFile{}, pathFailure(arg, err), false
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return wholeFile{}, pathFailure(arg, err), false
	}
	buf := bytes.NewBuffer(make([]byte, 0, before.Size()+1))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return wholeFile{}, tool.Failure(fstree.DescribeError(arg, err)), false
	}
	if int64(buf.Len()) > limit {
		return wholeFile{}, tool.Failure(fmt.Sprintf("%s grew past %s while it was read; try again, or search it with search_file_content", arg, formatSize(limit))), false
	}
	wf := wholeFile{bytes: buf.Bytes(), size: int64(buf.Len())}
	if after, err := f.Stat(); err == nil {
		wf.changed = after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || wf.size != before.Size()
	}
	return wf, tool.Result{}, true
}

// notFound describes a failed lookup, suggesting near names for a missing
// file.
func notFound(w *fstree.Tree, arg, rel string, err error) tool.Result {
	msg := fstree.DescribeError(arg, err)
	if s := suggest(w, rel); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return tool.Failure(msg)
}

// suggest returns up to three names near rel from its directory, quoted
// and joined with "or", or "".
func suggest(w *fstree.Tree, rel string) string {
	dir, name := fstree.Parent(rel), baseOf(rel)
	f, err := w.Root.Open(display(dir))
	if err != nil {
		return ""
	}
	names, err := f.Readdirnames(4096)
	f.Close()
	if err != nil && len(names) == 0 {
		return ""
	}
	var near []string
	for _, n := range names {
		if len(near) == 3 {
			break
		}
		if strings.EqualFold(n, name) || (len(name) > 2 && levenshtein.Distance(strings.ToLower(n), strings.ToLower(name), 2) <= 2) {
			near = append(near, strconv.Quote(fstree.Join(dir, n)))
		}
	}
	return strings.Join(near, " or ")
}

func baseOf(rel string) string { return rel[strings.LastIndexByte(rel, '/')+1:] }

// fileKind names the type of a file that is not regular.
func fileKind(m iofs.FileMode) string {
	switch {
	case m&iofs.ModeNamedPipe != 0:
		return "named pipe"
	case m&iofs.ModeSocket != 0:
		return "socket"
	case m&iofs.ModeCharDevice != 0:
		return "character device"
	case m&iofs.ModeDevice != 0:
		return "device"
	case m&iofs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// imageType returns the MIME type of data if it is an image the model can
// be shown.
// readImage returns the picture data of the file arg (as the model wrote
// it) as an image of the result, which each provider shows the model as a
// picture; the journal keeps it in the session's blob store.
func readImage(arg string, data []byte) tool.Result {
	info, err := imageinfo.Read(data)
	switch {
	case err != nil:
		return tool.Failure(fmt.Sprintf("%s starts like a picture, but its %v; it cannot be shown", arg, err))
	case len(data) > maxImageBytes:
		return tool.Failure(fmt.Sprintf("%s is an image of %s, more than the %s that can be attached; scale it down (for example convert %s -resize 50%% smaller.png) and read that",
			arg, formatSize(int64(len(data))), formatSize(maxImageBytes), arg))
	case info.Width > maxImageSide || info.Height > maxImageSide:
		return tool.Failure(fmt.Sprintf("%s is an image of %d×%d pixels, more than the %d on a side models take; scale it down (for example convert %s -resize %dx%d smaller.png) and read that",
			arg, info.Width, info.Height, maxImageSide, arg, maxImageSide, maxImageSide))
	}
	return tool.Result{
		Success: true,
		Output:  fmt.Sprintf("%s is an image (%s, %d×%d, %s); it is attached.", arg, info.MIMEType, info.Width, info.Height, formatSize(int64(len(data)))),
		Data:    FileData{Path: arg, MIMEType: info.MIMEType, Size: int64(len(data)), Width: info.Width, Height: info.Height},
		Images:  []tool.Image{{MIMEType: info.MIMEType, Width: info.Width, Height: info.Height, Data: data}},
	}
}

func describeBinary(arg string, data []byte, size int64) tool.Result {
	mime := http.DetectContentType(data)
	return tool.Result{
		Success: true,
		Output:  fmt.Sprintf("%s is a binary file (%s, %s); its content is not shown.", arg, mime, formatSize(size)),
		Data:    FileData{Path: arg, MIMEType: mime, Size: size, Binary: true},
	}
}

// decodeText returns data as text: UTF-16 with a byte-order mark is
// converted to UTF-8 (decoded reports it), a UTF-8 byte-order mark is
// dropped, and data with a NUL byte near its start is binary.
func decodeText(data []byte) (text []byte, decoded string, binary bool) {
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		return fromUTF16(data[2:], false), "UTF-16LE", false
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		return fromUTF16(data[2:], true), "UTF-16BE", false
	}
	if bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
		return nil, "", true
	}
	return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), "", false
}

func fromUTF16(b []byte, bigEndian bool) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	return []byte(string(utf16.Decode(u)))
}

// countLines returns the number of lines of text; a final line without a
// newline counts.
func countLines(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// cutLine makes a line fit to show: CR dropped, invalid UTF-8 replaced, and
// at most max characters, with a marker saying how long it was. It reports
// whether the line had invalid UTF-8.
func cutLine(line []byte, max int) (string, bool) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	s := string(line)
	invalid := !utf8.Valid(line)
	if invalid {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= max {
		return s, invalid
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, invalid
	}
	i, count := 0, 0
	for i = range s {
		if count == max {
			break
		}
		count++
	}
	return fmt.Sprintf("%s … [line cut: %d characters]", s[:i], n), invalid
}

// readText shows the lines of in's range: lines yields the file's
// lines, numbered from 1, of which there are total.
func (r reader) readText(in ReadInput, lines iter.Seq2[int, []byte], total int, decoded string, changed bool) tool.Result {
	if total == 0 {
		return tool.Result{Success: true, Output: fmt.Sprintf("[%s is empty]", in.Path), Data: ReadData{Path: in.Path}}
	}
	offset, limit := max(in.Offset, 1), in.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	if offset > total {
		return tool.Failure(fmt.Sprintf("offset %d is past the end of %s, which has %s", offset, in.Path, plural(total, "line")))
	}
	last := min(total, offset+limit-1)
	width := len(strconv.Itoa(last))
	out := newOutput(r.cfg.OutputBudget)
	invalid := false
	end := offset - 1
	for n, line := range lines {
		if n > last {
			break
		}
		if n < offset {
			continue
		}
		s, bad := cutLine(line, maxLineChars)
		if l := fmt.Sprintf("%*d\t%s", width, n, s); !out.line(l) {
			if n > offset {
				break
			}
			out.force(l) // a budget too small for even one line: show it anyway
		}
		invalid = invalid || bad
		end = n
	}
	data := ReadData{Path: in.Path, StartLine: offset, EndLine: end, TotalLines: total, Changed: changed}
	switch {
	case end < total && out.full:
		data.NextOffset = end + 1
		out.note("lines %d-%d of %d (output budget reached); next: offset=%d", offset, end, total, end+1)
	case end < total:
		data.NextOffset = end + 1
		out.note("lines %d-%d of %d; next: offset=%d", offset, end, total, end+1)
	case offset > 1:
		out.note("lines %d-%d of %d: end of file", offset, end, total)
	}
	if decoded != "" {
		out.note("decoded from %s", decoded)
	}
	if invalid {
		out.note("not valid UTF-8: invalid bytes are shown as \uFFFD; the file may use another encoding")
	}
	if changed {
		out.note("%s changed while it was read; read it again if the lines look inconsistent", in.Path)
	}
	return tool.Result{Success: true, Output: out.String(), Data: data}
}
