package tool

import (
	"encoding/json"
	"testing"
)

func TestEffect(t *testing.T) {
	tests := []struct {
		e        Effect
		str      string
		json     string
		readOnly bool
	}{
		{0, "unknown", "null", false},
		{EffectRead, "read", `["read"]`, true},
		{EffectWrite, "write", `["write"]`, false},
		{EffectRead | EffectNetwork, "read|network", `["read","network"]`, false},
		{EffectState | EffectAsk, "state|ask", `["state","ask"]`, false},
		{EffectRun | EffectRead | EffectWrite, "read|write|run", `["read","write","run"]`, false},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.str {
			t.Errorf("Effect(%d).String() = %q, want %q", tt.e, got, tt.str)
		}
		if got := tt.e.ReadOnly(); got != tt.readOnly {
			t.Errorf("%s.ReadOnly() = %v, want %v", tt.e, got, tt.readOnly)
		}
		b, err := json.Marshal(tt.e)
		if err != nil || string(b) != tt.json {
			t.Errorf("json.Marshal(%s) = %s, %v, want %s", tt.e, b, err, tt.json)
		}
		var back Effect
		if err := json.Unmarshal(b, &back); err != nil || back != tt.e {
			t.Errorf("json.Unmarshal(%s) = %s, %v, want %s", b, back, err, tt.e)
		}
		parsed, err := ParseEffect(tt.str)
		if err != nil || parsed != tt.e {
			t.Errorf("ParseEffect(%q) = %s, %v, want %s", tt.str, parsed, err, tt.e)
		}
	}
}

func TestEffect_Has(t *testing.T) {
	e := EffectRead | EffectNetwork
	for _, tt := range []struct {
		k    Effect
		want bool
	}{{EffectRead, true}, {EffectNetwork, true}, {EffectRead | EffectNetwork, true}, {EffectWrite, false}, {EffectRead | EffectWrite, false}, {0, true}} {
		if got := e.Has(tt.k); got != tt.want {
			t.Errorf("(%s).Has(%s) = %v, want %v", e, tt.k, got, tt.want)
		}
	}
	if Effect(0).Has(EffectWrite) || Effect(0).Known() {
		t.Error("the unknown effect has a kind or is known")
	}
}

func TestEffect_Errors(t *testing.T) {
	for _, in := range []string{`["read","fly"]`, `"read"`, `[1]`} {
		var e Effect
		if err := json.Unmarshal([]byte(in), &e); err == nil {
			t.Errorf("json.Unmarshal(%s) = %s, want an error", in, e)
		}
	}
	if _, err := ParseEffect("read|fly"); err == nil {
		t.Error(`ParseEffect("read|fly") succeeded, want an error`)
	}
	if _, err := json.Marshal(Effect(1 << 7)); err == nil {
		t.Error("json.Marshal of an effect with an undefined kind succeeded, want an error")
	}
}

func TestSpec_JSONCarriesFacts(t *testing.T) {
	s := Spec{Name: "t", Effect: EffectWrite, KeyArgs: []string{"path"}, Aliases: []string{"Write"}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Effect != s.Effect || len(back.KeyArgs) != 1 || back.KeyArgs[0] != "path" || len(back.Aliases) != 1 || back.Aliases[0] != "Write" {
		t.Errorf("spec %s read back as %+v", b, back)
	}
	b, _ = json.Marshal(Spec{Name: "t"})
	if want := `{"name":"t","description":""}`; string(b) != want {
		t.Errorf("a spec without facts = %s, want %s", b, want)
	}
}
