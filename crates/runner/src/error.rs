//! Errors of `capkit-runner`: each names what was wrong (file, line, field, shard).

/// Everything a job can refuse or fail on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A texts file could not be read.
    #[error("{path}: {source}")]
    Texts {
        /// The file, as given.
        path: String,
        /// What the reader reported.
        #[source]
        source: std::io::Error,
    },
    /// A line of a texts file that is not a text.
    #[error("{path}:{line}: {message}")]
    TextsLine {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A suite file could not be read.
    #[error("{path}: {source}")]
    SuiteRead {
        /// The file.
        path: String,
        /// What the reader reported.
        #[source]
        source: std::io::Error,
    },
    /// A suite that does not parse or build.
    #[error("{}: {message}", path.as_deref().unwrap_or("the default suite"))]
    Suite {
        /// The file (`None`: the default suite, or a suite given as a value).
        path: Option<String>,
        /// What is wrong, naming the entry.
        message: String,
    },
    /// A report file could not be read.
    #[error("{path}: {source}")]
    ReportRead {
        /// The file.
        path: String,
        /// What the reader reported.
        #[source]
        source: std::io::Error,
    },
    /// A report file that is not a report (format, shape, counts).
    #[error("{name}: {message}")]
    Report {
        /// The report, as the caller names it.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// The same texts in two shards of a merge.
    #[error(
        "{name} and {earlier}: the same texts (blake3 {blake3}) are in both; merging would count them twice{}",
        if *dedupe { " (--dedupe, or dedupe=True in Python, drops a shard only when all its texts were merged already)" } else { "; pass --dedupe (Python: dedupe=True) to drop the repeated shard" }
    )]
    RepeatedShard {
        /// The shard refused.
        name: String,
        /// The shard that brought the texts first.
        earlier: String,
        /// The repeated texts' fingerprint.
        blake3: String,
        /// Whether dropping was asked for (the shard also holds new texts).
        dedupe: bool,
    },
    /// Two reports that cannot be merged (suites, models, settings, kinds differ).
    #[error("{first} and {other}: {message}")]
    Merge {
        /// The first report.
        first: String,
        /// The report refused.
        other: String,
        /// Why.
        message: String,
    },
    /// A teacher sample that cannot be drawn.
    #[error("{message}")]
    Sample {
        /// Whether a budget of teacher calls was asked for (else a fraction).
        budget: bool,
        /// Why it is refused.
        message: String,
    },
    /// Aliases of a comparison's students that are refused.
    #[error("{0}")]
    Aliases(String),
    /// A line of an input file that is refused (typo corpora, names, predictions): the message
    /// names the file, the line and the field.
    #[error("{0}")]
    Input(String),
    /// A request that makes no sense (too few students, a ledger of an extractor, …).
    #[error("{0}")]
    Usage(String),
    /// A classifier profile failed (a model, a transform).
    #[error(transparent)]
    Capture(#[from] capture::Error),
    /// An extractor profile failed.
    #[error(transparent)]
    Extract(#[from] extractive::Error),
    /// The engine failed while planning.
    #[error(transparent)]
    Engine(#[from] suite_core::Error),
}
