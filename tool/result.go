package tool

import (
	"encoding/json"
	"errors"
	"time"
)

// A Result is what a tool call produced. Exactly one Result is returned per
// call, including calls that failed validation, timed out or were cancelled.
//
// Its JSON form is {"success","output","data","error","durationMs","images"}.
type Result struct {
	// Success reports whether the call did what was asked.
	Success bool
	// Output is the text the model reads.
	Output string
	// Data is structured output; it must marshal to JSON.
	Data any
	// Error says what went wrong and, where possible, how to fix the call.
	Error string
	// Duration is how long the call took, including retries.
	Duration time.Duration
	// Images are pictures the model should see beside Output: a
	// screenshot, an image file read. Most results have none.
	Images []Image
}

// An Image is a picture in a [Result]. Data holds the encoded bytes; a
// result read back from a journal may carry only Hash, the key of the
// bytes in the session's blob store.
//
// Its JSON form is {"mimeType","width","height","sha256","data"}, data
// in base64 and left out when empty.
type Image struct {
	// MIMEType is image/png, image/jpeg or image/webp.
	MIMEType string `json:"mimeType"`
	// Width and Height are the picture's size in pixels, 0 when unknown.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Hash is the hex SHA-256 of Data; empty until the image is stored.
	Hash string `json:"sha256,omitempty"`
	// Data is the encoded picture.
	Data []byte `json:"data,omitempty"`
}

type resultJSON struct {
	Success    bool    `json:"success"`
	Output     string  `json:"output"`
	Data       any     `json:"data,omitempty"`
	Error      string  `json:"error,omitempty"`
	DurationMs float64 `json:"durationMs"`
	Images     []Image `json:"images,omitempty"`
}

// MarshalJSON encodes r in its documented JSON form.
func (r Result) MarshalJSON() ([]byte, error) {
	return json.Marshal(resultJSON{r.Success, r.Output, r.Data, r.Error, float64(r.Duration.Microseconds()) / 1000, r.Images})
}

// UnmarshalJSON decodes the documented JSON form. Data decodes as the
// generic JSON value.
func (r *Result) UnmarshalJSON(b []byte) error {
	var j resultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Result{Success: j.Success, Output: j.Output, Data: j.Data, Error: j.Error,
		Duration: time.Duration(j.DurationMs * float64(time.Millisecond)), Images: j.Images}
	return nil
}

// Text returns a successful Result with output s.
func Text(s string) Result { return Result{Success: true, Output: s} }

// Failure returns a failed Result with the message msg, which should tell
// the model what to change.
func Failure(msg string) Result { return Result{Error: msg} }

// ForModel returns the text the model should read for r: its output, and
// its error when it failed.
func (r Result) ForModel() string {
	switch {
	case r.Success:
		return r.Output
	case r.Output == "":
		return "Error: " + r.Error
	default:
		return "Error: " + r.Error + "\n" + r.Output
	}
}

type retriableError struct{ err error }

func (e retriableError) Error() string { return e.err.Error() }
func (e retriableError) Unwrap() error { return e.err }

// Retriable marks err as worth retrying under the tool's [RetryPolicy]
// (a rate limit, a dropped connection). It returns nil for nil.
func Retriable(err error) error {
	if err == nil {
		return nil
	}
	return retriableError{err}
}

// IsRetriable reports whether err was marked with [Retriable].
func IsRetriable(err error) bool {
	var r retriableError
	return errors.As(err, &r)
}

// FatalError is a fault that must stop the run (a full disk, a corrupt
// journal), as opposed to a failure the model should hear about.
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

// Fatal marks err as a fault that stops the run. It returns nil for nil.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	return &FatalError{err}
}
