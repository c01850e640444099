//! How long a name may be, and what one name can cost.
//!
//! Output grows with the square of a name's length for the grapheme and keyboard tasks (about
//! 26 × 2 × len variants of about len bytes each) and exponentially in the number of numeral words
//! for `cns`/`ons` (capped at [`NUMERAL_WALK_LIMIT`] variants). A corpus tool must therefore bound
//! the name length: [`MAX_NAME_LEN`] is the length DNS allows for a whole name, and `capkit typo
//! emit`/`score` refuse a longer line (naming it) unless `--max-name-len` raises the limit.
//! [`Task::expect`](crate::Task::expect) itself accepts any length.
//!
//! # Worst cases per name
//!
//! Measured with `cargo run --release -p capkit-typo-generators --example worst_case` (English data,
//! QWERTY, eleven adversarial 253-byte names: numeral words and digit keys run together, digits,
//! digit runs, one letter repeated, letters, vowels, dots and hyphens, IDN letters,
//! homoglyph-rich text; the largest set, its bytes, [`Task::output_estimate`] (JSON bytes) for
//! that input, and the slowest call per task in CPU time of the calling thread; the slowest of
//! three runs on the shared 2-core VM at load 2.9–3.0). Every task but `cns`/`ons` grows at
//! most with the square of the length (about 26 variants per position, each about as long as
//! the name); `cns`/`ons` stop at [`NUMERAL_WALK_LIMIT`] variants.
//!
//! | task | most variants | output bytes | estimate | slowest |
//! |---|---:|---:|---:|---:|
//! | `aci` | 1,755 | 446 KB | 996 KB | 0.2 ms |
//! | `acs` | 948 | 240 KB | 496 KB | 0.1 ms |
//! | `bf` | 2,024 | 513 KB | 530 KB | 0.6 ms |
//! | `cm` | 11 | 3 KB | 485 KB | < 0.1 ms |
//! | `cns` | 65,536 | 54.1 MB | 83.1 MB | 274 ms |
//! | `co` | 253 | 64 KB | 65 KB | 0.1 ms |
//! | `cr` | 253 | 64 KB | 71 KB | 0.1 ms |
//! | `cs` | 252 | 64 KB | 65 KB | < 0.1 ms |
//! | `dhs` | 128 | 32 KB | 65 KB | 0.1 ms |
//! | `di` | 252 | 64 KB | 67 KB | 0.1 ms |
//! | `do` | 64 | 16 KB | 65 KB | < 0.1 ms |
//! | `gi` | 6,604 | 1.7 MB | 1.7 MB | 0.9 ms |
//! | `gr` | 6,578 | 1.7 MB | 1.7 MB | 0.9 ms |
//! | `hi` | 254 | 65 KB | 67 KB | 0.1 ms |
//! | `ho` | 64 | 16 KB | 65 KB | < 0.1 ms |
//! | `hr` | 2,344 | 597 KB | 1.8 MB | 0.2 ms |
//! | `hs` | 32 | 8 KB | 1.4 MB | 0.1 ms |
//! | `ons` | 65,536 | 75.1 MB | 116.3 MB | 290 ms |
//! | `rar` | 756 | 191 KB | 538 KB | 0.1 ms |
//! | `sp` | 1 | 254 B | 1 KB | 1.9 ms |
//! | `tos` | 126 | 32 KB | 71 KB | 0.2 ms |
//! | `vs` | 1,016 | 257 KB | 2.0 MB | 0.1 ms |
//!
//! `cns`/`ons` dominate: 17 or more distinct numerals present can reach the cap of 65,536
//! variants, each up to a few times the name's length (digits spelt out: 1.15 KB on average for
//! the worst name above). The walk's work is proportional to its output (see
//! `generate/numeral_walk.rs`); under the previous walk, which rescanned and rehashed every node
//! whole, the same names took 0.49–0.66 s of CPU (measured side by side at load 5.5, against
//! 0.25–0.32 s for this walk), and under the first version, which rebuilt and hashed the whole
//! string on every edge, 1.9–2.5 s of wall time.
//! Memory for one such name is its output (as [`Variant`](crate::Variant)s: the bytes, plus 32
//! bytes and an allocation per variant) and the walk's table of strings seen (32 bytes per
//! variant), about 80 MB at most at 253 bytes; `capkit typo emit` budgets each name's chunk
//! share by these figures. `sp`'s slowest call is its first, which compiles its rules.

use crate::Task;
use crate::json::escaped_str_len;
use crate::task::Generator;
// Defined beside the walk it bounds (so the generators import nothing from here); documented
// with the other limits.
pub use crate::generate::NUMERAL_WALK_LIMIT;

impl Task {
    /// An upper estimate of the JSON bytes of this task's expected set for `input`: every
    /// member with its quotes, comma and escaping (the `"expect":[…]` array of `emit`'s line,
    /// without the rest of the line). It is computed from the input's length and escaping, the
    /// task's tables and, for `hs`/`cm`/`cns`/`ons`, one scan of the input for the words they
    /// rewrite, without generating anything; corpus tools size their work by it
    /// (`capkit typo emit` fills its parallel chunks up to a memory budget). It bounds the
    /// real size for the shipped tables (a property test checks it); with other `--data`, a
    /// numeral whose replacement creates another numeral's text can lengthen a name more than
    /// the estimate assumes.
    ///
    /// ```
    /// use typo_generators::{Data, Registry};
    /// let registry = Registry::new(&Data::english());
    /// let gi = registry.get("gi").unwrap();
    /// let json: usize = gi.expect("ab").iter().map(|v| v.len() + 3).sum();
    /// assert!(gi.output_estimate("ab") >= json as u64);
    /// ```
    pub fn output_estimate(&self, input: &str) -> u64 {
        let b = input.len() as u64;
        // The input as a JSON string: members are mostly its bytes, escaped the same way.
        let e = escaped_str_len(input);
        // `members` strings of at most `len` escaped bytes, with quotes and a comma each, and
        // the brackets.
        let set = |members: u64, len: u64| members.saturating_mul(len.saturating_add(3)) + 2;
        // A table string inserted in a member may need escaping too: at most 6 bytes per byte.
        let inserted = |bytes: u64| bytes.saturating_mul(6);
        match &self.generator {
            Generator::Co | Generator::Cs => set(b, e),
            // Each occurrence, then all at once (`dhs`: both ways).
            Generator::Ho | Generator::Do => set(b + 1, e),
            Generator::Dhs => set(b + 2, e),
            Generator::Cr => set(b + 1, e + inserted(4)),
            Generator::Hi | Generator::Di => set(b + 1, e + inserted(1)),
            // Adjacent swaps, or every order of at most four tokens.
            Generator::Tos => set(b + 24, e),
            // One flipped byte, which may now need `\u00XX`.
            Generator::Bf => set(8 * b, e + inserted(1)),
            // A suffix, and case mapping that can lengthen a character by half.
            Generator::Sp => set(2, e.saturating_mul(2) + inserted(16)),
            Generator::Gi(g) => {
                let (n, longest) = g.sizes();
                set(n.saturating_mul(b + 1), e + inserted(longest))
            }
            Generator::Gr(g) => {
                let (n, longest) = g.sizes();
                set(n.saturating_mul(b), e + inserted(longest))
            }
            Generator::Vs(v) => {
                // Each occurrence by each other vowel, and every occurrence at once.
                let (n, longest) = v.sizes();
                let members = n.saturating_mul(b + 1).saturating_add(n.saturating_mul(n));
                set(members, inserted(b.saturating_mul(longest.max(1))))
            }
            Generator::Hr(h) => {
                let (most, longest) = h.sizes();
                set(most.saturating_mul(b), e + inserted(longest))
            }
            Generator::Hs(w) | Generator::Cm(w) => {
                // A word replaced everywhere: at most every byte gains the longest word.
                let longest = w.longest();
                let len = e + inserted(b.saturating_add(1).saturating_mul(longest));
                set(w.candidates(input), len)
            }
            Generator::Cns(n) | Generator::Ons(n) => {
                set(n.variants_bound(input), e.saturating_mul(n.growth()))
            }
            Generator::Acs(k) => set(k.most().saturating_mul(b), e + inserted(4)),
            Generator::Aci(k) => set(2 * k.most().saturating_mul(b + 1), e + inserted(4)),
            Generator::Rar(k) => set(k.most().saturating_mul(b), e + inserted(8)),
        }
    }
}

/// The default maximum name length, in bytes: the longest DNS name.
pub const MAX_NAME_LEN: usize = 253;
