//! Chat requests in canonical form, and a directory cache of replies keyed by their hash.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::ClientError;

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

/// A chat-completions request: exactly the body sent to the server, and the cache key's preimage.
///
/// Field order is fixed by the struct, so the serialisation is canonical: the same model,
/// messages and parameters always give the same bytes and the same [`key`](Self::key).
/// `temperature` and `seed` are always sent, so the server's defaults never decide a result.
/// Neither the endpoint nor the API key is part of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CanonicalRequest {
    /// The model name.
    pub model: String,
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// Sampling temperature.
    pub temperature: f64,
    /// Sampling seed.
    pub seed: u64,
    /// Reply length limit, sent only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

/// Bumped when the key derivation or the entry format changes, so old entries stop matching.
const CACHE_FORMAT: &str = "capkit-chat-cache/1";

impl CanonicalRequest {
    /// The request body as JSON bytes.
    pub fn body(&self) -> Vec<u8> {
        // Serialising strings, numbers and a Vec cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The blake3 hash of the format tag and the canonical body.
    pub fn key(&self) -> blake3::Hash {
        let mut hasher = blake3::Hasher::new();
        hasher.update(CACHE_FORMAT.as_bytes());
        hasher.update(&[0]);
        hasher.update(&self.body());
        hasher.finalize()
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    format: String,
    key: String,
    model: String,
    reply: String,
}

/// Replies stored as `DIR/<2 hex>/<key hex>.json`, so a re-run of the same dataset is offline
/// and bit-identical.
///
/// Writes go to a temporary file renamed into place, so concurrent workers and interrupted runs
/// never leave a torn entry. An unreadable or foreign entry is a miss, not an error.
///
/// ```
/// use chat_client::{CanonicalRequest, ChatMessage, ResponseCache};
///
/// let tmp = tempfile::tempdir()?;
/// let dir = tmp.path().join("chat");
/// let cache = ResponseCache::new(&dir);
/// let request = CanonicalRequest {
///     model: "m".into(),
///     messages: vec![ChatMessage { role: "user".into(), content: "hi".into() }],
///     temperature: 0.0,
///     seed: 0,
///     max_tokens: None,
/// };
/// assert_eq!(cache.get(&request), None);
/// cache.put(&request, "[]")?;
/// assert_eq!(cache.get(&request).as_deref(), Some("[]"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseCache {
    dir: PathBuf,
}

impl ResponseCache {
    /// A cache in `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ResponseCache { dir: dir.into() }
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_for(&self, key: &blake3::Hash) -> (PathBuf, String) {
        let hex = key.to_hex().to_string();
        (self.dir.join(&hex[..2]).join(format!("{hex}.json")), hex)
    }

    /// The stored reply for `request`, if any.
    pub fn get(&self, request: &CanonicalRequest) -> Option<String> {
        let (path, hex) = self.path_for(&request.key());
        let text = std::fs::read_to_string(path).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        (entry.format == CACHE_FORMAT && entry.key == hex).then_some(entry.reply)
    }

    /// Stores `reply` for `request`.
    pub fn put(&self, request: &CanonicalRequest, reply: &str) -> Result<(), ClientError> {
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let (path, hex) = self.path_for(&request.key());
        let cache_error = |path: &Path, e: std::io::Error| ClientError::Cache {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let parent = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(parent).map_err(|e| cache_error(parent, e))?;
        let entry = Entry {
            format: CACHE_FORMAT.to_owned(),
            key: hex,
            model: request.model.clone(),
            reply: reply.to_owned(),
        };
        let text = serde_json::to_string(&entry).unwrap_or_default();
        let tmp = path.with_extension(format!(
            "tmp.{}.{}",
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&tmp, text).map_err(|e| cache_error(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            cache_error(&path, e)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(content: &str, temperature: f64) -> CanonicalRequest {
        CanonicalRequest {
            model: "m".into(),
            messages: vec![ChatMessage {
                role: "user".into(),
                content: content.into(),
            }],
            temperature,
            seed: 7,
            max_tokens: None,
        }
    }

    #[test]
    fn body_is_canonical_and_key_depends_on_everything() {
        let r = request("hi", 0.0);
        assert_eq!(
            String::from_utf8(r.body()).unwrap(),
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0.0,"seed":7}"#
        );
        assert_eq!(r.key(), request("hi", 0.0).key());
        assert_ne!(r.key(), request("hi!", 0.0).key());
        assert_ne!(r.key(), request("hi", 0.5).key());
        let mut other_seed = request("hi", 0.0);
        other_seed.seed = 8;
        assert_ne!(r.key(), other_seed.key());
    }

    #[test]
    fn corrupt_entries_are_misses() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let cache = ResponseCache::new(&dir);
        let r = request("x", 0.0);
        cache.put(&r, "reply").unwrap();
        assert_eq!(cache.get(&r).as_deref(), Some("reply"));
        let (path, _) = cache.path_for(&r.key());
        std::fs::write(&path, "{torn").unwrap();
        assert_eq!(cache.get(&r), None);
    }
}
