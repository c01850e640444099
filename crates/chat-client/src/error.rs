//! Why a chat client produced no reply.

use std::path::PathBuf;
use std::time::Duration;

/// Why an LLM client produced no reply. Messages never contain an API key.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ClientError {
    /// The server answered with a non-success HTTP status.
    #[error("HTTP {status} from {endpoint}: {body}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The URL requested.
        endpoint: String,
        /// The start of the response body.
        body: String,
    },
    /// The server could not be reached or the connection broke.
    #[error("cannot reach {endpoint}: {message}")]
    Transport {
        /// The URL requested.
        endpoint: String,
        /// What failed.
        message: String,
    },
    /// No complete response within the timeout.
    #[error("no response from {endpoint} within {timeout:?}")]
    Timeout {
        /// The URL requested.
        endpoint: String,
        /// The request timeout.
        timeout: Duration,
    },
    /// A success status with a body that is not a chat completion.
    #[error("malformed response from {endpoint}: {message}")]
    Malformed {
        /// The URL requested.
        endpoint: String,
        /// What is wrong with the body.
        message: String,
    },
    /// Every attempt failed with a retryable error.
    #[error("gave up after {attempts} attempt{}, last: {last}", if *attempts == 1 { "" } else { "s" })]
    Exhausted {
        /// Attempts made.
        attempts: u32,
        /// The last attempt's error.
        last: Box<ClientError>,
    },
    /// The client is misconfigured (bad URL, unsupported scheme...).
    #[error("client configuration: {0}")]
    Config(String),
    /// The response cache could not be read or written.
    #[error("response cache {}: {message}", path.display())]
    Cache {
        /// The cache file or directory.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// An offline (replaying) client has no fixed reply for this prompt.
    #[error("no fixed reply for this case (offline replay needs a `reply`)")]
    NoReply,
    /// Any other client failure.
    #[error("{0}")]
    Other(String),
}

impl ClientError {
    /// Whether another attempt may succeed: 408, 429, 5xx, connection failures and timeouts.
    pub fn is_retryable(&self) -> bool {
        match self {
            ClientError::Status { status, .. } => {
                matches!(status, 408 | 429) || (500..600).contains(status)
            }
            ClientError::Transport { .. } | ClientError::Timeout { .. } => true,
            _ => false,
        }
    }
}
