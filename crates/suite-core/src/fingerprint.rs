//! The fingerprint of the texts a run counts: what a report's `texts` block holds, so that a
//! merge can refuse a shard given twice and a job can tell its evaluation texts.
//!
//! It is of the *texts*, not of a file's bytes: a plain file, its JSONL twin and a Python list
//! of the same texts have the same one.

/// How many texts, and blake3 over each text's UTF-8 bytes followed by the byte `0xFF` (which
/// UTF-8 never contains, so no two sequences of texts share a stream). Fingerprinting texts one
/// by one or all at once is the same.
///
/// ```
/// use suite_core::TextsFingerprint;
/// let mut one_by_one = TextsFingerprint::default();
/// one_by_one.add("good food");
/// one_by_one.add("bad service");
/// let at_once = TextsFingerprint::of(["good food", "bad service"]);
/// assert_eq!(one_by_one.hex(), at_once.hex());
/// assert_ne!(at_once.hex(), TextsFingerprint::of(["good foodbad service"]).hex());
/// ```
#[derive(Debug, Clone, Default)]
pub struct TextsFingerprint {
    hasher: blake3::Hasher,
    count: usize,
}

impl TextsFingerprint {
    /// Adds the next text.
    pub fn add(&mut self, text: &str) {
        self.hasher.update(text.as_bytes());
        self.hasher.update(&[0xFF]);
        self.count += 1;
    }

    /// The fingerprint of `texts`.
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> TextsFingerprint {
        let mut print = TextsFingerprint::default();
        for text in texts {
            print.add(text);
        }
        print
    }

    /// The number of texts added.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The blake3 hash, as 64 hex digits.
    pub fn hex(&self) -> String {
        self.hasher.finalize().to_hex().to_string()
    }
}
