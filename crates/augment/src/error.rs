//! Errors of `capkit-augment`: each names the file, line, stage or option that was wrong.

/// Everything that can stop an augmentation (before anything is written).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The report is not a readable profile report or comparison.
    #[error("{file}: {message}")]
    Report {
        /// The report's name, as the caller gave it.
        file: String,
        /// What is wrong with it.
        message: String,
    },
    /// The report was measured with another suite than the one given.
    #[error(
        "{file}: a report of another suite: it was measured with suite {report}, the suite given is {given}"
    )]
    SuiteMismatch {
        /// The report's name.
        file: String,
        /// The report's suite fingerprint (or `none`).
        report: String,
        /// The given suite's fingerprint.
        given: String,
    },
    /// The training texts are the evaluation texts (the same file).
    #[error(
        "{file}: training file is the evaluation file (blake3 {blake3}, the texts the report counted); \
         augmenting from them would put the held-out texts into training"
    )]
    TrainingIsEvaluation {
        /// The training file's name.
        file: String,
        /// Its blake3.
        blake3: String,
    },
    /// The evaluation texts given are not the ones the report counted.
    #[error(
        "{file}: not the evaluation texts of the report: blake3 {found}, the report counted {expected}"
    )]
    EvaluationMismatch {
        /// The evaluation texts' name.
        file: String,
        /// Their blake3.
        found: String,
        /// The fingerprints the report's `texts` block names.
        expected: String,
    },
    /// A stage name the suite does not have.
    #[error("stage `{stage}`: the suite has no such stage (its stages: {known})")]
    UnknownStage {
        /// The name given.
        stage: String,
        /// The suite's stages, comma-separated.
        known: String,
    },
    /// An option out of range (a teacher budget of 0, a fraction outside (0, 1], ...).
    #[error("{option}: {message}")]
    Option {
        /// The option (`teacher_budget`, `fraction`, ...; the command line names its flag).
        option: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The suite does not build.
    #[error("suite: {0}")]
    Suite(#[from] suite_core::Error),
    /// A line of a texts file that cannot be read.
    #[error("{file}:{line}: {message}")]
    Line {
        /// The file's name.
        file: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{file}: {error}")]
    Io {
        /// The file's name.
        file: String,
        /// What the system reported.
        #[source]
        error: std::io::Error,
    },
    /// The teacher failed, or answered a batch with the wrong number of labels.
    #[error("teacher, stage `{stage}`: {message}")]
    Teacher {
        /// The stage of the first row of the failed batch (`probes` for probe rows).
        stage: String,
        /// What went wrong.
        message: String,
    },
}

impl Error {
    /// An I/O error on `file`.
    pub(crate) fn io(file: &str, error: std::io::Error) -> Error {
        Error::Io {
            file: file.to_owned(),
            error,
        }
    }
}
