//! Errors of `extractive`.

use suite_core::{Side, Stage};

/// Everything that can stop an extractive profile. No partial profile is ever returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A model failed or returned the wrong number of records (the message names the side, the
    /// stage and the counts).
    #[error(transparent)]
    Model(#[from] suite_core::Error),
    /// A model returned something other than a JSON object for a text.
    #[error(
        "{side} model returned {got} instead of a record (a JSON object) for text {position} of the {stage}"
    )]
    NotARecord {
        /// Which model.
        side: Side,
        /// During which pass.
        stage: Stage,
        /// Index of the text in that pass.
        position: usize,
        /// The JSON type it returned instead.
        got: &'static str,
    },
    /// A comparison names two students alike.
    #[error("the student name `{0}` is used twice")]
    DuplicateStudent(String),
    /// A comparison's run of one student failed.
    #[error("student `{name}`: {source}")]
    Student {
        /// The student's name.
        name: String,
        /// What failed.
        #[source]
        source: Box<Error>,
    },
    /// [`crate::validate_extraction_schema`] was given something other than a JSON object.
    #[error("a record must be a JSON object, got {got}")]
    RecordNotAnObject {
        /// The JSON type it was given.
        got: &'static str,
    },
}

// A comparison's driver (`suite_core::compare_chunked`) names its students with these.
impl suite_core::StudentsError for Error {
    fn duplicate_student(name: String) -> Error {
        Error::DuplicateStudent(name)
    }

    fn of_student(name: String, source: Error) -> Error {
        Error::Student {
            name,
            source: Box::new(source),
        }
    }
}
