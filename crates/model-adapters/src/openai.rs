//! `openai:` models: one chat completion per text through the chat client of `capkit-chat-client` (retries,
//! timeouts, reply cache), the prompt from a template file with a `{text}` slot.

use std::path::Path;
use std::sync::Arc;

use chat_client::{ChatClient, ChatConfig, ResponseCache};
use serde_json::Value;

use crate::backend::{Answer, Backend, gather_ordered, protocol_message, short};
use crate::error::Error;
use crate::settings::{Settings, Task};
use crate::spec::scrub_userinfo;

pub(crate) struct OpenAiBackend {
    name: String,
    client: ChatClient,
    template: String,
    task: Task,
    concurrency: usize,
    base_url: String,
    model: String,
    sent: u64,
}

impl OpenAiBackend {
    pub(crate) fn new(
        name: &str,
        model: &str,
        base_url: &str,
        settings: &Settings,
        cache_dir: Option<&Path>,
    ) -> Result<Self, Error> {
        let config_error = |problem: String| Error::Config {
            model: name.to_owned(),
            problem,
        };
        let Some(template) = settings.prompt_template.clone() else {
            return Err(config_error(
                "needs a prompt template (a prompt with a {text} slot)".to_owned(),
            ));
        };
        if !template.contains("{text}") {
            return Err(config_error(
                "the prompt template has no {text} slot".to_owned(),
            ));
        }
        let mut config = ChatConfig::new(base_url, model);
        config.api_key_env = Some(settings.api_key_env.clone());
        config.timeout = settings.timeout;
        config.max_retries = settings.retries;
        let mut client = ChatClient::new(config).map_err(|e| config_error(e.to_string()))?;
        // With a cache directory the replies go into its database. One that cannot be opened
        // leaves the client without a reply store: the prediction cache opens the same database
        // and carries the warning (a cache never fails a run).
        if let Some(dir) = cache_dir {
            if let Ok(db) = crate::ReplyDatabase::open(dir) {
                client = client.with_reply_store(Arc::new(db));
            }
        } else if let Some(dir) = &settings.reply_cache {
            client = client.with_cache(ResponseCache::new(dir));
        }
        Ok(OpenAiBackend {
            name: name.to_owned(),
            client,
            template,
            task: settings.task,
            concurrency: settings.concurrency.max(1),
            base_url: base_url.to_owned(),
            model: model.to_owned(),
            sent: 0,
        })
    }

    fn one(&self, text: &str, id: u64) -> Result<Answer, Error> {
        let name = &self.name;
        let prompt = self.template.replace("{text}", text);
        let reply = self
            .client
            .complete(&prompt)
            .map_err(|e| Error::Model(format!("`{name}` (text id {id}): {e}")))?;
        let output = match self.task {
            Task::Classify => Value::String(reply.trim().to_owned()),
            Task::Extract => {
                let body = strip_fence(reply.trim());
                let value: Value = serde_json::from_str(body).map_err(|e| {
                    Error::Model(format!(
                        "`{name}` (text id {id}): the reply is not a JSON object ({e}): {}",
                        short(reply.trim())
                    ))
                })?;
                crate::check_output(self.task.answer_kind(), &value).map_err(|e| {
                    Error::Model(format!("`{name}` (text id {id}): {}", protocol_message(&e)))
                })?;
                value
            }
        };
        Ok(Answer {
            output,
            decision: None,
        })
    }
}

/// The body of a Markdown code fence (```json … ```), or the text itself.
fn strip_fence(reply: &str) -> &str {
    let Some(rest) = reply.strip_prefix("```") else {
        return reply;
    };
    let rest = rest.split_once('\n').map_or("", |(_, body)| body);
    rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
}

impl Backend for OpenAiBackend {
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, Error> {
        let first = self.sent;
        self.sent += texts.len() as u64;
        gather_ordered(
            texts,
            self.concurrency,
            |i, text| self.one(text, first + i as u64).map(|a| vec![a]),
            done,
        )
    }

    fn identity(&self) -> Option<String> {
        Some(format!(
            "openai\0{}\0{}\0{}",
            scrub_userinfo(&self.base_url),
            self.model,
            blake3::hash(self.template.as_bytes()).to_hex()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_are_stripped() {
        assert_eq!(strip_fence("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(strip_fence("{\"a\": 1}"), "{\"a\": 1}");
    }
}
