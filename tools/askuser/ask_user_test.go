package askuser

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

type askerFunc func(ctx context.Context, q string, opts []string) (string, error)

func (f askerFunc) Ask(ctx context.Context, q string, opts []string) (string, error) {
	return f(ctx, q, opts)
}

func TestAskUser(t *testing.T) {
	if err := tooltest.Check(t.Context(), New(nil), tooltest.Cases{
		Valid:   []string{`{"question":"which?"}`, `{"question":"which?","options":["a","b"]}`},
		Invalid: []string{`{}`, `{"question":1}`, `{"question":"q","options":"a"}`},
	}); err != nil {
		t.Error(err)
	}
	call := func(asker Asker, args string) tool.Result {
		reg, err := tool.NewRegistry(New(asker))
		if err != nil {
			t.Fatal(err)
		}
		res, err := tool.NewRunner(reg, nil).Call(t.Context(), tool.Call{}, tool.Request{Name: "ask_user", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var asked string
	tests := []struct {
		name  string
		asker Asker
		args  string
		ok    bool
		want  string
	}{
		{"headless", nil, `{"question":"which db?"}`, false, "Nobody can answer"},
		{"free answer", askerFunc(func(_ context.Context, q string, _ []string) (string, error) { asked = q; return " postgres \n", nil }), `{"question":"which db?"}`, true, "The user answered: postgres"},
		{"option by number", askerFunc(func(context.Context, string, []string) (string, error) { return "2", nil }), `{"question":"which?","options":["sqlite","postgres"]}`, true, "answered: postgres"},
		{"no answer", askerFunc(func(context.Context, string, []string) (string, error) { return "", nil }), `{"question":"which?"}`, true, "no answer"},
		{"asker fails", askerFunc(func(context.Context, string, []string) (string, error) { return "", errors.New("terminal closed") }), `{"question":"which?"}`, false, "terminal closed"},
		{"empty question", askerFunc(func(context.Context, string, []string) (string, error) { return "x", nil }), `{"question":"  "}`, false, "empty"},
		{"too many options", nil, `{"question":"q","options":["1","2","3","4","5","6","7","8","9","10"]}`, false, "at most 9"},
	}
	for _, tt := range tests {
		res := call(tt.asker, tt.args)
		if res.Success != tt.ok || !strings.Contains(res.ForModel(), tt.want) {
			t.Errorf("%s: %+v, want success %v and %q", tt.name, res, tt.ok, tt.want)
		}
	}
	if asked != "which db?" {
		t.Errorf("asker got %q", asked)
	}
}
