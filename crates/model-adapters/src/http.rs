//! `http:` models: POST `{"texts": […]}`, answer `{"labels": […]}` (or `"records"`, and
//! optionally `"decisions"`), in batches of `--batch-size`, `--concurrency` requests at once.

use std::time::Duration;

use serde_json::json;

use crate::ProtocolError;

use crate::backend::{Answer, Backend, count, gather_ordered, protocol_message, secs};
use crate::error::Error;
use crate::settings::{Settings, Task};
use crate::spec::scrub_userinfo;

pub(crate) struct HttpBackend {
    name: String,
    url: String,
    agent: ureq::Agent,
    task: Task,
    batch_size: usize,
    concurrency: usize,
    retries: u32,
    /// One request's time limit, for messages.
    timeout: Duration,
    /// Texts sent so far, for the text ids of error messages.
    sent: u64,
}

impl HttpBackend {
    pub(crate) fn new(name: &str, url: &str, settings: &Settings) -> Result<Self, Error> {
        let problem = if url.starts_with("https://") && !cfg!(feature = "tls") {
            Some("https needs the `tls` feature (of capkit, or of capkit-model-adapters)")
        } else if !url.starts_with("http://") && !url.starts_with("https://") {
            Some("the URL must start with http:// or https://")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(Error::Config {
                model: name.to_owned(),
                problem: problem.to_owned(),
            });
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(settings.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Ok(HttpBackend {
            name: name.to_owned(),
            url: url.to_owned(),
            agent,
            task: settings.task,
            batch_size: settings.batch_size.max(1),
            concurrency: settings.concurrency.max(1),
            retries: settings.retries,
            timeout: settings.timeout,
            sent: 0,
        })
    }

    /// One request with retries: the answers for `texts` (ids from `first`).
    fn post(&self, texts: &[&str], first: u64) -> Result<Vec<Answer>, Error> {
        let name = &self.name;
        let ids = format!("text ids {first}..{}", first + texts.len() as u64);
        let body = json!({ "texts": texts }).to_string();
        let mut attempt = 0;
        let reply = loop {
            let result = self
                .agent
                .post(&self.url)
                .header("content-type", "application/json")
                .send(body.as_bytes());
            let retryable;
            let error = match result {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    let text = response.body_mut().read_to_string();
                    match (status, text) {
                        (200..=299, Ok(text)) => break text,
                        (status, text) => {
                            retryable = status == 429 || status == 408 || status >= 500;
                            let body: String = text.unwrap_or_default().chars().take(200).collect();
                            format!("HTTP {status}: {}", body.trim())
                        }
                    }
                }
                Err(ureq::Error::Timeout(_)) => {
                    retryable = true;
                    // The flag of `capkit profile`, where most readers of this message are.
                    format!("no answer within {} (--timeout)", secs(self.timeout))
                }
                Err(e) => {
                    retryable = true;
                    scrub_userinfo(&e.to_string())
                }
            };
            if !retryable || attempt >= self.retries {
                let tries = if attempt > 0 {
                    format!(" (after {})", count(u64::from(attempt) + 1, "attempt"))
                } else {
                    String::new()
                };
                return Err(Error::Model(format!("`{name}` ({ids}): {error}{tries}")));
            }
            std::thread::sleep(Duration::from_millis(200u64 << attempt.min(6)));
            attempt += 1;
        };
        let answers = crate::parse_batch_answer(&reply, self.task.answer_kind(), texts.len())
            .map_err(|e| {
                Error::Model(match &e {
                    ProtocolError::InBatch { index, .. } => format!(
                        "`{name}` (text id {}): {}",
                        first + *index as u64,
                        protocol_message(&e)
                    ),
                    _ => format!("`{name}` ({ids}): {}", protocol_message(&e)),
                })
            })?;
        let out = answers
            .into_iter()
            .map(|(output, decision)| Answer { output, decision })
            .collect();
        Ok(out)
    }
}

impl Backend for HttpBackend {
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, Error> {
        let first = self.sent;
        self.sent += texts.len() as u64;
        let batches: Vec<&[&str]> = texts.chunks(self.batch_size).collect();
        let size = self.batch_size as u64;
        gather_ordered(
            &batches,
            self.concurrency,
            |i, batch| self.post(batch, first + i as u64 * size),
            done,
        )
    }

    fn identity(&self) -> Option<String> {
        Some(format!("http\0{}", self.url))
    }
}
