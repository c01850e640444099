//! The prediction cache: a model's answers on disk, keyed by blake3(model identity, text), as a
//! wrapper any [`Model`] can wear ([`Cached`]).
//!
//! One append-only JSONL file per model identity, `DIR/predictions/<blake3(identity)>.jsonl`,
//! one `{"k": KEY, "label": …, "decision": …}` line per answer (`decision` only for models with a
//! decision API). A torn or foreign line (an interrupted run, another version) is skipped on
//! load, so a cache can never fail a run; it only ever saves model calls.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use suite_core::{Decision, Label, Model, ModelError, SharedLabel, decision_of};

use crate::adapter::OnAnswered;
use crate::error::Error;

/// Bumped when keys or lines change meaning, so old entries stop matching.
const FORMAT: &str = "capkit-prediction-cache/1";

/// Where `capkit profile` keeps its cache: `$XDG_CACHE_HOME/capkit`, else
/// `$HOME/.cache/capkit`, else `.capkit-cache`.
pub fn default_cache_dir() -> PathBuf {
    let non_empty = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    if let Some(xdg) = non_empty("XDG_CACHE_HOME") {
        PathBuf::from(xdg).join("capkit")
    } else if let Some(home) = non_empty("HOME") {
        PathBuf::from(home).join(".cache").join("capkit")
    } else {
        PathBuf::from(".capkit-cache")
    }
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

/// Interned answers, shared: every hit of one label is the same [`SharedLabel`], which a
/// profile recognises by address.
#[derive(Default)]
struct Values {
    values: Vec<SharedLabel>,
    index: HashMap<String, u32>,
}

impl Values {
    fn intern(&mut self, value: &Value) -> u32 {
        let form = value.to_string();
        if let Some(&id) = self.index.get(&form) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(Arc::new(value.clone()));
        self.index.insert(form, id);
        id
    }

    fn slot(&mut self, output: &Value, decision: Option<&Decision>) -> Slot {
        let decision = match decision {
            None => NO_DECISION,
            Some(Decision::Escalate) => ESCALATE,
            Some(Decision::Answer(v)) => self.intern(v),
        };
        Slot {
            output: self.intern(output),
            decision,
        }
    }

    fn get(&self, id: u32) -> SharedLabel {
        match self.values.get(id as usize) {
            Some(v) => Arc::clone(v),
            None => Arc::new(Value::Null),
        }
    }

    fn decision(&self, slot: Slot) -> Option<Decision> {
        match slot.decision {
            NO_DECISION => None,
            ESCALATE => Some(Decision::Escalate),
            id => Some(Decision::Answer((*self.get(id)).clone())),
        }
    }
}

/// The answers of one model identity, in memory and in their file.
struct Store {
    path: PathBuf,
    prefix: blake3::Hasher,
    entries: KeyMap,
    values: Values,
    file: Option<File>,
    /// Appending failed once: answers are kept in memory only from then on.
    read_only: bool,
    /// The file ends in a torn line: start the next append on a fresh line.
    torn: bool,
}

impl Store {
    /// Opens (and loads) the cache of `identity` under `dir`.
    fn open(dir: &Path, identity: &str) -> Result<Store, Error> {
        let mut prefix = blake3::Hasher::new();
        prefix.update(FORMAT.as_bytes());
        prefix.update(&[0]);
        prefix.update(identity.as_bytes());
        prefix.update(&[0]);
        let file_key = blake3::hash(format!("{FORMAT}\0{identity}").as_bytes());
        let path = dir
            .join("predictions")
            .join(format!("{}.jsonl", file_key.to_hex()));
        let mut entries = KeyMap::default();
        let mut values = Values::default();
        let mut torn = false;
        let io = |action, path: &Path| {
            let path = path.to_owned();
            move |source| Error::Cache {
                action,
                path,
                source,
            }
        };
        match File::open(&path) {
            Ok(f) => {
                let mut reader = BufReader::new(f);
                let mut line = Vec::new();
                loop {
                    line.clear();
                    let n = reader
                        .read_until(b'\n', &mut line)
                        .map_err(io("reading", &path))?;
                    if n == 0 {
                        break;
                    }
                    torn = line.last() != Some(&b'\n');
                    if let Some((key, output, decision)) = parse_line(&line) {
                        entries.insert(key, values.slot(&output, decision.as_ref()));
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("opening", &path)(e)),
        }
        Ok(Store {
            path,
            prefix,
            entries,
            values,
            file: None,
            read_only: false,
            torn,
        })
    }

    fn key(&self, text: &str) -> [u8; 32] {
        let mut h = self.prefix.clone();
        h.update(text.as_bytes());
        *h.finalize().as_bytes()
    }

    fn get(&self, text: &str) -> Option<Slot> {
        self.entries.get(&self.key(text)).copied()
    }

    /// Stores fresh answers in memory and appends them to the file in one write; returns the
    /// slots. A failed write leaves the answers in memory and the store read-only.
    fn put_all(
        &mut self,
        answers: &[(&str, &Value, Option<&Decision>)],
    ) -> (Vec<Slot>, Result<(), Error>) {
        let mut buf = Vec::new();
        let mut slots = Vec::with_capacity(answers.len());
        for &(text, output, decision) in answers {
            let key = self.key(text);
            buf.extend_from_slice(b"{\"k\":\"");
            buf.extend_from_slice(blake3::Hash::from_bytes(key).to_hex().as_bytes());
            buf.extend_from_slice(b"\",\"label\":");
            // Serialising a `Value` into a `Vec` cannot fail.
            let _ = serde_json::to_writer(&mut buf, output);
            match decision {
                None => {}
                Some(Decision::Escalate) => buf.extend_from_slice(b",\"decision\":null"),
                Some(Decision::Answer(v)) => {
                    buf.extend_from_slice(b",\"decision\":");
                    let _ = serde_json::to_writer(&mut buf, v);
                }
            }
            buf.extend_from_slice(b"}\n");
            let slot = self.values.slot(output, decision);
            self.entries.insert(key, slot);
            slots.push(slot);
        }
        let written = if buf.is_empty() || self.read_only {
            Ok(())
        } else {
            self.append(buf)
        };
        if written.is_err() {
            self.read_only = true;
        }
        (slots, written)
    }

    fn append(&mut self, mut buf: Vec<u8>) -> Result<(), Error> {
        if self.file.is_none() {
            if let Some(parent) = self.path.parent() {
                std::fs::create_dir_all(parent).map_err(|source| Error::Cache {
                    action: "creating",
                    path: parent.to_owned(),
                    source,
                })?;
            }
            let f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .map_err(|source| Error::Cache {
                    action: "opening",
                    path: self.path.clone(),
                    source,
                })?;
            self.file = Some(f);
        }
        if std::mem::take(&mut self.torn) {
            buf.insert(0, b'\n');
        }
        if let Some(f) = &mut self.file {
            f.write_all(&buf).map_err(|source| Error::Cache {
                action: "writing",
                path: self.path.clone(),
                source,
            })?;
        }
        Ok(())
    }
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

fn parse_line(line: &[u8]) -> Option<([u8; 32], Value, Option<Decision>)> {
    let line: Line = serde_json::from_slice(line).ok()?;
    let key = blake3::Hash::from_hex(line.k).ok()?;
    Some((*key.as_bytes(), line.label, line.decision.map(decision_of)))
}

struct State {
    /// `None`: no cache (pass-through).
    store: Option<Store>,
    hits: u64,
    misses: u64,
    /// The problem that stopped the cache from opening or writing, until taken.
    warning: Option<Error>,
}

/// A model wearing the disk prediction cache: answers it has given before (under the same
/// identity, in this process or an earlier one) come from `DIR/predictions/`, and only the
/// other texts reach it. The cache assumes what profiles assume: a deterministic model.
///
/// A wrapped model with a decision API is asked for the decisions of every text it predicts,
/// so that each cached answer is complete (adapters return both in one answer anyway).
///
/// A cache never fails a run: one that cannot be opened or written turns into memory only (or
/// into no cache at all), and [`Cached::take_warning`] says why.
///
/// ```
/// use model_adapters::Cached;
/// use suite_core::{Model, PerItemFn};
/// use serde_json::json;
///
/// let dir = tempfile::tempdir()?;
/// let asked = std::sync::atomic::AtomicUsize::new(0);
/// let model = PerItemFn::new(|t: &str| {
///     asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
///     json!(t.len())
/// });
/// let cached = Cached::new(&model, dir.path(), "length v1");
/// assert_eq!(cached.predict_batch(&["ab", "abc"])?, [json!(2), json!(3)]);
/// let again = Cached::new(&model, dir.path(), "length v1"); // a later run
/// assert_eq!(again.predict_batch(&["abc", "abcd"])?, [json!(3), json!(4)]);
/// assert_eq!(asked.load(std::sync::atomic::Ordering::Relaxed), 3);
/// assert_eq!((again.hits(), again.misses()), (1, 1));
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub struct Cached<M> {
    model: M,
    state: Mutex<State>,
    progress: Option<OnAnswered>,
}

impl<M> Cached<M> {
    /// `model` with the cache of `identity` under `dir` (`DIR/predictions/…`). `identity` must
    /// change whenever the model's answers may change (a new version, another prompt). A cache
    /// that cannot be opened leaves the model uncached; [`Cached::take_warning`] says why.
    pub fn new(model: M, dir: &Path, identity: &str) -> Cached<M> {
        let (store, warning) = match Store::open(dir, identity) {
            Ok(store) => (Some(store), None),
            Err(e) => (None, Some(e)),
        };
        Cached {
            model,
            state: Mutex::new(State {
                store,
                hits: 0,
                misses: 0,
                warning,
            }),
            progress: None,
        }
    }

    /// `model` without a cache: every call goes through (for a run with the cache turned off).
    pub fn pass_through(model: M) -> Cached<M> {
        Cached {
            model,
            state: Mutex::new(State {
                store: None,
                hits: 0,
                misses: 0,
                warning: None,
            }),
            progress: None,
        }
    }

    /// Calls `on_answered(n)` with the number of texts each call answered from the cache.
    pub fn with_progress(mut self, on_answered: impl Fn(u64) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(on_answered));
        self
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.model
    }

    /// The wrapped model, unwrapped.
    pub fn into_inner(self) -> M {
        self.model
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Texts answered from the cache so far.
    pub fn hits(&self) -> u64 {
        self.state().hits
    }

    /// Texts the cache did not hold so far (the wrapped model was asked).
    pub fn misses(&self) -> u64 {
        self.state().misses
    }

    /// The cache file, or `None` without a cache.
    pub fn path(&self) -> Option<PathBuf> {
        self.state().store.as_ref().map(|s| s.path.clone())
    }

    /// The problem that kept the cache from opening, or from writing (answers are then kept in
    /// memory only), once.
    pub fn take_warning(&self) -> Option<Error> {
        self.state().warning.take()
    }

    /// Makes the writes so far durable enough for the next run.
    pub fn flush(&self) -> Result<(), Error> {
        let mut state = self.state();
        if let Some(store) = &mut state.store
            && let Some(f) = &mut store.file
        {
            f.flush().map_err(|source| Error::Cache {
                action: "writing",
                path: store.path.clone(),
                source,
            })?;
        }
        Ok(())
    }
}

impl<M: Model> Cached<M> {
    /// The model's answers and decisions for `asked`, checked for length.
    #[allow(clippy::type_complexity)]
    fn ask(&self, asked: &[&str]) -> Result<(Vec<SharedLabel>, Option<Vec<Decision>>), ModelError> {
        let labels = self.model.predict_shared(asked)?;
        let length = |n: usize, what: &str| -> Result<(), ModelError> {
            if n == asked.len() {
                Ok(())
            } else {
                Err(format!("the model returned {n} {what} for {} texts", asked.len()).into())
            }
        };
        length(labels.len(), "answers")?;
        let decisions = match self.model.decide_batch(asked) {
            None => None,
            Some(decisions) => {
                let decisions = decisions?;
                length(decisions.len(), "decisions")?;
                Some(decisions)
            }
        };
        Ok((labels, decisions))
    }
}

impl<M: Model> Model for Cached<M> {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(self
            .predict_shared(texts)?
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect())
    }

    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        let mut out: Vec<Option<SharedLabel>> = vec![None; texts.len()];
        let mut missing: Vec<usize> = Vec::new();
        {
            let mut state = self.state();
            let State {
                store,
                hits,
                misses,
                ..
            } = &mut *state;
            let Some(store) = store else {
                drop(state);
                return self.model.predict_shared(texts);
            };
            for (i, text) in texts.iter().enumerate() {
                match store.get(text) {
                    Some(slot) => out[i] = Some(store.values.get(slot.output)),
                    None => missing.push(i),
                }
            }
            *hits += (texts.len() - missing.len()) as u64;
            *misses += missing.len() as u64;
        }
        if let Some(progress) = &self.progress {
            progress((texts.len() - missing.len()) as u64);
        }
        if !missing.is_empty() {
            // The model is asked without holding the lock (it may take long, or call back).
            let asked: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let (labels, decisions) = self.ask(&asked)?;
            let mut state = self.state();
            let State { store, warning, .. } = &mut *state;
            let Some(store) = store else {
                return Err("the prediction cache went away during a call".into());
            };
            let entries: Vec<(&str, &Value, Option<&Decision>)> = asked
                .iter()
                .zip(&labels)
                .enumerate()
                .map(|(j, (text, label))| {
                    (*text, &**label, decisions.as_ref().and_then(|d| d.get(j)))
                })
                .collect();
            let (slots, written) = store.put_all(&entries);
            if let Err(e) = written {
                warning.get_or_insert(e);
            }
            for (i, slot) in missing.into_iter().zip(slots) {
                out[i] = Some(store.values.get(slot.output));
            }
        }
        Ok(out.into_iter().map(|a| a.unwrap_or_default()).collect())
    }

    fn decide_batch(&self, texts: &[&str]) -> Option<Result<Vec<Decision>, ModelError>> {
        let mut known: Vec<Option<Decision>> = vec![None; texts.len()];
        let mut rest: Vec<usize> = Vec::new();
        let mut without = 0;
        {
            let state = self.state();
            let Some(store) = &state.store else {
                drop(state);
                return self.model.decide_batch(texts);
            };
            for (i, text) in texts.iter().enumerate() {
                match store.get(text) {
                    Some(slot) if slot.decision == NO_DECISION => {
                        without += 1;
                        rest.push(i);
                    }
                    Some(slot) => known[i] = store.values.decision(slot),
                    None => rest.push(i),
                }
            }
        }
        if !texts.is_empty() && without == texts.len() {
            // The answers of a model without a decision API.
            return None;
        }
        if !rest.is_empty() || texts.is_empty() {
            let asked: Vec<&str> = rest.iter().map(|&i| texts[i]).collect();
            let some_known = rest.len() < texts.len();
            match self.model.decide_batch(&asked) {
                None if some_known => {
                    let first = asked.first().copied().unwrap_or_default();
                    return Some(Err(format!(
                        "the model gave decisions for some texts but none for {:?}",
                        crate::backend::short(first)
                    )
                    .into()));
                }
                None => return None,
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok(decisions)) if decisions.len() != asked.len() => {
                    return Some(Err(format!(
                        "the model returned {} decisions for {} texts",
                        decisions.len(),
                        asked.len()
                    )
                    .into()));
                }
                Some(Ok(decisions)) => {
                    for (i, d) in rest.into_iter().zip(decisions) {
                        known[i] = Some(d);
                    }
                }
            }
        }
        Some(Ok(known
            .into_iter()
            .map(|d| d.unwrap_or(Decision::Escalate))
            .collect()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_survive_a_reopen_and_torn_lines_are_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let mut c = Store::open(&dir, "m").unwrap();
        assert!(c.get("a").is_none());
        let (_, written) = c.put_all(&[
            ("a", &json!("pos"), Some(&Decision::Escalate)),
            ("b", &json!({"x": 1}), None),
        ]);
        written.unwrap();
        let path = c.path.clone();
        drop(c);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"k\": \"12").unwrap();
        drop(f);
        let mut c = Store::open(&dir, "m").unwrap();
        c.put_all(&[("c", &json!(3), None)]).1.unwrap();
        drop(c);
        let c = Store::open(&dir, "m").unwrap();
        let get = |t: &str| c.get(t).unwrap();
        assert_eq!(*c.values.get(get("c").output), json!(3));
        assert_eq!(c.values.decision(get("a")), Some(Decision::Escalate));
        assert_eq!(c.values.decision(get("b")), None);
        assert_eq!(*c.values.get(get("b").output), json!({"x": 1}));
        // The torn line was skipped and the next append started on a line of its own.
        let content = std::fs::read_to_string(&path).unwrap();
        assert_eq!(content.lines().count(), 4, "{content}");
        let other = Store::open(&dir, "m2").unwrap();
        assert!(other.get("a").is_none());
    }

    #[test]
    fn the_file_format_is_stable() {
        // A cache written by earlier capkit versions keeps matching: same file name, keys, lines.
        let tmp = tempfile::tempdir().unwrap();
        let mut c = Store::open(tmp.path(), "classify\0cmd\0[\"m\"]").unwrap();
        c.put_all(&[("good", &json!("pos"), Some(&Decision::Answer(json!("pos"))))])
            .1
            .unwrap();
        let name = blake3::hash(b"capkit-prediction-cache/1\0classify\0cmd\0[\"m\"]").to_hex();
        let path = tmp.path().join(format!("predictions/{name}.jsonl"));
        let mut key = blake3::Hasher::new();
        key.update(b"capkit-prediction-cache/1\0classify\0cmd\0[\"m\"]\0good");
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            format!(
                "{{\"k\":\"{}\",\"label\":\"pos\",\"decision\":\"pos\"}}\n",
                key.finalize().to_hex()
            )
        );
    }

    #[test]
    fn a_cache_that_cannot_be_written_keeps_answers_in_memory_and_warns_once() {
        let tmp = tempfile::tempdir().unwrap();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let model = suite_core::PerItemFn::new(|t: &str| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            json!(t.len())
        });
        let cached = Cached::new(&model, tmp.path(), "m");
        // A regular file where the cache's directory would be created.
        let blocker = tmp.path().join("blocker");
        std::fs::write(&blocker, "x").unwrap();
        if let Some(store) = &mut cached.state().store {
            store.path = blocker.join("predictions/m.jsonl");
        }
        assert_eq!(cached.predict_batch(&["ab"]).unwrap(), [json!(2)]);
        let warning = cached.take_warning().unwrap();
        assert!(
            warning
                .to_string()
                .starts_with("creating the prediction cache "),
            "{warning}"
        );
        assert_eq!(
            cached.predict_batch(&["ab", "abc"]).unwrap(),
            [json!(2), json!(3)]
        );
        assert!(cached.take_warning().is_none());
        assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 2);
        assert_eq!((cached.hits(), cached.misses()), (1, 2));
    }

    #[test]
    fn hits_share_one_label() {
        let tmp = tempfile::tempdir().unwrap();
        let model = suite_core::PerItemFn::new(|_: &str| json!("pos"));
        let cached = Cached::new(&model, tmp.path(), "m");
        let answers = cached.predict_shared(&["a", "b"]).unwrap();
        assert!(Arc::ptr_eq(&answers[0], &answers[1]));
        let again = cached.predict_shared(&["a"]).unwrap();
        assert!(Arc::ptr_eq(&answers[0], &again[0]));
    }
}
