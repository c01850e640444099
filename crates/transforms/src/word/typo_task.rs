//! The 22 typo-tasks generators as word-level corruptions (`typo_co`, `typo_hi`, … one family per
//! generator id).
//!
//! Each token (a maximal run of non-whitespace characters: the generators were written for
//! domain names, so a token keeps its dots and hyphens and `do`, `dhs`, `tos` have something to
//! work on) is picked with probability `rate`; a picked token is replaced by one member of the
//! generator's exact set for it ([`Task::expect`]), chosen uniformly by the seeded draw. A token
//! whose set is empty stays as it is, and so does a token longer than [`MAX_TOKEN_CHARS`]
//! characters (the sets grow with the square of the length, and `cns`/`ons` exponentially in the
//! numerals of a token). Members that are not valid UTF-8 (`bf` on non-ASCII text) or that contain
//! whitespace (`bf` can flip `(` into a space) are skipped: a text stays text, and one word
//! becomes one word.
//!
//! Only typo-tasks' public API is used ([`Registry`], [`Task::expect_into`], [`Variant`]), so
//! moving the generators to a crate of their own changes nothing here.

use std::cell::RefCell;
use std::collections::HashMap;

use foldhash::fast::FixedState;
use std::sync::OnceLock;

use suite_core::{ResolveError, Transform};
use typo_generators::{CATALOG, Data, Keyboard, Registry, Task, Variant};

use crate::descriptor::{BuildFn, Descriptor, Kind, Level};
use crate::param::{Param, ParamType, Params};
use crate::rng::seeded;

use super::Tokens;
use crate::rng::{Probability, TextRng};

/// Tokens longer than this many characters are left unchanged: every set stays small (a few
/// thousand members at most for `gi`/`gr`, 2^11 for `cns`/`ons`).
pub const MAX_TOKEN_CHARS: usize = 32;

/// The transform name of a generator id: `typo_` + the id (`typo_co`).
#[cfg(test)]
pub fn transform_name(id: &str) -> String {
    format!("typo_{id}")
}

/// The generator ids (`co`, `hi`, …), sorted, one transform each.
pub fn ids() -> impl Iterator<Item = &'static str> {
    CATALOG.iter().map(|info| info.id)
}

/// Whether generator `id` reads a keyboard layout (`acs`, `aci`, `rar`): those take `layout`.
pub fn uses_layout(id: &str) -> bool {
    typo_generators::task_info(id)
        .is_some_and(|info| info.table == Some(typo_generators::Table::Keyboard))
}

/// One typo generator applied token by token with probability `rate`.
#[derive(Debug, Clone)]
pub struct TypoTask {
    task: Task,
    rate: Probability,
    /// Which sets this task computes, for the thread's [`SetCache`]: the generator's index in
    /// `CATALOG` and the layout's in [`Keyboard::NAMES`] (a registry is built once per layout,
    /// so two tasks with one key compute the same sets).
    key: usize,
}

impl TypoTask {
    /// The generator `id` (one of the 22; see [`ids`]) at `rate` (in `[0, 1]`, checked by the
    /// catalogue), with keyboard `layout` (one of [`Keyboard::NAMES`]; read only by `acs`, `aci`
    /// and `rar`).
    pub fn new(id: &str, rate: f64, layout: &str) -> Result<TypoTask, String> {
        let (registry, layout_index) = registry(layout)?;
        let generator_index = CATALOG.iter().position(|info| info.id == id).unwrap_or(0);
        let task =
            registry
                .get(id)
                .cloned()
                .ok_or_else(|| match typo_generators::task_info(id) {
                    // English data fills every table, so this is a generator without data.
                    Some(_) => format!("typo generator `{id}` has no data in the English tables"),
                    None => format!("unknown typo generator `{id}`; known: {}", ids_list()),
                })?;
        Ok(TypoTask {
            task,
            rate: Probability::new(rate),
            key: layout_index * CATALOG.len() + generator_index,
        })
    }

    /// The generator's id.
    #[cfg(test)]
    pub fn id(&self) -> &'static str {
        self.task.id
    }

    /// Corrupts `text`, drawing from `rng`: one decision per token, in order, then one choice per
    /// picked token that has a set.
    ///
    /// A token whose set the generator keeps precomputed (the table words of `hs` and `cm`, and
    /// the words in which no table word can occur: [`Task::precomputed`]) is answered from it,
    /// borrowed. Other sets are computed once and kept in this thread's [`SetCache`] for later
    /// tokens and texts (texts share their words); the draws, and so the output, are the same
    /// with the cache warm, cold or cleared.
    pub fn apply(&self, text: &str, rng: &mut TextRng) -> String {
        if self.rate.is_zero() {
            return text.to_owned();
        }
        SETS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut cache) => self.apply_with(text, rng, &mut cache),
            // Only if an apply ran inside an apply on this thread, which none does.
            Err(_) => self.apply_with(text, rng, &mut SetCache::default()),
        })
    }

    fn apply_with(&self, text: &str, rng: &mut TextRng, cache: &mut SetCache) -> String {
        let mut edits = Vec::new();
        for range in Tokens::new(text) {
            if !rng.chance(self.rate) {
                continue;
            }
            let token = &text[range.clone()];
            // (A token of at most MAX_TOKEN_CHARS bytes has at most as many characters.)
            if token.len() > MAX_TOKEN_CHARS && token.chars().nth(MAX_TOKEN_CHARS).is_some() {
                continue;
            }
            let pick = if let Some(set) = self.task.precomputed(token) {
                // The members a computed set keeps, in order: the same draw picks the same one.
                let n = set.iter().filter(|v| usable(v)).count();
                if n == 0 {
                    continue;
                }
                let k = rng.below(n);
                if n == set.len() {
                    set.get(k)
                } else {
                    set.iter().filter(|v| usable(v)).nth(k)
                }
            } else {
                let set = cache.set(self.key, token, |out| {
                    self.task.expect_into(token, out);
                    out.retain(usable);
                });
                if set.is_empty() {
                    continue;
                }
                set.get(rng.below(set.len()))
            };
            // A clone, not a `String`: a variant of up to 30 bytes is stored inline (no
            // allocation), and every usable variant is UTF-8.
            if let Some(v) = pick {
                edits.push((range, v.clone()));
            }
        }
        let extra: usize = edits.iter().map(|(_, v)| v.len()).sum();
        let mut out = String::with_capacity(text.len() + extra);
        let mut at = 0;
        for (range, with) in &edits {
            out.push_str(text.get(at..range.start).unwrap_or_default());
            out.push_str(with.as_str().unwrap_or_default());
            at = range.end;
        }
        out.push_str(text.get(at..).unwrap_or_default());
        out
    }
}

/// The most bytes of computed sets one thread keeps (each variant's bytes plus 32, each token's
/// plus 64); past it the cache is emptied and starts again, so memory stays bounded on text of
/// ever new words.
pub const CACHE_BYTES: usize = 4 << 20;

/// Sets computed by the typo families on one thread, by task key and token, usable members
/// only. Words recur across texts, so most of a corpus's tokens are computed once per thread
/// instead of once per occurrence; the cache only ever holds the generator's own output.
#[derive(Default)]
struct SetCache {
    by_task: Vec<HashMap<Box<str>, Box<[Variant]>, FixedState>>,
    bytes: usize,
}

impl SetCache {
    /// The set of `token` for task `key`, computed by `compute` (into an empty `Vec`) when absent.
    fn set(
        &mut self,
        key: usize,
        token: &str,
        compute: impl FnOnce(&mut Vec<Variant>),
    ) -> &[Variant] {
        if self.by_task.len() <= key {
            self.by_task.resize_with(key + 1, HashMap::default);
        }
        if !self
            .by_task
            .get(key)
            .is_some_and(|sets| sets.contains_key(token))
        {
            let mut set = Vec::new();
            compute(&mut set);
            let bytes = token.len() + 64 + set.iter().map(|v| v.len() + 32).sum::<usize>();
            if self.bytes + bytes > CACHE_BYTES {
                self.by_task
                    .iter_mut()
                    .for_each(|sets| *sets = HashMap::default());
                self.bytes = 0;
            }
            self.bytes += bytes;
            if let Some(sets) = self.by_task.get_mut(key) {
                sets.insert(token.into(), set.into_boxed_slice());
            }
        }
        self.by_task
            .get(key)
            .and_then(|sets| sets.get(token))
            .map_or(&[], |set| &**set)
    }
}

thread_local! {
    static SETS: RefCell<SetCache> = RefCell::new(SetCache::default());
}

/// Whether a variant may replace a word: a text stays text (`bf` can make invalid UTF-8), and a
/// word stays one word (`bf` can flip `(` into a space).
fn usable(v: &Variant) -> bool {
    let bytes = v.as_bytes();
    if bytes.is_ascii() {
        // `char::is_whitespace` on ASCII: \t \n \x0b \x0c \r and space.
        return !bytes
            .iter()
            .any(|&b| b == b' ' || (b'\t'..=b'\r').contains(&b));
    }
    v.as_str().is_some_and(|s| !s.contains(char::is_whitespace))
}

/// The English registry with keyboard `layout`, built once per layout and process.
fn registry(layout: &str) -> Result<(&'static Registry, usize), String> {
    const N: usize = Keyboard::NAMES.len();
    static REGISTRIES: [OnceLock<Registry>; N] = [const { OnceLock::new() }; N];
    let keyboard = Keyboard::by_name(layout).map_err(|e| format!("layout: {e}"))?;
    let i = Keyboard::NAMES
        .iter()
        .position(|n| *n == layout)
        .unwrap_or_default();
    let registry =
        REGISTRIES[i].get_or_init(|| Registry::new(&Data::english().with_keyboard(keyboard)));
    Ok((registry, i))
}

fn ids_list() -> String {
    ids().collect::<Vec<_>>().join(", ")
}

/// The typo generator family's builder for `CATALOG[I]`: one function per generator, so the
/// descriptors can be statics.
fn build<const I: usize>(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let id = CATALOG[I].id;
    let rate = p.f64("rate")?;
    let layout = if uses_layout(id) {
        p.str("layout")?
    } else {
        "qwerty"
    };
    let task = TypoTask::new(id, rate, layout).map_err(ResolveError::Invalid)?;
    if task.rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded(NAMES[I], p.u64("seed")?, move |text, rng| {
        task.apply(text, rng)
    }))
}

/// The transform names, in `CATALOG` order (checked by a test).
const NAMES: [&str; 22] = [
    "typo_aci", "typo_acs", "typo_bf", "typo_cm", "typo_cns", "typo_co", "typo_cr", "typo_cs",
    "typo_dhs", "typo_di", "typo_do", "typo_gi", "typo_gr", "typo_hi", "typo_ho", "typo_hr",
    "typo_hs", "typo_ons", "typo_rar", "typo_sp", "typo_tos", "typo_vs",
];

const RATE_SEED: &[Param] = &[
    Param::rate("probability per token (whitespace-delimited word)", "0.1"),
    Param::seed(),
];
const RATE_SEED_LAYOUT: &[Param] = &[
    Param::rate("probability per token (whitespace-delimited word)", "0.1"),
    Param::seed(),
    Param {
        name: "layout",
        ty: ParamType::Choice(&Keyboard::NAMES),
        default: Some("\"qwerty\""),
        doc: "keyboard layout of the neighbour keys",
    },
];

const fn typo(
    name: &'static str,
    description: &'static str,
    params: &'static [Param],
    example: &'static str,
    build: BuildFn,
) -> Descriptor {
    Descriptor {
        name,
        level: Level::Word,
        kind: Kind::Corruption { severity: "rate" },
        description,
        params,
        example,
        example_params: r#"{"rate": 0.5}"#,
        build,
    }
}

/// The 22 generator families, in id order.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    typo(
        "typo_aci",
        "each word replaced with probability rate by one of typo-tasks' Adjacent Character Insertion (aci) variants",
        RATE_SEED_LAYOUT,
        "The quick brown fox jumps over the lazy dog",
        build::<0>,
    ),
    typo(
        "typo_acs",
        "each word replaced with probability rate by one of typo-tasks' Adjacent Character Substitution (acs) variants",
        RATE_SEED_LAYOUT,
        "The quick brown fox jumps over the lazy dog",
        build::<1>,
    ),
    typo(
        "typo_bf",
        "each word replaced with probability rate by one of typo-tasks' Bit Flipping (bf) variants",
        RATE_SEED,
        "hello world",
        build::<2>,
    ),
    typo(
        "typo_cm",
        "each word replaced with probability rate by one of typo-tasks' Common Misspellings (cm) variants",
        RATE_SEED,
        "I definitely received the separate calendar",
        build::<3>,
    ),
    typo(
        "typo_cns",
        "each word replaced with probability rate by one of typo-tasks' Cardinal Substitution (cns) variants",
        RATE_SEED,
        "Meet me at 4 on floor 1 with 2 friends",
        build::<4>,
    ),
    typo(
        "typo_co",
        "each word replaced with probability rate by one of typo-tasks' Character Omission (co) variants",
        RATE_SEED,
        "The quick brown fox jumps over the lazy dog",
        build::<5>,
    ),
    typo(
        "typo_cr",
        "each word replaced with probability rate by one of typo-tasks' Character Repetition (cr) variants",
        RATE_SEED,
        "The quick brown fox jumps over the lazy dog",
        build::<6>,
    ),
    typo(
        "typo_cs",
        "each word replaced with probability rate by one of typo-tasks' Character Swapping (cs) variants",
        RATE_SEED,
        "The quick brown fox jumps over the lazy dog",
        build::<7>,
    ),
    typo(
        "typo_dhs",
        "each word replaced with probability rate by one of typo-tasks' Dot Hyphen Substitution (dhs) variants",
        RATE_SEED,
        "visit shop-now.example.com or www.my-site.org",
        build::<8>,
    ),
    typo(
        "typo_di",
        "each word replaced with probability rate by one of typo-tasks' Dot Insertion (di) variants",
        RATE_SEED,
        "see example.com and my.site.org",
        build::<9>,
    ),
    typo(
        "typo_do",
        "each word replaced with probability rate by one of typo-tasks' Dot Omission (do) variants",
        RATE_SEED,
        "see example.com and my.site.org",
        build::<10>,
    ),
    typo(
        "typo_gi",
        "each word replaced with probability rate by one of typo-tasks' Grapheme Insertion (gi) variants",
        RATE_SEED,
        "The quick brown fox jumps over the lazy dog",
        build::<11>,
    ),
    typo(
        "typo_gr",
        "each word replaced with probability rate by one of typo-tasks' Grapheme Replacement (gr) variants",
        RATE_SEED,
        "The quick brown fox jumps over the lazy dog",
        build::<12>,
    ),
    typo(
        "typo_hi",
        "each word replaced with probability rate by one of typo-tasks' Hyphen Insertion (hi) variants",
        RATE_SEED,
        "see example.com and mysite today",
        build::<13>,
    ),
    typo(
        "typo_ho",
        "each word replaced with probability rate by one of typo-tasks' Hyphen Omission (ho) variants",
        RATE_SEED,
        "a well-known e-mail co-worker",
        build::<14>,
    ),
    typo(
        "typo_hr",
        "each word replaced with probability rate by one of typo-tasks' Homoglyph Replacement (hr) variants",
        RATE_SEED,
        "The quick brown fox jumps over the lazy dog",
        build::<15>,
    ),
    typo(
        "typo_hs",
        "each word replaced with probability rate by one of typo-tasks' Homophone Substitution (hs) variants",
        RATE_SEED,
        "I knew their two cats would wait here",
        build::<16>,
    ),
    typo(
        "typo_ons",
        "each word replaced with probability rate by one of typo-tasks' Ordinal Substitution (ons) variants",
        RATE_SEED,
        "the 1st and 2nd and 3rd of them",
        build::<17>,
    ),
    typo(
        "typo_rar",
        "each word replaced with probability rate by one of typo-tasks' Repetition Adjacent Replacement (rar) variants",
        RATE_SEED_LAYOUT,
        "The quick brown fox jumps over the lazy dog",
        build::<18>,
    ),
    typo(
        "typo_sp",
        "each word replaced with probability rate by one of typo-tasks' Singular Pluralise (sp) variants",
        RATE_SEED,
        "the cat saw a mouse near the house",
        build::<19>,
    ),
    typo(
        "typo_tos",
        "each word replaced with probability rate by one of typo-tasks' Token Order Swap (tos) variants",
        RATE_SEED,
        "visit shop-now.example.com or www.my-site.org",
        build::<20>,
    ),
    typo(
        "typo_vs",
        "each word replaced with probability rate by one of typo-tasks' Vowel Swapping (vs) variants",
        RATE_SEED,
        "The quick brown fox jumps over the lazy dog",
        build::<21>,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::{test_rng, tokens};

    fn run(id: &str, rate: f64, text: &str) -> String {
        let t = TypoTask::new(id, rate, "qwerty").unwrap();
        t.apply(text, &mut test_rng(1))
    }

    #[test]
    fn every_generator_builds_and_changes_each_token_at_rate_one() {
        for id in ids() {
            let t = TypoTask::new(id, 1.0, "qwerty").unwrap();
            assert_eq!(t.id(), id);
            // Rate one: every token whose set is non-empty changes, to a member of its set.
            let text = "one cat-food e.g. bread";
            let out = t.apply(text, &mut test_rng(3));
            let registry = Registry::new(&Data::english());
            let task = registry.get(id).unwrap();
            let before = tokens(text);
            let after = tokens(&out);
            if id == "tos" || id == "dhs" || id == "hi" || id == "di" {
                // These may add or move separators, but never whitespace.
                assert_eq!(before.len(), after.len(), "{id}: {out}");
            }
            for (b, a) in before.iter().zip(&after) {
                let (b, a) = (&text[b.clone()], &out[a.clone()]);
                let set: Vec<String> = task
                    .expect(b)
                    .into_iter()
                    .filter_map(|v| v.into_string().ok())
                    .collect();
                if set.is_empty() {
                    assert_eq!(a, b, "{id}");
                } else {
                    assert!(set.iter().any(|s| s == a), "{id}: {b} -> {a}");
                }
            }
        }
    }

    #[test]
    fn rate_zero_is_identity_and_bad_parameters_are_named() {
        assert_eq!(run("co", 0.0, "hello world"), "hello world");
        let err = TypoTask::new("zz", 0.1, "qwerty").unwrap_err();
        assert!(
            err.to_string().contains("unknown typo generator `zz`"),
            "{err}"
        );
        let err = TypoTask::new("acs", 0.1, "colemak").unwrap_err();
        assert!(err.starts_with("layout: "), "{err}");
    }

    #[test]
    fn long_tokens_and_whitespace_stay() {
        let long = "a".repeat(MAX_TOKEN_CHARS + 1);
        let text = format!(" {long}\t\n");
        assert_eq!(run("co", 1.0, &text), text);
    }

    #[test]
    fn bf_never_emits_invalid_utf8() {
        let out = run("bf", 1.0, "é ü ñ 漢字 x");
        assert_eq!(tokens(&out).len(), 5);
    }

    #[test]
    fn names_follow_the_catalog() {
        assert_eq!(DESCRIPTORS.len(), CATALOG.len());
        for (i, info) in CATALOG.iter().enumerate() {
            assert_eq!(NAMES[i], transform_name(info.id));
            assert_eq!(DESCRIPTORS[i].name, NAMES[i]);
            assert!(
                DESCRIPTORS[i].description.contains(info.title),
                "{}",
                info.id
            );
            assert_eq!(
                DESCRIPTORS[i].params.len() == 3,
                uses_layout(info.id),
                "{}",
                info.id
            );
        }
    }

    #[test]
    fn outputs_do_not_depend_on_the_set_cache() {
        let text = "the quick brown fox, the quick dog; their 4th e.g. fox";
        for id in ["co", "gi", "cm", "hs", "ons"] {
            let t = TypoTask::new(id, 0.7, "qwerty").unwrap();
            let first = t.apply(text, &mut test_rng(5));
            // Warm on this thread, cold on a new one, and with an empty cache of its own.
            assert_eq!(t.apply(text, &mut test_rng(5)), first, "{id}");
            let other = t.clone();
            let cold = std::thread::spawn(move || other.apply(text, &mut test_rng(5)));
            assert_eq!(cold.join().unwrap(), first, "{id}");
            let fresh = t.apply_with(text, &mut test_rng(5), &mut SetCache::default());
            assert_eq!(fresh, first, "{id}");
        }
    }

    #[test]
    fn the_set_cache_stays_within_its_budget() {
        let mut cache = SetCache::default();
        let big: Vec<Variant> = (0..1000)
            .map(|i| Variant::from(format!("{i:0>200}")))
            .collect();
        for i in 0..100 {
            let got = cache.set(i % 3, &i.to_string(), |out| out.extend(big.iter().cloned()));
            assert_eq!(got.len(), 1000);
            assert!(cache.bytes <= CACHE_BYTES);
        }
    }

    #[test]
    fn usable_is_valid_utf8_without_whitespace() {
        let slow = |v: &Variant| {
            v.as_str()
                .is_some_and(|s| !s.chars().any(char::is_whitespace))
        };
        for b in 0..=255u8 {
            for bytes in [vec![b], vec![b'a', b, b'z']] {
                let v = Variant::from_bytes(bytes);
                assert_eq!(usable(&v), slow(&v), "{b:#04x}");
            }
        }
        for s in ["a\u{a0}b", "a\u{2028}", "é", "x\u{85}", "\u{1c}"] {
            let v = Variant::from(s.to_owned());
            assert_eq!(usable(&v), slow(&v), "{s:?}");
        }
    }

    #[test]
    fn cm_outputs_are_members_of_the_generators_sets() {
        // `cm` answers a table word from its index, any other token by a run: the same text
        // gives the same output as the generator's sets say, whatever the path.
        for text in [
            "definitely recieve the seperate calender",
            "definitely, recieve.",
        ] {
            let t = TypoTask::new("cm", 1.0, "qwerty").unwrap();
            let out = t.apply(text, &mut test_rng(4));
            let registry = Registry::new(&Data::english());
            let cm = registry.get("cm").unwrap();
            for (b, a) in tokens(text).iter().zip(tokens(&out)) {
                let (b, a) = (&text[b.clone()], &out[a]);
                let set = cm.expect(b);
                assert!(
                    set.is_empty() && a == b || set.iter().any(|v| v == a),
                    "{b} -> {a}"
                );
            }
        }
    }

    #[test]
    fn layouts_matter_only_for_keyboard_generators() {
        assert!(uses_layout("acs") && uses_layout("aci") && uses_layout("rar"));
        assert!(!uses_layout("co") && !uses_layout("hr"));
    }
}
