//! The crate's error type.

/// Everything that can go wrong in `typo-generators`: only loading data can fail; generating never does.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// The text handed to [`Data::from_json_str`](crate::Data::from_json_str) is not JSON at all.
    #[error("typo data: not valid JSON: {0}")]
    Json(String),
    /// A field of the data has the wrong shape; `field` is a path such as `homophones[3][1]`.
    #[error("typo data: field `{field}`: {problem}")]
    Field {
        /// Where the problem is, as a JSON path (`keyboard[2]`, `homoglyphs["ab"]`).
        field: String,
        /// What is wrong there.
        problem: String,
    },
    /// [`Keyboard::by_name`](crate::Keyboard::by_name) was given a name it does not know.
    #[error("unknown keyboard layout {name:?}; known layouts: {known}")]
    UnknownKeyboard {
        /// The name asked for.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
}

impl Error {
    pub(crate) fn field(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Error::Field {
            field: field.into(),
            problem: problem.into(),
        }
    }
}
