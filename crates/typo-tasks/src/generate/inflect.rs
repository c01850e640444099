//! `sp`: English singular/plural inflection over upstream's rule tables.

pub(crate) fn singular_pluralise(_t: &str, _out: &mut Vec<String>) {}
