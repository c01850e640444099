//! Generator outputs kept per text from one bulk corruption to the next.
//!
//! A suite's typo rates share one seed, and a seeded typo generator depends only on (seed, text):
//! the corruptions at 5 %, 10 %, 20 % and 40 % of a text read the very same generator outputs,
//! only compared with another threshold. Profiles corrupt a chunk's texts once per rate, one rate
//! after the other, so the first rate keeps each text's first outputs and the next rates replay
//! them instead of seeding and running the generator again (a text needing more outputs than
//! were kept is run again in full: the result is the same either way).

use std::sync::Mutex;

/// Bound of the outputs one [`Kept`] holds (16 MiB); texts beyond it keep nothing.
pub(crate) const MAX_WORDS: usize = 4 << 20;

/// The first outputs of each text's generator, for one generator key and one list of texts.
pub(crate) struct Kept {
    /// What, besides the text, seeds the generators (the seed's bytes).
    key: Vec<u8>,
    /// The texts, concatenated, and where each ends.
    texts: Vec<u8>,
    text_ends: Vec<usize>,
    /// The outputs kept, and each text's (start, count) among them.
    words: Vec<u32>,
    slots: Vec<(usize, usize)>,
}

impl Kept {
    /// Room for `words` outputs of the generators of `texts` under `key`; nothing kept yet.
    pub(crate) fn new(key: &[u8], texts: &[&str], words: usize) -> Kept {
        let mut joined = Vec::with_capacity(texts.iter().map(|t| t.len()).sum());
        let mut text_ends = Vec::with_capacity(texts.len());
        for t in texts {
            joined.extend_from_slice(t.as_bytes());
            text_ends.push(joined.len());
        }
        Kept {
            key: key.to_vec(),
            texts: joined,
            text_ends,
            words: Vec::with_capacity(words),
            slots: vec![(0, 0); texts.len()],
        }
    }

    /// How many outputs to keep for each text, `wanted(text)` each while the total stays within
    /// [`MAX_WORDS`] (0 for the texts past it).
    pub(crate) fn budget(texts: &[&str], wanted: impl Fn(&str) -> usize) -> Vec<usize> {
        let mut left = MAX_WORDS;
        texts
            .iter()
            .map(|t| {
                let n = wanted(t);
                if n > left {
                    return 0;
                }
                left -= n;
                n
            })
            .collect()
    }

    /// Whether these are the outputs of `texts` under `key`.
    pub(crate) fn is_for(&self, key: &[u8], texts: &[&str]) -> bool {
        self.key == key
            && self.text_ends.len() == texts.len()
            && texts.iter().enumerate().all(|(k, t)| {
                let start = if k == 0 { 0 } else { self.text_ends[k - 1] };
                &self.texts[start..self.text_ends[k]] == t.as_bytes()
            })
    }

    /// The outputs kept for text `k`.
    pub(crate) fn words(&self, k: usize) -> &[u32] {
        let (start, n) = self.slots[k];
        &self.words[start..start + n]
    }

    /// Keeps `outputs` for text `k`.
    pub(crate) fn keep(&mut self, k: usize, outputs: impl IntoIterator<Item = u32>) {
        let start = self.words.len();
        self.words.extend(outputs);
        self.slots[k] = (start, self.words.len() - start);
    }
}

/// The last [`Kept`] of one generator family, taken out while in use (so concurrent profiles
/// never wait on it: one of them just draws its own).
pub(crate) struct LastKept(Mutex<Option<Kept>>);

impl LastKept {
    pub(crate) const fn new() -> LastKept {
        LastKept(Mutex::new(None))
    }

    /// The kept outputs for `texts` under `key`, or `draw()`'s.
    pub(crate) fn take_or(&self, key: &[u8], texts: &[&str], draw: impl FnOnce() -> Kept) -> Kept {
        let last = self.0.lock().ok().and_then(|mut last| last.take());
        match last {
            Some(kept) if kept.is_for(key, texts) => kept,
            _ => draw(),
        }
    }

    /// Keeps `kept` for the next bulk corruption.
    pub(crate) fn put(&self, kept: Kept) {
        if let Ok(mut last) = self.0.lock() {
            *last = Some(kept);
        }
    }
}

/// Where a corruption's draws come from: a generator, or outputs drawn before ([`Replay`]).
pub(crate) trait Outputs {
    /// The next 32-bit output; `None` when there is none left.
    fn output(&mut self) -> Option<u32>;

    /// The next `out.len() / 4` outputs as little-endian bytes (`out.len()` a multiple of 4);
    /// `None` when there are not that many left.
    fn fill(&mut self, out: &mut [u8]) -> Option<()> {
        for chunk in out.chunks_exact_mut(4) {
            chunk.copy_from_slice(&self.output()?.to_le_bytes());
        }
        Some(())
    }
}

/// Outputs drawn earlier from a generator, in order.
pub(crate) struct Replay<'a>(pub(crate) std::slice::Iter<'a, u32>);

impl Outputs for Replay<'_> {
    fn output(&mut self) -> Option<u32> {
        self.0.next().copied()
    }

    fn fill(&mut self, out: &mut [u8]) -> Option<()> {
        let words = self.0.as_slice();
        let (now, rest) = words.split_at_checked(out.len() / 4)?;
        for (chunk, w) in out.chunks_exact_mut(4).zip(now) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        self.0 = rest.iter();
        Some(())
    }
}
