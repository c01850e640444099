//! `keyboard_typo_corruption`: random letter substitution at a given rate.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::kept::{Kept, LastKept, Outputs, Replay};
use crate::text::is_py_letter;
use crate::transform::TextHash;
use crate::{Error, Transform};

/// Which generator draws the typo decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypoRng {
    /// ChaCha8 seeded with the blake3 hash of (seed, text): fast and portable (the default of the
    /// Rust API, suite files and the command line; the Python package's mixle-compatible
    /// `keyboard_typo_corruption` defaults to [`TypoRng::Mixle`]).
    #[default]
    Chacha,
    /// Python's MT19937 seeded with the string `"{seed}:{text}"`, bit for bit as upstream mixle
    /// draws it, so profiles of users migrating from mixle are identical. Needs the
    /// `mixle-compat` feature.
    Mixle,
}

/// A keyboard-typo corruption: each letter (Unicode general category L) is replaced by a random
/// ASCII letter `a`–`z` with probability `rate`; everything else is copied unchanged.
///
/// Default generator: ChaCha8 keyed by the blake3 hash of the text, on the stream numbered by the
/// seed. The output depends only on (seed, text): it is independent of call order and of other texts,
/// and its length in code points equals the input's. `rate == 0` is the identity; at `rate == 1`
/// every letter is redrawn (and may coincide with the original).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyboardTypo {
    rate: f64,
    seed: u64,
    rng: TypoRng,
    /// `rate` as a threshold on a uniform `u32`, so a draw is one integer comparison.
    threshold: u64,
}

/// The factory upstream users know: `keyboard_typo_corruption(rate, seed)` with the default
/// (ChaCha) generator. A rate outside `[0, 1]`, or NaN, is an error.
pub fn keyboard_typo_corruption(rate: f64, seed: u64) -> Result<Transform, Error> {
    Ok(KeyboardTypo::new(rate, seed)?.into_transform())
}

impl KeyboardTypo {
    /// A typo corruption with the default generator; fails on a rate outside `[0, 1]` or NaN.
    pub fn new(rate: f64, seed: u64) -> Result<KeyboardTypo, Error> {
        if !(0.0..=1.0).contains(&rate) {
            return Err(Error::InvalidRate { rate });
        }
        // rate · 2^32 is exact for rate = 1 (always replace) and 0 (never).
        let threshold = (rate * 4_294_967_296.0) as u64;
        Ok(KeyboardTypo {
            rate,
            seed,
            rng: TypoRng::Chacha,
            threshold,
        })
    }

    /// Chooses the generator. [`TypoRng::Mixle`] needs the `mixle-compat` feature.
    pub fn with_rng(mut self, rng: TypoRng) -> Result<KeyboardTypo, Error> {
        if rng == TypoRng::Mixle && !cfg!(feature = "mixle-compat") {
            return Err(Error::MixleCompatDisabled);
        }
        self.rng = rng;
        Ok(self)
    }

    /// The replacement probability.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The generator.
    pub fn rng(&self) -> TypoRng {
        self.rng
    }

    /// Corrupts one text.
    pub fn apply(&self, text: &str) -> String {
        self.apply_with_hash(text, &TextHash::of(text))
    }

    /// Corrupts one text whose [`TextHash`] is already known.
    pub fn apply_with_hash(&self, text: &str, hash: &TextHash) -> String {
        match self.rng {
            TypoRng::Chacha => self.apply_chacha(text, hash),
            #[cfg(feature = "mixle-compat")]
            TypoRng::Mixle => crate::mixle_rng::corrupt_int_seed(self.rate, self.seed, text),
            #[cfg(not(feature = "mixle-compat"))]
            TypoRng::Mixle => self.apply_chacha(text, hash), // unreachable: `with_rng` refuses it
        }
    }

    /// Wraps this corruption as a [`Transform`], with its rate as its severity (family
    /// `keyboard_typo`).
    pub fn into_transform(self) -> Transform {
        let transform = match self.rng {
            // The mixle generator seeds from the text itself; no shared hash to reuse, but texts
            // are seeded several at a time.
            #[cfg(feature = "mixle-compat")]
            TypoRng::Mixle => Transform::new(move |t| self.apply(t)).with_batch(move |texts| {
                crate::mixle_rng::corrupt_many_int_seed(self.rate, self.seed, texts)
            }),
            #[cfg(not(feature = "mixle-compat"))]
            TypoRng::Mixle => Transform::new(move |t| self.apply(t)),
            // A suite's rates share the seed, so each text's generator is run once for all of
            // them ([`Kept`]).
            TypoRng::Chacha => Transform::with_text_hash(move |t, h| self.apply_with_hash(t, h))
                .with_hashed_batch(move |texts, hashes| self.apply_chacha_many(texts, hashes)),
        };
        // A validated rate is in [0, 1], so it is a valid severity.
        transform
            .clone()
            .with_severity("keyboard_typo", self.rate)
            .unwrap_or(transform)
    }

    fn apply_chacha(&self, text: &str, hash: &TextHash) -> String {
        if self.threshold == 0 {
            return text.to_owned();
        }
        self.corrupt_from(text, &mut chacha(hash, self.seed))
            .unwrap_or_default()
    }

    /// [`KeyboardTypo::apply_chacha`] of every text (`hashes[i]` is `texts[i]`'s), the first
    /// outputs of each text's generator kept for the next rate with this seed ([`Kept`]).
    fn apply_chacha_many(&self, texts: &[&str], hashes: &[TextHash]) -> Vec<String> {
        if self.threshold == 0 || hashes.len() != texts.len() {
            return texts
                .iter()
                .map(|t| self.apply_chacha(t, &TextHash::of(t)))
                .collect();
        }
        let key = self.seed.to_le_bytes();
        let kept = LAST_CHACHA.take_or(&key, texts, || {
            let wanted = Kept::budget(texts, words_wanted);
            let mut kept = Kept::new(&key, texts, wanted.iter().sum());
            for (k, (hash, &n)) in hashes.iter().zip(&wanted).enumerate() {
                if n > 0 {
                    let mut rng = chacha(hash, self.seed);
                    kept.keep(k, (0..n).map(|_| rng.next_u32()));
                }
            }
            kept
        });
        let out = texts
            .iter()
            .zip(hashes)
            .enumerate()
            .map(|(k, (t, hash))| {
                self.corrupt_from(t, &mut Replay(kept.words(k).iter()))
                    .unwrap_or_else(|| self.apply_chacha(t, hash))
            })
            .collect();
        LAST_CHACHA.put(kept);
        out
    }

    /// The corruption of `text` with the outputs of `rng` (`None` if they ran out).
    fn corrupt_from<O: Outputs>(&self, text: &str, rng: &mut O) -> Option<String> {
        if text.is_ascii() {
            return self.apply_ascii(text, rng);
        }
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if is_py_letter(c) && u64::from(rng.output()?) < self.threshold {
                out.push(random_letter(rng)?);
            } else {
                out.push(c);
            }
        }
        Some(out)
    }
}

/// ChaCha8 keyed by the text's hash, on the stream numbered by the seed: one generator per
/// (seed, text), and the text's hash is shared by every rate of a suite.
fn chacha(hash: &TextHash, seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::from_seed(hash.0);
    rng.set_stream(seed);
    rng
}

impl Outputs for ChaCha8Rng {
    fn output(&mut self) -> Option<u32> {
        Some(self.next_u32())
    }

    fn fill(&mut self, out: &mut [u8]) -> Option<()> {
        // Whole words, little-endian, in order: the same outputs as `next_u32` gives.
        self.fill_bytes(out);
        Some(())
    }
}

/// The last ChaCha outputs kept, by seed and texts.
static LAST_CHACHA: LastKept = LastKept::new();

/// How many outputs to keep for `text`: one decision per letter and a replacement for each
/// letter replaced (all of them at rate 1; a rejected replacement draw is rare), and slack.
fn words_wanted(text: &str) -> usize {
    let letters = if text.is_ascii() {
        let mut words = text.as_bytes().chunks_exact(8);
        let whole: u32 = words
            .by_ref()
            .map(|w| {
                let word = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
                ascii_letter_mask(word).count_ones()
            })
            .sum();
        whole as usize
            + words
                .remainder()
                .iter()
                .filter(|b| b.is_ascii_alphabetic())
                .count()
    } else {
        text.chars().filter(|&c| is_py_letter(c)).count()
    };
    2 * letters + 16
}

impl KeyboardTypo {
    /// The ASCII fast path, in chunks of [`CHUNK`] bytes: first one `u32` decision per letter of
    /// the chunk (in order), then one replacement draw per replaced letter. Each pass is a
    /// straight loop that selects with arithmetic instead of branches, so random decisions do not
    /// stall the pipeline.
    fn apply_ascii<O: Outputs>(&self, text: &str, rng: &mut O) -> Option<String> {
        const MASK: usize = CHUNK - 1;
        let mut out = text.as_bytes().to_vec();
        let mut draws = [0u8; 4 * CHUNK];
        let mut letters = [0u8; CHUNK];
        let mut replaced = [0u8; CHUNK];
        for chunk in out.chunks_mut(CHUNK) {
            // Positions of the letters (n <= i < CHUNK, so the mask never wraps a live slot),
            // found eight bytes at a time.
            let mut n = 0usize;
            let mut words = chunk.chunks_exact(8);
            for (w, word) in words.by_ref().enumerate() {
                let mut mask = ascii_letter_mask(u64::from_le_bytes([
                    word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
                ]));
                while mask != 0 {
                    letters[n & MASK] = (8 * w + mask.trailing_zeros() as usize / 8) as u8;
                    n += 1;
                    mask &= mask - 1;
                }
            }
            let tail = chunk.len() - words.remainder().len();
            for (i, b) in words.remainder().iter().enumerate() {
                letters[n & MASK] = (tail + i) as u8;
                n += usize::from(b.is_ascii_alphabetic());
            }
            if n == 0 {
                continue;
            }
            rng.fill(&mut draws[..4 * n])?;
            let mut k = 0usize;
            for (&pos, d) in letters[..n].iter().zip(draws.chunks_exact(4)) {
                let u = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
                replaced[k & MASK] = pos;
                k += usize::from(u64::from(u) < self.threshold);
            }
            for &i in &replaced[..k] {
                chunk[usize::from(i)] = random_letter(rng)? as u8;
            }
        }
        // ASCII in, ASCII letters substituted: always valid UTF-8.
        Some(String::from_utf8(out).unwrap_or_default())
    }
}

/// The high bit of each byte of `word` (eight ASCII bytes) is set iff that byte is an ASCII letter:
/// `b | 0x20` lies in `a..=z` exactly for letters, and adding `0x80 - bound` to an ASCII byte sets
/// its high bit iff the byte is at least `bound`, without carrying into the next byte.
fn ascii_letter_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let v = word | (0x20 * ONES);
    let at_least_a = v + (0x80 - u64::from(b'a')) * ONES;
    let past_z = v + (0x80 - u64::from(b'z') - 1) * ONES;
    at_least_a & !past_z & (0x80 * ONES)
}

/// Bytes of ASCII text decided per round of draws.
const CHUNK: usize = 64;

/// A uniform letter `a`–`z`: Lemire's multiply-shift with rejection, so it is exactly uniform and
/// independent of any `rand` distribution code that might change between versions.
fn random_letter<O: Outputs>(rng: &mut O) -> Option<char> {
    const N: u64 = 26;
    // 2^32 mod 26: draws whose low product falls below it are rejected.
    const REJECT_BELOW: u64 = (1u64 << 32) % N;
    loop {
        let m = u64::from(rng.output()?) * N;
        if (m & 0xffff_ffff) >= REJECT_BELOW {
            return Some((b'a' + (m >> 32) as u8) as char);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bulk_form_equals_each_text_for_every_rate_of_a_seed() {
        let texts: Vec<String> = (0..300)
            .map(|i| match i % 4 {
                0 => format!("sample {i}: the service was good and the food was fine overall"),
                1 => format!("Ünïcödé {i} ΣΑΣ straße"),
                2 => "x".repeat(i + 300),
                _ => String::new(),
            })
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        // The rates one after the other (the second and later replay the first's outputs), and
        // each seed twice (a different seed must not replay the other's).
        for seed in [0, 7, 0] {
            for rate in [0.05, 0.4, 1.0, 0.0, 0.1] {
                let typo = keyboard_typo_corruption(rate, seed).unwrap();
                let each: Vec<String> = texts.iter().map(|t| typo.apply(t)).collect();
                assert_eq!(typo.apply_batch(&texts), each, "rate {rate} seed {seed}");
            }
        }
    }

    #[test]
    fn replayed_outputs_running_out_are_detected() {
        let typo = KeyboardTypo::new(1.0, 0).unwrap();
        let words = [0u32; 3];
        assert_eq!(typo.corrupt_from("abcd", &mut Replay(words.iter())), None);
        // 1 is below any threshold, and 26·1 picks `a` without rejection.
        assert_eq!(
            typo.corrupt_from("ab", &mut Replay([1u32; 4].iter())),
            Some("aa".to_owned())
        );
        assert_eq!(typo.corrupt_from("é", &mut Replay(words[..1].iter())), None);
    }

    use super::*;

    #[test]
    fn letter_mask_matches_is_ascii_alphabetic() {
        for base in (0u8..128).step_by(8) {
            let bytes: [u8; 8] = std::array::from_fn(|i| base + i as u8);
            let mask = ascii_letter_mask(u64::from_le_bytes(bytes));
            for (i, b) in bytes.iter().enumerate() {
                assert_eq!(
                    mask >> (8 * i + 7) & 1 == 1,
                    b.is_ascii_alphabetic(),
                    "byte {b:#x}"
                );
            }
        }
    }

    #[test]
    fn rate_validation() {
        for bad in [-0.1, 1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let err = KeyboardTypo::new(bad, 0).unwrap_err();
            assert!(
                err.to_string().starts_with("rate must be in [0, 1], got"),
                "{err}"
            );
        }
        for ok in [0.0, 1.0, 1e-12, 0.5] {
            assert!(KeyboardTypo::new(ok, 0).is_ok());
        }
    }

    #[test]
    fn identity_at_zero_and_all_letters_at_one() {
        let t = KeyboardTypo::new(0.0, 3).unwrap();
        assert_eq!(t.apply("Straße 12!"), "Straße 12!");
        let t = KeyboardTypo::new(1.0, 3).unwrap();
        let out = t.apply("Straße 12! 日本");
        assert_eq!(out.chars().count(), "Straße 12! 日本".chars().count());
        for (a, b) in "Straße 12! 日本".chars().zip(out.chars()) {
            if is_py_letter(a) {
                assert!(b.is_ascii_lowercase(), "{a} -> {b}");
            } else {
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn deterministic_per_seed_and_text() {
        let t = KeyboardTypo::new(0.3, 7).unwrap();
        let a = t.apply("the quick brown fox jumps over the lazy dog");
        assert_eq!(a, t.apply("the quick brown fox jumps over the lazy dog"));
        let u = KeyboardTypo::new(0.3, 8).unwrap();
        assert_ne!(a, u.apply("the quick brown fox jumps over the lazy dog"));
    }

    #[test]
    fn replaced_fraction_tracks_the_rate() {
        let t = KeyboardTypo::new(0.2, 1).unwrap();
        let text = "abcdefghijklmnopqrstuvwxyz".repeat(400);
        let changed = text
            .chars()
            .zip(t.apply(&text).chars())
            .filter(|(a, b)| a != b)
            .count();
        // Expected 0.2 · 25/26 · 10400 = 2000 changed; allow 5 sigma.
        assert!((1800..2200).contains(&changed), "{changed}");
    }
}
