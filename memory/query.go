package memory

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// embedBatch is how many texts go to the embedder in one request.
const embedBatch = 64

// Search returns the notes that match q, best first. Without an
// [Embedder] the score is BM25F (see the package doc); a query without
// words lists the notes the filters keep, newest first. With an Embedder
// the score blends the BM25F score, divided by the best one, with the
// cosine similarity of the note's and the query's embeddings (Config's
// EmbedWeight is the similarity's share); notes are embedded when first
// searched and kept in memory. If the embedder fails, the search falls
// back to BM25F and logs a warning. ctx bounds the embedder's requests.
func (s *Store) Search(ctx context.Context, q Query) ([]Hit, error) {
	limit := cmp.Or(q.Limit, DefaultLimit)
	f := newFilter(&q)
	qterms := terms(q.Text)
	s.mu.Lock()
	if err := s.refresh(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	var hits []Hit
	if len(qterms) == 0 {
		var all []scored
		for i := range s.ix.docs {
			if d := &s.ix.docs[i]; f.keep(d) {
				all = append(all, scored{doc: int32(i)})
			}
		}
		hits = s.ix.hits(s.ix.top(all, limit))
		s.mu.Unlock()
		return hits, nil
	}
	found := s.ix.bm25(qterms, &f)
	if s.cfg.Embedder == nil {
		hits = s.ix.hits(s.ix.top(found, limit))
		s.mu.Unlock()
		return hits, nil
	}
	scores := make(map[int32]float64, len(found))
	for _, c := range found {
		scores[c.doc] = c.score
	}
	// The semantic half: every note the filters keep is a candidate.
	type cand struct {
		note Note
		bm25 float64
		hash string
		text string
	}
	var cands []cand
	var missing []int
	for i := range s.ix.docs {
		d := &s.ix.docs[i]
		if !f.keep(d) {
			continue
		}
		text := embedText(&d.note)
		sum := sha256.Sum256([]byte(text))
		c := cand{note: d.note, bm25: scores[int32(i)], hash: hex.EncodeToString(sum[:]), text: text}
		if _, ok := s.vecs[c.hash]; !ok {
			missing = append(missing, len(cands))
		}
		cands = append(cands, c)
	}
	s.mu.Unlock()

	bm25Only := func() []Hit {
		hits := make([]Hit, 0, len(scores))
		for _, c := range cands {
			if c.bm25 > 0 {
				hits = append(hits, Hit{Note: c.note, Score: c.bm25, BM25: c.bm25})
			}
		}
		return rank(hits, limit)
	}
	qv, err := s.cfg.Embedder.Embed(ctx, []string{q.Text})
	if err == nil && len(qv) != 1 {
		err = errEmbedCount
	}
	if err != nil {
		s.log.Warn("memory: search without embeddings", "err", err)
		return bm25Only(), nil
	}
	fresh := map[string][]float32{}
	for start := 0; start < len(missing); start += embedBatch {
		batch := missing[start:min(start+embedBatch, len(missing))]
		texts := make([]string, len(batch))
		for i, ci := range batch {
			texts[i] = cands[ci].text
		}
		vs, err := s.cfg.Embedder.Embed(ctx, texts)
		if err == nil && len(vs) != len(texts) {
			err = errEmbedCount
		}
		if err != nil {
			s.log.Warn("memory: search without embeddings", "err", err)
			return bm25Only(), nil
		}
		for i, ci := range batch {
			fresh[cands[ci].hash] = vs[i]
		}
	}
	s.mu.Lock()
	for h, v := range fresh {
		s.vecs[h] = v
	}
	vecs := make([][]float32, len(cands))
	for i, c := range cands {
		vecs[i] = s.vecs[c.hash]
	}
	s.mu.Unlock()

	var best float64
	for _, c := range cands {
		best = max(best, c.bm25)
	}
	w := s.cfg.EmbedWeight
	for i, c := range cands {
		sim := cosine(qv[0], vecs[i])
		if c.bm25 == 0 && sim < s.cfg.MinSimilarity {
			continue
		}
		norm := 0.0
		if best > 0 {
			norm = c.bm25 / best
		}
		hits = append(hits, Hit{Note: c.note, Score: (1-w)*norm + w*max(sim, 0), BM25: c.bm25, Similarity: sim})
	}
	return rank(hits, limit), nil
}

// embedText is what is embedded of a note: its body and its tags.
func embedText(n *Note) string {
	if len(n.Tags) == 0 {
		return n.Body
	}
	return n.Body + "\ntags: " + strings.Join(n.Tags, ", ")
}
