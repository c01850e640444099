//! `openai:` models: one chat completion per text through capkit-chat's client (retries,
//! timeouts, reply cache), the prompt from a template file with a `{text}` slot.

use chat_client::{ChatClient, ChatConfig, ResponseCache};
use serde_json::Value;

use crate::profile::model::{Answer, Backend, Settings, Task, check_record, gather_ordered, short};
use crate::profile::spec::scrub_userinfo;

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
    ) -> anyhow::Result<Self> {
        let Some(template) = settings.prompt_template.clone() else {
            anyhow::bail!(
                "model `{name}` needs --prompt-template FILE (a prompt with a {{text}} slot)"
            );
        };
        if !template.contains("{text}") {
            anyhow::bail!("model `{name}`: the prompt template has no {{text}} slot");
        }
        let mut config = ChatConfig::new(base_url, model);
        config.api_key_env = Some(settings.api_key_env.clone());
        config.timeout = settings.timeout;
        config.max_retries = settings.retries;
        let mut client =
            ChatClient::new(config).map_err(|e| anyhow::anyhow!("model `{name}`: {e}"))?;
        if let Some(dir) = &settings.cache_dir {
            client = client.with_cache(ResponseCache::new(dir.join("chat")));
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

    fn one(&self, text: &str, id: u64) -> Result<Answer, String> {
        let name = &self.name;
        let prompt = self.template.replace("{text}", text);
        let reply = self
            .client
            .complete(&prompt)
            .map_err(|e| format!("`{name}` (text id {id}): {e}"))?;
        let output = match self.task {
            Task::Classify => Value::String(reply.trim().to_owned()),
            Task::Extract => {
                let body = strip_fence(reply.trim());
                let value: Value = serde_json::from_str(body).map_err(|e| {
                    format!(
                        "`{name}` (text id {id}): the reply is not a JSON object ({e}): {}",
                        short(reply.trim())
                    )
                })?;
                check_record(self.task, &value, &|| format!("`{name}` (text id {id})"))?;
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
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, String> {
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
