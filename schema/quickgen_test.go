package schema

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
)

// This file generates schemas inside the quick path's subset and documents
// for them, for the differential tests in quick_test.go. Every choice is
// drawn from a choiceSource, so the fuzzer's bytes steer generation (and
// coverage guides it), and a seeded PRNG gives a deterministic run for CI.
// Choice 0 is always the simplest one, so running out of fuzzer bytes ends
// generation quickly.

// A choiceSource picks numbers in [0, n).
type choiceSource interface {
	intn(n int) int
}

// byteSource draws choices from fuzzer bytes; it returns 0 once they run out.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) intn(n int) int {
	if n <= 1 || s.i >= len(s.b) {
		return 0
	}
	v := int(s.b[s.i])
	s.i++
	if n > 256 && s.i < len(s.b) {
		v = v<<8 | int(s.b[s.i])
		s.i++
	}
	return v % n
}

// randSource draws choices from a seeded PRNG.
type randSource struct{ r *rand.Rand }

func (s randSource) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return s.r.IntN(n)
}

type gen struct{ src choiceSource }

func (g *gen) intn(n int) int { return g.src.intn(n) }

// chance reports true with probability 1/n (n >= 2), false on choice 0.
func (g *gen) chance(n int) bool { return g.intn(n) == n-1 }

func pick[T any](g *gen, xs []T) T { return xs[g.intn(len(xs))] }

// A gnode is a generated schema.
type gnode struct {
	boolean *bool
	types   []string
	props   []gprop
	req     []string
	addl    *gnode
	items   *gnode
	hasEnum bool
	enum    []string // raw JSON values
	hasCon  bool
	con     string
	bounds  [][2]string // keyword, number literal
	ints    [][2]string // keyword (minLength, ...), integer literal
}

type gprop struct {
	name string // as written between the quotes in the schema, perhaps invalid UTF-8
	node *gnode
}

var (
	genTypes = []string{"object", "string", "integer", "number", "array", "boolean", "null"}
	// genNames are property names as written in the schema. "\xff" decodes
	// to U+FFFD, like "\ufffd".
	genNames = []string{"a", "b", "ab", "é", "\ufffd", "\xff", "𝄞", "", "x y", `q\"`, "A", `\u0062`}
	// genNumbers mixes exact edge cases: float64 underflow and rounding,
	// integers past 2^53, -0, integral decimals, exponents math/big refuses.
	genNumbers = []string{"0", "-0", "1", "-1", "2", "3", "1.0", "1e0", "10e-1", "0.1", "0.10", "1e-1", "0.5", "-0.5",
		"1.5", "-1.5", "100", "1e2", "1E+2", "1e-400", "1e-401", "-1e-400", "9007199254740992", "9007199254740993",
		"9007199254740993.0", "9.007199254740993e15", "1e16", "10000000000000001", "123456789012345678901234567890",
		"0.30000000000000004", "0.3", "1e99999", "1e1000001", "1e-1000001", "0e9999999", "-0.0e-5", "7", "1.000000000000000000001"}
	genLens = []string{"0", "1", "2", "3", "5", "17", "20"}
	// genStrings are string contents as written in a document.
	genStringParts = []string{"a", "b", "é", "𝄞", `\n`, `\u0061`, `\"`, `\\`, `\/`, `\ud800`, `\udc00`, `\ud83d\ude00`,
		"\xff", "\xed\xa0\x80", "\xf0\x9f\x98", "\ufffd", `\ufffd`, " ", `\u00e9`}
)

func (g *gen) schema(depth int) *gnode {
	n := &gnode{}
	if g.chance(14) {
		b := !g.chance(3)
		n.boolean = &b
		return n
	}
	switch g.intn(5) {
	case 0:
	case 1, 2, 3:
		n.types = []string{pick(g, genTypes)}
	case 4:
		for range 1 + g.intn(3) {
			t := pick(g, genTypes)
			if !strings.Contains(strings.Join(n.types, ","), t) {
				n.types = append(n.types, t)
			}
		}
	}
	kinds := n.types
	if len(kinds) == 0 {
		kinds = []string{pick(g, genTypes)}
	}
	if g.chance(5) { // a keyword for a kind the type forbids
		kinds = append(kinds, pick(g, genTypes))
	}
	for _, k := range kinds {
		switch k {
		case "object":
			if depth < 4 {
				for range g.intn(4) {
					name := pick(g, genNames)
					dup := false
					for _, p := range n.props {
						dup = dup || p.name == name
					}
					if !dup {
						n.props = append(n.props, gprop{name, g.schema(depth + 1)})
					}
				}
				for _, p := range n.props {
					if g.intn(2) == 1 && !strings.HasPrefix(p.name, `\u`) && p.name != "\xff" && !strings.Contains(p.name, `\`) {
						n.req = append(n.req, p.name)
					}
				}
				if g.chance(6) {
					n.req = append(n.req, "z")
				}
				switch g.intn(5) {
				case 1:
					f := false
					n.addl = &gnode{boolean: &f}
				case 2:
					t := true
					n.addl = &gnode{boolean: &t}
				case 3:
					n.addl = g.schema(depth + 1)
				}
			}
		case "array":
			if depth < 4 && g.intn(3) != 0 {
				n.items = g.schema(depth + 1)
			}
			if g.chance(3) {
				n.ints = append(n.ints, [2]string{"minItems", pick(g, genLens)})
			}
			if g.chance(3) {
				n.ints = append(n.ints, [2]string{"maxItems", pick(g, genLens)})
			}
		case "string":
			if g.chance(2) {
				n.ints = append(n.ints, [2]string{"minLength", pick(g, genLens)})
			}
			if g.chance(2) {
				n.ints = append(n.ints, [2]string{"maxLength", pick(g, genLens)})
			}
		case "integer", "number":
			for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
				if g.chance(3) {
					n.bounds = append(n.bounds, [2]string{kw, pick(g, genNumbers[:len(genNumbers)-5])})
				}
			}
		}
	}
	if g.chance(4) {
		n.hasEnum = true
		for range g.intn(4) {
			n.enum = append(n.enum, g.enumValue(n, depth))
		}
	}
	if g.chance(7) {
		n.hasCon = true
		n.con = g.enumValue(n, depth)
	}
	return n
}

// enumValue is a value for enum or const, often one the node's other
// keywords allow.
func (g *gen) enumValue(n *gnode, depth int) string {
	if g.intn(3) == 0 {
		return g.randomValue(depth + 2)
	}
	return g.doc(n, depth+2, true)
}

// randomValue is any JSON value.
func (g *gen) randomValue(depth int) string {
	k := g.intn(7)
	if depth > 5 && k >= 5 {
		k = 0
	}
	switch k {
	case 0:
		return pick(g, genNumbers)
	case 1:
		return g.str(g.intn(4))
	case 2:
		return pick(g, []string{"true", "false"})
	case 3:
		return "null"
	case 4:
		return g.number()
	case 5:
		var b strings.Builder
		b.WriteByte('[')
		for i := range g.intn(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(g.randomValue(depth + 1))
		}
		b.WriteByte(']')
		return b.String()
	default:
		var b strings.Builder
		b.WriteByte('{')
		for i := range g.intn(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + pick(g, genNames) + `":`)
			b.WriteString(g.randomValue(depth + 1))
		}
		b.WriteByte('}')
		return b.String()
	}
}

// number is a random number literal.
func (g *gen) number() string {
	var b strings.Builder
	if g.chance(3) {
		b.WriteByte('-')
	}
	b.WriteString(strconv.Itoa(g.intn(300)))
	if g.chance(3) {
		b.WriteString("." + strconv.Itoa(g.intn(1000)))
	}
	if g.chance(4) {
		b.WriteString(pick(g, []string{"e", "E", "e+", "e-", "E-"}) + strconv.Itoa(g.intn(25)))
	}
	return b.String()
}

// str is a string literal of about n code points, sometimes after a run
// of ASCII long enough to take the scanner's long-string path.
func (g *gen) str(n int) string {
	var b strings.Builder
	b.WriteByte('"')
	if g.chance(6) {
		n += 16
	}
	for k := range n {
		if k < n-4 && g.intn(4) != 0 {
			b.WriteByte('x')
		} else if g.intn(3) == 0 {
			b.WriteByte('a')
		} else {
			b.WriteString(pick(g, genStringParts))
		}
	}
	b.WriteByte('"')
	return b.String()
}

// near returns a length close to the limits in the node's keywords.
func (g *gen) near(n *gnode, minKw, maxKw string) int {
	var cands []int
	for _, kv := range n.ints {
		if kv[0] == minKw || kv[0] == maxKw {
			v, _ := strconv.Atoi(kv[1])
			cands = append(cands, v-1, v, v+1)
		}
	}
	if len(cands) == 0 || g.chance(4) {
		return g.intn(4)
	}
	return max(pick(g, cands), 0)
}

// doc is a document for n: mostly what n allows, often just beside it. In
// enum mode it is a value for n's enum or const, so it does not recurse
// into them.
func (g *gen) doc(n *gnode, depth int, enumMode bool) string {
	if n == nil || depth > 7 || g.chance(12) {
		return g.randomValue(depth)
	}
	if !enumMode && (n.hasEnum && len(n.enum) > 0 || n.hasCon) && g.intn(3) != 0 {
		v := n.con
		if n.hasEnum && len(n.enum) > 0 && (!n.hasCon || g.intn(2) == 0) {
			v = pick(g, n.enum)
		}
		return g.respell(v)
	}
	kind := pick(g, genTypes)
	if len(n.types) > 0 && !g.chance(8) {
		kind = pick(g, n.types)
	}
	switch kind {
	case "object":
		var members []string
		for _, p := range n.props {
			if g.intn(4) != 0 {
				members = append(members, g.key(p.name)+":"+g.doc(p.node, depth+1, false))
			}
		}
		for _, r := range n.req {
			if g.chance(4) {
				members = append(members, g.key(r)+":"+g.randomValue(depth+1))
			}
		}
		for range g.intn(3) {
			members = append(members, g.key(pick(g, genNames))+":"+g.doc(n.addl, depth+1, false))
		}
		if len(members) > 0 && g.chance(5) { // a repeated key with another value
			m := pick(g, members)
			k := m[:strings.Index(m[1:], `":`)+2]
			members = append(members, k+":"+g.randomValue(depth+1))
		}
		for i := len(members) - 1; i > 0; i-- {
			j := g.intn(i + 1)
			members[i], members[j] = members[j], members[i]
		}
		return "{" + strings.Join(members, g.space()+","+g.space()) + "}"
	case "array":
		cnt := g.near(n, "minItems", "maxItems")
		elems := make([]string, cnt)
		for i := range elems {
			elems[i] = g.doc(n.items, depth+1, false)
		}
		return "[" + g.space() + strings.Join(elems, ",") + "]"
	case "string":
		return g.str(g.near(n, "minLength", "maxLength"))
	case "integer", "number":
		if len(n.bounds) > 0 && g.intn(3) != 0 {
			return g.perturb(pick(g, n.bounds)[1])
		}
		if g.intn(2) == 0 {
			return pick(g, genNumbers)
		}
		return g.number()
	case "boolean":
		return pick(g, []string{"true", "false"})
	}
	return "null"
}

// key writes a property name as a document key: as the schema wrote it, or
// spelled another way that decodes to the same or a close name.
func (g *gen) key(name string) string {
	switch g.intn(6) {
	case 1:
		if name != "" && name[0] < 0x80 && name[0] != '\\' {
			return `"\u00` + strconv.FormatInt(int64(name[0]), 16) + name[1:] + `"`
		}
	case 2:
		switch name {
		case "\ufffd":
			return "\"\xff\""
		case "\xff":
			return `"\ufffd"`
		case "é":
			return `"\u00e9"`
		case "𝄞":
			return `"\ud834\udd1e"`
		}
	case 3:
		return `"` + name + `x"`
	}
	return `"` + name + `"`
}

func (g *gen) space() string {
	return pick(g, []string{"", "", "", " ", "\n\t"})
}

// respell writes the JSON value v another way, most often with the same
// decoded value, sometimes with a value just beside it.
func (g *gen) respell(v string) string {
	switch {
	case v == "" || g.intn(3) == 0:
		return v
	case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
		return g.perturb(v)
	case v[0] == '"':
		if len(v) > 2 && v[1] >= 'a' && v[1] <= 'z' {
			return `"\u00` + strconv.FormatInt(int64(v[1]), 16) + v[2:]
		}
		return v[:len(v)-1] + `a"`
	case v[0] == '[' || v[0] == '{':
		return " " + strings.ReplaceAll(v, ",", g.space()+",") + " "
	}
	return v
}

// perturb writes a number literal another way: the same value (1 as 1.0,
// 10e-1, 1e0) or a value just beside it.
func (g *gen) perturb(lit string) string {
	mant, exp, hasExp := strings.Cut(strings.ToLower(lit), "e")
	switch g.intn(8) {
	case 1:
		if !strings.Contains(mant, ".") {
			mant += ".0"
		} else {
			mant += "0"
		}
	case 2:
		if !hasExp {
			return lit + "e0"
		}
	case 3: // times ten, exponent one less: same value
		if e, err := strconv.Atoi(exp); err == nil || !hasExp {
			return mant + "0e" + strconv.Itoa(e-1)
		}
	case 4: // just above in magnitude
		if !strings.Contains(mant, ".") {
			mant += ".0000000000000000000001"
		} else {
			mant += "0000000000000000000001"
		}
	case 5: // just below in magnitude
		if mant != "0" && mant != "-0" {
			m, _ := strconv.ParseFloat(mant, 64)
			if m == float64(int64(m)) && !strings.Contains(mant, ".") {
				mant = strings.TrimPrefix(mant, "-")
				neg := strings.HasPrefix(lit, "-")
				n, _ := strconv.ParseInt(mant, 10, 64)
				mant = strconv.FormatInt(n-1, 10) + ".9999999999999999999999"
				if neg {
					mant = "-" + mant
				}
			}
		}
	case 6:
		if strings.HasPrefix(mant, "-") {
			mant = mant[1:]
		} else {
			mant = "-" + mant
		}
	case 7:
		return pick(g, genNumbers)
	}
	if hasExp {
		return mant + "e" + exp
	}
	return mant
}

// json writes the schema.
func (n *gnode) json(b *strings.Builder) {
	if n.boolean != nil {
		b.WriteString(strconv.FormatBool(*n.boolean))
		return
	}
	b.WriteByte('{')
	n.fields(b, "")
	b.WriteByte('}')
}

// fields writes the keywords of an object schema, the first one preceded
// by sep.
func (n *gnode) fields(b *strings.Builder, sep string) {
	field := func(k string) {
		b.WriteString(sep + `"` + k + `":`)
		sep = ","
	}
	switch len(n.types) {
	case 0:
	case 1:
		field("type")
		b.WriteString(`"` + n.types[0] + `"`)
	default:
		field("type")
		t, _ := json.Marshal(n.types)
		b.Write(t)
	}
	if len(n.props) > 0 {
		field("properties")
		b.WriteByte('{')
		for i, p := range n.props {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + p.name + `":`)
			p.node.json(b)
		}
		b.WriteByte('}')
	}
	if len(n.req) > 0 {
		field("required")
		b.WriteString(`["` + strings.Join(n.req, `","`) + `"]`)
	}
	if n.addl != nil {
		field("additionalProperties")
		n.addl.json(b)
	}
	if n.items != nil {
		field("items")
		n.items.json(b)
	}
	if n.hasEnum {
		field("enum")
		b.WriteString("[" + strings.Join(n.enum, ",") + "]")
	}
	if n.hasCon {
		field("const")
		b.WriteString(n.con)
	}
	for _, kv := range n.bounds {
		field(kv[0])
		b.WriteString(kv[1])
	}
	for _, kv := range n.ints {
		field(kv[0])
		b.WriteString(kv[1])
	}
}

// genCase is one generated schema with its documents.
type genCase struct {
	schema []byte
	draft  Draft
	docs   [][]byte
}

// generate makes one schema and ndocs documents for it.
func generate(src choiceSource, ndocs int) genCase {
	g := &gen{src}
	n := g.schema(0)
	var b strings.Builder
	c := genCase{draft: Draft2020}
	if g.chance(3) {
		c.draft = Draft7
	}
	if n.boolean == nil && g.chance(6) {
		d := pick(g, []string{"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#",
			"http://json-schema.org/draft-04/schema#", "https://json-schema.org/draft/2019-09/schema"})
		b.WriteString(`{"$schema":"` + d + `"`)
		n.fields(&b, ",")
		b.WriteByte('}')
	} else {
		n.json(&b)
	}
	c.schema = []byte(b.String())
	for range ndocs {
		d := g.doc(n, 0, false)
		if g.chance(10) {
			d = " " + d + "\n"
		}
		c.docs = append(c.docs, []byte(d))
	}
	return c
}
