//! Errors of the catalogue.

/// Why a transform could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The catalogue has no transform of that name.
    #[error("unknown transform `{name}`; valid transforms: {valid}")]
    UnknownTransform {
        /// The unknown name.
        name: String,
        /// Every name, comma-separated.
        valid: String,
    },
    /// A parameter the transform does not take.
    #[error("transform `{transform}`: unknown parameter `{key}` ({transform} takes {takes})")]
    UnknownParameter {
        /// The transform.
        transform: String,
        /// The key.
        key: String,
        /// The parameters it takes, comma-separated (or "no parameters").
        takes: String,
    },
    /// A parameter is missing, ill-typed or out of range.
    #[error("transform `{transform}`: {message}")]
    Parameter {
        /// The transform.
        transform: String,
        /// What is wrong, naming the parameter.
        message: String,
    },
}
