//! Stable, leak-free train/val/test splits, bit for bit with upstream's `Assign`.
//!
//! A name's split depends only on the salt and the name: the first 8 bytes of
//! SHA-256(salt ‖ 0x00 ‖ input), read big-endian, give 53 uniform bits, and the ratio's cuts place
//! them. So every example of one input lands in the same split (no name straddles train and test),
//! and adding names to a corpus never moves the names already in it.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use crate::Example;

/// The split name for training examples.
pub const TRAIN: &str = "train";
/// The split name for validation examples.
pub const VAL: &str = "val";
/// The split name for test examples.
pub const TEST: &str = "test";

/// Relative sizes of the three splits. They need not sum to 1: `{8, 1, 1}` equals the default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    /// Weight of the train split.
    pub train: f64,
    /// Weight of the val split.
    pub val: f64,
    /// Weight of the test split.
    pub test: f64,
}

/// Upstream's `DefaultRatio`: 80 % train, 10 % val, 10 % test.
pub const DEFAULT_RATIO: Ratio = Ratio {
    train: 0.8,
    val: 0.1,
    test: 0.1,
};

impl Default for Ratio {
    fn default() -> Self {
        DEFAULT_RATIO
    }
}

/// The first 8 bytes of SHA-256(`salt` ‖ 0x00 ‖ `input`), big-endian. An empty salt still hashes
/// the separator.
///
/// ```
/// assert_eq!(typo_tasks::split_hash("", "000-030.com"), 3589853683760663439);
/// ```
pub fn split_hash(salt: &str, input: &str) -> u64 {
    let mut hasher = Sha256::new();
    hasher.update(salt.as_bytes());
    hasher.update([0u8]);
    hasher.update(input.as_bytes());
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// The position of a hash in `[0, 1)`: its top 53 bits over 2^53, which is exact in `f64`.
pub fn split_position(hash: u64) -> f64 {
    (hash >> 11) as f64 / (1u64 << 53) as f64
}

/// A ratio and salt, with the cuts computed once: what `assign` applies to every example.
#[derive(Debug, Clone)]
pub struct Splitter {
    salt: String,
    cut_train: f64,
    cut_val: f64,
}

impl Splitter {
    /// Cuts at `train/total` and `(train+val)/total`; with a non-positive total, the raw
    /// `train` and `train+val` (upstream's rule).
    pub fn new(ratio: Ratio, salt: &str) -> Self {
        let total = ratio.train + ratio.val + ratio.test;
        let (cut_train, cut_val) = if total > 0.0 {
            (ratio.train / total, (ratio.train + ratio.val) / total)
        } else {
            (ratio.train, ratio.train + ratio.val)
        };
        Splitter {
            salt: salt.to_owned(),
            cut_train,
            cut_val,
        }
    }

    /// The split of `input`: [`TRAIN`], [`VAL`] or [`TEST`].
    ///
    /// ```
    /// use typo_tasks::{DEFAULT_RATIO, Splitter};
    /// let s = Splitter::new(DEFAULT_RATIO, "");
    /// assert_eq!(s.split_of("000-030.com"), "train");
    /// assert_eq!(s.split_of("1digitalstock.com"), "val");
    /// ```
    pub fn split_of(&self, input: &str) -> &'static str {
        let f = split_position(split_hash(&self.salt, input));
        if f < self.cut_train {
            TRAIN
        } else if f < self.cut_val {
            VAL
        } else {
            TEST
        }
    }
}

/// Sets every example's split from its input (overwriting any split it had).
pub fn assign(examples: &mut [Example], ratio: Ratio, salt: &str) {
    let splitter = Splitter::new(ratio, salt);
    // Consecutive examples usually share an input (emit groups them), so hash once per run.
    let mut last: Option<(String, &'static str)> = None;
    for e in examples {
        let split = match &last {
            Some((input, split)) if *input == e.input => *split,
            _ => {
                let split = splitter.split_of(&e.input);
                last = Some((e.input.clone(), split));
                split
            }
        };
        split.clone_into(&mut e.split);
    }
}

/// The inputs whose examples carry two or more distinct splits, sorted; empty when the corpus
/// is leak-free. Examples without a split are left out.
pub fn leakage(examples: &[Example]) -> Vec<String> {
    let mut seen: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for e in examples.iter().filter(|e| !e.split.is_empty()) {
        seen.entry(&e.input).or_default().insert(&e.split);
    }
    seen.into_iter()
        .filter(|(_, splits)| splits.len() > 1)
        .map(|(input, _)| input.to_owned())
        .collect()
}
