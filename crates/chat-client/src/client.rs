//! An OpenAI-compatible chat-completions client (feature `http`; `https` needs feature `tls`).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::cache::{CanonicalRequest, ChatMessage, ReplyStore, ResponseCache};
use crate::error::ClientError;
use crate::retry_after::parse_retry_after;

/// How to reach the model. Defaults: API key from `OPENAI_API_KEY` (no `Authorization` header
/// when unset, as local servers need none), 60 s timeout, 3 retries with backoff from 0.5 s to
/// 30 s, temperature 0, seed 0, proxy settings from the environment.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatConfig {
    /// Base URL of the API, such as `http://localhost:8000/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// Model name sent in every request.
    pub model: String,
    /// Name of the environment variable holding the API key (`None`: never send one).
    pub api_key_env: Option<String>,
    /// Limit for one whole attempt (connect, send, receive).
    pub timeout: Duration,
    /// Extra attempts after a retryable failure (429, 408, 5xx, connection error, timeout).
    pub max_retries: u32,
    /// Delay before the first retry; doubled for each further one.
    pub backoff_base: Duration,
    /// Upper bound of a delay (also caps a server's `Retry-After`).
    pub backoff_max: Duration,
    /// Sampling temperature, always sent.
    pub temperature: f64,
    /// Sampling seed, always sent.
    pub seed: u64,
    /// Reply length limit, sent when set.
    pub max_tokens: Option<u32>,
    /// A system message put before the prompt, when set.
    pub system_prompt: Option<String>,
    /// Honour the `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY`/`NO_PROXY` environment variables.
    pub proxy_from_env: bool,
    /// DER certificates to trust for https *instead of* the bundled Mozilla roots (a private CA,
    /// or a self-signed server such as a local vLLM); empty: the Mozilla roots. Used only with
    /// feature `tls`.
    pub root_certificates: Vec<Vec<u8>>,
}

impl ChatConfig {
    /// The defaults for `base_url` and `model`.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ChatConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: Some("OPENAI_API_KEY".to_owned()),
            timeout: Duration::from_secs(60),
            max_retries: 3,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            temperature: 0.0,
            seed: 0,
            max_tokens: None,
            system_prompt: None,
            proxy_from_env: true,
            root_certificates: Vec::new(),
        }
    }
}

/// An API key that never prints.
#[derive(Clone)]
struct ApiKey(String);

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// A blocking chat-completions client: one POST per prompt, bounded retries with exponential
/// backoff and deterministic jitter, an optional [`ReplyStore`] in front (such as a
/// [`ResponseCache`]).
///
/// The API key is only ever written into the `Authorization` header; every error message is
/// also scrubbed of it, in case a server echoes it back.
pub struct ChatClient {
    config: ChatConfig,
    endpoint: String,
    api_key: Option<ApiKey>,
    agent: ureq::Agent,
    cache: Option<Arc<dyn ReplyStore>>,
    attempts: AtomicU64,
    cache_hits: AtomicU64,
    cache_write_errors: AtomicU64,
}

impl fmt::Debug for ChatClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatClient")
            .field("endpoint", &self.endpoint)
            .field("model", &self.config.model)
            .field("api_key", &self.api_key)
            .field("reply_store", &self.cache.is_some())
            .finish_non_exhaustive()
    }
}

impl ChatClient {
    /// A client for `config`, reading the API key from `config.api_key_env` now.
    pub fn new(config: ChatConfig) -> Result<Self, ClientError> {
        let base = config.base_url.trim_end_matches('/');
        if base.starts_with("https://") {
            if !cfg!(feature = "tls") {
                return Err(ClientError::Config(format!(
                    "{base}: https needs capkit-chat-client's `tls` feature (capkit: `--features tls`)"
                )));
            }
        } else if !base.starts_with("http://") {
            return Err(ClientError::Config(format!(
                "base URL {base:?} must start with http:// or https://"
            )));
        }
        let endpoint = format!("{base}/chat/completions");
        let api_key = config
            .api_key_env
            .as_deref()
            .and_then(|name| std::env::var(name).ok())
            .filter(|k| !k.is_empty())
            .map(ApiKey);
        let builder = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .proxy(if config.proxy_from_env {
                ureq::Proxy::try_from_env()
            } else {
                None
            });
        #[cfg(feature = "tls")]
        let builder = if config.root_certificates.is_empty() {
            builder
        } else {
            use ureq::tls::{Certificate, RootCerts, TlsConfig};
            let roots: Vec<Certificate<'static>> = config
                .root_certificates
                .iter()
                .map(|der| Certificate::from_der(der).to_owned())
                .collect();
            builder.tls_config(
                TlsConfig::builder()
                    .root_certs(RootCerts::from(roots))
                    .build(),
            )
        };
        let agent: ureq::Agent = builder.build().into();
        Ok(ChatClient {
            config,
            endpoint,
            api_key,
            agent,
            cache: None,
            attempts: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            cache_write_errors: AtomicU64::new(0),
        })
    }

    /// Uses `key` instead of the environment variable (`None`: no `Authorization` header).
    pub fn with_api_key(mut self, key: Option<String>) -> Self {
        self.api_key = key.filter(|k| !k.is_empty()).map(ApiKey);
        self
    }

    /// Answers from `cache` when it holds the request, and stores new replies there.
    pub fn with_cache(self, cache: ResponseCache) -> Self {
        self.with_reply_store(Arc::new(cache))
    }

    /// Answers from `store` when it holds the request, and stores new replies there (a store
    /// may be shared by several clients).
    pub fn with_reply_store(mut self, store: Arc<dyn ReplyStore>) -> Self {
        self.cache = Some(store);
        self
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// HTTP attempts made so far (retries included, cache hits excluded).
    pub fn attempts(&self) -> u64 {
        self.attempts.load(Ordering::Relaxed)
    }

    /// Prompts answered from the cache so far.
    pub fn cache_hits(&self) -> u64 {
        self.cache_hits.load(Ordering::Relaxed)
    }

    /// Replies that could not be stored in the cache (the reply itself was still returned).
    pub fn cache_write_errors(&self) -> u64 {
        self.cache_write_errors.load(Ordering::Relaxed)
    }

    /// The canonical request for `prompt`.
    pub fn request(&self, prompt: &str) -> CanonicalRequest {
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = &self.config.system_prompt {
            messages.push(ChatMessage {
                role: "system".to_owned(),
                content: system.clone(),
            });
        }
        messages.push(ChatMessage {
            role: "user".to_owned(),
            content: prompt.to_owned(),
        });
        CanonicalRequest {
            model: self.config.model.clone(),
            messages,
            temperature: self.config.temperature,
            seed: self.config.seed,
            max_tokens: self.config.max_tokens,
        }
    }

    /// The delay before retry number `retry` (0-based) of the request with hash `key`:
    /// `min(base * 2^retry, max)` scaled by a jitter factor in `[0.5, 1)` drawn from the key, so
    /// concurrent workers spread out while a re-run waits exactly as long.
    pub fn backoff_delay(&self, key: &blake3::Hash, retry: u32) -> Duration {
        let exp = self
            .config
            .backoff_base
            .saturating_mul(2u32.saturating_pow(retry.min(30)));
        let capped = exp.min(self.config.backoff_max);
        let mut hasher = blake3::Hasher::new();
        hasher.update(key.as_bytes());
        hasher.update(&retry.to_le_bytes());
        let bytes = hasher.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&bytes.as_bytes()[..8]);
        let unit = (u64::from_le_bytes(first) >> 11) as f64 / (1u64 << 53) as f64;
        capped.mul_f64(0.5 + 0.5 * unit)
    }

    fn scrub(&self, text: String) -> String {
        match &self.api_key {
            Some(ApiKey(key)) if text.contains(key.as_str()) => text.replace(key.as_str(), "***"),
            _ => text,
        }
    }

    fn scrub_error(&self, e: ClientError) -> ClientError {
        match e {
            ClientError::Status {
                status,
                endpoint,
                body,
            } => ClientError::Status {
                status,
                endpoint,
                body: self.scrub(body),
            },
            ClientError::Transport { endpoint, message } => ClientError::Transport {
                endpoint,
                message: self.scrub(message),
            },
            ClientError::Malformed { endpoint, message } => ClientError::Malformed {
                endpoint,
                message: self.scrub(message),
            },
            other => other,
        }
    }

    /// One attempt: the reply text, or the error and the server's `Retry-After` delay.
    fn attempt(&self, body: &[u8]) -> Result<String, (ClientError, Option<Duration>)> {
        self.attempts.fetch_add(1, Ordering::Relaxed);
        let mut request = self
            .agent
            .post(&self.endpoint)
            .header("content-type", "application/json")
            .header("accept", "application/json");
        if let Some(ApiKey(key)) = &self.api_key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        let mut response = request.send(body).map_err(|e| (self.transport(e), None))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| (self.transport(e), retry_after))?;
        if !(200..300).contains(&status) {
            let body: String = text.chars().take(300).collect();
            return Err((
                ClientError::Status {
                    status,
                    endpoint: self.endpoint.clone(),
                    body,
                },
                retry_after,
            ));
        }
        self.content(&text).map_err(|e| (e, None))
    }

    fn transport(&self, e: ureq::Error) -> ClientError {
        let timed_out = match &e {
            ureq::Error::Timeout(_) => true,
            ureq::Error::Io(io) => matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ),
            _ => false,
        };
        if timed_out {
            ClientError::Timeout {
                endpoint: self.endpoint.clone(),
                timeout: self.config.timeout,
            }
        } else if matches!(e, ureq::Error::BadUri(_) | ureq::Error::HostNotFound) {
            ClientError::Config(format!("{}: {e}", self.endpoint))
        } else {
            ClientError::Transport {
                endpoint: self.endpoint.clone(),
                message: e.to_string(),
            }
        }
    }

    /// `choices[0].message.content` of a chat-completion body.
    fn content(&self, body: &str) -> Result<String, ClientError> {
        let malformed = |message: String| ClientError::Malformed {
            endpoint: self.endpoint.clone(),
            message,
        };
        let value: Value =
            serde_json::from_str(body).map_err(|e| malformed(format!("body is not JSON ({e})")))?;
        value
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| malformed("no string at choices[0].message.content".to_owned()))
    }
}

impl ChatClient {
    /// The reply to `prompt`: from the cache when it holds the request, otherwise from the
    /// server (retrying 408, 429, 5xx, connection failures and timeouts up to
    /// `max_retries` times, waiting the backoff delay or the server's `Retry-After`, whichever
    /// is longer, capped at `backoff_max`), then stored in the cache.
    pub fn complete(&self, prompt: &str) -> Result<String, ClientError> {
        let request = self.request(prompt);
        let key = request.key();
        if let Some(reply) = self.cache.as_ref().and_then(|c| c.get_reply(&key)) {
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(reply);
        }
        let body = request.body();
        let mut retry = 0;
        let reply = loop {
            match self.attempt(&body) {
                Ok(reply) => break reply,
                Err((e, retry_after)) => {
                    let e = self.scrub_error(e);
                    if !e.is_retryable() {
                        return Err(e);
                    }
                    if retry >= self.config.max_retries {
                        return Err(ClientError::Exhausted {
                            attempts: retry + 1,
                            last: Box::new(e),
                        });
                    }
                    let mut delay = self.backoff_delay(&key, retry);
                    if let Some(wait) = retry_after {
                        delay = delay.max(wait.min(self.config.backoff_max));
                    }
                    std::thread::sleep(delay);
                    retry += 1;
                }
            }
        };
        if let Some(cache) = &self.cache
            && cache.put_reply(&key, &request.model, &reply).is_err()
        {
            self.cache_write_errors.fetch_add(1, Ordering::Relaxed);
        }
        Ok(reply)
    }
}
