//! Bit-exact reproduction of the typo draws of upstream mixle (CPython's `random` module).
//!
//! mixle seeds a fresh `random.Random(f"{seed}:{text}")` per text. CPython turns a string seed
//! `s` into the integer `int.from_bytes(s + sha512(s), "big")`, feeds its 32-bit words (least
//! significant first) to MT19937's `init_by_array`, draws `random()` from two outputs and
//! `choice` over 26 letters by rejection sampling on 5-bit draws.
//!
//! Seeding is the cost floor of every text (SHA-512, then about 1,250 serially dependent
//! `init_by_array` steps), so nothing else allocates or repeats work: the seed string is hashed
//! in its two pieces, the key words are read straight out of those pieces and the digest, the
//! `init_genrand(19650218)` state every seeding starts from is a constant, and the first twist is
//! done one element at a time as outputs are drawn (a short text needs a few dozen of the 624).

use std::sync::Arc;

use sha2::{Digest, Sha512};

use crate::kept::{Kept, LastKept, Outputs, Replay};
use crate::text::is_py_letter;
use crate::{Error, Transform};

const N: usize = 624;
const M: usize = 397;

/// `init_genrand(19650218)`, where every `init_by_array` starts: computed at compile time.
static GENRAND_19650218: [u32; N] = init_genrand(19_650_218);

const fn init_genrand(seed: u32) -> [u32; N] {
    let mut mt = [0u32; N];
    mt[0] = seed;
    let mut i = 1;
    while i < N {
        mt[i] = 1_812_433_253u32
            .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
            .wrapping_add(i as u32);
        i += 1;
    }
    mt
}

/// The key CPython derives from the string seed `prefix + text`: the 32-bit words of
/// `int.from_bytes(s + sha512(s), "big")`, least significant first, read in place.
struct SeedKey<'a> {
    prefix: &'a [u8],
    text: &'a [u8],
    digest: [u8; 64],
    /// Number of key words (leading zero words of the integer are not part of it).
    words: usize,
}

impl<'a> SeedKey<'a> {
    fn new(prefix: &'a [u8], text: &'a [u8]) -> SeedKey<'a> {
        let mut hasher = Sha512::new();
        hasher.update(prefix);
        hasher.update(text);
        let mut digest = [0u8; 64];
        digest.copy_from_slice(&hasher.finalize());
        let len = prefix.len() + text.len();
        let zeros = prefix.iter().chain(text).take_while(|&&b| b == 0).count();
        let words = if zeros < len {
            16 + (len - zeros).div_ceil(4)
        } else {
            // The string is all NUL bytes: only the digest is left of the integer.
            let zeros = digest.iter().take_while(|&&b| b == 0).count();
            (64 - zeros).div_ceil(4).max(1)
        };
        SeedKey {
            prefix,
            text,
            digest,
            words,
        }
    }

    /// Byte `p` of the seed string; 0 before its start (the integer's leading zeros).
    fn byte(&self, p: isize) -> u8 {
        if p < 0 {
            return 0;
        }
        let p = p as usize;
        match self.prefix.get(p) {
            Some(&b) => b,
            None => self.text.get(p - self.prefix.len()).copied().unwrap_or(0),
        }
    }

    /// Key word `j` (least significant first).
    fn word(&self, j: usize) -> u32 {
        if j < 16 {
            let e = 64 - 4 * j;
            return u32::from_be_bytes([
                self.digest[e - 4],
                self.digest[e - 3],
                self.digest[e - 2],
                self.digest[e - 1],
            ]);
        }
        let e = (self.prefix.len() + self.text.len()) as isize - 4 * (j as isize - 16);
        u32::from_be_bytes([
            self.byte(e - 4),
            self.byte(e - 3),
            self.byte(e - 2),
            self.byte(e - 1),
        ])
    }
}

/// The 624 state words of one generator, wherever they are stored.
trait State {
    fn get(&self, i: usize) -> u32;
    fn set(&mut self, i: usize, v: u32);
}

impl State for [u32; N] {
    fn get(&self, i: usize) -> u32 {
        self[i]
    }
    fn set(&mut self, i: usize, v: u32) {
        self[i] = v;
    }
}

/// Generators seeded side by side ([`seed_lanes`]).
const LANES: usize = 8;

/// The states of [`LANES`] generators, word by word (`mt[i][lane]`).
type Lanes = [[u32; LANES]; N];

/// One generator of a [`Lanes`] block.
struct Lane<'a>(&'a mut Lanes, usize);

impl State for Lane<'_> {
    fn get(&self, i: usize) -> u32 {
        self.0[i][self.1]
    }
    fn set(&mut self, i: usize, v: u32) {
        self.0[i][self.1] = v;
    }
}

/// MT19937 (the reference algorithm of Matsumoto and Nishimura) as CPython's `random.Random`
/// runs it, twisting each state element when its output is first drawn.
struct Mt19937<S> {
    mt: S,
    /// The next output's index; its element has not been twisted yet.
    index: usize,
}

impl Mt19937<[u32; N]> {
    /// `init_by_array(key)`, with the state left needing a twist (CPython's `mti = N`).
    fn seeded(key: &SeedKey<'_>) -> Mt19937<[u32; N]> {
        let mut mt = GENRAND_19650218;
        let klen = key.words;
        let (mut i, mut j) = (1usize, 0usize);
        let mut last = mt[0];
        for _ in 0..N.max(klen) {
            let prev = last ^ (last >> 30);
            let add = key.word(j).wrapping_add(j as u32);
            last = (mt[i] ^ prev.wrapping_mul(1_664_525)).wrapping_add(add);
            mt[i] = last;
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = last;
                i = 1;
            }
            if j >= klen {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = last ^ (last >> 30);
            last = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            mt[i] = last;
            i += 1;
            if i >= N {
                mt[0] = last;
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        Mt19937 { mt, index: 0 }
    }

    #[cfg(test)]
    fn from_key(key: &[u32]) -> Mt19937<[u32; N]> {
        // The reference test vector's key, through the same seeding as CPython's.
        let mut mt = GENRAND_19650218;
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
        Mt19937 { mt, index: 0 }
    }
}

/// `init_by_array` for [`LANES`] keys of at most `N` words each, side by side: within one
/// generator every step depends on the previous one (a multiply-xor chain), so one seeding
/// leaves the CPU waiting; independent generators interleaved keep it busy. `add` is scratch.
fn seed_lanes(keys: &[SeedKey<'_>], mt: &mut Lanes, add: &mut Lanes) {
    // Each lane's key term of step k: key[k mod len] + (k mod len).
    for (l, key) in keys.iter().enumerate().take(LANES) {
        for (j, row) in add.iter_mut().enumerate().take(key.words) {
            row[l] = key.word(j).wrapping_add(j as u32);
        }
        for k in key.words..N {
            add[k][l] = add[k - key.words][l];
        }
    }
    for (row, &v) in mt.iter_mut().zip(GENRAND_19650218.iter()) {
        *row = [v; LANES];
    }
    let mut i = 1usize;
    let mut last = mt[0];
    for a in add.iter() {
        let row = &mut mt[i];
        for l in 0..LANES {
            let prev = last[l] ^ (last[l] >> 30);
            last[l] = (row[l] ^ prev.wrapping_mul(1_664_525)).wrapping_add(a[l]);
        }
        *row = last;
        i += 1;
        if i >= N {
            mt[0] = last;
            i = 1;
        }
    }
    for _ in 0..N - 1 {
        let row = &mut mt[i];
        let sub = i as u32;
        for l in 0..LANES {
            let prev = last[l] ^ (last[l] >> 30);
            last[l] = (row[l] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(sub);
        }
        *row = last;
        i += 1;
        if i >= N {
            mt[0] = last;
            i = 1;
        }
    }
    mt[0] = [0x8000_0000; LANES];
}

impl<S: State> Mt19937<S> {
    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.index = 0;
        }
        let i = self.index;
        // The in-place twist of element i: elements before it are already new, after it old,
        // exactly as the reference twists the whole array in order.
        let next = self.mt.get(if i + 1 < N { i + 1 } else { 0 });
        let far = self.mt.get(if i + M < N { i + M } else { i + M - N });
        let y = (self.mt.get(i) & 0x8000_0000) | (next & 0x7fff_ffff);
        let mut v = far ^ (y >> 1);
        if y & 1 != 0 {
            v ^= 0x9908_b0df;
        }
        self.mt.set(i, v);
        self.index = i + 1;
        let mut y = v;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

impl<S: State> Outputs for Mt19937<S> {
    fn output(&mut self) -> Option<u32> {
        Some(self.next_u32())
    }
}

/// CPython's `random() < rate` as an integer test: `random()` is `x / 2^53` for the 53-bit
/// `x = (a >> 5) << 26 | (b >> 6)`, exactly, and `rate * 2^53` is exact, so the test is
/// `x < ceil(rate * 2^53)`.
fn threshold(rate: f64) -> u64 {
    (rate * 9_007_199_254_740_992.0).ceil() as u64
}

/// mixle's corruption of `text` with the draws of `g` (`threshold` from [`threshold`]): per
/// letter a `random()` (two outputs), and for a replaced letter CPython's `choice` over 26
/// letters (`_randbelow(26)`: 5-bit draws until one is below 26). `None` if `g` ran out.
fn corrupt_from<O: Outputs>(g: &mut O, threshold: u64, text: &str) -> Option<String> {
    // Every replacement is one ASCII byte, never longer than the letter it replaces.
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_py_letter(c) {
            let a = u64::from(g.output()? >> 5);
            let b = u64::from(g.output()? >> 6);
            if (a << 26 | b) < threshold {
                let r = loop {
                    let r = g.output()? >> 27;
                    if r < 26 {
                        break r;
                    }
                };
                out.push((b'a' + r as u8) as char);
                continue;
            }
        }
        out.push(c);
    }
    Some(out)
}

/// mixle's corruption of `text` with the seed string's prefix `prefix` (`f"{seed}:"`).
fn corrupt(rate: f64, prefix: &[u8], text: &str) -> String {
    if rate == 0.0 {
        // No draw can fall below 0: nothing to seed.
        return text.to_owned();
    }
    let mut g = Mt19937::seeded(&SeedKey::new(prefix, text.as_bytes()));
    corrupt_from(&mut g, threshold(rate), text).unwrap_or_default()
}

/// The first outputs of each text's generator in a bulk corruption, kept for the next one with
/// the same seed and texts ([`Kept`]): a suite's typo rates share mixle's seed.
static LAST_DRAWN: LastKept = LastKept::new();

/// How many outputs to keep for `text`: enough for any rate, almost always (two per letter for
/// the decisions, 1.23 per letter expected for replacements at rate 1, and slack); a text that
/// needs more is seeded again.
fn outputs_wanted(text: &str) -> usize {
    let letters = if text.is_ascii() {
        text.bytes().filter(u8::is_ascii_alphabetic).count()
    } else {
        text.chars().filter(|&c| is_py_letter(c)).count()
    };
    4 * letters + 32
}

/// Seeds every text's generator (texts whose key fits the state [`LANES`] at a time) and keeps
/// its first [`outputs_wanted`] outputs.
fn draw(prefix: &[u8], texts: &[&str]) -> Kept {
    let wanted = Kept::budget(texts, outputs_wanted);
    let mut d = Kept::new(prefix, texts, wanted.iter().sum());
    let mut mt: Box<Lanes> = Box::new([[0; LANES]; N]);
    let mut add: Box<Lanes> = Box::new([[0; LANES]; N]);
    let mut keys: Vec<SeedKey<'_>> = Vec::with_capacity(LANES);
    let mut group = [(0usize, 0usize); LANES];
    let mut flush = |keys: &mut Vec<SeedKey<'_>>, group: &[(usize, usize)], d: &mut Kept| {
        seed_lanes(keys, &mut mt, &mut add);
        for (l, &(k, n)) in group.iter().enumerate() {
            let mut g = Mt19937 {
                mt: Lane(&mut mt, l),
                index: 0,
            };
            d.keep(k, (0..n).map(|_| g.next_u32()));
        }
        keys.clear();
    };
    for (k, (text, &n)) in texts.iter().zip(&wanted).enumerate() {
        if n == 0 {
            continue;
        }
        let key = SeedKey::new(prefix, text.as_bytes());
        if key.words > N {
            let mut g = Mt19937::seeded(&key);
            d.keep(k, (0..n).map(|_| g.next_u32()));
            continue;
        }
        group[keys.len()] = (k, n);
        keys.push(key);
        if keys.len() == LANES {
            flush(&mut keys, &group, &mut d);
        }
    }
    if !keys.is_empty() {
        // The spare lanes seed leftovers of the previous group; nothing reads them.
        let n = keys.len();
        flush(&mut keys, &group[..n], &mut d);
    }
    d
}

/// [`corrupt`] of every text, each text seeded once for all the rates of a suite ([`Kept`]).
fn corrupt_many(rate: f64, prefix: &[u8], texts: &[&str]) -> Vec<String> {
    if rate == 0.0 {
        return texts.iter().map(|&t| t.to_owned()).collect();
    }
    let drawn = LAST_DRAWN.take_or(prefix, texts, || draw(prefix, texts));
    let threshold = threshold(rate);
    let out = texts
        .iter()
        .enumerate()
        .map(|(k, t)| {
            corrupt_from(&mut Replay(drawn.words(k).iter()), threshold, t)
                .unwrap_or_else(|| corrupt(rate, prefix, t))
        })
        .collect();
    LAST_DRAWN.put(drawn);
    out
}

/// `f"{seed}:"` for an integer seed, on the stack.
fn int_prefix(seed: u64, buf: &mut [u8; 21]) -> &[u8] {
    let mut n = seed;
    let mut at = buf.len() - 1;
    buf[at] = b':';
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[at..]
}

/// mixle's `keyboard_typo_corruption(rate, seed=seed)` applied to `text`, for an integer seed.
pub(crate) fn corrupt_int_seed(rate: f64, seed: u64, text: &str) -> String {
    let mut buf = [0u8; 21];
    corrupt(rate, int_prefix(seed, &mut buf), text)
}

/// [`corrupt_int_seed`] of many texts (seeded several at a time).
pub(crate) fn corrupt_many_int_seed(rate: f64, seed: u64, texts: &[&str]) -> Vec<String> {
    let mut buf = [0u8; 21];
    corrupt_many(rate, int_prefix(seed, &mut buf), texts)
}

/// mixle's `keyboard_typo_corruption(rate, seed=seed)` for any seed mixle accepts: mixle seeds
/// `random.Random(f"{seed}:{text}")`, so only the seed's formatted text matters (`"-1"`,
/// `"1180591620717411303424"`, `"abc"`, `"1.5"`, `"True"`, ...). Needs the `mixle-compat`
/// feature; [`crate::KeyboardTypo`] with [`crate::TypoRng::Mixle`] is the same for seeds in
/// `0..2^64`.
///
/// ```
/// use suite_core::MixleTypo;
///
/// let typo = MixleTypo::new(0.5, "abc")?;
/// assert_eq!(typo.seed(), "abc");
/// assert_eq!(typo.apply("hello world").chars().count(), 11);
/// # Ok::<(), suite_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MixleTypo {
    rate: f64,
    /// `f"{seed}:"`, the seed string's prefix.
    prefix: Arc<str>,
}

impl MixleTypo {
    /// The corruption at `rate` (in `[0, 1]`; anything else, NaN included, is an error) with
    /// `seed` as Python formats it (`format(seed, "")`).
    pub fn new(rate: f64, seed: &str) -> Result<MixleTypo, Error> {
        if !(0.0..=1.0).contains(&rate) {
            return Err(Error::InvalidRate { rate });
        }
        Ok(MixleTypo {
            rate,
            prefix: format!("{seed}:").into(),
        })
    }

    /// The replacement probability.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The seed, as formatted.
    pub fn seed(&self) -> &str {
        &self.prefix[..self.prefix.len() - 1]
    }

    /// Corrupts one text.
    pub fn apply(&self, text: &str) -> String {
        corrupt(self.rate, self.prefix.as_bytes(), text)
    }

    /// Wraps this corruption as a [`Transform`], with its rate as its severity (family
    /// `keyboard_typo`).
    pub fn into_transform(self) -> Transform {
        let rate = self.rate;
        let many = self.clone();
        let transform = Transform::new(move |t| self.apply(t))
            .with_batch(move |texts| corrupt_many(many.rate, many.prefix.as_bytes(), texts));
        // A validated rate is in [0, 1], so it is a valid severity.
        transform
            .clone()
            .with_severity("keyboard_typo", rate)
            .unwrap_or(transform)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_reference_output() {
        // The reference implementation's first outputs for init_by_array({0x123, 0x234, 0x345, 0x456}).
        let mut g = Mt19937::from_key(&[0x123, 0x234, 0x345, 0x456]);
        assert_eq!(g.next_u32(), 1_067_595_299);
        assert_eq!(g.next_u32(), 955_945_823);
        // Output 1000 of mt19937ar.out's first 1000 (the 1000th), across a full twist.
        let mut g = Mt19937::from_key(&[0x123, 0x234, 0x345, 0x456]);
        let last = (0..1000).map(|_| g.next_u32()).last();
        assert_eq!(last, Some(3_460_025_646));
    }

    #[test]
    fn seeding_side_by_side_is_seeding_one_by_one() {
        let long = "é".repeat(1300);
        let texts: Vec<String> = (0..30)
            .map(|i| match i % 7 {
                0 => String::new(),
                3 => long.clone(),
                5 => format!("\0{i}"),
                _ => format!("sample {i}: the ΣΊΣΥΦΟΣ service was {}", "ok ".repeat(i)),
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        // Rates one after the other with one seed: the later ones replay the kept outputs.
        for prefix in ["0:", "-1:", "\0:"] {
            for rate in [0.0, 0.05, 0.5, 1.0, 0.3] {
                let many = corrupt_many(rate, prefix.as_bytes(), &refs);
                for (t, m) in refs.iter().zip(&many) {
                    assert_eq!(
                        &corrupt(rate, prefix.as_bytes(), t),
                        m,
                        "{rate} {prefix:?} {t:.20}"
                    );
                }
            }
        }
    }

    #[test]
    fn running_out_of_kept_outputs_is_noticed() {
        let mut g = Mt19937::seeded(&SeedKey::new(b"0:", b"abc"));
        let words: Vec<u32> = (0..5).map(|_| g.next_u32()).collect();
        assert_eq!(
            corrupt_from(&mut Replay(words.iter()), threshold(1.0), "abc"),
            None
        );
        assert_eq!(
            corrupt_from(&mut Replay(words.iter()), threshold(0.0), "ab"),
            Some("ab".into())
        );
    }

    #[test]
    fn int_prefix_formats_like_python() {
        let mut buf = [0u8; 21];
        for seed in [0, 7, 10, 12_345, u64::MAX] {
            assert_eq!(int_prefix(seed, &mut buf), format!("{seed}:").as_bytes());
        }
    }

    /// `random.Random(s).random()` and `.getrandbits(32)` under CPython 3.11, for string seeds
    /// of every key shape: short, NUL-led (leading zero words dropped), longer than the state.
    #[test]
    fn string_seeds_match_cpython() {
        let long = "x".repeat(3000);
        let cases: [(&str, &str, f64, u32); 4] = [
            ("0:", "hello", 0.510_587_282_405_339_2, 4_261_147_202),
            ("\0\0\0\0\0:", "a", 0.440_743_595_147_121_7, 3_940_946_559),
            ("abc:", "", 0.932_420_228_608_532, 3_317_185_961),
            ("0:", long.as_str(), 0.203_094_485_530_281_1, 694_489_125),
        ];
        for (prefix, text, random, bits) in cases {
            let mut g = Mt19937::seeded(&SeedKey::new(prefix.as_bytes(), text.as_bytes()));
            let (a, b) = (g.next_u32() >> 5, g.next_u32() >> 6);
            let drawn = (f64::from(a) * 67_108_864.0 + f64::from(b)) / 9_007_199_254_740_992.0;
            assert_eq!(drawn, random, "{prefix:?}{text:.8}");
            assert_eq!(g.next_u32(), bits, "{prefix:?}{text:.8}");
        }
    }
}
