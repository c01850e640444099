//! Mutators, LLM clients, and the LLM mutator that turns one reply into state candidates.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use chat_client::ClientError;
use indexmap::IndexMap;
use profile_types::{Inference, ValueConfidence};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::pyjson::{self, PyJson};
use crate::state::InterpretiveState;

/// The input a mutator interprets: a prompt and the id of the message it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructuredInput {
    /// The user's text, passed to the model verbatim.
    pub prompt: String,
    /// The id of the message, copied into every inference the mutator writes.
    #[serde(default)]
    pub message_id: Option<String>,
}

impl StructuredInput {
    /// An input without a message id.
    pub fn new(prompt: impl Into<String>) -> Self {
        StructuredInput {
            prompt: prompt.into(),
            message_id: None,
        }
    }
}

/// What a mutator gets: the input, a state of its own to update, and the caller's metadata.
#[derive(Debug)]
pub struct MutationContext<'a> {
    /// The input to interpret.
    pub input: &'a StructuredInput,
    /// The state to update; the mutator owns it (the evaluator passes a copy of the pre-state).
    pub state: InterpretiveState,
    /// The evaluation's metadata, forwarded unchanged.
    pub metadata: Option<&'a Value>,
}

/// What a mutator returns.
#[derive(Debug, Clone, PartialEq)]
pub struct MutationResult {
    /// The updated state.
    pub updated_state: InterpretiveState,
    /// Anything the mutator wants to report (the LLM mutator reports nothing).
    pub metadata: Option<Value>,
}

/// Something that updates an interpretive state from an input.
///
/// Blocking and `Send + Sync`: upstream's `mutate` is a Python coroutine, but a plain call lets
/// any caller choose its own concurrency (the dataset runner uses a bounded thread pool) without
/// forcing an async runtime on library users.
pub trait Mutator: Send + Sync {
    /// Updates `context.state` from `context.input`. On failure no state is returned, so a
    /// partial update can never escape.
    fn mutate(&self, context: MutationContext<'_>) -> Result<MutationResult, Error>;
}

/// A language model seen as one call: prompt in, reply text out.
pub trait LlmClient: Send + Sync {
    /// The model's reply to `prompt`.
    fn generate(&self, prompt: &str) -> Result<String, ClientError>;
}

impl<T: LlmClient + ?Sized> LlmClient for &T {
    fn generate(&self, prompt: &str) -> Result<String, ClientError> {
        (**self).generate(prompt)
    }
}

impl<T: LlmClient + ?Sized> LlmClient for Box<T> {
    fn generate(&self, prompt: &str) -> Result<String, ClientError> {
        (**self).generate(prompt)
    }
}

impl<T: LlmClient + ?Sized> LlmClient for Arc<T> {
    fn generate(&self, prompt: &str) -> Result<String, ClientError> {
        (**self).generate(prompt)
    }
}

/// capkit-chat-client's OpenAI-compatible client: [`ChatClient::complete`](chat_client::ChatClient::complete).
#[cfg(feature = "http")]
impl LlmClient for chat_client::ChatClient {
    fn generate(&self, prompt: &str) -> Result<String, ClientError> {
        self.complete(prompt)
    }
}

/// A client that ignores the prompt and always answers the same text (offline replay, tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedReply(pub String);

impl LlmClient for FixedReply {
    fn generate(&self, _prompt: &str) -> Result<String, ClientError> {
        Ok(self.0.clone())
    }
}

/// One validated element of an LLM reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction {
    /// The dotted path.
    pub path: String,
    /// The value (always a string: the mutator never produces other types).
    pub value: String,
    /// The confidence, in `[-1, 1]`.
    pub confidence: f64,
    /// The model's reasoning.
    pub inference: String,
}

/// The upstream `LLMMutator`: one prompt, one client call, a strictly parsed JSON array of
/// `{path, value, confidence, inference}`, applied in reply order.
///
/// Parsing is strict (no code-fence or prose repair), and every element is validated before any
/// is applied, so a bad reply changes nothing. Values must be JSON strings; `confidence` may be
/// a number, a numeric string or a boolean (upstream's lax float) and must be finite and in
/// `[-1, 1]`; unknown keys are ignored.
///
/// ```
/// use mutator_eval::{FixedReply, InterpretiveState, LlmMutator, MutationContext, Mutator, StructuredInput};
///
/// let reply = r#"[{"path": "name", "value": "Ada", "confidence": 0.9, "inference": "said so"}]"#;
/// let mutator = LlmMutator::with_id(FixedReply(reply.into()), "m1");
/// let input = StructuredInput::new("I am Ada");
/// let ctx = MutationContext { input: &input, state: InterpretiveState::new(), metadata: None };
/// let state = mutator.mutate(ctx)?.updated_state;
/// assert_eq!(state.best_value("name").unwrap().value(), "Ada");
/// assert_eq!(state.field("name").unwrap().inference.as_ref().unwrap().mutator_id.as_deref(), Some("m1"));
///
/// let fenced = LlmMutator::new(FixedReply(format!("```json\n{reply}\n```")));
/// let ctx = MutationContext { input: &input, state: InterpretiveState::new(), metadata: None };
/// assert!(matches!(fenced.mutate(ctx), Err(mutator_eval::Error::ReplyNotJson { .. })));
/// # Ok::<(), mutator_eval::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct LlmMutator<C> {
    client: C,
    id: String,
}

impl<C: LlmClient> LlmMutator<C> {
    /// A mutator with a fresh id, distinct from every other instance in the process.
    pub fn new(client: C) -> Self {
        static INSTANCES: AtomicU64 = AtomicU64::new(0);
        let n = INSTANCES.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut hasher = blake3::Hasher::new();
        hasher.update(&nanos.to_le_bytes());
        hasher.update(&std::process::id().to_le_bytes());
        hasher.update(&n.to_le_bytes());
        let hex = hasher.finalize().to_hex();
        Self::with_id(client, format!("llm-mutator-{}", &hex[..16]))
    }

    /// A mutator with a chosen id (stable ids keep dataset results bit-identical across runs).
    pub fn with_id(client: C, id: impl Into<String>) -> Self {
        LlmMutator {
            client,
            id: id.into(),
        }
    }

    /// The id written into every inference this mutator produces.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The client.
    pub fn client(&self) -> &C {
        &self.client
    }
}

/// The prompt sent to the model: the current state as JSON, the user's text verbatim, and the
/// reply format. Plain concatenation, so braces in the user's text are harmless.
pub fn build_prompt(state: &InterpretiveState, input: &StructuredInput) -> String {
    let state_json = serde_json::to_string_pretty(state).unwrap_or_else(|_| String::from("{}"));
    let mut prompt = String::with_capacity(state_json.len() + input.prompt.len() + 1024);
    prompt.push_str(
        "You extract structured data from a user's text into an interpretive state.\n\n\
         The state so far (JSON; each path maps to its latest inference and its candidate \
         values, null for a parent of dotted paths):\n",
    );
    prompt.push_str(&state_json);
    prompt.push_str("\n\nText:\n");
    prompt.push_str(&input.prompt);
    prompt.push_str(
        "\n\nAnswer with a JSON array and nothing else: no prose, no code fences. Each element \
         is an object with exactly these keys:\n\
         - \"path\": the field's dotted path, such as \"name\" or \"address.city\";\n\
         - \"value\": what the text says about that field, always as a JSON string;\n\
         - \"confidence\": how sure you are, a number from 0.0 to 1.0;\n\
         - \"inference\": one short sentence saying why.\n\
         Answer [] when the text holds nothing to extract. For example:\n\
         [{\"path\": \"name\", \"value\": \"Ada\", \"confidence\": 0.9, \"inference\": \"The user \
         introduced herself as Ada.\"}]\n",
    );
    prompt
}

/// Parses and validates a whole reply. Fails on the first problem; returns nothing partial.
pub fn parse_reply(raw: &str) -> Result<Vec<Extraction>, Error> {
    let data = pyjson::parse::<PyJson>(raw).map_err(|e| Error::ReplyNotJson {
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let PyJson::Array(items) = data else {
        return Err(Error::ReplyNotArray {
            found: data.python_type(),
        });
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| validate_element(index, item))
        .collect()
}

fn validate_element(index: usize, item: &PyJson) -> Result<Extraction, Error> {
    let invalid = |key: Option<&'static str>, problem: String| Error::InvalidElement {
        index,
        key,
        problem,
    };
    let PyJson::Object(map) = item else {
        return Err(invalid(
            None,
            format!(
                "must be an object with path, value, confidence and inference, got {}",
                item.python_type()
            ),
        ));
    };
    // Checked in upstream's field order, so the first reported key is the one Pydantic names first.
    let path = string_field(map, "path").map_err(|p| invalid(Some("path"), p))?;
    let value = string_field(map, "value").map_err(|p| invalid(Some("value"), p))?;
    let confidence = confidence_field(map).map_err(|p| invalid(Some("confidence"), p))?;
    let inference = string_field(map, "inference").map_err(|p| invalid(Some("inference"), p))?;
    Ok(Extraction {
        path,
        value,
        confidence,
        inference,
    })
}

fn string_field(map: &IndexMap<String, PyJson>, key: &str) -> Result<String, String> {
    match map.get(key) {
        None => Err("is missing".to_owned()),
        Some(PyJson::Str(s)) => Ok(s.clone()),
        Some(other) => Err(format!("must be a string, got {}", other.python_type())),
    }
}

/// Upstream's lax float: numbers, numeric strings and booleans; then the range check, which also
/// rejects NaN and the infinities.
fn confidence_field(map: &IndexMap<String, PyJson>) -> Result<f64, String> {
    let c = match map.get("confidence") {
        None => return Err("is missing".to_owned()),
        Some(PyJson::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(PyJson::NonFinite(f)) => *f,
        Some(PyJson::Bool(b)) => f64::from(u8::from(*b)),
        Some(PyJson::Str(s)) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("must be a number, got the string {s:?}"))?,
        Some(other) => return Err(format!("must be a number, got {}", other.python_type())),
    };
    if (-1.0..=1.0).contains(&c) {
        Ok(c)
    } else {
        Err(format!("must be in [-1, 1], got {c}"))
    }
}

impl<C: LlmClient> Mutator for LlmMutator<C> {
    fn mutate(&self, context: MutationContext<'_>) -> Result<MutationResult, Error> {
        let MutationContext {
            input, mut state, ..
        } = context;
        let prompt = build_prompt(&state, input);
        let raw = self.client.generate(&prompt)?;
        let extractions = parse_reply(&raw)?;
        for e in extractions {
            // Validated above: the range check cannot fail here.
            state.add_value(
                &e.path,
                ValueConfidence::new(Value::String(e.value), e.confidence)?,
            );
            state.add_inference(
                &e.path,
                Inference {
                    content: e.inference,
                    mutator_id: Some(self.id.clone()),
                    message_id: input.message_id.clone(),
                },
            );
        }
        Ok(MutationResult {
            updated_state: state,
            metadata: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Recording {
        reply: String,
        prompts: Mutex<Vec<String>>,
    }

    impl LlmClient for Recording {
        fn generate(&self, prompt: &str) -> Result<String, ClientError> {
            self.prompts.lock().unwrap().push(prompt.to_owned());
            Ok(self.reply.clone())
        }
    }

    #[test]
    fn prompt_holds_state_and_text_verbatim() {
        let client = Recording {
            reply: "[]".into(),
            prompts: Mutex::new(Vec::new()),
        };
        let mutator = LlmMutator::new(&client);
        let input = StructuredInput::new("my {name} is \"Ann\" {0}");
        let mut state = InterpretiveState::new();
        state.add_value("a.b", ValueConfidence::new(Value::from("x"), 0.5).unwrap());
        let out = mutator
            .mutate(MutationContext {
                input: &input,
                state: state.clone(),
                metadata: None,
            })
            .unwrap();
        assert_eq!(out.updated_state, state);
        let prompts = client.prompts.lock().unwrap();
        assert_eq!(prompts.len(), 1);
        assert!(prompts[0].contains("my {name} is \"Ann\" {0}"));
        assert!(prompts[0].contains("\"a.b\": {"));
    }

    #[test]
    fn ids_differ() {
        let a = LlmMutator::new(FixedReply(String::new()));
        let b = LlmMutator::new(FixedReply(String::new()));
        assert_ne!(a.id(), b.id());
    }

    #[test]
    fn reply_errors_name_the_problem() {
        let e = parse_reply("{}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "LLM reply is JSON but not an array: got dict"
        );
        let e = parse_reply(r#"[{"path": "a", "value": "x", "confidence": 0.5, "inference": "r"}, {"path": "b", "value": "y", "confidence": "high", "inference": "r"}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "LLM reply element 1, key `confidence`: must be a number, got the string \"high\""
        );
        let e = parse_reply(r#"[{"value": 3}]"#).unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidElement {
                index: 0,
                key: Some("path"),
                ..
            }
        ));
        let e = parse_reply("[1]").unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidElement {
                index: 0,
                key: None,
                ..
            }
        ));
        let e = parse_reply(
            r#"[{"path": "a", "value": "x", "confidence": -Infinity, "inference": "r"}]"#,
        )
        .unwrap_err();
        assert!(matches!(
            e,
            Error::InvalidElement {
                key: Some("confidence"),
                ..
            }
        ));
        let e = parse_reply("").unwrap_err();
        assert!(matches!(
            e,
            Error::ReplyNotJson {
                line: 1,
                column: 1,
                ..
            }
        ));
    }

    #[test]
    fn lax_confidence() {
        let got = parse_reply(r#"[{"path": "a", "value": "x", "confidence": " -1 ", "inference": "r", "extra": 1}, {"path": "a", "value": "y", "confidence": false, "inference": "r"}]"#).unwrap();
        assert_eq!(got[0].confidence, -1.0);
        assert_eq!(got[1].confidence, 0.0);
    }
}
