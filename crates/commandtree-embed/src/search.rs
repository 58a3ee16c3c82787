//! Semantic search: cosine similarity between a query's embedding and every stored command
//! embedding, as the seed spec's "Search Implementation" (scores 0–1, threshold 0.3 by
//! default, best first).
//!
//! The stored vectors are loaded once into one contiguous, pre-normalised array, so a query is
//! a single pass of dot products (100,000 commands: 150 MB of floats, a few milliseconds on two
//! threads).

use crate::kernels::{self, Isa};
use crate::{DIM, Embedder, Error, Vector, from_blob};

/// The seed spec's permissive default: better to show an irrelevant result than hide a
/// relevant one.
pub const DEFAULT_THRESHOLD: f32 = 0.3;

/// Below this many vectors one thread is faster than starting another.
const PARALLEL_FROM: usize = 16_384;

fn isa() -> Isa {
    Isa::detected()
}

/// Stored embeddings of the commands a search may return.
#[derive(Debug, Clone, Default)]
pub struct Index {
    ids: Vec<String>,
    /// `ids.len() × DIM`, each row of unit length (or all zeros).
    vectors: Vec<f32>,
    /// Rows whose BLOB was not 1536 bytes (skipped).
    pub invalid: usize,
}

/// One result: the command's position in the index, its id and its cosine similarity.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    pub score: f32,
}

impl Index {
    /// The stored embeddings of the commands `keep` accepts (the commands that exist now); a
    /// value that is not a 1536-byte vector is counted in `invalid` and skipped.
    pub fn load(
        store: &commandtree_store::Store,
        keep: &dyn Fn(&str) -> bool,
    ) -> commandtree_store::Result<Index> {
        let mut index = Index::default();
        store.each_embedding(keep, &mut |id, blob| match from_blob(blob) {
            Some(v) => index.push(id.to_string(), &v),
            None => index.invalid += 1,
        })?;
        Ok(index)
    }

    pub fn push(&mut self, id: String, v: &Vector) {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let inv = if norm > 0.0 { 1.0 / norm } else { 0.0 };
        self.ids.push(id);
        self.vectors.extend(v.iter().map(|x| x * inv));
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Cosine similarity of `query` with every vector, in the index's order (empty for a zero
    /// query).
    pub fn scores(&self, query: &Vector) -> Vec<f32> {
        let norm = query.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 || self.is_empty() {
            return Vec::new();
        }
        let q: Vec<f32> = query.iter().map(|x| x / norm).collect();
        let mut scores = vec![0f32; self.len()];
        let threads = if self.len() >= PARALLEL_FROM {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(4)
        } else {
            1
        };
        let per = self.len().div_ceil(threads);
        std::thread::scope(|s| {
            let mut parts = self.vectors.chunks(per * DIM).zip(scores.chunks_mut(per));
            let first = parts.next();
            for (rows, out) in parts {
                let q = &q;
                s.spawn(move || kernels::dot_rows(isa(), q, rows, DIM, out));
            }
            if let Some((rows, out)) = first {
                kernels::dot_rows(isa(), &q, rows, DIM, out);
            }
        });
        for x in scores.iter_mut() {
            *x = x.clamp(-1.0, 1.0);
        }
        scores
    }

    /// The id of row `i`.
    pub fn id(&self, i: usize) -> &str {
        &self.ids[i]
    }

    /// Cosine similarity of `query` with every vector; those at or above `threshold`, best
    /// first, at most `limit`.
    pub fn search(&self, query: &Vector, threshold: f32, limit: usize) -> Vec<Hit> {
        if limit == 0 {
            return Vec::new();
        }
        let scores = self.scores(query);
        let mut hits: Vec<(usize, f32)> = scores
            .iter()
            .enumerate()
            .filter(|(_, s)| **s >= threshold)
            .map(|(i, s)| (i, *s))
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, by_score);
            hits.truncate(limit);
        }
        hits.sort_by(by_score);
        hits.into_iter()
            .map(|(i, score)| Hit {
                id: self.ids[i].clone(),
                score,
            })
            .collect()
    }

    /// Embeds `query` and searches.
    pub fn query(
        &self,
        embedder: &Embedder,
        query: &str,
        threshold: f32,
        limit: usize,
    ) -> Result<Vec<Hit>, Error> {
        let v = embedder.embed_one(query)?;
        Ok(self.search(&v, threshold, limit))
    }
}

/// The similarity of `query` to each of `commands` (the same order), `None` for a command
/// with no stored embedding: what a ranking that fuses several lists needs, since it ranks
/// every command rather than those above a threshold.
pub fn similarities(
    store: &commandtree_store::Store,
    commands: &[commandtree_core::CommandItem],
    embedder: &Embedder,
    query: &str,
) -> Result<Vec<Option<f32>>, Error> {
    let by_id: std::collections::HashMap<&str, usize> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let index =
        Index::load(store, &|id| by_id.contains_key(id)).map_err(|e| Error(e.to_string()))?;
    let mut out = vec![None; commands.len()];
    let v = embedder.embed_one(query)?;
    for (row, score) in index.scores(&v).into_iter().enumerate() {
        if let Some(&i) = by_id.get(index.id(row)) {
            out[i] = Some(score);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(i: usize) -> Vector {
        let mut v = [0f32; DIM];
        v[i] = 1.0;
        v
    }

    #[test]
    fn ranks_by_cosine_filters_by_threshold_and_limits() {
        let mut idx = Index::default();
        idx.push("a".into(), &unit(0));
        let mut b = unit(0);
        b[1] = 1.0; // cos 0.707 with e0
        idx.push("b".into(), &b);
        idx.push("c".into(), &unit(1));
        let mut d = [0f32; DIM];
        d[0] = 2.0; // not normalised: cosine still 1
        idx.push("d".into(), &d);
        let hits = idx.search(&unit(0), 0.3, 10);
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["a", "d", "b"]);
        assert!((hits[2].score - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert_eq!(idx.search(&unit(0), 0.3, 1).len(), 1);
        assert!(idx.search(&[0f32; DIM], 0.0, 10).is_empty());
        assert_eq!(idx.search(&unit(1), 0.0, 10)[0].id, "c");
    }

    #[test]
    fn large_indexes_scan_in_parallel_with_the_same_result() {
        let mut idx = Index::default();
        for i in 0..PARALLEL_FROM + 37 {
            let mut v = [0f32; DIM];
            v[i % DIM] = 1.0;
            v[(i * 7) % DIM] += (i % 13) as f32 * 0.1;
            idx.push(format!("c{i}"), &v);
        }
        let q = unit(5);
        let hits = idx.search(&q, 0.3, usize::MAX);
        let mut brute: Vec<(String, f32)> = (0..idx.len())
            .map(|i| {
                let row = &idx.vectors[i * DIM..(i + 1) * DIM];
                (idx.ids[i].clone(), row[5])
            })
            .filter(|(_, s)| *s >= 0.3)
            .collect();
        brute.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert_eq!(hits.len(), brute.len());
        for (h, b) in hits.iter().zip(&brute) {
            assert!((h.score - b.1).abs() < 1e-6);
        }
    }
}
