//! Which training texts each stage transforms: content keys and per-stage thresholds.
//!
//! A text's key for a stage is a 64-bit draw from the text's blake3 and a key of (seed, stage),
//! so it depends on nothing but the text, the stage and the seed: not on order, chunking,
//! shards or the process. A stage allotted `k` rows takes the texts whose keys are among the `k`
//! smallest distinct keys over all the training texts (a bottom-k sample: a uniform sample of
//! `k` distinct texts). The `k` smallest keys of a union are the `k` smallest of the parts'
//! `k` smallest, so [`Sketch`]es of shards merge exactly.

/// The key of stage `stage` under `seed`: the first 8 bytes of
/// blake3(`capkit-augment/1`, seed as 8 little-endian bytes, stage name).
pub(crate) fn stage_key(seed: u64, stage: &str) -> u64 {
    let mut h = blake3::Hasher::new();
    h.update(b"capkit-augment/1\0");
    h.update(&seed.to_le_bytes());
    h.update(stage.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&h.finalize().as_bytes()[..8]);
    u64::from_le_bytes(bytes)
}

/// The key of a text (its blake3 `hash`) for the stage keyed `stage_key`: the first 8 bytes
/// of the hash XOR the stage's key, through splitmix64's finaliser (a bijection that spreads
/// every input bit over the output), so one blake3 per text serves every stage.
#[inline]
pub(crate) fn text_key(hash: &[u8; 32], stage_key: u64) -> u64 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash[..8]);
    let mut z = u64::from_le_bytes(first) ^ stage_key;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One stage's smallest distinct keys: a buffer of candidates below `bound`, pruned to the `k`
/// smallest (sorted, repeats removed) whenever it holds `2k`, so each key costs O(log k)
/// amortised and memory stays within `2k` keys.
#[derive(Debug, Clone)]
struct Smallest {
    k: usize,
    keys: Vec<u64>,
    /// Keys above it cannot be among the `k` smallest (the largest kept after a prune).
    bound: u64,
}

impl Smallest {
    fn add(&mut self, key: u64) {
        if self.k == 0 || key > self.bound {
            return;
        }
        self.keys.push(key);
        if self.keys.len() >= self.k.saturating_mul(2).max(16) {
            self.prune();
        }
    }

    fn prune(&mut self) {
        self.keys.sort_unstable();
        self.keys.dedup();
        if self.keys.len() >= self.k {
            self.keys.truncate(self.k);
            if let Some(&last) = self.keys.last() {
                self.bound = last;
            }
        }
    }

    /// The `k` smallest distinct keys, ascending.
    fn smallest(&self) -> Vec<u64> {
        let mut s = self.clone();
        s.prune();
        s.keys
    }
}

/// Per stage, the smallest distinct keys seen, as many as the stage's rows.
#[derive(Debug, Clone)]
pub struct Sketch {
    stages: Vec<Smallest>,
}

impl PartialEq for Sketch {
    fn eq(&self, other: &Sketch) -> bool {
        self.stages.len() == other.stages.len()
            && self
                .stages
                .iter()
                .zip(&other.stages)
                .all(|(a, b)| a.k == b.k && a.smallest() == b.smallest())
    }
}

impl Sketch {
    /// An empty sketch for stages allotted `rows` each.
    pub fn new(rows: &[u64]) -> Sketch {
        Sketch {
            stages: rows
                .iter()
                .map(|&k| Smallest {
                    k: usize::try_from(k).unwrap_or(usize::MAX),
                    keys: Vec::new(),
                    bound: u64::MAX,
                })
                .collect(),
        }
    }

    /// Adds a text's key for stage `stage`.
    #[inline]
    pub(crate) fn add(&mut self, stage: usize, key: u64) {
        if let Some(s) = self.stages.get_mut(stage) {
            s.add(key);
        }
    }

    /// Whether stage `stage` takes any text.
    pub(crate) fn wants(&self, stage: usize) -> bool {
        self.stages.get(stage).is_some_and(|s| s.k > 0)
    }

    /// The sketch of both texts sets (the stages' rows must be the same).
    pub fn merge(&mut self, other: &Sketch) {
        for (stage, s) in other.stages.iter().enumerate() {
            for key in s.smallest() {
                self.add(stage, key);
            }
        }
    }

    /// Each stage's threshold: a text is taken when its key is at most it (`None`: the stage
    /// takes nothing; every key when there are fewer distinct texts than rows).
    pub fn thresholds(&self) -> Vec<Option<u64>> {
        self.stages
            .iter()
            .map(|s| {
                if s.k == 0 {
                    return None;
                }
                let keys = s.smallest();
                if keys.len() < s.k {
                    Some(u64::MAX)
                } else {
                    keys.last().copied()
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sketches_merge_to_the_sketch_of_the_union() {
        let keys: Vec<u64> = (0..500u64)
            .map(|i| text_key(blake3::hash(&i.to_le_bytes()).as_bytes(), 7))
            .collect();
        let mut all = Sketch::new(&[10, 0, 1000]);
        let (mut a, mut b) = (Sketch::new(&[10, 0, 1000]), Sketch::new(&[10, 0, 1000]));
        for (i, &k) in keys.iter().enumerate() {
            for stage in 0..3 {
                all.add(stage, k);
                if i % 3 == 0 {
                    a.add(stage, k)
                } else {
                    b.add(stage, k)
                }
            }
        }
        a.merge(&b);
        assert_eq!(a, all);
        let t = all.thresholds();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(t, [Some(sorted[9]), None, Some(u64::MAX)]);
    }

    #[test]
    fn stage_keys_differ_by_stage_and_seed() {
        assert_ne!(stage_key(0, "a"), stage_key(0, "b"));
        assert_ne!(stage_key(0, "a"), stage_key(1, "a"));
    }
}
