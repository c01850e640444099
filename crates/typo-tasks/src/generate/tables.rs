//! Language-table generators: `gi gr vs hr hs cm cns ons`.

use std::collections::BTreeMap;

pub(crate) struct Homoglyphs;
impl Homoglyphs {
    pub(crate) fn new(_h: &BTreeMap<String, Vec<String>>) -> Self {
        Homoglyphs
    }
}
pub(crate) struct WordSets;
impl WordSets {
    pub(crate) fn new(_g: &[Vec<String>]) -> Self {
        WordSets
    }
}
pub(crate) struct Numerals;
impl Numerals {
    pub(crate) fn new(_n: &BTreeMap<String, Vec<String>>, _position: usize) -> Self {
        Numerals
    }
}

pub(crate) fn grapheme_insertion(_t: &str, _g: &[String], _out: &mut Vec<String>) {}
pub(crate) fn grapheme_replacement(_t: &str, _g: &[String], _out: &mut Vec<String>) {}
pub(crate) fn vowel_swapping(_t: &str, _v: &[String], _out: &mut Vec<String>) {}
pub(crate) fn homoglyph_swapping(_t: &str, _h: &Homoglyphs, _out: &mut Vec<String>) {}
pub(crate) fn swap_word_sets(_t: &str, _w: &WordSets, _out: &mut Vec<String>) {}
pub(crate) fn numeral_swap(_t: &str, _n: &Numerals, _out: &mut Vec<String>) {}
