package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/wieldhq/wield/llm"
)

// An SSEReader reads the events of a text/event-stream body as the HTML
// standard defines them: lines end in LF, CRLF or a lone CR; lines starting
// with ':' are comments; "data" lines of one event are joined with LF; an
// empty line ends the event. At the end of the body, a pending event is
// returned too, for servers that omit the last empty line.
type SSEReader struct {
	sc *bufio.Scanner
}

// NewSSEReader returns a reader of the events in r. An event longer than
// [MaxResponseBody] is an error wrapping [llm.ErrProtocol].
func NewSSEReader(r io.Reader) *SSEReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxResponseBody) // from 4 KiB, growing as events need
	sc.Split(ScanLines)
	return &SSEReader{sc: sc}
}

// Next returns the type and data of the next event that has data. It
// returns io.EOF at the end of the body.
func (s *SSEReader) Next() (event string, data []byte, err error) {
	var has bool
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if len(line) == 0 {
			if has {
				return event, bytes.TrimSuffix(data, []byte("\n")), nil
			}
			event = ""
			continue
		}
		if line[0] == ':' {
			continue // a comment, such as a keep-alive
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "data":
			data = append(data, value...)
			data = append(data, '\n')
			has = true
		case "event":
			event = string(value)
		}
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return "", nil, fmt.Errorf("%w: a stream line is longer than %d bytes", llm.ErrProtocol, MaxResponseBody)
		}
		return "", nil, err
	}
	if has {
		return event, bytes.TrimSuffix(data, []byte("\n")), nil
	}
	return "", nil, io.EOF
}

// ScanLines is a [bufio.SplitFunc] for lines ending in LF, CRLF or CR.
func ScanLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	i := bytes.IndexAny(data, "\r\n")
	switch {
	case i < 0:
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data):
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	case atEOF:
		return i + 1, data[:i], nil
	default:
		return 0, nil, nil // a CR at the end: an LF may follow
	}
}
