//! Reading the scenario fixtures and checking key order.

use serde_json::Value;

/// Reads and parses `<dir>/<name>.json`. Panics with the path on failure (test support only).
#[allow(clippy::expect_used)]
pub fn load_fixture(dir: &str, name: &str) -> Value {
    let path = format!("{dir}/{name}.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {path}: {e}"))
}

/// The keys of the object at a dotted path of `v` (`"$"` = the top level), in order.
pub fn keys_at(v: &Value, path: &str) -> Vec<String> {
    let mut node = v;
    if path != "$" {
        for part in path.split('.') {
            node = &node[part];
        }
    }
    node.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// The strings of a JSON array (non-strings are skipped).
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect()
}

/// Asserts that `got` has the key order a scenario's `expected_profile_key_order` lists.
pub fn assert_key_order(name: &str, got: &Value, key_order: &Value) {
    for entry in key_order.as_array().into_iter().flatten() {
        let path = entry[0].as_str().unwrap_or("$");
        assert_eq!(
            keys_at(got, path),
            strings(&entry[1]),
            "{name}: key order at {path}"
        );
    }
}
