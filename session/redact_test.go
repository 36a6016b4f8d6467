package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/wieldhq/wield/llm"
)

// HideOracle is the specification of literal redaction, written naively
// and independently of [redactor.hide]: every byte of s inside an
// occurrence of a secret that counts (see [Counts]) is covered (for a
// secret shorter than MinSecretLen, only an occurrence that is a whole
// token: see [OracleOccurs]), and each run of covered bytes becomes one
// [Redacted]. It also returns, for each byte of the result, whether it
// belongs to a marker.
func HideOracle(s string, secrets []string) (string, []bool) {
	covered := make([]bool, len(s))
	for _, secret := range secrets {
		if !Counts(secret) {
			continue
		}
		for _, o := range OracleOccurs(s, secret) {
			for j := o[0]; j < o[1]; j++ {
				covered[j] = true
			}
		}
	}
	var out []byte
	var marker []bool
	for i := 0; i < len(s); i++ {
		switch {
		case !covered[i]:
			out = append(out, s[i])
			marker = append(marker, false)
		case i == 0 || !covered[i-1]:
			out = append(out, Redacted...)
			for range Redacted {
				marker = append(marker, true)
			}
		}
	}
	return string(out), marker
}

// OracleOccurs returns the byte ranges of the occurrences of secret in s
// that redaction replaces, found by trying every byte offset: all of them
// for a secret of MinSecretLen bytes or more; for a shorter one, those
// that continue no word: where the character before (after) the
// occurrence and the secret's first (last) character are not both word
// characters (letters, marks, numbers, '_', '-').
func OracleOccurs(s, secret string) [][2]int {
	word := func(r rune) bool {
		return r == '_' || r == '-' || unicode.In(r, unicode.L, unicode.M, unicode.N)
	}
	var occ [][2]int
	for i := 0; i+len(secret) <= len(s) && secret != ""; i++ {
		j := i + len(secret)
		if s[i:j] != secret {
			continue
		}
		if len(secret) < MinSecretLen {
			first, _ := utf8.DecodeRuneInString(secret)
			last, _ := utf8.DecodeLastRuneInString(secret)
			before, _ := utf8.DecodeLastRuneInString(s[:i])
			after, _ := utf8.DecodeRuneInString(s[j:])
			if i > 0 && word(before) && word(first) || j < len(s) && word(after) && word(last) {
				continue
			}
		}
		occ = append(occ, [2]int{i, j})
	}
	return occ
}

// Counts reports whether a configured secret is redacted: non-empty
// UTF-8 that the marker does not hold (as OracleOccurs finds secrets).
func Counts(secret string) bool {
	return secret != "" && utf8.ValidString(secret) && len(OracleOccurs(Redacted, secret)) == 0
}

// plainSecret reports whether secret is made of characters that JSON never
// escapes and that cannot belong to a number or a literal, so that it
// cannot appear in a journal line's text unless a string holds it.
func plainSecret(secret string) bool {
	letter := false
	for _, c := range secret {
		switch {
		case c >= 'a' && c <= 'z' && c != 'e', c >= 'A' && c <= 'Z' && c != 'E':
			letter = true
		case c >= '0' && c <= '9', c == '_', c == '-', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return letter
}

// CheckRedactedLine checks a journal line written with secrets against the
// same line written without them: both are valid JSON, they are the same
// token for token, and every string (keys included) of the redacted line
// is HideOracle of the plain line's. No secret survives in the redacted
// line's strings, except where it overlaps a marker (its characters are
// then the marker's, not the secret's); and a plain secret does not occur
// in the line's text at all. A secret shorter than MinSecretLen survives
// only inside words, and as a whole token only next to a marker (where
// the longer secret that hid its neighbour was).
func CheckRedactedLine(t testing.TB, plain, redacted []byte, secrets []string) {
	t.Helper()
	if !json.Valid(plain) {
		t.Fatalf("plain line is not valid JSON: %s", plain)
	}
	if !json.Valid(redacted) {
		t.Fatalf("redacted line is not valid JSON: %s", redacted)
	}
	pd := json.NewDecoder(bytes.NewReader(plain))
	pd.UseNumber()
	rd := json.NewDecoder(bytes.NewReader(redacted))
	rd.UseNumber()
	for {
		pt, perr := pd.Token()
		rt, rerr := rd.Token()
		if errors.Is(perr, io.EOF) && errors.Is(rerr, io.EOF) {
			break
		}
		if perr != nil || rerr != nil {
			t.Fatalf("tokens: %v / %v\nplain:    %s\nredacted: %s", perr, rerr, plain, redacted)
		}
		ps, pok := pt.(string)
		rs, rok := rt.(string)
		if !pok || !rok {
			if pt != rt {
				t.Fatalf("token %v became %v\nplain:    %s\nredacted: %s", pt, rt, plain, redacted)
			}
			continue
		}
		want, marker := HideOracle(ps, secrets)
		if rs != want {
			t.Fatalf("string redacted wrong\nplain: %q\ngot:   %q\nwant:  %q\nsecrets: %q", ps, rs, want, secrets)
		}
		for _, secret := range secrets {
			if !Counts(secret) {
				continue
			}
			for _, o := range OracleOccurs(rs, secret) {
				i, j := o[0], o[1]
				if anyTrue(marker[i:j]) || i > 0 && marker[i-1] || j < len(marker) && marker[j] {
					continue
				}
				t.Fatalf("secret %q survives at byte %d of %q", secret, i, rs)
			}
		}
	}
	for _, secret := range secrets {
		if Counts(secret) && len(secret) >= MinSecretLen && plainSecret(secret) && bytes.Contains(redacted, []byte(secret)) {
			t.Fatalf("secret %q survives in the line %s", secret, redacted)
		}
	}
}

func anyTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}

func TestRedactorHide(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"a short secret inside a word stays", []string{"x"}, "script exhausted xx", "script exhausted xx"},
		{"a short secret as a whole token", []string{"x"}, "key=x done, x", "key=" + Redacted + " done, " + Redacted},
		{"a short secret in a hyphenated word stays", []string{"x"}, "x-ray -x", "x-ray -x"},
		{"7 bytes is short", []string{"1234567"}, "a1234567b (1234567)", "a1234567b (" + Redacted + ")"},
		{"a short secret the marker holds whole is ignored", []string{"]"}, "a]b", "a]b"},
		{"a short secret inside the marker's word counts", []string{"RED"}, "RED REDACTED", Redacted + " REDACTED"},
		{"8 bytes is a secret", []string{"12345678"}, "a12345678b", "a" + Redacted + "b"},
		{"inside a longer word, only the secret", []string{"sk-abcdefgh"}, "token=sk-abcdefghIJKL.", "token=" + Redacted + "IJKL."},
		{"overlapping occurrences are one marker", []string{"aaaaaaaa"}, "xaaaaaaaaaaay", "x" + Redacted + "y"},
		{"a secret inside another", []string{"abcdefgh", "abcdefgh12345678"}, "<abcdefgh12345678>", "<" + Redacted + ">"},
		{"a secret inside another, listed first", []string{"abcdefgh12345678", "abcdefgh"}, "abcdefgh abcdefgh12345678", Redacted + " " + Redacted},
		{"two secrets overlapping", []string{"abcdefgh", "efgh1234"}, "abcdefgh1234", Redacted},
		{"adjacent occurrences are one marker", []string{"abcdefgh"}, "abcdefghabcdefgh", Redacted},
		{"a marker already there is text", []string{"REDACTED]x"}, Redacted + "x abc", "[" + Redacted + " abc"},
		{"an inserted marker is never matched", []string{"12345678", "D]abcdefgh"}, "12345678abcdefgh", Redacted + "abcdefgh"},
		{"a secret inside the marker is ignored", []string{"REDACTED"}, "REDACTED " + Redacted, "REDACTED " + Redacted},
		{"duplicates", []string{"abcdefgh", "abcdefgh"}, "1abcdefgh2", "1" + Redacted + "2"},
		{"unicode", []string{"ключ-секрет"}, "é ключ-секрет é", "é " + Redacted + " é"},
		{"invalid UTF-8 is the journal's U+FFFD", []string{"\ufffdabcdefg"}, "\xffabcdefg", Redacted},
		{"not UTF-8 is not a secret", []string{"\xffabcdefgh"}, "\xffabcdefgh", "\ufffdabcdefgh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, _ := newRedactor(tt.secrets)
			if got := r.text(tt.in); got != tt.want {
				t.Errorf("text(%q) with secrets %q = %q, want %q", tt.in, tt.secrets, got, tt.want)
			}
		})
	}
}

func TestRedactorJSON(t *testing.T) {
	secrets := []string{"abcdefgh12345678", `q"<&>\z-long`, "x"}
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"nothing to hide keeps every byte", `{"b": 1, "a": [12345678901234567890, 1.50, "x\u00e9"]}`, `{"b": 1, "a": [12345678901234567890, 1.50, "x\u00e9"]}`},
		{"only the string that held a secret changes", `{"z": "key abcdefgh12345678!", "a": 1e3, "m": "\u00e9"}`, `{"z": "key [REDACTED]!", "a": 1e3, "m": "\u00e9"}`},
		{"escaped spelling", `{"s": "\u0061bcdefgh12345678"}`, `{"s": "[REDACTED]"}`},
		{"escaped quote, backslash and HTML", `["q\"\u003c\u0026>\\z-long and q\"<&>\\z-long"]`, `["[REDACTED] and [REDACTED]"]`},
		{"secret in a key", `{"abcdefgh12345678": true}`, `{"[REDACTED]": true}`},
		{"value of a secret key", `{"api_key": "k-1", "n": {"Token": "t"}, "password": 5}`, `{"api_key": "[REDACTED]", "n": {"Token": "[REDACTED]"}, "password": 5}`},
		{"not JSON is stored as a string", `{"a": abcdefgh12345678`, `"{\"a\": [REDACTED]"`},
		{"a short secret inside a word changes nothing", `{"text": "exhausted"}`, `{"text": "exhausted"}`},
		{"a short secret as a whole token", `{"text": "key x", "n": 1}`, `{"text": "key [REDACTED]", "n": 1}`},
		{"a short secret escaped", `{"text": "key \u0078"}`, `{"text": "key [REDACTED]"}`},
	}
	r, ignored, short := newRedactor(secrets)
	if ignored != 0 || short != 1 {
		t.Errorf("newRedactor(%q) ignored %d and kept %d short, want 0 and 1", secrets, ignored, short)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(r.json(json.RawMessage(tt.in))); got != tt.want {
				t.Errorf("json(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestShortSecretIsAWholeTokenAndWarnsOnce checks that a short key is
// hidden where it stands alone and left alone inside words, with one
// warning per store that never shows it.
func TestShortSecretIsAWholeTokenAndWarnsOnce(t *testing.T) {
	ctx := t.Context()
	var log bytes.Buffer
	st := newStore(t)
	st.Logger = slog.New(slog.NewTextHandler(&log, nil))
	st.Secrets = []string{"q7", "Zw9#4k", "x"}
	for _, id := range []string{"one", "two"} {
		s, err := st.Create(ctx, Header{ID: id, Purpose: "use q7 and Zw9#4k"})
		must(t, err)
		must(t, s.Begin(ctx, "script exhausted; q7 Zw9#4k, q7x"))
		must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "q7 Zw9#4k"}}))
		must(t, s.Commit(ctx))
		must(t, s.Close())
		raw, err := st.Load(ctx, id)
		must(t, err)
		if got, want := raw.Header.Purpose, "use "+Redacted+" and "+Redacted; got != want {
			t.Errorf("purpose = %q, want %q", got, want)
		}
		if got, want := raw.Turns[0].Text, "script exhausted; "+Redacted+" "+Redacted+", q7x"; got != want {
			t.Errorf("task = %q, want %q", got, want)
		}
	}
	if n := strings.Count(log.String(), "too short"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, log.String())
	}
	if strings.Contains(log.String(), "q7") || strings.Contains(log.String(), "Zw9#4k") {
		t.Errorf("the warning shows a secret:\n%s", log.String())
	}
}

// FuzzRedaction writes journal lines from arbitrary text, JSON and secrets,
// with and without the secrets, and checks them with CheckRedactedLine:
// valid JSON, unchanged except exactly at the secrets, no secret left.
func FuzzRedaction(f *testing.F) {
	f.Add("exhausted abcdefgh12345678 x", []byte(`{"path": "abcdefgh12345678", "n": 1}`), "abcdefgh12345678", "x", "abcdefgh")
	f.Add("aaaaaaaaaaaa", []byte(`["aaaaaaaa\u0061", {"api_key": "v"}]`), "aaaaaaaa", "aaaaaaaaa", "")
	f.Add(`Authorization: Bearer tok password=hunter22 q"<&>\z`, []byte(`{"q\"<&>\\z-long": "\u003c"}`), `q"<&>\z-long`, "Bearer tok", "REDACTED")
	f.Add("é\xffabcdefg", []byte("\"\xffabcdefg\""), "\ufffdabcdefg", "[REDACTED]", "D]abcdefg")
	f.Add("ghp_0123456789abcdefghijABCDEFGHIJ", []byte(`{"a":{"b":[null,true,"sk-0123456789abcdefXYZ"]}}`), "0123456789", "ghp_0123", "")
	f.Fuzz(func(t *testing.T, text string, raw []byte, s1, s2, s3 string) {
		secrets := []string{s1, s2, s3}
		args := storable(raw)
		turns := []Turn{
			{Kind: TurnUserTask, Text: text},
			{Kind: TurnModelResponse, Text: text, Reasoning: text, Calls: []llm.ToolCall{{ID: "c", Name: "t", Arguments: args}}},
			{Kind: TurnFunctionCalling, CallID: "c", Tool: "t", Arguments: args},
			{Kind: TurnToolResponse, CallID: "c", Tool: "t", Output: text, Data: args},
		}
		// The line's structure (event and field names, the kind, the call
		// id and tool name) is not text the redactor sees: a secret found
		// there is dropped, or the check would expect it hidden.
		for _, tr := range turns {
			tr.Text, tr.Reasoning, tr.Output, tr.Arguments, tr.Data = "", "", "", nil, nil
			tr.Calls = slices.Clone(tr.Calls)
			for i := range tr.Calls {
				tr.Calls[i].Arguments = nil
			}
			var sk bytes.Buffer
			must(t, writeLine(&sk, &event{Op: opPool, Turn: &tr}))
			for i, secret := range secrets {
				if len(OracleOccurs(sk.String(), secret)) > 0 {
					secrets[i] = ""
				}
			}
		}
		var plain redactor
		red, _, _ := newRedactor(secrets)
		for _, tr := range turns {
			var a, b bytes.Buffer
			pt, rt := plain.turn(tr), red.turn(tr)
			must(t, writeLine(&a, &event{Op: opPool, Turn: &pt}))
			must(t, writeLine(&b, &event{Op: opPool, Turn: &rt}))
			CheckRedactedLine(t, bytes.TrimSuffix(a.Bytes(), []byte("\n")), bytes.TrimSuffix(b.Bytes(), []byte("\n")), secrets)
		}
	})
}
