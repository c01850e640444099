//! [`Keyboard`]: flat-row keyboard layouts, the shape the keyboard tasks read.

use crate::Error;

/// A keyboard layout as rows of keys, top row first.
///
/// Each row is a string whose characters are the keys from left to right; a space is padding (a
/// hole in the grid) and is never anyone's neighbour. Rows may be ragged. Two keys are neighbours
/// when they are directly above, below, left or right of each other.
///
/// The built-in layouts are plain facts about the keyboards, written for this crate:
///
/// | name | rows |
/// |---|---|
/// | `qwerty` (default) | `1234567890-` / `qwertyuiop ` / `asdfghjkl  ` / `zxcvbnm    ` |
/// | `qwerty3` | `qwertyuiop` / `asdfghjkl` / `zxcvbnm` |
/// | `azerty` | `1234567890` / `azertyuiop` / `qsdfghjklm` / `wxcvbn    ` |
/// | `qwertz` | `1234567890` / `qwertzuiop` / `asdfghjkl ` / `yxcvbnm   ` |
/// | `dvorak` | `1234567890` / `   pyfgcrl` / `aoeuidhtns` / ` qjkxbmwvz` |
///
/// ```
/// use typo_generators::Keyboard;
/// let kb = Keyboard::by_name("azerty").unwrap();
/// assert_eq!(kb.rows()[1], "azertyuiop");
/// assert_eq!(Keyboard::default(), Keyboard::by_name("qwerty").unwrap());
/// assert!(Keyboard::by_name("colemak").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyboard {
    rows: Vec<String>,
}

const LAYOUTS: [(&str, &[&str]); 5] = [
    (
        "qwerty",
        &["1234567890-", "qwertyuiop ", "asdfghjkl  ", "zxcvbnm    "],
    ),
    ("qwerty3", &["qwertyuiop", "asdfghjkl", "zxcvbnm"]),
    (
        "azerty",
        &["1234567890", "azertyuiop", "qsdfghjklm", "wxcvbn    "],
    ),
    (
        "qwertz",
        &["1234567890", "qwertzuiop", "asdfghjkl ", "yxcvbnm   "],
    ),
    (
        "dvorak",
        &["1234567890", "   pyfgcrl", "aoeuidhtns", " qjkxbmwvz"],
    ),
];

impl Keyboard {
    /// The names [`by_name`](Self::by_name) knows, default first.
    pub const NAMES: [&'static str; 5] = ["qwerty", "qwerty3", "azerty", "qwertz", "dvorak"];

    /// A built-in layout by name (case-sensitive): one of [`Keyboard::NAMES`].
    pub fn by_name(name: &str) -> Result<Keyboard, Error> {
        LAYOUTS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, rows)| Keyboard {
                rows: rows.iter().map(|r| (*r).to_owned()).collect(),
            })
            .ok_or_else(|| Error::UnknownKeyboard {
                name: name.to_owned(),
                known: Self::NAMES.join(", "),
            })
    }

    /// A layout from rows, checked: at least one row, and every row has at least one key (a
    /// character other than the padding space). Errors name the offending row as `keyboard[i]`.
    pub fn from_rows<S: Into<String>>(
        rows: impl IntoIterator<Item = S>,
    ) -> Result<Keyboard, Error> {
        let rows: Vec<String> = rows.into_iter().map(Into::into).collect();
        if rows.is_empty() {
            return Err(Error::field("keyboard", "a layout needs at least one row"));
        }
        validate_rows(&rows)?;
        Ok(Keyboard { rows })
    }

    /// The rows, top first.
    pub fn rows(&self) -> &[String] {
        &self.rows
    }

    /// The rows, consumed (the shape of [`Data::keyboard`](crate::Data::keyboard)).
    pub fn into_rows(self) -> Vec<String> {
        self.rows
    }
}

pub(crate) fn validate_rows(rows: &[String]) -> Result<(), Error> {
    for (i, row) in rows.iter().enumerate() {
        if !row.chars().any(|c| c != ' ') {
            return Err(Error::field(
                format!("keyboard[{i}]"),
                format!("row {row:?} has no keys (only padding spaces or nothing)"),
            ));
        }
    }
    Ok(())
}

impl Default for Keyboard {
    /// The 4-row QWERTY layout.
    fn default() -> Self {
        Keyboard {
            rows: LAYOUTS[0].1.iter().map(|r| (*r).to_owned()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves() {
        for name in Keyboard::NAMES {
            let kb = Keyboard::by_name(name).unwrap();
            assert!(!kb.rows().is_empty(), "{name}");
        }
        assert_eq!(Keyboard::by_name("qwerty3").unwrap().rows().len(), 3);
    }

    #[test]
    fn unknown_name_is_named() {
        let err = Keyboard::by_name("QWERTY").unwrap_err();
        assert!(err.to_string().contains("\"QWERTY\""), "{err}");
        assert!(err.to_string().contains("dvorak"), "{err}");
    }

    #[test]
    fn rows_without_keys_are_refused() {
        let err = Keyboard::from_rows(["abc", "   "]).unwrap_err();
        assert!(err.to_string().contains("keyboard[1]"), "{err}");
        assert!(Keyboard::from_rows(Vec::<String>::new()).is_err());
        assert!(Keyboard::from_rows(["ab", "cd"]).is_ok());
    }
}
