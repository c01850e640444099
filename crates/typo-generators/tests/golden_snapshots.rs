//! Insta snapshots of representative expected sets: under upstream's fixture data (these also
//! agree with `expect.jsonl`) and under the shipped English defaults (these change only when the
//! shipped tables do, which should be a reviewed change).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use typo_generators::{Data, Registry, Variant};

fn fixture_data() -> Data {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../typo-tasks/tests/fixtures/data.json");
    Data::from_json_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `{task: [members...]}` for the given tasks and input; invalid UTF-8 members as `hex:...`.
fn sets(registry: &Registry, input: &str, ids: &[&str]) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for id in ids {
        let members: Vec<String> = registry
            .get(id)
            .unwrap()
            .expect(input)
            .iter()
            .map(|v: &Variant| match v.as_str() {
                Some(s) => s.to_owned(),
                None => format!("hex:{}", v.to_hex()),
            })
            .collect();
        map.insert((*id).to_owned(), members.into());
    }
    serde_json::Value::Object(map)
}

#[test]
fn golden_snapshot_fixture_rules() {
    let registry = Registry::new(&fixture_data());
    let ids = ["co", "cs", "cr", "hi", "ho", "di", "do", "dhs", "tos", "sp"];
    insta::assert_json_snapshot!(
        "fixture_rules_my-lib.co",
        sets(&registry, "my-lib.co", &ids)
    );
    insta::assert_json_snapshot!("fixture_bf_münchen", sets(&registry, "münchen", &["bf"]));
}

#[test]
fn golden_snapshot_fixture_tables() {
    let registry = Registry::new(&fixture_data());
    let ids = ["vs", "hr", "hs", "cm", "cns", "ons", "acs", "aci", "rar"];
    insta::assert_json_snapshot!("fixture_tables_book1.io", sets(&registry, "book1.io", &ids));
}

#[test]
fn golden_snapshot_english_defaults() {
    let registry = Registry::new(&Data::english());
    assert_eq!(registry.len(), 22);
    let ids = ["sp", "vs", "hr", "hs", "cm", "cns", "ons", "acs", "rar"];
    insta::assert_json_snapshot!(
        "english_there4you.com",
        sets(&registry, "there4you.com", &ids)
    );
    insta::assert_json_snapshot!(
        "english_recieve-1st.net",
        sets(&registry, "recieve-1st.net", &ids)
    );
    insta::assert_json_snapshot!("english_dairy.org", sets(&registry, "dairy.org", &ids));
}
