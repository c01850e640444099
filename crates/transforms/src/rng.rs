//! The per-text seeded generator every random transform draws from.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use suite_core::{TextHash, Transform};

/// A transform's own key space: blake3 of its name, mixed into the text's hash so two
/// transforms with one seed draw independent streams from the same text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Domain([u8; 32]);

impl Domain {
    /// The domain of the transform named `name`.
    pub fn of(name: &str) -> Domain {
        let mut hasher = blake3::Hasher::new_derive_key("capkit-transforms 2026-12 per-text rng");
        hasher.update(name.as_bytes());
        Domain(*hasher.finalize().as_bytes())
    }
}

/// A ChaCha8 generator keyed by the text's blake3 hash XOR the transform's [`Domain`], on the
/// stream numbered by the seed: the design of suite-core's keyboard typo. What it draws depends
/// only on (transform, seed, text), never on call order, chunking, sharding or the process.
#[derive(Debug, Clone)]
pub struct TextRng(ChaCha8Rng);

impl TextRng {
    /// The generator of `text` (whose hash is `hash`) for the transform of `domain` at `seed`.
    pub fn new(hash: &TextHash, domain: &Domain, seed: u64) -> TextRng {
        let mut key = hash.0;
        for (k, d) in key.iter_mut().zip(domain.0) {
            *k ^= d;
        }
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(seed);
        TextRng(rng)
    }

    /// `true` with probability `p` (one `u32` draw).
    pub fn chance(&mut self, p: Probability) -> bool {
        u64::from(self.0.next_u32()) < p.threshold
    }

    /// A uniform integer in `0..n` (`0` when `n == 0`): Lemire's multiply-shift with rejection,
    /// exactly uniform and independent of `rand`'s distribution code.
    pub fn below(&mut self, n: usize) -> usize {
        let Ok(n32) = u32::try_from(n) else {
            // More than 2^32 choices never happens for text positions of a sane text; fall
            // back to a 64-bit modulo (bias < 2^-32).
            return (self.0.next_u64() % n as u64) as usize;
        };
        if n32 <= 1 {
            return 0;
        }
        let n = u64::from(n32);
        let reject_below = (1u64 << 32) % n;
        loop {
            let m = u64::from(self.0.next_u32()) * n;
            if (m & 0xffff_ffff) >= reject_below {
                return (m >> 32) as usize;
            }
        }
    }

    /// A uniformly chosen element (`None` for an empty slice).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len()))
        }
    }
}

/// A probability in `[0, 1]` as a threshold on a uniform `u32`, so a draw is one comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probability {
    threshold: u64,
}

impl Probability {
    /// `p` clamped to `[0, 1]` (NaN is 0); parameters are validated before they get here.
    pub fn new(p: f64) -> Probability {
        let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        // p · 2^32 is exact for p = 1 (always) and 0 (never).
        Probability {
            threshold: (p * 4_294_967_296.0) as u64,
        }
    }

    /// Whether it is 0 (the transform is the identity).
    pub fn is_zero(self) -> bool {
        self.threshold == 0
    }
}

/// A transform drawing from a [`TextRng`] per text: `f(text, rng)`, with the generator of
/// (`name`'s domain, `seed`, text). Texts are hashed once per stage and the hash shared (see
/// [`Transform::with_text_hash`]).
pub fn seeded(
    name: &str,
    seed: u64,
    f: impl Fn(&str, &mut TextRng) -> String + Send + Sync + 'static,
) -> Transform {
    let domain = Domain::of(name);
    Transform::with_text_hash(move |text, hash| f(text, &mut TextRng::new(hash, &domain, seed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_uses_every_value() {
        let mut rng = TextRng::new(&TextHash::of("x"), &Domain::of("t"), 0);
        let mut seen = [0usize; 7];
        for _ in 0..7000 {
            seen[rng.below(7)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.below(1), 0);
    }

    #[test]
    fn domains_and_seeds_separate_streams() {
        let h = TextHash::of("same text");
        let draw = |d: &str, s: u64| TextRng::new(&h, &Domain::of(d), s).0.next_u64();
        assert_eq!(draw("a", 0), draw("a", 0));
        assert_ne!(draw("a", 0), draw("b", 0));
        assert_ne!(draw("a", 0), draw("a", 1));
    }

    #[test]
    fn probability_extremes() {
        let mut rng = TextRng::new(&TextHash::of("x"), &Domain::of("t"), 0);
        assert!((0..1000).all(|_| rng.chance(Probability::new(1.0))));
        assert!((0..1000).all(|_| !rng.chance(Probability::new(0.0))));
        assert!(Probability::new(f64::NAN).is_zero());
    }
}
