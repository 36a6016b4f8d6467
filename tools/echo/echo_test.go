package echo

import (
	"testing"

	"github.com/wieldhq/wield/tool/tooltest"
)

func TestEcho(t *testing.T) {
	err := tooltest.Check(t.Context(), New(), tooltest.Cases{
		Valid:   []string{`{"text":"hi"}`, `{"text":""}`},
		Invalid: []string{`{}`, `{"text":1}`, `{"text":"a","extra":true}`},
		Run:     true,
	})
	if err != nil {
		t.Error(err)
	}
	res, err := echo(t.Context(), nil, Input{Text: "héllo"})
	if err != nil || !res.Success || res.Output != "héllo" {
		t.Errorf("echo = %+v, %v; want the text back", res, err)
	}
}
