//! The teacher sampling design: which clean texts the teacher is asked about when transformed.

use crate::Error;
use crate::transform::TextHash;

/// A seeded uniform sample of the texts whose transformed versions the teacher is asked about.
///
/// The clean texts always reach the teacher; each text's corrupted and rewritten versions reach
/// it only when the text is in the sample. Membership is decided per clean text by its content:
/// a text is in the sample when a 64-bit number drawn from its blake3 hash and the seed
/// (splitmix64 of the hash's bytes 8..16 mixed with the seed) falls below `fraction · 2⁶⁴`.
/// So the sample is the same whatever the chunk size, shard or thread (each text decides
/// alone), a repeated text is in or out every time, and over distinct texts it is a Bernoulli
/// sample with probability `fraction`: given its size, a simple random sample of distinct
/// texts, and of lines a cluster sample (clusters: the distinct texts). The prediction-powered
/// estimators in `profile-stats` take the distinct text as their unit (the engine counts each
/// text's lines: [`crate::ProfileRun::occurrences`]). One draw per text serves every stage, so
/// a sampled text is labelled in every stage (its stages pair up text by text).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TeacherSample {
    fraction: f64,
    seed: u64,
    threshold: u64,
}

impl TeacherSample {
    /// A sample of `fraction` of the texts (in `(0, 1]`), drawn with `seed`.
    pub fn new(fraction: f64, seed: u64) -> Result<TeacherSample, Error> {
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(Error::TeacherSample(format!(
                "the teacher sample fraction must be in (0, 1], got {fraction}"
            )));
        }
        // 2⁶⁴·fraction, saturating at u64::MAX for 1.0 (then every text is in: see `includes`).
        let threshold = (fraction * 18_446_744_073_709_551_616.0) as u64;
        Ok(TeacherSample {
            fraction,
            seed,
            threshold,
        })
    }

    /// The sample a teacher-call budget buys: `budget` answers on transformed texts, split
    /// evenly over `stages` transformed stages of `texts` texts, is the fraction
    /// `budget / (stages · texts)` (at most 1). Deduplication can only lower the calls, so the
    /// expected number of teacher calls on transformed texts is at most the budget. The
    /// number of texts must be known before the profile starts (the membership rule stays
    /// per text and content-keyed; only its fraction comes from the count).
    pub fn for_budget(
        budget: u64,
        stages: usize,
        texts: u64,
        seed: u64,
    ) -> Result<TeacherSample, Error> {
        if budget == 0 {
            return Err(Error::TeacherSample(
                "the teacher budget must be at least 1 call".into(),
            ));
        }
        let full = stages as f64 * texts as f64;
        let fraction = if full == 0.0 {
            1.0
        } else {
            (budget as f64 / full).min(1.0)
        };
        TeacherSample::new(fraction, seed)
    }

    /// The fraction of texts in the sample.
    pub fn fraction(&self) -> f64 {
        self.fraction
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether the text with this hash is in the sample.
    pub fn includes(&self, hash: &TextHash) -> bool {
        if self.fraction >= 1.0 {
            return true;
        }
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&hash.0[8..16]);
        let draw = splitmix64(u64::from_le_bytes(bytes) ^ splitmix64(self.seed));
        draw < self.threshold
    }
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_has_its_fraction_and_depends_on_the_seed() {
        let texts: Vec<TextHash> = (0..20_000).map(|i| TextHash::of(&i.to_string())).collect();
        let s = TeacherSample::new(0.1, 7).unwrap();
        let k = texts.iter().filter(|h| s.includes(h)).count();
        assert!((1800..2200).contains(&k), "{k}");
        let other = TeacherSample::new(0.1, 8).unwrap();
        assert!(texts.iter().any(|h| s.includes(h) != other.includes(h)));
        let all = TeacherSample::new(1.0, 7).unwrap();
        assert!(texts.iter().all(|h| all.includes(h)));
    }

    #[test]
    fn bad_fractions_and_budgets_are_refused_and_budgets_map_to_fractions() {
        for f in [0.0, -0.1, 1.5, f64::NAN] {
            assert!(TeacherSample::new(f, 0).is_err(), "{f}");
        }
        assert!(TeacherSample::for_budget(0, 3, 10, 0).is_err());
        let b = TeacherSample::for_budget(300, 3, 1000, 0).unwrap();
        assert_eq!(b.fraction(), 0.1);
        assert_eq!(
            TeacherSample::for_budget(10_000, 3, 10, 0)
                .unwrap()
                .fraction(),
            1.0
        );
    }
}
