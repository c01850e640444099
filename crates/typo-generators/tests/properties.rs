//! Laws every task obeys on arbitrary Unicode input: total (no panic), deterministic, the
//! expected set sorted bytewise and unique, never containing `""` or the input, valid UTF-8
//! for every task but `bf`, and no bigger as JSON than the task's output estimate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;
use typo_generators::{Data, Registry};

fn registries() -> &'static [Registry; 2] {
    static REGISTRIES: OnceLock<[Registry; 2]> = OnceLock::new();
    REGISTRIES.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../typo-tasks/tests/fixtures/data.json");
        let fixture = Data::from_json_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        [Registry::new(&fixture), Registry::new(&Data::english())]
    })
}

fn check_laws(input: &str) -> Result<(), TestCaseError> {
    for registry in registries() {
        for task in registry {
            let set = task.expect(input);
            prop_assert!(
                set.windows(2).all(|w| w[0] < w[1]),
                "{}: not sorted/unique for {input:?}",
                task.id
            );
            prop_assert!(
                set.iter().all(|v| !v.is_empty()),
                "{}: \"\" for {input:?}",
                task.id
            );
            prop_assert!(
                set.iter().all(|v| v.as_bytes() != input.as_bytes()),
                "{}: echoes {input:?}",
                task.id
            );
            if task.id != "bf" {
                prop_assert!(
                    set.iter().all(|v| v.is_utf8()),
                    "{}: invalid UTF-8 for {input:?}",
                    task.id
                );
            } else {
                prop_assert_eq!(
                    set.len(),
                    8 * input.len(),
                    "bf: 8 flips per byte for {:?}",
                    input
                );
            }
            prop_assert_eq!(
                &task.expect(input),
                &set,
                "{}: not deterministic for {:?}",
                task.id,
                input
            );
            let json = json_array_len(&set);
            prop_assert!(
                task.output_estimate(input) >= json,
                "{}: estimate {} below the {json} JSON bytes of {input:?}",
                task.id,
                task.output_estimate(input)
            );
        }
    }
    Ok(())
}

/// The bytes of the set as a JSON array, as `emit` writes it (a member that is not UTF-8 counted
/// lossily, which only overcounts).
fn json_array_len(set: &[typo_generators::Variant]) -> u64 {
    let mut out = Vec::new();
    for v in set {
        out.push(b',');
        typo_generators::push_json_str(&mut out, &String::from_utf8_lossy(v.as_bytes()));
    }
    out.len().max(1) as u64 + 1
}

/// Names made of what names are usually made of, with doubled letters and separators.
fn namelike() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-z0-9.\\-_ ]{0,24}").unwrap()
}

/// Text from awkward corners: combining marks, emoji, RTL, ligatures, case-mapping oddities.
fn awkward() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "e",
        "o",
        "s",
        "-",
        ".",
        "_",
        " ",
        "\t",
        "\u{301}",
        "é",
        "ß",
        "İ",
        "Σ",
        "ﬁ",
        "ǅ",
        "ᾳ",
        "日",
        "☃",
        "\u{1F600}",
        "\u{200D}",
        "لا",
        "\u{10FFFF}",
        "1",
        "one",
        "first",
        "mice",
        "person",
        "ies",
        "\0",
    ]);
    prop::collection::vec(pieces, 0..12).prop_map(|p| p.concat())
}

/// Numerals run together (digit keys, cardinal and ordinal words), where `cns`/`ons` walk far.
fn numeral_dense() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "0",
        "1",
        "2",
        "7",
        "10",
        "11",
        "20",
        "100",
        "one",
        "seven",
        "ten",
        "first",
        "seventh",
        "twentieth",
        "hundred",
        "thousandth",
        "-",
        ".",
    ]);
    prop::collection::vec(pieces, 0..8).prop_map(|p| p.concat())
}

proptest! {
    // Long walks are slow in a debug build: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn laws_hold_on_numeral_dense_input(input in numeral_dense()) {
        check_laws(&input)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn laws_hold_on_arbitrary_unicode(input in any::<String>()) {
        check_laws(&input)?;
    }

    #[test]
    fn laws_hold_on_namelike_input(input in namelike()) {
        check_laws(&input)?;
    }

    #[test]
    fn laws_hold_on_awkward_input(input in awkward()) {
        check_laws(&input)?;
    }
}

#[test]
fn laws_hold_on_hostile_inputs() {
    let long_a = "a".repeat(1000);
    let long_ab = "ab-".repeat(334);
    let long_emoji = "\u{1F600}\u{301}".repeat(200);
    let long_mixed = "xn--münchen-3ya.日本.".repeat(40);
    // Numeral-dense: the numeral walk is exponential in the numerals present (bounded anyway).
    let numerals = "onetwothreefourfivesixseveneightnine1st2nd3";
    let inputs = [
        "",
        " ",
        "\0",
        "\n",
        ".",
        "..",
        "-",
        "_",
        "ß",
        "\u{1F600}",
        "é",
        "e\u{301}",
        "لا",
        "kitten",
        &long_a,
        &long_ab,
        &long_emoji,
        &long_mixed,
        numerals,
        "ŉ",
        "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
        "İstanbul",
        "ΣΟΦΙΑ",
        "ǅemal",
        "ﬁle",
        "\u{FEFF}x",
        "a\u{0}b",
        "\r\n",
        "a..b--c__d",
    ];
    for input in inputs {
        check_laws(input).unwrap();
    }
}
