package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MaxK is the most hits one search returns.
const MaxK = 1000

// A Query is what [Library.Search] looks for.
type Query struct {
	// Text is the query, in words.
	Text string
	// Collection names the collection to search; empty searches every
	// collection.
	Collection string
	// K is how many hits to return; zero means DefaultK, and more than
	// MaxK means MaxK.
	K int
	// Filter narrows the documents searched.
	Filter Filter
}

// Search returns the chunks that best match q, best first. With an
// [Embedder], each collection ranks its chunks twice, by BM25 and by the
// cosine similarity of their vectors to the query's, and the two
// rankings are fused by reciprocal rank ([RRFK]); the score is the fused
// one. Without, the score is BM25's. Hits from several collections are
// merged by score.
func (l *Library) Search(ctx context.Context, q Query) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, errors.New("the query is empty: give words to look for")
	}
	if err := q.Filter.Validate(); err != nil {
		return nil, err
	}
	k := cmp.Or(q.K, DefaultK)
	k = min(max(k, 1), MaxK)
	collections := []string{q.Collection}
	if q.Collection == "" {
		var err error
		if collections, err = l.Collections(); err != nil {
			return nil, err
		}
	}
	var vec []float32
	if l.cfg.Embedder != nil {
		vecs, err := l.cfg.Embedder.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("embedding the query: %w", err)
		}
		if len(vecs) != 1 {
			return nil, fmt.Errorf("embedding the query: the embedder returned %d vectors for 1 text", len(vecs))
		}
		vec = vecs[0]
	}
	var hits []Hit
	for _, c := range collections {
		st, err := l.store(c)
		if err != nil {
			return nil, err
		}
		hs, err := searchStore(ctx, st, q.Text, vec, k, q.Filter)
		if err != nil {
			return nil, fmt.Errorf("collection %s: %w", c, err)
		}
		for i := range hs {
			hs[i].Collection = c
		}
		hits = append(hits, hs...)
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return hits[:min(len(hits), k)], nil
}

// searchStore ranks the chunks of one store: by BM25 alone when vec is
// nil, else by the fusion of BM25 and vector rankings.
func searchStore(ctx context.Context, st Store, text string, vec []float32, k int, filter Filter) ([]Hit, error) {
	if vec == nil {
		return st.SearchText(ctx, text, k, filter)
	}
	// Each ranking goes deeper than k, so that a chunk ranked well by
	// one and fairly by the other can make the cut.
	depth := max(2*k, 100)
	lexical, err := st.SearchText(ctx, text, depth, filter)
	if err != nil {
		return nil, err
	}
	semantic, err := st.SearchVector(ctx, vec, depth, filter)
	if err != nil {
		return nil, err
	}
	fused := Fuse(lexical, semantic)
	return fused[:min(len(fused), k)], nil
}

// Fuse merges rankings by reciprocal rank fusion: a chunk's score is the
// sum, over the rankings that hold it, of 1/(RRFK + rank), with ranks
// from 1. Chunks are told apart by path and number. The result is
// sorted by fused score, best first; ties keep the order of first
// appearance.
func Fuse(rankings ...[]Hit) []Hit {
	type key struct {
		path string
		n    int
	}
	at := map[key]int{}
	var out []Hit
	for _, r := range rankings {
		for rank, h := range r {
			s := 1 / float64(RRFK+rank+1)
			k := key{h.Path, h.N}
			if i, ok := at[k]; ok {
				out[i].Score += s
				continue
			}
			at[k] = len(out)
			h.Score = s
			out = append(out, h)
		}
	}
	slices.SortStableFunc(out, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return out
}
