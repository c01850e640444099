//! The prediction cache: each model's answers on disk, keyed by blake3(model identity, text).
//!
//! One append-only JSONL file per model identity, `DIR/predictions/<blake3(identity)>.jsonl`,
//! one `{"k": KEY, "label": …, "decision": …}` line per answer (`decision` only for models with a
//! decision API). A torn or foreign line (an interrupted run, another version) is skipped on
//! load, so a cache can never fail a run; it only ever saves model calls.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde_json::Value;
use suite_core::{Decision, Label};

use crate::profile::model::decision_of;

/// Bumped when keys or lines change meaning, so old entries stop matching.
const FORMAT: &str = "capkit-prediction-cache/1";

/// `$XDG_CACHE_HOME/capkit`, else `$HOME/.cache/capkit`, else `.capkit-cache`.
pub(crate) fn default_dir() -> PathBuf {
    let non_empty = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    if let Some(xdg) = non_empty("XDG_CACHE_HOME") {
        PathBuf::from(xdg).join("capkit")
    } else if let Some(home) = non_empty("HOME") {
        PathBuf::from(home).join(".cache").join("capkit")
    } else {
        PathBuf::from(".capkit-cache")
    }
}

/// A cached answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CachedAnswer {
    pub output: Label,
    pub decision: Option<Decision>,
}

/// `Slot::decision` of a model without a decision API.
const NO_DECISION: u32 = u32::MAX;
/// `Slot::decision` of an escalation.
const ESCALATE: u32 = u32::MAX - 1;

/// An entry: ids into the interned answers (a classifier has a handful of distinct labels, so
/// a cache of a million texts holds a handful of values).
#[derive(Clone, Copy)]
struct Slot {
    output: u32,
    decision: u32,
}

/// Keys are blake3 hashes already: their first eight bytes are a perfectly good hash.
#[derive(Default, Clone, Copy)]
struct KeyHash(u64);

impl std::hash::Hasher for KeyHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for (i, b) in bytes.iter().take(8).enumerate() {
            self.0 ^= u64::from(*b) << (8 * i);
        }
    }
    fn write_usize(&mut self, _: usize) {}
}

type KeyMap = HashMap<[u8; 32], Slot, std::hash::BuildHasherDefault<KeyHash>>;

/// Interned answers.
#[derive(Default)]
struct Values {
    values: Vec<Value>,
    index: HashMap<String, u32>,
}

impl Values {
    fn intern(&mut self, value: Value) -> u32 {
        let form = value.to_string();
        if let Some(&id) = self.index.get(&form) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(value);
        self.index.insert(form, id);
        id
    }

    fn slot(&mut self, answer: CachedAnswer) -> Slot {
        let decision = match answer.decision {
            None => NO_DECISION,
            Some(Decision::Escalate) => ESCALATE,
            Some(Decision::Answer(v)) => self.intern(v),
        };
        Slot {
            output: self.intern(answer.output),
            decision,
        }
    }

    fn answer(&self, slot: Slot) -> CachedAnswer {
        let value = |id: u32| self.values.get(id as usize).cloned().unwrap_or(Value::Null);
        CachedAnswer {
            output: value(slot.output),
            decision: match slot.decision {
                NO_DECISION => None,
                ESCALATE => Some(Decision::Escalate),
                id => Some(Decision::Answer(value(id))),
            },
        }
    }
}

/// The answers of one model identity.
pub(crate) struct DiskCache {
    path: PathBuf,
    prefix: blake3::Hasher,
    entries: KeyMap,
    values: Values,
    file: Option<File>,
    /// The file ends in a torn line: start the next append on a fresh line.
    torn: bool,
    hits: u64,
    misses: u64,
}

impl DiskCache {
    /// Opens (and loads) the cache of `identity` under `dir`.
    pub(crate) fn open(dir: &Path, identity: &str) -> anyhow::Result<DiskCache> {
        let mut prefix = blake3::Hasher::new();
        prefix.update(FORMAT.as_bytes());
        prefix.update(&[0]);
        prefix.update(identity.as_bytes());
        prefix.update(&[0]);
        let file_key = blake3::hash(format!("{FORMAT}\0{identity}").as_bytes());
        let dir = dir.join("predictions");
        let path = dir.join(format!("{}.jsonl", file_key.to_hex()));
        let mut entries = KeyMap::default();
        let mut values = Values::default();
        let mut torn = false;
        match File::open(&path) {
            Ok(f) => {
                let mut reader = BufReader::new(f);
                let mut line = Vec::new();
                loop {
                    line.clear();
                    let n = reader
                        .read_until(b'\n', &mut line)
                        .with_context(|| format!("reading {}", path.display()))?;
                    if n == 0 {
                        break;
                    }
                    torn = line.last() != Some(&b'\n');
                    if let Some((key, answer)) = parse_line(&line) {
                        entries.insert(key, values.slot(answer));
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(e).with_context(|| format!("prediction cache {}", path.display()));
            }
        }
        Ok(DiskCache {
            path,
            prefix,
            entries,
            values,
            file: None,
            torn,
            hits: 0,
            misses: 0,
        })
    }

    fn key(&self, text: &str) -> [u8; 32] {
        let mut h = self.prefix.clone();
        h.update(text.as_bytes());
        *h.finalize().as_bytes()
    }

    /// The cached answer for `text` (counted as a hit or a miss).
    pub(crate) fn get(&mut self, text: &str) -> Option<CachedAnswer> {
        let key = self.key(text);
        match self.entries.get(&key) {
            Some(&slot) => {
                self.hits += 1;
                Some(self.values.answer(slot))
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    /// Stores fresh answers (in memory and appended to the file, in one write).
    pub(crate) fn put_all<'t>(
        &mut self,
        answers: impl IntoIterator<Item = (&'t str, CachedAnswer)>,
    ) -> anyhow::Result<()> {
        let mut buf = Vec::new();
        for (text, answer) in answers {
            let key = self.key(text);
            buf.extend_from_slice(b"{\"k\":\"");
            buf.extend_from_slice(hex(&key).as_bytes());
            buf.extend_from_slice(b"\",\"label\":");
            serde_json::to_writer(&mut buf, &answer.output)?;
            match &answer.decision {
                None => {}
                Some(Decision::Escalate) => buf.extend_from_slice(b",\"decision\":null"),
                Some(Decision::Answer(v)) => {
                    buf.extend_from_slice(b",\"decision\":");
                    serde_json::to_writer(&mut buf, v)?;
                }
            }
            buf.extend_from_slice(b"}\n");
            let slot = self.values.slot(answer);
            self.entries.insert(key, slot);
        }
        if buf.is_empty() {
            return Ok(());
        }
        if self.file.is_none() {
            if let Some(parent) = self.path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            let f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .with_context(|| format!("opening {}", self.path.display()))?;
            self.file = Some(f);
        }
        if std::mem::take(&mut self.torn) {
            buf.insert(0, b'\n');
        }
        if let Some(f) = &mut self.file {
            f.write_all(&buf)
                .with_context(|| format!("writing {}", self.path.display()))?;
        }
        Ok(())
    }

    /// Makes the writes durable enough for the next run.
    pub(crate) fn flush(&mut self) -> anyhow::Result<()> {
        if let Some(f) = &mut self.file {
            f.flush()?;
        }
        Ok(())
    }

    pub(crate) fn hits(&self) -> u64 {
        self.hits
    }

    pub(crate) fn misses(&self) -> u64 {
        self.misses
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

fn hex(bytes: &[u8; 32]) -> String {
    blake3::Hash::from_bytes(*bytes).to_hex().to_string()
}

#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    k: &'a str,
    label: Value,
    #[serde(default, deserialize_with = "present")]
    decision: Option<Value>,
}

/// `Some(value)` for a present key, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

fn parse_line(line: &[u8]) -> Option<([u8; 32], CachedAnswer)> {
    let line: Line = serde_json::from_slice(line).ok()?;
    let key = blake3::Hash::from_hex(line.k).ok()?;
    Some((
        *key.as_bytes(),
        CachedAnswer {
            output: line.label,
            decision: line.decision.map(decision_of),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_survive_a_reopen_and_torn_lines_are_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let mut c = DiskCache::open(&dir, "m").unwrap();
        assert!(c.get("a").is_none());
        c.put_all([
            (
                "a",
                CachedAnswer {
                    output: json!("pos"),
                    decision: Some(Decision::Escalate),
                },
            ),
            (
                "b",
                CachedAnswer {
                    output: json!({"x": 1}),
                    decision: None,
                },
            ),
        ])
        .unwrap();
        c.flush().unwrap();
        let path = c.path().to_owned();
        drop(c);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"k\": \"12").unwrap();
        drop(f);
        let mut c = DiskCache::open(&dir, "m").unwrap();
        c.put_all([(
            "c",
            CachedAnswer {
                output: json!(3),
                decision: None,
            },
        )])
        .unwrap();
        drop(c);
        let mut c = DiskCache::open(&dir, "m").unwrap();
        assert_eq!(c.get("c").unwrap().output, json!(3));
        assert_eq!(c.get("a").unwrap().decision, Some(Decision::Escalate));
        assert_eq!(c.get("b").unwrap().output, json!({"x": 1}));
        assert_eq!((c.hits(), c.misses()), (3, 0));
        let mut other = DiskCache::open(&dir, "m2").unwrap();
        assert!(other.get("a").is_none());
    }
}
