//! Conformance of the 22 generators with upstream's goldens (fixtures copied from
//! `reference/typo/`): every line of `expect.jsonl`, `expect_bf_bytes.jsonl` (byte for byte),
//! `expect_alt.jsonl` (with `data_alt.json`) and `expect_keyboards.jsonl` (AZERTY, QWERTZ, DVORAK).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use serde_json::Value;
use typo_generators::{Data, Keyboard, Registry, Variant};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../typo-tasks/tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn data(name: &str) -> Data {
    Data::from_json_str(&fixture(name)).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A golden member: a JSON string, or `{"hex": "..."}` for invalid UTF-8.
fn member(v: &Value) -> Vec<u8> {
    match v {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Object(o) => unhex(o["hex"].as_str().unwrap()),
        other => panic!("unexpected member {other}"),
    }
}

fn show(set: &[Vec<u8>]) -> String {
    let shown: Vec<String> = set
        .iter()
        .map(|b| match std::str::from_utf8(b) {
            Ok(s) => format!("{s:?}"),
            Err(_) => format!(
                "hex:{}",
                b.iter().map(|x| format!("{x:02x}")).collect::<String>()
            ),
        })
        .collect();
    format!("[{}]", shown.join(", "))
}

/// Runs every line of a golden file; `registry_for` picks the registry of a line.
fn check(
    file: &str,
    expect_key: &str,
    registry_for: impl Fn(&Value) -> Registry,
) -> (usize, usize) {
    let text = fixture(file);
    let mut cache: Vec<(String, Registry)> = Vec::new();
    let (mut total, mut matched, mut shown) = (0, 0, 0);
    for (n, line) in text.lines().enumerate() {
        let rec: Value = serde_json::from_str(line).unwrap();
        let task_id = rec.get("task").and_then(Value::as_str).unwrap_or("bf");
        let input = rec["input"].as_str().unwrap();
        let layout = rec
            .get("layout")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let i = match cache.iter().position(|(l, _)| *l == layout) {
            Some(i) => i,
            None => {
                cache.push((layout.clone(), registry_for(&rec)));
                cache.len() - 1
            }
        };
        let registry = &cache[i].1;
        let want: Vec<Vec<u8>> = rec[expect_key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| match v {
                Value::String(s) if expect_key == "expect_hex" => unhex(s),
                v => member(v),
            })
            .collect();
        let task = registry
            .get(task_id)
            .unwrap_or_else(|| panic!("{file}:{}: task {task_id} not registered", n + 1));
        let got_variants: Vec<Variant> = task.expect(input);
        let got: Vec<Vec<u8>> = got_variants.iter().map(|v| v.as_bytes().to_vec()).collect();
        total += 1;
        if got == want {
            matched += 1;
        } else if shown < 5 {
            shown += 1;
            eprintln!(
                "{file}:{}: {task_id} {input:?}{}\n  want {}\n  got  {}",
                n + 1,
                if layout.is_empty() {
                    String::new()
                } else {
                    format!(" ({layout})")
                },
                show(&want),
                show(&got)
            );
        }
        if let Some(valid) = rec.get("all_valid_utf8").and_then(Value::as_bool) {
            assert_eq!(
                valid,
                got_variants.iter().all(Variant::is_utf8),
                "{file}:{}",
                n + 1
            );
        }
    }
    eprintln!("{file}: {matched}/{total} match");
    (matched, total)
}

#[test]
fn golden_expect_jsonl() {
    let d = data("data.json");
    let (matched, total) = check("expect.jsonl", "expect", |_| Registry::new(&d));
    assert_eq!(total, 10_054);
    assert_eq!(matched, total);
}

#[test]
fn golden_expect_jsonl_covers_every_input_and_task_in_order() {
    let inputs = fixture("inputs.txt");
    let inputs: Vec<&str> = inputs.strip_suffix('\n').unwrap().split('\n').collect();
    assert_eq!(inputs.len(), 457);
    let registry = Registry::new(&data("data.json"));
    let ids = registry.ids();
    assert_eq!(ids.len(), 22);
    let text = fixture("expect.jsonl");
    let mut lines = text.lines();
    for input in &inputs {
        for id in &ids {
            let rec: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
            assert_eq!(
                (
                    rec["input"].as_str().unwrap(),
                    rec["task"].as_str().unwrap()
                ),
                (*input, *id)
            );
        }
    }
    assert!(lines.next().is_none());
}

#[test]
fn golden_expect_bf_bytes() {
    let d = data("data.json");
    let (matched, total) = check("expect_bf_bytes.jsonl", "expect_hex", |_| Registry::new(&d));
    assert_eq!(total, 457);
    assert_eq!(matched, total);
}

#[test]
fn golden_expect_alt() {
    let d = data("data_alt.json");
    assert_eq!(
        d.keyboard,
        Keyboard::by_name("qwerty3").unwrap().into_rows()
    );
    let (matched, total) = check("expect_alt.jsonl", "expect", |_| Registry::new(&d));
    assert_eq!(total, 2_742);
    assert_eq!(matched, total);
}

#[test]
fn golden_expect_keyboards() {
    let d = data("data.json");
    assert_eq!(d.keyboard, Keyboard::default().into_rows());
    let (matched, total) = check("expect_keyboards.jsonl", "expect", |rec| {
        let layout = rec["layout"].as_str().unwrap();
        Registry::new(&d.clone().with_keyboard(Keyboard::by_name(layout).unwrap()))
    });
    assert_eq!(total, 1_422);
    assert_eq!(matched, total);
}

#[test]
fn golden_fixture_data_loads_with_the_documented_shape() {
    let d = data("data.json");
    let shape = |d: &Data| {
        (
            d.graphemes.len(),
            d.vowels.len(),
            d.homoglyphs.len(),
            d.homophones.len(),
            d.misspellings.len(),
            d.numerals.len(),
            d.keyboard.len(),
        )
    };
    assert_eq!(shape(&d), (26, 5, 186, 1_024, 7_465, 104, 4));
    assert_eq!(d.homoglyphs.values().map(Vec::len).sum::<usize>(), 1_580);
    assert_eq!(d.numerals["1"], ["first", "one"]);
    let alt = data("data_alt.json");
    assert_eq!(shape(&alt), (26, 5, 26, 1_024, 7_465, 36, 3));
    assert_eq!(alt.numerals["1"], ["one", "first"]);
    // Loading is lossless: what we write back parses to the same tables.
    assert_eq!(Data::from_json_str(&d.to_json_string()).unwrap(), d);
    assert_eq!(Registry::new(&d).len(), 22);
    assert_eq!(
        Registry::new(&Data::default()).ids(),
        [
            "bf", "co", "cr", "cs", "dhs", "di", "do", "hi", "ho", "sp", "tos"
        ]
    );
}
