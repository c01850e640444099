//! The distinct texts of one chunk of a profile, interned in one buffer.

use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use hashbrown::HashTable;

/// Interned texts: each distinct text stored once, in one contiguous buffer, and numbered in
/// first-seen order. Far cheaper than a set of `String`s: no allocation per text, 8 bytes of
/// span and 5 of table per text besides its bytes, and the buffer is reused from chunk to chunk.
#[derive(Debug, Default)]
pub(crate) struct TextSet {
    bytes: String,
    /// `(start, end)` of each text in `bytes`.
    spans: Vec<(usize, usize)>,
    index: HashTable<u32>,
}

fn hash(text: &str) -> u64 {
    FixedState::default().hash_one(text)
}

impl TextSet {
    /// Number of distinct texts.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// The text with id `id` (`""` for an unknown id).
    pub(crate) fn get(&self, id: u32) -> &str {
        self.spans
            .get(id as usize)
            .and_then(|&(a, b)| self.bytes.get(a..b))
            .unwrap_or("")
    }

    /// The id of `text`, interning it if it is new.
    pub(crate) fn insert(&mut self, text: &str) -> u32 {
        let h = hash(text);
        let (bytes, spans) = (&self.bytes, &self.spans);
        let text_of = |id: &u32| -> &str {
            let (a, b) = spans[*id as usize];
            &bytes[a..b]
        };
        if let Some(&id) = self.index.find(h, |id| text_of(id) == text) {
            return id;
        }
        let id = self.spans.len() as u32;
        let start = self.bytes.len();
        self.bytes.push_str(text);
        self.spans.push((start, self.bytes.len()));
        let spans = &self.spans;
        let bytes = &self.bytes;
        self.index.insert_unique(h, id, |id| {
            let (a, b) = spans[*id as usize];
            hash(&bytes[a..b])
        });
        id
    }

    /// Forgets every text after the first `keep` (their ids become free again), keeping the
    /// allocations for the next chunk.
    pub(crate) fn truncate(&mut self, keep: usize) {
        if keep >= self.spans.len() {
            return;
        }
        self.index.retain(|id| (*id as usize) < keep);
        let end = self.spans.get(keep.wrapping_sub(1)).map_or(0, |s| s.1);
        self.spans.truncate(keep);
        self.bytes.truncate(end);
    }

    /// Frees memory beyond what `len` texts of about the current mean size need (a chunk of
    /// huge texts must not keep its buffer for the rest of the run).
    pub(crate) fn shrink(&mut self) {
        self.bytes.shrink_to(self.bytes.len().max(1 << 20));
        self.spans.shrink_to(self.spans.len().max(1 << 16));
        let spans = &self.spans;
        let bytes = &self.bytes;
        self.index.shrink_to(self.spans.len().max(1 << 16), |id| {
            let (a, b) = spans[*id as usize];
            hash(&bytes[a..b])
        });
    }

    /// Reserves room for `additional` more texts.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.spans.reserve(additional);
        let spans = &self.spans;
        let bytes = &self.bytes;
        self.index.reserve(additional, |id| {
            let (a, b) = spans[*id as usize];
            hash(&bytes[a..b])
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_and_truncates() {
        let mut set = TextSet::default();
        assert_eq!(set.insert("a"), 0);
        assert_eq!(set.insert(""), 1);
        assert_eq!(set.insert("bc"), 2);
        assert_eq!(set.insert("a"), 0);
        assert_eq!((set.get(2), set.get(1), set.get(9)), ("bc", "", ""));
        set.truncate(2);
        assert_eq!(set.len(), 2);
        assert_eq!(set.insert("bc"), 2, "a forgotten text gets a new id");
        assert_eq!(set.insert("d"), 3);
        assert_eq!(set.get(3), "d");
        set.truncate(0);
        assert_eq!(set.insert("d"), 0);
        set.shrink();
        assert_eq!(set.get(0), "d");
    }
}
