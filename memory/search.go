package memory

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// The BM25F parameters: field weights (title, text, tags), k1 and b.
const (
	weightTitle = 2
	weightText  = 1
	weightTags  = 2
	bm25K1      = 1.2
	bm25B       = 0.75
)

// The fields of a note that are searched.
const (
	fieldTitle = iota
	fieldText
	fieldTags
	numFields
)

var fieldWeight = [numFields]float64{weightTitle, weightText, weightTags}

// A Query says which notes [Store.Search] returns.
type Query struct {
	// Text is what to look for; empty matches every note the filters
	// keep, newest first.
	Text string
	// Tags keeps the notes that have every one of these tags (compared
	// in lower case).
	Tags []string
	// Scope keeps one scope's notes; empty means both.
	Scope Scope
	// Since and Until keep notes modified at or after Since and before
	// Until; zero means no bound.
	Since, Until time.Time
	// Limit is the most hits returned; zero means DefaultLimit.
	Limit int
}

// DefaultLimit is the number of hits a [Query] without a Limit returns.
const DefaultLimit = 10

// A Hit is one note a search found.
type Hit struct {
	Note Note
	// Score ranks the hit: BM25, or the blend of normalised BM25 and
	// Similarity when an [Embedder] is configured.
	Score float64
	// BM25 is the note's BM25F score for the query's text.
	BM25 float64
	// Similarity is the cosine similarity of the note's embedding and the
	// query's; zero without an Embedder.
	Similarity float64
}

// A doc is one note in the index.
type doc struct {
	note   Note
	title  string
	terms  []string // the distinct terms, for removal and near-duplicates
	length [numFields]int
	normal string // normalText of the body, for exact duplicates
	live   bool
}

// A posting is one doc's term frequencies for one term.
type posting struct {
	doc int32
	tf  [numFields]uint16
}

type key struct {
	scope Scope
	id    string
}

// invIndex is an inverted index of notes. It is not safe for concurrent
// use; the Store guards it.
type invIndex struct {
	docs     []doc
	byKey    map[key]int32
	free     []int32
	postings map[string][]posting
	total    [numFields]int // field lengths summed over live docs
	live     int
	// acc and touched are a search's scratch space.
	acc     []float64
	touched []int32
	found   []scored
}

func (ix *invIndex) get(scope Scope, id string) (*doc, bool) {
	i, ok := ix.byKey[key{scope, id}]
	if !ok {
		return nil, false
	}
	return &ix.docs[i], true
}

// add indexes n, replacing the note with its scope and id if there is one.
func (ix *invIndex) add(n Note) {
	if ix.byKey == nil {
		ix.byKey = map[key]int32{}
		ix.postings = map[string][]posting{}
	}
	ix.remove(n.Scope, n.ID)
	title, text := split(n.Body)
	fields := [numFields][]string{terms(title), terms(text), nil}
	for _, t := range n.Tags {
		fields[fieldTags] = append(fields[fieldTags], terms(t)...)
	}
	d := doc{note: n, title: title, normal: normalText(n.Body), live: true}
	tf := map[string]*[numFields]uint16{}
	for f, ts := range fields {
		d.length[f] = len(ts)
		ix.total[f] += len(ts)
		for _, t := range ts {
			c := tf[t]
			if c == nil {
				c = new([numFields]uint16)
				tf[t] = c
				d.terms = append(d.terms, t)
			}
			if c[f] < math.MaxUint16 {
				c[f]++
			}
		}
	}
	var i int32
	if n := len(ix.free); n > 0 {
		i, ix.free = ix.free[n-1], ix.free[:n-1]
		ix.docs[i] = d
	} else {
		i = int32(len(ix.docs))
		ix.docs = append(ix.docs, d)
	}
	ix.byKey[key{n.Scope, n.ID}] = i
	ix.live++
	for _, t := range d.terms {
		ix.postings[t] = append(ix.postings[t], posting{doc: i, tf: *tf[t]})
	}
}

// remove takes a note out of the index; it reports whether it was there.
func (ix *invIndex) remove(scope Scope, id string) bool {
	i, ok := ix.byKey[key{scope, id}]
	if !ok {
		return false
	}
	d := &ix.docs[i]
	for _, t := range d.terms {
		ps := slices.DeleteFunc(ix.postings[t], func(p posting) bool { return p.doc == i })
		if len(ps) == 0 {
			delete(ix.postings, t)
		} else {
			ix.postings[t] = ps
		}
	}
	for f := range numFields {
		ix.total[f] -= d.length[f]
	}
	*d = doc{}
	delete(ix.byKey, key{scope, id})
	ix.free = append(ix.free, i)
	ix.live--
	return true
}

// removeScope takes every note of scope out of the index.
func (ix *invIndex) removeScope(scope Scope) {
	var ids []string
	for k := range ix.byKey {
		if k.scope == scope {
			ids = append(ids, k.id)
		}
	}
	for _, id := range ids {
		ix.remove(scope, id)
	}
}

// filter is a Query's filters, prepared.
type filter struct {
	scope        Scope
	tags         []string
	since, until time.Time
}

func newFilter(q *Query) filter {
	return filter{scope: q.Scope, tags: normalTags(q.Tags), since: q.Since, until: q.Until}
}

func (f *filter) keep(d *doc) bool {
	if !d.live || f.scope != "" && d.note.Scope != f.scope {
		return false
	}
	if !f.since.IsZero() && d.note.Modified.Before(f.since) || !f.until.IsZero() && !d.note.Modified.Before(f.until) {
		return false
	}
	for _, t := range f.tags {
		if !slices.Contains(d.note.Tags, t) {
			return false
		}
	}
	return true
}

// idf is Lucene's BM25 idf of a term found in n of the N docs.
func idf(N, n int) float64 {
	return math.Log(1 + (float64(N)-float64(n)+0.5)/(float64(n)+0.5))
}

// A scored is a doc with its score.
type scored struct {
	doc   int32
	score float64
}

// bm25 scores the docs the filter keeps against the query terms and
// returns those scoring above zero, in no order. The result is the
// index's scratch space, valid until the next call.
func (ix *invIndex) bm25(qterms []string, f *filter) []scored {
	var avg [numFields]float64
	for i := range numFields {
		avg[i] = 1
		if ix.live > 0 && ix.total[i] > 0 {
			avg[i] = float64(ix.total[i]) / float64(ix.live)
		}
	}
	// acc is the index's scratch, zero between searches (the Store's
	// lock keeps searches apart).
	if len(ix.acc) < len(ix.docs) {
		ix.acc = make([]float64, len(ix.docs))
	}
	acc := ix.acc
	touched := ix.touched[:0]
	seen := make(map[string]bool, len(qterms))
	for _, t := range qterms {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		w := idf(ix.live, len(ps))
		for _, p := range ps {
			d := &ix.docs[p.doc]
			if !f.keep(d) {
				continue
			}
			var tf float64
			for i := range numFields {
				if p.tf[i] > 0 {
					tf += fieldWeight[i] * float64(p.tf[i]) / (1 - bm25B + bm25B*float64(d.length[i])/avg[i])
				}
			}
			if acc[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			acc[p.doc] += w * tf / (bm25K1 + tf)
		}
	}
	out := ix.found[:0]
	for _, d := range touched {
		out = append(out, scored{d, acc[d]})
		acc[d] = 0
	}
	ix.touched, ix.found = touched, out
	return out
}

// better reports whether a ranks before b: a higher score, then newer,
// then by scope and id.
func (ix *invIndex) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	na, nb := &ix.docs[a.doc].note, &ix.docs[b.doc].note
	if c := na.Modified.Compare(nb.Modified); c != 0 {
		return c > 0
	}
	if na.Scope != nb.Scope {
		return na.Scope < nb.Scope
	}
	return na.ID < nb.ID
}

// top returns the best limit of cands, best first: an insertion into a
// short sorted list, as limit is small and cands may be every note.
func (ix *invIndex) top(cands []scored, limit int) []scored {
	best := make([]scored, 0, min(limit, len(cands))+1)
	for _, c := range cands {
		if len(best) == limit && !ix.better(c, best[len(best)-1]) {
			continue
		}
		i := len(best)
		for i > 0 && ix.better(c, best[i-1]) {
			i--
		}
		best = slices.Insert(best, i, c)
		if len(best) > limit {
			best = best[:limit]
		}
	}
	return best
}

// hits returns the notes of cands as hits.
func (ix *invIndex) hits(cands []scored) []Hit {
	out := make([]Hit, len(cands))
	for i, c := range cands {
		out[i] = Hit{Note: ix.docs[c.doc].note, Score: c.score, BM25: c.score}
	}
	return out
}

// rank sorts hits by score, then newest first, then by scope and id, and
// keeps the first limit.
func rank(hits []Hit, limit int) []Hit {
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := b.Note.Modified.Compare(a.Note.Modified); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Note.Scope, b.Note.Scope); c != 0 {
			return c
		}
		return cmp.Compare(a.Note.ID, b.Note.ID)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// NearDuplicate is the Jaccard similarity of two notes' term sets at or
// above which saving one reports the other.
const NearDuplicate = 0.6

// similar returns the docs whose term sets overlap terms (distinct) by at
// least NearDuplicate, except skip.
func (ix *invIndex) similar(ts []string, skip key) []Similar {
	if len(ts) == 0 {
		return nil
	}
	common := map[int32]int{}
	for _, t := range ts {
		for _, p := range ix.postings[t] {
			common[p.doc]++
		}
	}
	var out []Similar
	for i, c := range common {
		d := &ix.docs[i]
		if (key{d.note.Scope, d.note.ID}) == skip {
			continue
		}
		j := float64(c) / float64(len(ts)+len(d.terms)-c)
		if j >= NearDuplicate {
			out = append(out, Similar{ID: d.note.ID, Scope: d.note.Scope, Title: d.title, Jaccard: j})
		}
	}
	slices.SortFunc(out, func(a, b Similar) int {
		if c := cmp.Compare(b.Jaccard, a.Jaccard); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// A Similar is a note close to one being saved.
type Similar struct {
	ID    string `json:"id"`
	Scope Scope  `json:"scope"`
	Title string `json:"title"`
	// Jaccard is the share of distinct terms the two notes have in
	// common, from 0 to 1.
	Jaccard float64 `json:"jaccard"`
}

// distinct returns the distinct terms of a note as the index counts them.
func distinct(n *Note) []string {
	title, text := split(n.Body)
	var out []string
	seen := map[string]bool{}
	add := func(ts []string) {
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	add(terms(title))
	add(terms(text))
	for _, t := range n.Tags {
		add(terms(t))
	}
	return out
}
