//! An insta golden per transform: its example parameters over fixed inputs. A change in any
//! output of any transform shows up here (and must be a deliberate, reviewed change: suites'
//! results depend on these exact outputs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenario_rules::{SystemNeed, system_has};
use serde_json::{Map, Value};
use transforms::Catalogue;

const INPUTS: [&str; 8] = [
    "",
    "The quick brown fox jumps over the lazy dog.",
    "Straße café naïve ÀÉÎ 12345",
    "I can't believe it's 42 o'clock!",
    "日本語のテキストと English mixed",
    "emoji 👩‍👩‍👧 family 🙂 and RTL שלום עולם",
    "  spaced\tout\nlines  ",
    "e\u{301} lone \u{301} marks",
];

#[test]
fn golden_every_transform_on_fixed_inputs() {
    let catalogue = Catalogue::standard();
    for d in catalogue.descriptors() {
        // The WordNet transforms' examples read /usr/share/wordnet: skipped (outside CI) without it.
        if d.needs().is_some() && !system_has(SystemNeed::WordNet, &format!("golden {}", d.name)) {
            continue;
        }
        let params: Map<String, Value> = match serde_json::from_str(d.example_params) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let built = catalogue.build(d.name, &params).unwrap();
        let mut out = String::new();
        out.push_str(&format!("params: {}\n", Value::Object(params)));
        for input in INPUTS {
            out.push_str(&format!(
                "{input:?}\n  -> {:?}\n",
                built.transform.apply(input)
            ));
        }
        insta::assert_snapshot!(d.name, out);
    }
}
