package askuser

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

// replies answers every question with the reply a person would type,
// read with ParseAnswer, and keeps the last question.
type replies struct {
	reply string
	got   Question
}

func (r *replies) Ask(_ context.Context, q Question) (Answer, error) {
	r.got = q
	return ParseAnswer(q, r.reply)
}

func TestAskUser(t *testing.T) {
	if err := tooltest.Check(t.Context(), New(nil), tooltest.Cases{
		Valid: []string{`{"question":"which?"}`, `{"question":"which?","options":[{"label":"a"},{"label":"b","description":"the second"}]}`,
			`{"question":"which?","options":[{"label":"a"}],"multiple":true}`},
		Invalid: []string{`{}`, `{"question":1}`, `{"question":"q","options":"a"}`, `{"question":"q","options":["a","b"]}`,
			`{"question":"q","options":[{"description":"no label"}]}`, `{"question":"q","multiple":"yes"}`},
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
	const dbs = `"options":[{"label":"sqlite","description":"one file, no server"},{"label":"postgres","description":"a server"},{"label":"none"}]`
	var ten []string
	for i := range 10 {
		ten = append(ten, `{"label":"o`+strconv.Itoa(i)+`"}`)
	}
	tests := []struct {
		name  string
		asker Asker
		args  string
		ok    bool
		want  string
		data  map[string]any // the fields of Data checked, if not nil
	}{
		{"headless", nil, `{"question":"which db?"}`, false, "Nobody can answer", nil},
		{"free answer", &replies{reply: " postgres \n"}, `{"question":"which db?"}`, true, "The user answered: postgres", map[string]any{"answer": "postgres", "chosen": []any{}}},
		{"option by number", &replies{reply: "2"}, `{"question":"which?",` + dbs + `}`, true, "The user chose: postgres", map[string]any{"answer": "postgres", "chosen": []any{"postgres"}}},
		{"option by label", &replies{reply: "SQLite"}, `{"question":"which?",` + dbs + `}`, true, "The user chose: sqlite", nil},
		{"several numbers", &replies{reply: "3, 1 3"}, `{"question":"which?",` + dbs + `,"multiple":true}`, true, "The user chose: none, sqlite", map[string]any{"chosen": []any{"none", "sqlite"}}},
		{"free text beside options", &replies{reply: "mysql, if we must"}, `{"question":"which?",` + dbs + `}`, true, "The user answered: mysql, if we must", nil},
		{"no answer", &replies{reply: ""}, `{"question":"which?"}`, true, "no answer", map[string]any{"answered": false}},
		{"asker fails", AskerFunc(func(context.Context, Question) (Answer, error) { return Answer{}, errors.New("terminal closed") }), `{"question":"which?"}`, false, "terminal closed", nil},
		{"asker picks too many", AskerFunc(func(context.Context, Question) (Answer, error) {
			return Answer{Chosen: []string{"sqlite", "postgres", "oracle"}, Text: "fast"}, nil
		}), `{"question":"which?",` + dbs + `}`, true, "The user chose: sqlite. They added: fast", map[string]any{"chosen": []any{"sqlite"}}},
		{"empty question", &replies{reply: "x"}, `{"question":"  "}`, false, "empty", nil},
		{"too many options", nil, `{"question":"q","options":[` + strings.Join(ten, ",") + `]}`, false, "at most 9", nil},
		{"blank label", nil, `{"question":"q","options":[{"label":" "}]}`, false, "option 1 has no label", nil},
		{"same label twice", nil, `{"question":"q","options":[{"label":"a"},{"label":"A"}]}`, false, `options 1 and 2 are both labelled "A"`, nil},
	}
	for _, tt := range tests {
		res := call(tt.asker, tt.args)
		if res.Success != tt.ok || !strings.Contains(res.ForModel(), tt.want) {
			t.Errorf("%s: %+v, want success %v and %q", tt.name, res, tt.ok, tt.want)
		}
		if tt.data != nil {
			b, _ := json.Marshal(res.Data)
			var got map[string]any
			_ = json.Unmarshal(b, &got)
			for k, v := range tt.data {
				if diff := cmp.Diff(v, got[k]); diff != "" {
					t.Errorf("%s: Data[%q] (-want +got):\n%s", tt.name, k, diff)
				}
			}
		}
	}
	// The asker gets the options with their descriptions, and Multiple.
	r := &replies{reply: "1"}
	call(r, `{"question":" which db? ",`+dbs+`,"multiple":true}`)
	want := Question{Text: "which db?", Multiple: true, Options: []Option{{"sqlite", "one file, no server"}, {"postgres", "a server"}, {"none", ""}}}
	if diff := cmp.Diff(want, r.got); diff != "" {
		t.Errorf("the asker got (-want +got):\n%s", diff)
	}
}

func TestDescriptionNumbers(t *testing.T) {
	d := New(nil).Spec().Description
	if !strings.Contains(d, "at most "+strconv.Itoa(MaxOptions)) || strings.Contains(d, "{{") {
		t.Errorf("description does not state MaxOptions:\n%s", d)
	}
}

func TestParseAnswer(t *testing.T) {
	q := Question{Text: "which?", Options: []Option{{Label: "red"}, {Label: "green"}, {Label: "blue"}}}
	multi := q
	multi.Multiple = true
	tests := []struct {
		name  string
		q     Question
		reply string
		want  Answer
		err   string
	}{
		{"empty", q, "  ", Answer{}, ""},
		{"one number", q, " 2\n", Answer{Chosen: []string{"green"}}, ""},
		{"label", q, "Blue", Answer{Chosen: []string{"blue"}}, ""},
		{"words", q, "none of them", Answer{Text: "none of them"}, ""},
		{"number among words", q, "2 please", Answer{Text: "2 please"}, ""},
		{"signed number is text", q, "+1", Answer{Text: "+1"}, ""},
		{"out of range", q, "4", Answer{}, "4 is not an option: type a number from 1 to 3"},
		{"zero", q, "0", Answer{}, "0 is not an option"},
		{"several for one", q, "1 2", Answer{}, "choose one option"},
		{"same number twice for one", q, "2,2", Answer{Chosen: []string{"green"}}, ""},
		{"several", multi, "3,1 ,3", Answer{Chosen: []string{"blue", "red"}}, ""},
		{"no options", Question{Text: "name?"}, "7", Answer{Text: "7"}, ""},
	}
	for _, tt := range tests {
		got, err := ParseAnswer(tt.q, tt.reply)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: ParseAnswer(%q) error = %v, want %q", tt.name, tt.reply, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: ParseAnswer(%q): %v", tt.name, tt.reply, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: ParseAnswer(%q) (-want +got):\n%s", tt.name, tt.reply, diff)
		}
	}
}

// FuzzParseAnswer: a reply either fails, or gives labels of the
// question's options (each once, one unless several are allowed) or free
// text equal to the trimmed reply, never both.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"", "1", "1,2", "3 1", "red", "RED", "10", "-1", "+2", "1 x", " 2 , 2 ", "٣"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	opts := []Option{{Label: "red"}, {Label: "green"}, {Label: "blue"}}
	f.Fuzz(func(t *testing.T, reply string, multiple bool) {
		q := Question{Text: "which?", Options: opts, Multiple: multiple}
		a, err := ParseAnswer(q, reply)
		if err != nil {
			if len(a.Chosen) != 0 || a.Text != "" {
				t.Fatalf("ParseAnswer(%q) failed (%v) but returned %+v", reply, err, a)
			}
			return
		}
		if len(a.Chosen) > 0 && a.Text != "" {
			t.Fatalf("ParseAnswer(%q) = %+v: both options and text", reply, a)
		}
		if len(a.Chosen) == 0 && a.Text != strings.TrimSpace(reply) {
			t.Fatalf("ParseAnswer(%q).Text = %q, want the trimmed reply", reply, a.Text)
		}
		if len(a.Chosen) > 1 && !multiple {
			t.Fatalf("ParseAnswer(%q) chose %v of a one-choice question", reply, a.Chosen)
		}
		seen := map[string]bool{}
		for _, c := range a.Chosen {
			if seen[c] || c != "red" && c != "green" && c != "blue" {
				t.Fatalf("ParseAnswer(%q) chose %v", reply, a.Chosen)
			}
			seen[c] = true
		}
	})
}
