//! Errors of `capture`.

/// Everything that can stop a capture profile. No partial profile is ever returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A model failed or returned the wrong number of answers (the message names the side, the
    /// stage and the counts).
    #[error(transparent)]
    Model(#[from] suite_core::Error),
    /// The per-text ledger could not be written.
    #[error("writing the ledger: {0}")]
    Ledger(#[source] std::io::Error),
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
