//! Bit-exact reproduction of the typo draws of upstream mixle (CPython's `random` module).
//!
//! mixle seeds a fresh `random.Random(f"{seed}:{text}")` per text. CPython turns a string seed
//! into the integer `int.from_bytes(s + sha512(s), "big")`, feeds its 32-bit words (least
//! significant first) to MT19937's `init_by_array`, draws `random()` from two outputs and
//! `choice` over 26 letters by rejection sampling on 5-bit draws.

use sha2::{Digest, Sha512};

use crate::text::is_py_letter;

const N: usize = 624;
const M: usize = 397;

/// MT19937, the reference algorithm of Matsumoto and Nishimura.
struct Mt19937 {
    mt: Box<[u32; N]>,
    index: usize,
}

impl Mt19937 {
    fn init_genrand(seed: u32) -> Mt19937 {
        let mut mt = Box::new([0u32; N]);
        mt[0] = seed;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 { mt, index: N }
    }

    fn init_by_array(key: &[u32]) -> Mt19937 {
        let mut g = Mt19937::init_genrand(19_650_218);
        let mt = &mut g.mt;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        g
    }

    fn twist(&mut self) {
        let mt = &mut self.mt;
        for i in 0..N {
            let y = (mt[i] & 0x8000_0000) | (mt[(i + 1) % N] & 0x7fff_ffff);
            let mut v = mt[(i + M) % N] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0x9908_b0df;
            }
            mt[i] = v;
        }
        self.index = 0;
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// CPython `random()`: 53 random bits from two outputs.
    fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (f64::from(a) * 67_108_864.0 + f64::from(b)) / 9_007_199_254_740_992.0
    }

    /// CPython `_randbelow(26)`: 5-bit draws until one is below 26.
    fn below_26(&mut self) -> u32 {
        loop {
            let r = self.next_u32() >> 27;
            if r < 26 {
                return r;
            }
        }
    }
}

/// CPython `random.seed(s)` for a `str` seed (version 2): the key words of
/// `int.from_bytes(s + sha512(s), "big")`, least significant first.
fn seeded(seed_text: &str) -> Mt19937 {
    let mut bytes = seed_text.as_bytes().to_vec();
    bytes.extend_from_slice(&Sha512::digest(seed_text.as_bytes()));
    let pad = (4 - bytes.len() % 4) % 4;
    let mut padded = vec![0u8; pad];
    padded.extend_from_slice(&bytes);
    let mut key: Vec<u32> = padded
        .chunks_exact(4)
        .rev()
        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    while key.len() > 1 && key.last() == Some(&0) {
        key.pop();
    }
    Mt19937::init_by_array(&key)
}

/// mixle's `keyboard_typo_corruption(rate, seed=seed)` applied to `text`.
pub(crate) fn corrupt(rate: f64, seed: u64, text: &str) -> String {
    let mut rng = seeded(&format!("{seed}:{text}"));
    text.chars()
        .map(|c| {
            if is_py_letter(c) && rng.random() < rate {
                (b'a' + rng.below_26() as u8) as char
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_reference_output() {
        // The reference implementation's first output for init_by_array({0x123, 0x234, 0x345, 0x456}).
        let mut g = Mt19937::init_by_array(&[0x123, 0x234, 0x345, 0x456]);
        assert_eq!(g.next_u32(), 1_067_595_299);
        assert_eq!(g.next_u32(), 955_945_823);
    }
}
