//! Errors of `capkit-slices`.

/// Everything that can go wrong reading a ledger.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The ledger could not be read.
    #[error("{file}: {error}")]
    Io {
        /// The ledger's name, as the caller gave it.
        file: String,
        /// What the reader reported.
        #[source]
        error: std::io::Error,
    },
    /// A line that is not a ledger line.
    #[error("{file}:{line}: {message}")]
    Line {
        /// The ledger's name.
        file: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// The ledger read differently on the second pass (it was written to meanwhile).
    #[error("{file}: the ledger changed between its two readings ({message})")]
    Changed {
        /// The ledger's name.
        file: String,
        /// What differed.
        message: String,
    },
}
