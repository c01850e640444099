//! [`Needs`]: what a task must be given besides the name.

use std::fmt;

/// What a task needs besides the input name: this is what separates a *rule* (learnable from
/// examples alone) from a *table* (only reproducible by memorising data).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Needs {
    /// A pure rule over the characters of the name (`co`, `bf`, `tos`, ...).
    Nothing,
    /// A language table: graphemes, vowels, homoglyphs, homophones, misspellings, numerals, or
    /// (for `sp`) the built-in English inflection tables.
    Language,
    /// A keyboard layout (`acs`, `aci`, `rar`).
    Keyboard,
}

impl Needs {
    /// `"nothing"`, `"language"` or `"keyboard"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Needs::Nothing => "nothing",
            Needs::Language => "language",
            Needs::Keyboard => "keyboard",
        }
    }
}

impl fmt::Display for Needs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_lowercase_everywhere() {
        assert_eq!(Needs::Nothing.to_string(), "nothing");
        assert_eq!(format!("{:<9}|", Needs::Language), "language |");
        assert_eq!(
            serde_json::to_string(&Needs::Keyboard).unwrap(),
            "\"keyboard\""
        );
        let back: Needs = serde_json::from_str("\"language\"").unwrap();
        assert_eq!(back, Needs::Language);
    }
}
