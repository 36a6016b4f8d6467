package skill

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// A Hit is one result of [Set.Search].
type Hit struct {
	Skill *Skill
	Score float64
}

// Search returns the skills the model may activate whose name,
// description or when_to_use match query, best first, at most limit (zero
// or less means 10). It ranks by BM25 over the words of those fields, the
// name's words counting twice; ties go by name. It never ranks by past
// use, so a skill nobody has used yet is found as easily as a popular one.
func (s *Set) Search(query string, limit int) []Hit {
	if limit <= 0 {
		limit = 10
	}
	terms := words(query)
	if s == nil || len(terms) == 0 {
		return nil
	}
	type doc struct {
		sk  *Skill
		tf  map[string]int
		len int
	}
	var docs []doc
	df := map[string]int{}
	total := 0
	for _, sk := range s.order {
		if sk.ModelHidden {
			continue
		}
		ws := words(sk.Name)
		ws = append(ws, ws...)
		ws = append(ws, words(sk.Description)...)
		ws = append(ws, words(sk.WhenToUse)...)
		tf := map[string]int{}
		for _, w := range ws {
			if tf[w] == 0 {
				df[w]++
			}
			tf[w]++
		}
		docs = append(docs, doc{sk, tf, len(ws)})
		total += len(ws)
	}
	if len(docs) == 0 {
		return nil
	}
	const k1, b = 1.2, 0.75
	avg := float64(total) / float64(len(docs))
	var hits []Hit
	for _, d := range docs {
		score := 0.0
		for _, t := range terms {
			f := float64(d.tf[t])
			if f == 0 {
				continue
			}
			n := float64(df[t])
			idf := math.Log(1 + (float64(len(docs))-n+0.5)/(n+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(d.len)/avg))
		}
		if score > 0 {
			hits = append(hits, Hit{d.sk, score})
		}
	}
	slices.SortFunc(hits, func(x, y Hit) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return strings.Compare(x.Skill.Name, y.Skill.Name)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// words returns the lower-case words of s: runs of letters and digits.
// A trailing "s" is dropped from words longer than three letters, so that
// "PDFs" finds "pdf".
func words(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range f {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			f[i] = w[:len(w)-1]
		}
	}
	return f
}
