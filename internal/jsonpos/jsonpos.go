// Package jsonpos finds where in a JSON document a decoding error is, so
// that a message about a configuration file can name its line.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Line returns the line (from 1) and column (from 1, in bytes) of data
// that err, an error of [json.Unmarshal] or a [json.Decoder] reading data,
// points at: the byte a *json.SyntaxError stopped at, or the end of the
// value of a *json.UnmarshalTypeError.
// ok is false for other errors.
func Line(data []byte, err error) (line, col int, ok bool) {
	var off int64
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset - 1 // the offending byte is the last one read
	case errors.As(err, &typ):
		off = typ.Offset
	default:
		return 0, 0, false
	}
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col, true
}

// Wrap returns err prefixed with path and, when [Line] finds it, the line
// and column: "settings.json:3:14: invalid character …". A nil err stays
// nil.
func Wrap(path string, data []byte, err error) error {
	if err == nil {
		return nil
	}
	if line, col, ok := Line(data, err); ok {
		return fmt.Errorf("%s:%d:%d: %w", path, line, col, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}
