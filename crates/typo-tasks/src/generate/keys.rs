//! Keyboard generators: `acs aci rar`.

pub(crate) struct Neighbours;
impl Neighbours {
    pub(crate) fn new(_rows: &[String]) -> Self {
        Neighbours
    }
}

pub(crate) fn adjacent_substitution(_t: &str, _k: &Neighbours, _out: &mut Vec<String>) {}
pub(crate) fn adjacent_insertion(_t: &str, _k: &Neighbours, _out: &mut Vec<String>) {}
pub(crate) fn repetition_adjacent_replacement(_t: &str, _k: &Neighbours, _out: &mut Vec<String>) {}
