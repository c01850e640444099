//! Rule generators (Needs = nothing): `co cs cr hi ho di do dhs tos bf`.

use crate::Variant;

pub(crate) fn character_omission(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn character_swapping(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn character_repetition(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn hyphen_insertion(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn hyphen_omission(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn dot_insertion(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn dot_omission(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn dot_hyphen_substitution(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn token_order_swap(_t: &str, _out: &mut Vec<String>) {}
pub(crate) fn bit_flipping(_t: &str) -> Vec<Variant> {
    Vec::new()
}
