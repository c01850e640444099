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
//! Measured with `cargo run --release -p capkit-typo-tasks --example worst_case` (English data, QWERTY,
//! ten adversarial 253-byte names: numeral words and digit keys run together, digits, one letter
//! repeated, letters, vowels, dots and hyphens, IDN letters, homoglyph-rich text; the largest
//! set, its bytes and the slowest call per task; 2-core VM at load 4). Every task but `cns`/`ons`
//! grows at most with the square of the length (about 26 variants per position, each about as
//! long as the name); `cns`/`ons` are capped at [`NUMERAL_WALK_LIMIT`] variants.
//!
//! | task | most variants | output bytes | slowest |
//! |---|---:|---:|---:|
//! | `aci` | 1,755 | 446 KB | 0.3 ms |
//! | `acs` | 948 | 240 KB | 0.1 ms |
//! | `bf` | 2,024 | 513 KB | 4.3 ms |
//! | `cm` | 11 | 3 KB | < 0.1 ms |
//! | `cns` | 4,096 | 3.5 MB | 91 ms |
//! | `co` | 253 | 64 KB | < 0.1 ms |
//! | `cr` | 253 | 64 KB | < 0.1 ms |
//! | `cs` | 252 | 64 KB | 0.1 ms |
//! | `dhs` | 128 | 32 KB | < 0.1 ms |
//! | `di` | 252 | 64 KB | < 0.1 ms |
//! | `do` | 64 | 16 KB | < 0.1 ms |
//! | `gi` | 6,604 | 1.7 MB | 0.8 ms |
//! | `gr` | 6,578 | 1.7 MB | 0.9 ms |
//! | `hi` | 254 | 65 KB | < 0.1 ms |
//! | `ho` | 64 | 16 KB | < 0.1 ms |
//! | `hr` | 2,344 | 597 KB | 4.2 ms |
//! | `hs` | 32 | 8 KB | 0.1 ms |
//! | `ons` | 4,096 | 4.9 MB | 116 ms |
//! | `rar` | 756 | 191 KB | 0.2 ms |
//! | `sp` | 1 | 254 B | 24.0 ms |
//! | `tos` | 126 | 32 KB | 0.1 ms |
//! | `vs` | 1,016 | 257 KB | 0.2 ms |
//!
//! `cns`/`ons` dominate: 13 or more distinct numerals reach the cap of 4,096 variants, each up
//! to a few times the name's length (digits spelt out). The walk's work is proportional to its
//! output (see `generate/numeral_walk.rs`): the first version, which rebuilt and hashed the
//! whole string on every edge and capped at 65,536 variants, took 1.9–2.5 s and 54–75 MB for
//! these names (and 5–11 s for a 4 KB name); with the faster walk and the old cap it took
//! 0.8–1.3 s. The cns/ons rows were measured at load 9, the others at load 4. Memory per name is
//! its output plus a small index (16 bytes per variant).

/// The default maximum name length, in bytes: the longest DNS name.
pub const MAX_NAME_LEN: usize = 253;

/// The most variants one numeral walk (`cns`, `ons`) produces. The walk is exponential in the
/// number of numeral words present (each can be rewritten or not, independently): 12 give 4,095
/// variants (the largest golden), 32 would give 2^32, which upstream never finishes. Stopping here
/// is a deliberate, deterministic deviation (the walk order is fixed) that only inputs with 13 or
/// more distinct numerals present can reach; it keeps one name within about 5 MB and 100 ms
/// (it was 65,536, which allowed 75 MB and over a second for one 253-byte name).
pub const NUMERAL_WALK_LIMIT: usize = 1 << 12;
