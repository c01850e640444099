//! `capkit profile transforms`, `capkit profile transform`, and suites naming catalogue
//! transforms.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Output;

use scenario_rules::{SystemNeed, system_has};
use serde_json::Value;

mod support;

use support::{capkit_in, output};

fn capkit(args: &[&str]) -> Output {
    output(capkit_in(std::path::Path::new(".")).args(args))
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    assert!(!out.status.success());
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn the_listing_names_every_transform_with_an_example() {
    let json: Value =
        serde_json::from_str(&stdout(&capkit(&["profile", "transforms", "--json"]))).unwrap();
    let all = json.as_array().unwrap();
    let catalogue = transforms::Catalogue::standard();
    assert_eq!(all.len(), catalogue.descriptors().count());
    let text = stdout(&capkit(&["profile", "transforms"]));
    for (entry, d) in all.iter().zip(catalogue.descriptors()) {
        assert_eq!(entry["name"], d.name);
        let test = format!("the listing's example of {}", d.name);
        match d.needs() {
            // Without its data (outside CI), the example is marked with what it needs.
            Some(needs) if !system_has(SystemNeed::WordNet, &test) => {
                assert!(entry["example"]["output"].is_null(), "{entry}");
                assert_eq!(entry["example"]["needs"], needs, "{entry}");
                assert!(
                    text.lines().any(|l| l.trim_start().starts_with("e.g. ")
                        && l.ends_with(&format!("-> (needs {needs}, not found here)"))),
                    "{text}"
                );
            }
            _ => assert!(entry["example"]["output"].is_string(), "{entry}"),
        }
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().next() == Some(d.name)),
            "{} not listed",
            d.name
        );
    }
    assert!(!text.contains("example not run"), "{text}");
    let homoglyph = all.iter().find(|e| e["name"] == "homoglyph").unwrap();
    assert_eq!(homoglyph["kind"], "corruption");
    assert_eq!(homoglyph["severity"], "rate");
    assert_eq!(homoglyph["params"][0]["name"], "rate");
}

#[test]
fn one_transform_on_the_command_line() {
    let out = capkit(&[
        "profile",
        "transform",
        "uppercase",
        "--text",
        "abc",
        "--text",
        "straße",
    ]);
    assert_eq!(stdout(&out), "ABC\nSTRASSE\n");
    // Parameters as JSON or plain strings; control characters JSON-quoted.
    let out = capkit(&[
        "profile",
        "transform",
        "add_tabs",
        "--param",
        "rate=1",
        "--text",
        "a b",
    ]);
    assert_eq!(stdout(&out), "\"a\\tb\"\n");
    let out = capkit(&[
        "profile",
        "transform",
        "keyboard",
        "--param",
        "layout=azerty",
        "--param",
        "rate=1",
        "--text",
        "q",
    ]);
    let got = stdout(&out);
    assert!(
        ["a\n", "z\n", "s\n", "w\n"].contains(&got.as_str()),
        "{got}"
    );
    // The same (text, seed) gives the same output in another process.
    let twice = |_| {
        stdout(&capkit(&[
            "profile",
            "transform",
            "char_swap",
            "--param",
            "seed=9",
            "--text",
            "deterministic output",
        ]))
    };
    assert_eq!(twice(0), twice(1));
}

#[test]
fn errors_name_the_transform_and_parameter() {
    let err = stderr(&capkit(&["profile", "transform", "nope"]));
    assert!(err.starts_with("capkit: unknown transform `nope`; valid transforms: keyboard_typo, "));
    let err = stderr(&capkit(&[
        "profile",
        "transform",
        "char_delete",
        "--param",
        "rate=1.5",
    ]));
    assert_eq!(
        err,
        "capkit: transform `char_delete`: rate must be in [0, 1], got 1.5\n"
    );
    let err = stderr(&capkit(&[
        "profile",
        "transform",
        "uppercase",
        "--param",
        "rate",
    ]));
    assert_eq!(err, "capkit: --param rate: expected KEY=VALUE\n");
}

#[test]
fn suites_name_catalogue_transforms_and_refuse_corrupting_invariances() {
    let dir = tempfile::tempdir().unwrap();
    let texts = dir.path().join("texts.txt");
    std::fs::write(&texts, "hello world\n").unwrap();
    let suite = dir.path().join("suite.json");
    std::fs::write(
        &suite,
        r#"{"corruptions": [{"name": "rep", "transform": "repeat_char", "rate": 1.0}],
            "invariances": [{"name": "up", "transform": "uppercase"}]}"#,
    )
    .unwrap();
    let args = |suite: &std::path::Path| {
        vec![
            "profile".to_owned(),
            "texts".to_owned(),
            "--texts".to_owned(),
            texts.display().to_string(),
            "--suite".to_owned(),
            suite.display().to_string(),
        ]
    };
    let run = |a: Vec<String>| output(capkit_in(std::path::Path::new(".")).args(a));
    let listed = stdout(&run(args(&suite)));
    assert!(listed.contains("hheelllloo wwoorrlldd"), "{listed}");
    assert!(listed.contains("HELLO WORLD"), "{listed}");
    std::fs::write(
        &suite,
        r#"{"invariances": [{"name": "rep", "transform": "repeat_char"}]}"#,
    )
    .unwrap();
    let err = stderr(&run(args(&suite)));
    assert!(
        err.contains(
            "invariances[0]: transform `repeat_char`: repeat_char is a corruption, not a \
             meaning-preserving rewrite; an invariance may use it only with \"allow_corrupting\": true"
        ),
        "{err}"
    );
}
