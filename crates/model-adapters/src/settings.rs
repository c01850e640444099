//! What every adapter is opened with: the task and how models are reached.

use std::path::PathBuf;
use std::time::Duration;

use crate::AnswerKind;

/// Which profile the models answer for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Task {
    /// `capture_profile`: labels.
    #[default]
    Classify,
    /// `extractive_capture_profile`: records (JSON objects).
    Extract,
}

impl Task {
    /// What the models of this task answer with.
    pub fn answer_kind(self) -> AnswerKind {
        match self {
            Task::Classify => AnswerKind::Label,
            Task::Extract => AnswerKind::Record,
        }
    }

    /// `classify` or `extract`.
    pub fn name(self) -> &'static str {
        match self {
            Task::Classify => "classify",
            Task::Extract => "extract",
        }
    }
}

/// How adapters reach their models. The defaults are `capkit profile`'s.
///
/// ```
/// use model_adapters::{Settings, Task};
///
/// let settings = Settings {
///     task: Task::Extract,
///     prompt_template: Some("Extract name and city as JSON:\n{text}".into()),
///     ..Settings::default()
/// };
/// assert_eq!(settings.concurrency, 4);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Labels or records.
    pub task: Task,
    /// Texts per request of `http:` models.
    pub batch_size: usize,
    /// Requests in flight at once for `http:` and `openai:` models (answers keep input order).
    pub concurrency: usize,
    /// How long to wait for one answer: a `cmd:` model's next output line (the first one
    /// including the model's start-up), one `http:`/`openai:` attempt.
    pub timeout: Duration,
    /// Retries of `http:`/`openai:` requests after 408, 429, 5xx, timeouts and connection errors.
    pub retries: u32,
    /// Base URL of `openai:` models that do not name their own (`openai:MODEL@URL`).
    pub base_url: String,
    /// Environment variable holding the API key of `openai:` models (unset: no
    /// `Authorization` header). The key is never shown.
    pub api_key_env: String,
    /// The prompt of `openai:` models, with a `{text}` slot (required by them).
    pub prompt_template: Option<String>,
    /// A directory of `openai:` replies keyed by blake3 of the exact request
    /// (`chat_client::ResponseCache`, one file per reply), for models opened with
    /// [`ModelSpec::open`](crate::ModelSpec::open). [`ModelSpec::open_cached`](crate::ModelSpec::open_cached)
    /// with a cache directory ignores it and keeps the replies in that cache's database
    /// ([`ReplyDatabase`](crate::ReplyDatabase)), as `capkit profile` and `capkit_rs.models` do.
    pub reply_cache: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            task: Task::Classify,
            batch_size: 64,
            concurrency: 4,
            timeout: Duration::from_secs(60),
            retries: 3,
            base_url: "http://localhost:8000/v1".to_owned(),
            api_key_env: "OPENAI_API_KEY".to_owned(),
            prompt_template: None,
            reply_cache: None,
        }
    }
}
