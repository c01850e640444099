//! The scan over small hand-made ledgers: which lines count, folding, errors with line
//! numbers, determinism.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use slices::{Error, Options, find_slices_in};

fn push(out: &mut Vec<u8>, line: serde_json::Value) {
    serde_json::to_writer(&mut *out, &line).unwrap();
    out.push(b'\n');
}

/// `n` texts; text i holds `alpha` when i % 5 == 0 (disagreeing half the time on the clean
/// stage, else once in 20), `beta` when i is even. A corruption stage where only the texts
/// in the teacher's sample (odd i) have `agree`, and an invariance stage where the student
/// changes on `gamma` texts (i % 7 == 0). Every fourth text is a repeat line.
fn ledger(n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 1..=n {
        let mut words = vec!["some", "words"];
        let alpha = i % 5 == 0;
        if alpha {
            words.push("alpha");
        }
        if i % 2 == 0 {
            words.push("beta");
        }
        if i % 7 == 0 {
            words.push("gamma");
        }
        let text = words.join(" ");
        let disagree = if alpha { i % 10 == 0 } else { i % 20 == 1 };
        let key = format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let repeat = i % 4 == 0;
        let mut clean =
            json!({"id": i, "key": key, "stage": "clean", "kind": "clean", "text": text});
        if !repeat {
            clean["student"] = json!(if disagree { "b" } else { "a" });
            clean["teacher"] = json!("a");
        }
        clean["agree"] = json!(!disagree);
        if repeat {
            clean["repeat"] = json!(true);
        }
        push(&mut out, clean);
        let mut corruption = json!({"id": i, "key": key, "stage": "typo", "kind": "corruption",
            "text": text, "teacher_clean_agree": true, "student_changed": false});
        if i % 2 == 1 {
            corruption["agree"] = json!(true);
        }
        push(&mut out, corruption);
        push(
            &mut out,
            json!({"id": i, "key": key, "stage": "case", "kind": "invariance", "text": text,
                "student_changed": i % 7 == 0, "text_changed": true}),
        );
    }
    out
}

#[test]
fn lines_counted_and_slices_found_per_stage() {
    let report = find_slices_in(&ledger(1000), "l.jsonl", &Options::default()).unwrap();
    let names: Vec<&str> = report.totals.0.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["clean", "typo", "case"]);
    assert_eq!(report.texts, 1000);
    let totals: Vec<(u64, u64)> = report
        .totals
        .0
        .iter()
        .map(|(_, t)| (t.lines, t.disagree))
        .collect();
    // clean: alpha texts i % 10 == 0 (100) and non-alpha i % 20 == 1 (50); typo: only the 500
    // odd texts count, none disagree; case: the 142 multiples of 7.
    assert_eq!(totals, [(1000, 150), (500, 0), (1000, 142)]);
    let clean = &report.stages.0[0].1;
    // The student's label `b` is always a disagreement here (the teacher says `a`); repeats
    // carry no label: of the 150 disagreeing texts, the 50 with i % 20 == 0 are repeats.
    assert_eq!(clean[0].name, "student:b");
    assert_eq!((clean[0].texts, clean[0].disagree), (100, 100));
    let alpha = clean.iter().find(|s| s.name == "token:alpha").unwrap();
    assert_eq!((alpha.size, alpha.disagree, alpha.texts), (200, 100, 200));
    assert!(alpha.examples.len() == 3 && alpha.examples.iter().all(|e| e.text.contains("alpha")));
    // Every example is a disagreeing line of the slice, the smallest keys first.
    let keys: Vec<&str> = alpha.examples.iter().map(|e| e.key.as_str()).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(keys, sorted);
    // alpha & beta (every alpha text with i % 10 == 0 is even: all 100 disagree) is not folded:
    // its rate (1.0) is told apart from alpha's (0.5).
    assert!(clean.iter().any(|s| s.name == "token:alpha & token:beta"));
    // No variance on typo: nothing there; case: gamma.
    assert!(report.stages.0[1].1.is_empty());
    assert_eq!(report.stages.0[2].1[0].name, "token:gamma");
    assert!(report.tested > 0);
    // The JSON's shape.
    let value = serde_json::to_value(&report).unwrap();
    assert_eq!(value["format"], "capkit-slices/1");
    assert_eq!(value["method"], "bh");
    assert!(value["stages"]["clean"].is_array());
}

#[test]
fn a_conjunction_inside_its_part_is_folded() {
    // alpha texts disagree half the time whatever else they hold; beta is on half the texts.
    let mut out = Vec::new();
    for i in 1..=2000u64 {
        let alpha = i % 5 == 0;
        let beta = (i / 5) % 2 == 0;
        let text = format!(
            "x{} {} {}",
            i % 3,
            // `also` on exactly the alpha texts: the same slice again.
            if alpha { "alpha also" } else { "" },
            if beta { "beta" } else { "" }
        );
        let disagree = if alpha {
            (i / 10) % 2 == 0
        } else {
            i % 20 == 1
        };
        push(
            &mut out,
            json!({"id": i, "key": format!("{i:016x}"), "stage": "clean",
            "kind": "clean", "text": text, "agree": !disagree}),
        );
    }
    let report = find_slices_in(&out, "f", &Options::default()).unwrap();
    let clean = &report.stages.0[0].1;
    let alpha = clean.iter().find(|s| s.name == "token:alpha").unwrap();
    assert!(
        alpha
            .folded
            .contains(&"token:alpha & token:beta".to_owned()),
        "{:?}",
        alpha.folded
    );
    assert!(clean.iter().all(|s| s.name != "token:alpha & token:beta"));
    assert!(report.totals.0[0].1.folded >= 1);
    // The same texts under another name: folded into the first by name.
    assert!(
        alpha.folded.contains(&"token:also".to_owned()),
        "{:?}",
        alpha.folded
    );
    assert!(
        alpha
            .folded
            .contains(&"token:alpha & token:also".to_owned()),
        "{:?}",
        alpha.folded
    );
    assert!(clean.iter().all(|s| !s.name.contains("also")));
}

#[test]
fn deterministic_and_holm_is_stricter() {
    let ledger = ledger(1000);
    let a =
        serde_json::to_string(&find_slices_in(&ledger, "l", &Options::default()).unwrap()).unwrap();
    let b =
        serde_json::to_string(&find_slices_in(&ledger, "l", &Options::default()).unwrap()).unwrap();
    assert_eq!(a, b);
    let bh = find_slices_in(&ledger, "l", &Options::default()).unwrap();
    let holm = find_slices_in(
        &ledger,
        "l",
        &Options {
            method: slices::Method::Holm,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(bh.tested, holm.tested);
    for ((_, b), (_, h)) in bh.totals.0.iter().zip(&holm.totals.0) {
        assert!(h.significant <= b.significant);
    }
}

#[test]
fn bad_lines_are_named_by_number() {
    let mut ledger = ledger(3);
    ledger.extend_from_slice(b"{\"id\": 4, \"key\": \"0000000000000004\"}\n");
    let err = find_slices_in(&ledger, "l.jsonl", &Options::default()).unwrap_err();
    assert!(matches!(err, Error::Line { line: 10, .. }), "{err}");
    assert!(
        err.to_string().starts_with("l.jsonl:10: not a ledger line"),
        "{err}"
    );
    for (line, want) in [
        (
            r#"{"id":1,"key":"00000000000000zz","stage":"clean","kind":"clean","text":"t","agree":true}"#,
            "16 hex digits",
        ),
        (
            r#"{"id":1,"key":"0000000000000001","stage":"clean","kind":"clean","text":"t"}"#,
            "without `agree`",
        ),
        (
            r#"{"id":1,"key":"0000000000000001","stage":"x","kind":"other","text":"t"}"#,
            "`kind` is",
        ),
        (
            r#"{"id":1,"key":"0000000000000001","stage":"case","kind":"invariance","text":"t"}"#,
            "without `student_changed`",
        ),
        (
            r#"{"id":1,"key":"0000000000000001","stage":"typo","kind":"clean","text":"t","agree":true}"#,
            "of kind",
        ),
        ("not json", "not a ledger line"),
    ] {
        let err = find_slices_in(line.as_bytes(), "x", &Options::default()).unwrap_err();
        assert!(
            err.to_string().starts_with("x:1: ") && err.to_string().contains(want),
            "{err}"
        );
    }
    // Blank lines are skipped; an empty ledger has nothing to test.
    let report = find_slices_in(b"\n\n", "x", &Options::default()).unwrap();
    assert_eq!((report.tested, report.texts), (0, 0));
}
