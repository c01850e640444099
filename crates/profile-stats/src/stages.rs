//! Stage maps: per corruption or invariance, one value in suite order. Every additive count
//! (a profile's, a sample's, a pair's) keeps its stages in these maps and merges them here, so
//! the rule that only the same stages merge is written once. A leaf module.

use std::ops::AddAssign;

use indexmap::IndexMap;

use crate::Error;

/// Zeroed counts for stages named in suite order.
pub(crate) fn named<'a, V: Default>(
    names: impl IntoIterator<Item = &'a str>,
) -> IndexMap<String, V> {
    names
        .into_iter()
        .map(|name| (name.to_owned(), V::default()))
        .collect()
}

/// Adds `theirs` into `mine`, stage by stage (the names were checked with [`same_stages`]).
pub(crate) fn add_stages<V: AddAssign + Copy>(
    mine: &mut IndexMap<String, V>,
    theirs: &IndexMap<String, V>,
) {
    for (a, b) in mine.values_mut().zip(theirs.values()) {
        *a += *b;
    }
}

/// Refuses two stage maps with other names (or another order).
pub(crate) fn same_stages<V>(
    section: &str,
    a: &IndexMap<String, V>,
    b: &IndexMap<String, V>,
) -> Result<(), Error> {
    if a.keys().eq(b.keys()) {
        return Ok(());
    }
    let names = |m: &IndexMap<String, V>| {
        let v: Vec<&str> = m.keys().map(String::as_str).collect();
        format!("[{}]", v.join(", "))
    };
    Err(Error::Mismatch {
        what: section.into(),
        left: names(a),
        right: names(b),
    })
}
