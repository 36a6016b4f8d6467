package schema

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

var quickSchemas = []string{
	`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100},"force":{"type":"boolean"}},"required":["path"],"additionalProperties":false}`,
	`{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"]},"tags":{"type":"array","items":{"type":"string","minLength":1},"maxItems":3},"n":{"type":["number","null"]}}}`,
	`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":{"type":"string"}}},"required":["o"]}`,
}

// FuzzQuickValidator checks the quick path against santhosh-tekuri/jsonschema: it
// may only accept documents the full validator accepts.
func FuzzQuickValidator(f *testing.F) {
	docs := []string{`{"path":"a"}`, `{"path":"a","limit":5,"force":true}`, `{"path":"a","limit":0}`, `{"path":"a","limit":1.0}`,
		`{"path":"a","path":"b"}`, `{"path":"\u0041"}`, `{"mode":"a","tags":["x","y"],"n":null}`, `{"tags":["x","y","z","w"]}`,
		`{"o":{"x":1,"y":"s"}}`, `{"o":{"x":1,"y":2}}`, ` {"path":"a"} `, `{"path":"a"}x`, `{"limit":1e2,"path":""}`, `{"tags":[""]}`}
	for i := range quickSchemas {
		for _, d := range docs {
			f.Add(uint8(i), []byte(d))
		}
	}
	quick := make([]*quickValidator, len(quickSchemas))
	full := make([]*jsonschema.Schema, len(quickSchemas))
	for i, s := range quickSchemas {
		if quick[i] = newQuickValidator([]byte(s)); quick[i] == nil {
			f.Fatalf("schema %d is outside the quick subset", i)
		}
		c := jsonschema.NewCompiler()
		doc, _ := decodeValue([]byte(s))
		if err := c.AddResource("q.json", doc); err != nil {
			f.Fatal(err)
		}
		var err error
		if full[i], err = c.Compile("q.json"); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		i := int(which) % len(quickSchemas)
		if quick[i].valid(doc) {
			v, err := decodeValue(doc)
			if err == nil {
				err = full[i].Validate(v)
			}
			if err != nil {
				t.Fatalf("quick path accepted %q for schema %d, full validator says: %v", doc, i, err)
			}
		}
	})
}

// TestQuickValidator_Regressions pins documents the quick path used to
// accept although the full validator rejects them (string enum on an array
// or object, bounds below float64's range, a key of invalid UTF-8), and
// their neighbours, which it used to leave to the full validator. Each case
// must be inside the quick subset, and the quick verdict must be the full
// validator's.
func TestQuickValidator_Regressions(t *testing.T) {
	const uFFFD = "\uFFFD"
	tests := []struct {
		name, schema, doc string
		valid             bool
	}{
		// enum and const on arrays and objects were ignored.
		{"string enum on array", `{"type":"object","properties":{"a":{"type":"array","enum":["a"]}}}`, `{"a":["bogus"]}`, false},
		{"array enum on array", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"enum":[["a"]]}}}`, `{"a":["bogus"]}`, false},
		{"array enum matches", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"enum":[["a"]]}}}`, `{"a":["a"]}`, true},
		{"array enum longer", `{"type":"object","properties":{"a":{"type":"array","enum":[["a"]]}}}`, `{"a":["a","a"]}`, false},
		{"enum on root object", `{"type":"object","enum":["a"]}`, `{}`, false},
		{"object enum nested", `{"type":"object","properties":{"o":{"type":"object","enum":[{"k":1}]}}}`, `{"o":{"k":2}}`, false},
		{"object enum by value", `{"type":"object","properties":{"o":{"type":"object","enum":[{"k":1}]}}}`, `{"o":{"k":1.0}}`, true},
		{"object enum repeated key", `{"type":"object","properties":{"o":{"enum":[{"k":1}]}}}`, `{"o":{"k":2,"k":1}}`, true},
		{"object enum missing key", `{"type":"object","properties":{"o":{"enum":[{"k":1,"j":2}]}}}`, `{"o":{"k":1}}`, false},
		{"const object", `{"type":"object","properties":{"o":{"const":{"a":[1,"x"]}}}}`, `{"o":{"a":[1,"y"]}}`, false},
		{"const deep in array", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"array","const":[]}}}}`, `{"l":[[],[0]]}`, false},
		{"const number", `{"type":"object","properties":{"n":{"const":100}}}`, `{"n":1e2}`, true},
		// Bounds were compared as float64.
		{"minimum below float64", `{"type":"object","properties":{"n":{"type":"number","minimum":1e-400}}}`, `{"n":1e-401}`, false},
		{"maximum below float64", `{"type":"object","properties":{"n":{"type":"number","maximum":-1e-400}}}`, `{"n":1e-401}`, false},
		{"subnormal rounding", `{"type":"object","properties":{"n":{"type":"number","minimum":5e-324}}}`, `{"n":4.9e-324}`, false},
		{"minimum at bound", `{"type":"object","properties":{"n":{"type":"number","minimum":1e-400}}}`, `{"n":10e-401}`, true},
		{"integer past 2^53", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}}}`, `{"n":9007199254740993}`, false},
		{"integer past 2^53 short", `{"type":"object","properties":{"n":{"type":"integer","maximum":9e15}}}`, `{"n":9000000000000001}`, false},
		{"exclusiveMaximum exact", `{"type":"object","properties":{"n":{"exclusiveMaximum":0.3}}}`, `{"n":0.30000000000000001}`, false},
		{"exclusiveMinimum just above", `{"type":"object","properties":{"n":{"exclusiveMinimum":0.3}}}`, `{"n":0.30000000000000001}`, true},
		{"integral decimal is an integer", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1.0}`, true},
		{"negative zero", `{"type":"object","properties":{"n":{"type":"integer","minimum":0}}}`, `{"n":-0}`, true},
		{"exponent integer", `{"type":"object","properties":{"n":{"type":"integer","maximum":100}}}`, `{"n":1E+2}`, true},
		// Keys were compared as raw bytes.
		{"invalid UTF-8 key", `{"type":"object","properties":{"` + uFFFD + `":{"type":"integer"}}}`, "{\"\xff\":\"str\"}", false},
		{"escaped key", `{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"\u0061":"str"}`, false},
		{"escaped key closed", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"\u0061":1}`, true},
		{"surrogate pair key", `{"type":"object","properties":{"𝄞":{"type":"integer"}},"required":["𝄞"]}`, `{"\ud834\udd1e":1}`, true},
		{"repeated key, last valid", `{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":"x","a":1}`, true},
		{"repeated key, last invalid", `{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":1,"a":"x"}`, false},
		// Strings are counted in decoded code points.
		{"lone surrogates count one each", `{"type":"object","properties":{"s":{"maxLength":1}}}`, `{"s":"\ud800\ud800"}`, false},
		{"surrogate pair counts one", `{"type":"object","properties":{"s":{"maxLength":1}}}`, `{"s":"\ud83d\ude00"}`, true},
		{"invalid UTF-8 counts per byte", `{"type":"object","properties":{"s":{"maxLength":2}}}`, "{\"s\":\"\xed\xa0\x80\"}", false},
		{"long string, escape late", `{"type":"object","properties":{"s":{"maxLength":40}}}`, `{"s":"0123456789abcdefghij\"0123456789abcdefghij"}`, false},
		{"long string, escape late, fits", `{"type":"object","properties":{"s":{"maxLength":41}}}`, `{"s":"0123456789abcdefghij\"0123456789abcdefghij"}`, true},
		{"long string, quote at 16", `{"type":"object","properties":{"s":{"minLength":16,"maxLength":16}}}`, `{"s":"0123456789abcdef"}`, true},
		{"escaped enum string", `{"type":"object","properties":{"s":{"enum":["a\n"]}}}`, `{"s":"\u0061\n"}`, true},
		{"invalid UTF-8 enum string", `{"type":"object","properties":{"s":{"enum":["` + uFFFD + `"]}}}`, "{\"s\":\"\xff\"}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema), nil)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if s.quick == nil {
				t.Fatalf("schema %s is outside the quick subset", tt.schema)
			}
			v, err := decodeValue([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if full := s.ValidateValue(v); (full == nil) != tt.valid {
				t.Fatalf("full validator on %q: %v, want valid = %v", tt.doc, full, tt.valid)
			}
			if got := s.quick.valid([]byte(tt.doc)); got && !tt.valid {
				t.Errorf("quick path accepts %q for %s; the full validator rejects it", tt.doc, tt.schema)
			}
			if err := s.Validate([]byte(tt.doc)); (err == nil) != tt.valid {
				t.Errorf("Validate(%q) = %v, want valid = %v", tt.doc, err, tt.valid)
			}
		})
	}
}

// quickStats counts what a differential run saw.
type quickStats struct {
	schemas, compiled, quickSchemas, pairs, handledValid, handledInvalid, unsure, disagreements atomic.Int64
}

func (st *quickStats) String() string {
	return fmt.Sprintf("schemas %d (compiled %d, in the quick subset %d), documents %d: quick path decided %d (valid %d, invalid %d), unsure %d, disagreements %d",
		st.schemas.Load(), st.compiled.Load(), st.quickSchemas.Load(), st.pairs.Load(),
		st.handledValid.Load()+st.handledInvalid.Load(), st.handledValid.Load(), st.handledInvalid.Load(), st.unsure.Load(), st.disagreements.Load())
}

// differential compiles c's schema and compares the quick verdict on every
// document with the full validator's (wield's full path: decode, then
// santhosh-tekuri/jsonschema). It returns a description of each
// disagreement.
func differential(c genCase, st *quickStats) []string {
	st.schemas.Add(1)
	s, err := Compile(c.schema, &CompileOptions{Draft: c.draft})
	if err != nil {
		return nil
	}
	st.compiled.Add(1)
	if s.quick == nil {
		return nil
	}
	st.quickSchemas.Add(1)
	var bad []string
	for _, doc := range c.docs {
		st.pairs.Add(1)
		v, full := decodeValue(doc)
		if full == nil {
			full = s.ValidateValue(v)
		}
		// Validate, which tries the quick path first, must agree too.
		if got := s.Validate(doc); (got == nil) != (full == nil) {
			bad = append(bad, fmt.Sprintf("schema %s\ndoc %q\nValidate: %v, full: %v", c.schema, doc, got, full))
		}
		q := s.quick.verdict(doc)
		switch q {
		case verdictUnsure:
			st.unsure.Add(1)
			continue
		case verdictValid:
			st.handledValid.Add(1)
		default:
			st.handledInvalid.Add(1)
		}
		if (q == verdictValid) != (full == nil) {
			st.disagreements.Add(1)
			bad = append(bad, fmt.Sprintf("schema %s (draft %d)\ndoc %q\nquick valid = %v, full: %v", c.schema, c.draft, doc, q == verdictValid, full))
		}
	}
	return bad
}

// TestQuickDifferential generates 20,000 schema/document pairs from a fixed
// seed and requires the quick verdict to equal the full validator's on every
// pair the quick path decides. It also requires the generator to reach both
// verdicts often, so the test cannot pass by deciding nothing.
func TestQuickDifferential(t *testing.T) {
	const schemas, docsPer = 2000, 10
	r := rand.New(rand.NewPCG(1, 2))
	var st quickStats
	for range schemas {
		for _, d := range differential(generate(randSource{r}, docsPer), &st) {
			t.Errorf("quick path disagrees with the full validator:\n%s", d)
			if st.disagreements.Load() > 10 {
				t.FailNow()
			}
		}
	}
	t.Log(&st)
	if st.disagreements.Load() != 0 {
		t.Fatalf("%d disagreements", st.disagreements.Load())
	}
	if st.quickSchemas.Load() < schemas/2 || st.handledValid.Load() < schemas || st.handledInvalid.Load() < schemas {
		t.Fatalf("the generator reaches too little of the quick path: %v", &st)
	}
}

// FuzzQuickDifferential generates a schema and documents for it from the
// fuzzer's bytes and requires the quick verdict to equal the full
// validator's on every document the quick path decides. With
// WIELD_QUICK_STATS set to a directory, each fuzz process writes its counts
// there.
func FuzzQuickDifferential(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 64 {
		b := make([]byte, 16+r.IntN(200))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	var st quickStats
	statsDir := os.Getenv("WIELD_QUICK_STATS")
	f.Fuzz(func(t *testing.T, data []byte) {
		c := generate(&byteSource{b: data}, 6)
		for _, d := range differential(c, &st) {
			t.Errorf("quick path disagrees with the full validator:\n%s", d)
		}
		if statsDir != "" && st.schemas.Load()%1000 == 0 {
			p := filepath.Join(statsDir, fmt.Sprintf("%d.txt", os.Getpid()))
			if err := os.WriteFile(p, []byte(st.String()+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}
