//! Chat requests in canonical form, where replies keyed by their hash are kept ([`ReplyStore`]),
//! and the directory of reply files that is one such store ([`ResponseCache`]).

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

/// Where a [`ChatClient`](crate::ChatClient) keeps replies: keyed by the blake3 hash of the
/// exact request ([`CanonicalRequest::key`]), so a re-run of the same requests is answered
/// offline. [`ResponseCache`] is a directory of reply files; a store may be anything shared by
/// the client's worker threads (capkit keeps replies in its prediction cache's database).
///
/// A stored reply must be whole or absent: a reader never sees part of one. A store that cannot
/// be read answers `None` (a miss: the request is sent again), never a wrong reply.
pub trait ReplyStore: Send + Sync {
    /// The reply stored under `key`, if any.
    fn get_reply(&self, key: &blake3::Hash) -> Option<String>;
    /// Stores `reply`, the answer of `model` to the request whose key is `key`.
    fn put_reply(&self, key: &blake3::Hash, model: &str, reply: &str) -> Result<(), ClientError>;
}

/// One reply of a [`ResponseCache`], as [`ResponseCache::entries`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyEntry {
    /// The request's key.
    pub key: blake3::Hash,
    /// The model that replied.
    pub model: String,
    /// The reply.
    pub reply: String,
}

impl ReplyEntry {
    /// The entry as its reply file holds it (one line of JSON, no newline):
    /// `{"format":"capkit-chat-cache/1","key":HEX,"model":…,"reply":…}`.
    pub fn to_json(&self) -> String {
        let entry = Entry {
            format: CACHE_FORMAT.to_owned(),
            key: self.key.to_hex().to_string(),
            model: self.model.clone(),
            reply: self.reply.clone(),
        };
        serde_json::to_string(&entry).unwrap_or_default()
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
        self.read(&request.key()).map(|entry| entry.reply)
    }

    /// Stores `reply` for `request`.
    pub fn put(&self, request: &CanonicalRequest, reply: &str) -> Result<(), ClientError> {
        self.write(&request.key(), &request.model, reply)
    }

    /// Every reply the directory holds, in no particular order: each file `get` would answer
    /// from (an unreadable or foreign entry, or one under another key's name, is left out, as
    /// `get` treats it as a miss). Reads one file at a time.
    pub fn entries(&self) -> impl Iterator<Item = ReplyEntry> + '_ {
        let is_hex = |name: &str, len: usize| {
            name.len() == len && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        };
        std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(move |shard| shard.file_name().to_str().is_some_and(|n| is_hex(n, 2)))
            .flat_map(|shard| {
                std::fs::read_dir(shard.path())
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .filter_map(move |file| {
                let name = file.file_name();
                let hex = name.to_str()?.strip_suffix(".json")?;
                let key = blake3::Hash::from_hex(hex).ok()?;
                // Read through `path_for`, as `get` does: a file in the wrong folder is no entry.
                self.read(&key)
            })
    }

    /// The entry stored under `key`, if it is whole and this format's.
    fn read(&self, key: &blake3::Hash) -> Option<ReplyEntry> {
        let (path, hex) = self.path_for(key);
        let text = std::fs::read_to_string(path).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        (entry.format == CACHE_FORMAT && entry.key == hex).then_some(ReplyEntry {
            key: *key,
            model: entry.model,
            reply: entry.reply,
        })
    }

    fn write(&self, key: &blake3::Hash, model: &str, reply: &str) -> Result<(), ClientError> {
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let (path, _) = self.path_for(key);
        let cache_error = |path: &Path, e: std::io::Error| ClientError::Cache {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let parent = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(parent).map_err(|e| cache_error(parent, e))?;
        let text = ReplyEntry {
            key: *key,
            model: model.to_owned(),
            reply: reply.to_owned(),
        }
        .to_json();
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

impl ReplyStore for ResponseCache {
    fn get_reply(&self, key: &blake3::Hash) -> Option<String> {
        self.read(key).map(|entry| entry.reply)
    }

    fn put_reply(&self, key: &blake3::Hash, model: &str, reply: &str) -> Result<(), ClientError> {
        self.write(key, model, reply)
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

    #[test]
    fn entries_are_the_replies_get_would_answer() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = ResponseCache::new(tmp.path());
        let (a, b, c) = (request("a", 0.0), request("b", 0.0), request("c", 0.0));
        cache.put(&a, "ra").unwrap();
        cache.put(&b, "rb").unwrap();
        ReplyStore::put_reply(&cache, &c.key(), "other", "rc").unwrap();
        assert_eq!(cache.get(&c).as_deref(), Some("rc"));
        // Torn, foreign, misplaced and unrelated files are no entries.
        std::fs::write(cache.path_for(&b.key()).0, "{torn").unwrap();
        let (c_path, c_hex) = cache.path_for(&c.key());
        let misplaced = tmp
            .path()
            .join(if &c_hex[..2] == "00" { "01" } else { "00" });
        std::fs::create_dir_all(&misplaced).unwrap();
        std::fs::rename(&c_path, misplaced.join(format!("{c_hex}.json"))).unwrap();
        let d = request("d", 0.0);
        let (d_path, d_hex) = cache.path_for(&d.key());
        std::fs::create_dir_all(d_path.parent().unwrap()).unwrap();
        let foreign = format!(
            r#"{{"format":"capkit-chat-cache/0","key":"{d_hex}","model":"m","reply":"x"}}"#
        );
        std::fs::write(&d_path, foreign).unwrap();
        std::fs::write(tmp.path().join("notes.json"), "{}").unwrap();
        let entries: Vec<ReplyEntry> = cache.entries().collect();
        assert_eq!(
            entries,
            [ReplyEntry {
                key: a.key(),
                model: "m".into(),
                reply: "ra".into()
            }]
        );
        assert_eq!(cache.get_reply(&a.key()).as_deref(), Some("ra"));
        // An entry's JSON is its file.
        let file = std::fs::read_to_string(cache.path_for(&a.key()).0).unwrap();
        assert_eq!(entries[0].to_json(), file);
    }
}
