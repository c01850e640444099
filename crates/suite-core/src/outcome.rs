//! Per-text outcomes of a profile, kept once each with how many texts had them.

use foldhash::fast::FixedState;
use indexmap::IndexSet;

/// The distinct outcome vectors of a profile's texts and how many texts had each.
///
/// A profile describes what happened to one text across its stages as a short vector of words
/// (agreement bits for a classifier, TP/FP/FN counts for an extractor; the profile decides the
/// encoding), and its counts are a fold over these vectors. Texts share outcomes massively (a
/// classifier suite of seven stages has at most a few thousand possible vectors), so each
/// distinct vector is stored once with its multiplicity, and a text seen again in a later chunk
/// is counted by its outcome id alone.
#[derive(Debug, Default)]
pub struct Outcomes {
    set: IndexSet<Box<[u32]>, FixedState>,
    weights: Vec<u64>,
    /// Per outcome, `Σ c²` over its distinct texts (`c`: a text's lines).
    squares: Vec<u64>,
}

impl Outcomes {
    /// The id of `outcome` (storing it if new), without counting a text.
    pub fn intern(&mut self, outcome: &[u32]) -> u32 {
        if let Some(id) = self.set.get_index_of(outcome) {
            return id as u32;
        }
        let (id, _) = self.set.insert_full(outcome.into());
        self.weights.push(0);
        self.squares.push(0);
        id as u32
    }

    /// Counts one more text with outcome `id` (a distinct text, or the first line of one).
    pub fn count(&mut self, id: u32) {
        self.count_occurrence(id, 1);
    }

    /// Counts the `k`-th line (`k ≥ 1`) of a text with outcome `id`: one more text, and `2k − 1`
    /// more squared count, so that a text of `c` lines adds `c²` whatever the order.
    pub fn count_occurrence(&mut self, id: u32, k: u64) {
        if let (Some(w), Some(q)) = (
            self.weights.get_mut(id as usize),
            self.squares.get_mut(id as usize),
        ) {
            *w += 1;
            *q += (2 * k.max(1)).saturating_sub(1);
        }
    }

    /// [`Outcomes::iter`] with each outcome's `Σ c²` over its distinct texts (`c`: a text's
    /// lines; equal to the number of texts when every text is distinct).
    pub fn iter_units(&self) -> impl Iterator<Item = (&[u32], u64, u64)> {
        self.iter()
            .zip(
                self.squares
                    .iter()
                    .zip(&self.weights)
                    .filter(|(_, w)| **w > 0),
            )
            .map(|((o, w), (&q, _))| (o, w, q))
    }

    /// The outcome vector behind `id` (empty for an unknown id).
    pub fn get(&self, id: u32) -> &[u32] {
        self.set.get_index(id as usize).map_or(&[], |o| o)
    }

    /// Every distinct outcome with the number of texts that had it, in first-seen order (texts
    /// never counted are left out).
    pub fn iter(&self) -> impl Iterator<Item = (&[u32], u64)> {
        self.set
            .iter()
            .zip(&self.weights)
            .filter(|(_, w)| **w > 0)
            .map(|(o, &w)| (&**o, w))
    }

    /// Number of texts counted.
    pub fn texts(&self) -> u64 {
        self.weights.iter().sum()
    }

    /// Number of distinct outcomes.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether no outcome is stored.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_interned_and_weighted() {
        let mut o = Outcomes::default();
        let a = o.intern(&[1, 2]);
        let b = o.intern(&[3]);
        assert_eq!(o.intern(&[1, 2]), a);
        o.count(a);
        o.count(a);
        o.count(b);
        assert_eq!(o.texts(), 3);
        assert_eq!(
            o.iter().collect::<Vec<_>>(),
            [(&[1u32, 2][..], 2), (&[3u32][..], 1)]
        );
        assert_eq!(o.get(b), [3]);
    }
}
