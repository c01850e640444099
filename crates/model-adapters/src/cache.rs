//! The prediction cache: a model's answers on disk, keyed by blake3(model identity, text), as a
//! wrapper any [`Model`] can wear ([`Cached`]).
//!
//! One SQLite database per cache directory, `DIR/predictions.sqlite3` (WAL mode), holding every
//! model's answers: `answers(k, model, label, decision)` keyed by the 32-byte blake3 key, the
//! identities in `models`, the format in `meta`. The store is *opened*, never loaded: a lookup
//! reads a few pages, so memory stays flat however many answers the cache holds. Each batch of
//! fresh answers is one transaction, committed as the batch completes: a run killed at any
//! point (SIGKILL included) keeps every committed batch whole and no part of the others, and a
//! rerun asks only the texts whose answers were not committed. Several processes may use one
//! cache at once (SQLite's WAL: readers never block, writers take turns for the length of one
//! batch's insert).
//!
//! `capkit cache compact` seals each model's answers into an immutable segment file beside the
//! database (`DIR/segments/`, see [`crate::segment`]): a lookup there is one positioned read of
//! one page instead of a B-tree descent. The answers leave the database in the transaction that
//! names their segment, so a reader sees each answer in exactly one of the two: every lookup
//! batch reads the segment's name and the rows in one read transaction (one snapshot).
//!
//! The JSONL files of format 1 (`DIR/predictions/<blake3(FORMAT, identity)>.jsonl`, one line per
//! answer) are imported into the database the first time their identity is opened, once, and
//! left where they are; the keys are the same, so no paid-for answer is asked again.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension as _, params};
use serde_json::Value;
use suite_core::{Decision, Label, Model, ModelError, SharedLabel, decision_of};

use crate::adapter::{Adapter, OnAnswered};
use crate::error::Error;
use crate::segment::{PageBuf, Segment};

/// The key derivation's domain (format 1's, kept so imported answers keep their keys).
const FORMAT: &str = "capkit-prediction-cache/1";
/// The store's format, recorded in its `meta` table; bumped when tables change meaning.
pub const STORE_FORMAT: &str = "capkit-prediction-cache/2 (sqlite)";
/// The store's format once `cache compact` has sealed answers into segments (a capkit that reads
/// only [`STORE_FORMAT`] would not find those answers, so it is refused by name instead).
pub const SEALED_FORMAT: &str = "capkit-prediction-cache/3 (sqlite + sealed segments)";
/// The database file inside a cache directory.
pub const DATABASE: &str = "predictions.sqlite3";
/// The directory of sealed segments inside a cache directory.
pub(crate) const SEGMENTS: &str = "segments";
/// How long a writer waits for another process's transaction before giving up on the cache.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

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

/// The bytes a cache occupies on disk: the database file, its write-ahead log and the sealed
/// segments beside it (0 when missing).
pub fn cache_size(database: &Path) -> u64 {
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut wal = database.as_os_str().to_owned();
    wal.push("-wal");
    let segments = database
        .parent()
        .and_then(|dir| std::fs::read_dir(dir.join(SEGMENTS)).ok())
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum::<u64>();
    len(database) + len(Path::new(&wal)) + segments
}

/// The key of `identity`'s answer to `text`: blake3 over the key domain, the identity and the
/// text, each followed by a zero byte but the last (the `k` column; format 1's `k` in hex).
pub fn answer_key(identity: &str, text: &str) -> [u8; 32] {
    let mut key = key_prefix(identity);
    key.update(text.as_bytes());
    *key.finalize().as_bytes()
}

/// The hasher [`answer_key`] continues with the text.
fn key_prefix(identity: &str) -> blake3::Hasher {
    let mut prefix = blake3::Hasher::new();
    prefix.update(FORMAT.as_bytes());
    prefix.update(&[0]);
    prefix.update(identity.as_bytes());
    prefix.update(&[0]);
    prefix
}

/// `Slot::decision` of a model without a decision API.
const NO_DECISION: u32 = u32::MAX;
/// `Slot::decision` of an escalation.
const ESCALATE: u32 = u32::MAX - 1;

/// An answer: ids into the interned answers (a classifier has a handful of distinct labels, so
/// a million lookups share a handful of values).
#[derive(Clone, Copy)]
struct Slot {
    output: u32,
    decision: u32,
}

/// Interned answers, shared: every hit of one label is the same [`SharedLabel`], which a
/// profile recognises by address. Keyed by the stored JSON text, so a hit parses its label only
/// the first time that text is seen.
#[derive(Default)]
struct Values {
    values: Vec<SharedLabel>,
    /// Each value's JSON text, as stored (so a write serialises a label once per distinct value).
    forms: Vec<Arc<str>>,
    index: HashMap<Arc<str>, u32>,
    /// The slots of answers read from the sealed segment, by heap offset (each distinct answer
    /// is read from the file once).
    sealed: HashMap<u64, Slot>,
}

/// Values interned by one store at most; past it the table is cleared (ids are only used
/// within one call, so clearing between calls is safe), keeping memory flat for caches of
/// free-text answers.
const MAX_INTERNED: usize = 1 << 16;

impl Values {
    /// The id of the value whose JSON text is `form`.
    fn intern_text(&mut self, form: &str) -> u32 {
        if let Some(&id) = self.index.get(form) {
            return id;
        }
        let value: Value = serde_json::from_str(form).unwrap_or(Value::Null);
        self.push(form.to_owned(), value)
    }

    fn intern(&mut self, value: &Value) -> u32 {
        let form = value.to_string();
        if let Some(&id) = self.index.get(form.as_str()) {
            return id;
        }
        self.push(form, value.clone())
    }

    fn push(&mut self, form: String, value: Value) -> u32 {
        let id = self.values.len() as u32;
        let form: Arc<str> = form.into();
        self.values.push(Arc::new(value));
        self.forms.push(Arc::clone(&form));
        self.index.insert(form, id);
        id
    }

    /// The stored JSON text of value `id`.
    fn form(&self, id: u32) -> &str {
        self.forms.get(id as usize).map_or("null", |f| f)
    }

    /// The `decision` column of `slot` (see [`decision_column`]).
    fn decision_form(&self, slot: Slot) -> Option<&str> {
        match slot.decision {
            NO_DECISION => None,
            ESCALATE => Some("null"),
            id => Some(self.form(id)),
        }
    }

    /// Forgets every value if the table has grown past [`MAX_INTERNED`] (between calls only).
    fn trim(&mut self) {
        if self.values.len() > MAX_INTERNED || self.sealed.len() > MAX_INTERNED {
            self.values.clear();
            self.forms.clear();
            self.index.clear();
            self.sealed.clear();
        }
    }

    /// The slot of the answer at heap offset `at` of `segment` (`None` if it cannot be read).
    fn sealed_slot(&mut self, at: u64, segment: &Segment) -> Option<Slot> {
        if let Some(&slot) = self.sealed.get(&at) {
            return Some(slot);
        }
        let (label, decision) = segment.answer(at).ok()?;
        let slot = Slot {
            output: self.intern_text(&label),
            decision: match decision.as_deref() {
                None => NO_DECISION,
                Some("null") => ESCALATE,
                Some(form) => self.intern_text(form),
            },
        };
        self.sealed.insert(at, slot);
        Some(slot)
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

/// A decision as its column holds it: `NULL` for a model without a decision API, `null` for an
/// escalation, the answer's JSON otherwise (format 1's `decision` key, absent / `null` / value).
fn decision_column(decision: Option<&Decision>) -> Option<String> {
    match decision {
        None => None,
        Some(Decision::Escalate) => Some("null".to_owned()),
        Some(Decision::Answer(v)) => Some(v.to_string()),
    }
}

/// The error of the database operation `action` on `path` (for `map_err`).
pub(crate) fn store_error(
    action: &'static str,
    path: &Path,
) -> impl Fn(rusqlite::Error) -> Error + use<> {
    let path = path.to_owned();
    move |e| Error::CacheStore {
        action,
        path: path.clone(),
        message: e.to_string(),
    }
}

/// The database's `meta` format, refused (naming both) unless it is [`STORE_FORMAT`] or
/// [`SEALED_FORMAT`].
pub(crate) fn check_format(conn: &Connection, path: &Path) -> Result<String, Error> {
    let format: String = conn
        .query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
            r.get(0)
        })
        .map_err(store_error("reading", path))?;
    if format == STORE_FORMAT || format == SEALED_FORMAT {
        return Ok(format);
    }
    Err(Error::CacheStore {
        action: "opening",
        path: path.to_owned(),
        message: format!(
            "its format is `{format}`, this capkit reads `{STORE_FORMAT}` and `{SEALED_FORMAT}`"
        ),
    })
}

/// The sealed segment of `model` as the database names it now (its file name), if any. A
/// database of [`STORE_FORMAT`] written by an earlier capkit may lack the table: no segment.
pub(crate) fn sealed_name(conn: &Connection, model: i64) -> Option<String> {
    conn.prepare_cached("SELECT file FROM segments WHERE model = ?1")
        .ok()?
        .query_row(params![model], |r| r.get(0))
        .optional()
        .ok()
        .flatten()
}

/// Pages of WAL between automatic checkpoints (see [`open_database`]).
const WAL_CHECKPOINT_PAGES: i64 = 50_000;

/// Opens (creating if needed) the cache database of `dir`, in WAL mode, with its tables.
pub(crate) fn open_database(dir: &Path) -> Result<(Connection, PathBuf), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Cache {
        action: "creating",
        path: dir.to_owned(),
        source,
    })?;
    let path = dir.join(DATABASE);
    let sql = |action| store_error(action, &path);
    let conn = Connection::open(&path).map_err(sql("opening"))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql("opening"))?;
    // WAL: readers and one writer at a time, across processes; NORMAL sync is durable against
    // a killed process (only a power loss can lose the last commits, never tear one). While
    // another connection switches a new database to WAL, this one can be told "busy" at once,
    // without the busy timeout's wait (seen with eight openers of one new cache under load):
    // it waits and asks again, as long as the busy timeout.
    let started = std::time::Instant::now();
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            done => break done.map_err(sql("opening"))?,
        }
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sql("opening"))?;
    // Checkpoint the WAL every WAL_CHECKPOINT_PAGES, not SQLite's default 1,000: answers have
    // random keys, so a committed batch dirties about one B-tree page per answer, and with the
    // default nearly every batch of a large run triggered a checkpoint (copy back + fsync).
    // Measured filling 1M answers in batches of 4,096: 51.9 s wall at 1,000 pages, 27.5 s at
    // 50,000 (docs/model-protocol.md). The WAL may grow to about 200 MiB meanwhile; SQLite
    // removes it when the last connection closes. A per-connection setting: set on every open.
    conn.pragma_update(None, "wal_autocheckpoint", WAL_CHECKPOINT_PAGES)
        .map_err(sql("opening"))?;
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS models(
             id INTEGER PRIMARY KEY,
             identity TEXT NOT NULL UNIQUE,
             imported INTEGER NOT NULL DEFAULT 0);
         CREATE TABLE IF NOT EXISTS answers(
             k BLOB PRIMARY KEY,
             model INTEGER NOT NULL,
             label TEXT NOT NULL,
             decision TEXT) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS segments(
             model INTEGER PRIMARY KEY,
             file TEXT NOT NULL,
             answers INTEGER NOT NULL);",
    )
    .map_err(sql("creating"))?;
    conn.execute(
        "INSERT OR IGNORE INTO meta(key, value) VALUES ('format', ?1)",
        params![STORE_FORMAT],
    )
    .map_err(sql("creating"))?;
    check_format(&conn, &path)?;
    Ok((conn, path))
}

/// The answers of one model identity, in the cache database and its sealed segment.
struct Store {
    path: PathBuf,
    prefix: blake3::Hasher,
    model: i64,
    conn: Connection,
    values: Values,
    /// Writing failed once: answers are no longer stored from then on.
    read_only: bool,
    /// The model's sealed segment (its file name, as the database names it, and the open file).
    sealed: Option<(String, Segment)>,
    /// The segment page read last (neighbouring keys of a batch share one read).
    page: PageBuf,
    /// A segment that could not be opened, until [`Cached`] takes it as its warning.
    problem: Option<Error>,
}

impl Store {
    /// Opens the cache of `identity` under `dir`, importing its format-1 JSONL file once.
    fn open(dir: &Path, identity: &str) -> Result<Store, Error> {
        let prefix = key_prefix(identity);
        let (mut conn, path) = open_database(dir)?;
        let sql = |action| store_error(action, &path);
        conn.execute(
            "INSERT OR IGNORE INTO models(identity) VALUES (?1)",
            params![identity],
        )
        .map_err(sql("writing"))?;
        let (model, imported): (i64, bool) = conn
            .query_row(
                "SELECT id, imported FROM models WHERE identity = ?1",
                params![identity],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(sql("reading"))?;
        if !imported {
            import_jsonl(&mut conn, &path, &legacy_file(dir, identity), model)?;
        }
        Ok(Store {
            path,
            prefix,
            model,
            conn,
            values: Values::default(),
            read_only: false,
            sealed: None,
            page: PageBuf::default(),
            problem: None,
        })
    }

    fn key(&self, text: &str) -> [u8; 32] {
        let mut h = self.prefix.clone();
        h.update(text.as_bytes());
        *h.finalize().as_bytes()
    }

    /// The stored answers of `texts` (`None` for a miss). A read error counts as a miss (a cache
    /// never fails a run).
    ///
    /// The keys are looked up in sorted order: neighbouring keys share the segment's and the
    /// B-tree's pages, so a batch reads each page once however its texts are ordered, and the
    /// stored JSON is borrowed from the row, never copied, on its way to the interned value.
    /// The segment's name and the rows are read in one read transaction: a compaction moving
    /// answers from the rows into a new segment commits both at once, so no answer is missed.
    fn get_many(&mut self, texts: &[&str]) -> Vec<Option<Slot>> {
        let mut keyed: Vec<([u8; 32], u32)> = texts
            .iter()
            .zip(0u32..)
            .map(|(text, i)| (self.key(text), i))
            .collect();
        keyed.sort_unstable_by_key(|k| k.0);
        let mut found = vec![None; texts.len()];
        let Store {
            conn,
            values,
            model,
            path,
            sealed,
            page,
            problem,
            ..
        } = self;
        // Dropped at the end: a read transaction rolls back to nothing. A segment this snapshot
        // names but a later compaction has already removed is looked for again in a newer
        // snapshot, which names its successor. One that cannot be opened otherwise (damaged)
        // leaves its answers to be asked again: a waste, never a wrong answer; the run is warned.
        let mut tries = 0;
        let snapshot = loop {
            let Ok(snapshot) = conn.unchecked_transaction() else {
                return found;
            };
            let name = sealed_name(&snapshot, *model);
            if sealed.as_ref().map(|(have, _)| have) == name.as_ref() {
                break snapshot;
            }
            // Offsets are per segment file.
            values.sealed.clear();
            *page = PageBuf::default();
            *sealed = None;
            let (Some(name), Some(dir)) = (name, path.parent()) else {
                break snapshot;
            };
            let file = dir.join(SEGMENTS).join(&name);
            match Segment::open(&file) {
                Ok(segment) => {
                    *sealed = Some((name, segment));
                    break snapshot;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && tries < 3 => tries += 1,
                Err(source) => {
                    problem.get_or_insert(Error::Cache {
                        action: "reading",
                        path: file,
                        source,
                    });
                    break snapshot;
                }
            }
        };
        let Ok(mut st) =
            snapshot.prepare_cached("SELECT label, decision FROM answers WHERE k = ?1")
        else {
            return found;
        };
        for (key, i) in &keyed {
            if let Some((_, segment)) = sealed
                && let Ok(Some(at)) = segment.find(key, page)
                && let Some(slot) = values.sealed_slot(at, segment)
            {
                if let Some(place) = found.get_mut(*i as usize) {
                    *place = Some(slot);
                }
                continue;
            }
            let slot = st
                .query_row(params![&key[..]], |r| {
                    let output = values.intern_text(r.get_ref(0)?.as_str()?);
                    let decision = match r.get_ref(1)?.as_str_or_null()? {
                        None => NO_DECISION,
                        Some("null") => ESCALATE,
                        Some(form) => values.intern_text(form),
                    };
                    Ok(Slot { output, decision })
                })
                .optional()
                .ok()
                .flatten();
            if let Some(place) = found.get_mut(*i as usize) {
                *place = slot;
            }
        }
        found
    }

    /// The stored answer of `text`, if any.
    #[cfg(test)]
    fn get(&mut self, text: &str) -> Option<Slot> {
        self.get_many(&[text]).pop().flatten()
    }

    /// Stores fresh answers in one transaction (all or none); returns their slots. A failed
    /// write leaves the store read-only for the rest of the run.
    fn put_all(
        &mut self,
        answers: &[(&str, &Value, Option<&Decision>)],
    ) -> (Vec<Slot>, Result<(), Error>) {
        let slots: Vec<Slot> = answers
            .iter()
            .map(|&(_, output, decision)| self.values.slot(output, decision))
            .collect();
        let written = if answers.is_empty() || self.read_only {
            Ok(())
        } else {
            self.insert(answers, &slots)
        };
        if written.is_err() {
            self.read_only = true;
        }
        (slots, written)
    }

    /// Inserts the answers in key order (a batch's rows then share the B-tree's pages, so each
    /// page is written once per batch).
    fn insert(
        &mut self,
        answers: &[(&str, &Value, Option<&Decision>)],
        slots: &[Slot],
    ) -> Result<(), Error> {
        let mut keyed: Vec<([u8; 32], Slot)> = answers
            .iter()
            .zip(slots)
            .map(|((text, ..), &slot)| (self.key(text), slot))
            .collect();
        keyed.sort_unstable_by_key(|k| k.0);
        let sql = store_error("writing", &self.path);
        let Store {
            conn,
            values,
            model,
            ..
        } = self;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(&sql)?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO answers(k, model, label, decision) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(&sql)?;
            for (key, slot) in &keyed {
                st.execute(params![
                    &key[..],
                    *model,
                    values.form(slot.output),
                    values.decision_form(*slot)
                ])
                .map_err(&sql)?;
            }
        }
        tx.commit().map_err(&sql)
    }
}

/// Format 1's file of `identity`'s answers under `dir`.
fn legacy_file(dir: &Path, identity: &str) -> PathBuf {
    let file_key = blake3::hash(format!("{FORMAT}\0{identity}").as_bytes());
    dir.join("predictions")
        .join(format!("{}.jsonl", file_key.to_hex()))
}

/// Imports a format-1 JSONL file (if there is one) into `model`'s answers and marks the model
/// imported, in one transaction. Torn or foreign lines are skipped, as format 1 did.
fn import_jsonl(conn: &mut Connection, db: &Path, file: &Path, model: i64) -> Result<(), Error> {
    let sql = store_error("importing into", db);
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(&sql)?;
    match File::open(file) {
        Ok(f) => {
            let mut reader = BufReader::new(f);
            let mut line = Vec::new();
            let mut st = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO answers(k, model, label, decision) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(&sql)?;
            loop {
                line.clear();
                let n = reader
                    .read_until(b'\n', &mut line)
                    .map_err(|source| Error::Cache {
                        action: "reading",
                        path: file.to_owned(),
                        source,
                    })?;
                if n == 0 {
                    break;
                }
                if let Some((key, output, decision)) = parse_line(&line) {
                    st.execute(params![
                        &key[..],
                        model,
                        output.to_string(),
                        decision_column(decision.as_ref())
                    ])
                    .map_err(&sql)?;
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(Error::Cache {
                action: "opening",
                path: file.to_owned(),
                source,
            });
        }
    }
    tx.execute(
        "UPDATE models SET imported = 1 WHERE id = ?1",
        params![model],
    )
    .map_err(&sql)?;
    tx.commit().map_err(&sql)
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

    /// The cache database (`DIR/predictions.sqlite3`), or `None` without a cache.
    pub fn path(&self) -> Option<PathBuf> {
        self.state().store.as_ref().map(|s| s.path.clone())
    }

    /// The problem that kept the cache from opening, or from writing (answers are then kept in
    /// memory only), once.
    pub fn take_warning(&self) -> Option<Error> {
        self.state().warning.take()
    }

    /// Makes the writes so far durable enough for the next run. Every batch is committed as it
    /// completes, so there is nothing left to write; kept for callers of format 1's cache.
    pub fn flush(&self) -> Result<(), Error> {
        Ok(())
    }
}

// The cache's side of an adapter: here, not in `adapter`, so that the cache depends on the
// adapter one way only (`OnAnswered`), never the adapter on the cache.
impl Adapter {
    /// This adapter wearing the prediction cache under `dir` (`capkit profile` uses
    /// [`default_cache_dir`](crate::default_cache_dir)), keyed by its
    /// [`Adapter::cache_identity`]; a `file:` model passes through uncached. A cache that
    /// cannot be opened passes through too, and says why in
    /// [`Cached::take_warning`].
    pub fn cached(self, dir: &std::path::Path) -> Cached<Adapter> {
        match self.cache_identity() {
            Some(identity) => Cached::new(self, dir, &identity),
            None => Cached::pass_through(self),
        }
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
                warning,
            } = &mut *state;
            let Some(store) = store else {
                drop(state);
                return self.model.predict_shared(texts);
            };
            store.values.trim();
            for (i, slot) in store.get_many(texts).into_iter().enumerate() {
                match slot {
                    Some(slot) => out[i] = Some(store.values.get(slot.output)),
                    None => missing.push(i),
                }
            }
            *hits += (texts.len() - missing.len()) as u64;
            *misses += missing.len() as u64;
            if let Some(problem) = store.problem.take() {
                warning.get_or_insert(problem);
            }
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
            let mut state = self.state();
            let State { store, warning, .. } = &mut *state;
            let Some(store) = store else {
                drop(state);
                return self.model.decide_batch(texts);
            };
            let found = store.get_many(texts);
            if let Some(problem) = store.problem.take() {
                warning.get_or_insert(problem);
            }
            for (i, slot) in found.into_iter().enumerate() {
                match slot {
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
    fn answers_survive_a_reopen_and_models_are_kept_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let mut c = Store::open(&dir, "m").unwrap();
        assert!(c.get("a").is_none());
        let (_, written) = c.put_all(&[
            ("a", &json!("pos"), Some(&Decision::Escalate)),
            ("b", &json!({"x": 1}), None),
            ("d", &json!("neg"), Some(&Decision::Answer(json!("neg")))),
        ]);
        written.unwrap();
        drop(c);
        let mut c = Store::open(&dir, "m").unwrap();
        c.put_all(&[("c", &json!(3), None)]).1.unwrap();
        drop(c);
        let mut c = Store::open(&dir, "m").unwrap();
        let mut get = |t: &str| {
            let slot = c.get(t).unwrap();
            (
                (*c.values.get(slot.output)).clone(),
                c.values.decision(slot),
            )
        };
        assert_eq!(get("c"), (json!(3), None));
        assert_eq!(get("a"), (json!("pos"), Some(Decision::Escalate)));
        assert_eq!(get("b"), (json!({"x": 1}), None));
        assert_eq!(
            get("d"),
            (json!("neg"), Some(Decision::Answer(json!("neg"))))
        );
        let mut other = Store::open(&dir, "m2").unwrap();
        assert!(other.get("a").is_none());
    }

    /// The rows the database holds (answers not sealed into a segment).
    fn rows(store: &Store) -> i64 {
        store
            .conn
            .query_row("SELECT count(*) FROM answers", [], |r| r.get(0))
            .unwrap()
    }

    fn answer(store: &mut Store, text: &str) -> Option<(Value, Option<Decision>)> {
        let slot = store.get(text)?;
        Some((
            (*store.values.get(slot.output)).clone(),
            store.values.decision(slot),
        ))
    }

    #[test]
    fn sealed_answers_are_found_and_new_ones_are_stored_beside_them() {
        let tmp = tempfile::tempdir().unwrap();
        let mut c = Store::open(tmp.path(), "m").unwrap();
        let many: Vec<String> = (0..5000).map(|i| format!("text {i}")).collect();
        let entries: Vec<(&str, &Value, Option<&Decision>)> = many
            .iter()
            .map(|t| (t.as_str(), &Value::Null, None))
            .collect();
        c.put_all(&entries).1.unwrap();
        c.put_all(&[
            ("a", &json!("pos"), Some(&Decision::Escalate)),
            ("b", &json!({"x": 1}), None),
        ])
        .1
        .unwrap();
        let mut other = Store::open(tmp.path(), "other").unwrap();
        other.put_all(&[("a", &json!("neg"), None)]).1.unwrap();
        crate::cache_admin::compact(tmp.path()).unwrap();
        assert_eq!(rows(&c), 1, "every answer of `m` moved into a segment");
        // The store opened before the compaction finds the answers where they went.
        assert_eq!(
            answer(&mut c, "a"),
            Some((json!("pos"), Some(Decision::Escalate)))
        );
        assert_eq!(answer(&mut c, "b"), Some((json!({"x": 1}), None)));
        // Too few to seal: they stay in the database.
        assert_eq!(answer(&mut other, "a"), Some((json!("neg"), None)));
        assert!(c.get("never stored").is_none());
        assert!(
            c.get_many(&many.iter().map(String::as_str).collect::<Vec<_>>())
                .iter()
                .all(Option::is_some)
        );
        // New answers go to the database beside the segment, and a second compaction merges.
        c.put_all(&[("c", &json!(3), Some(&Decision::Answer(json!(3))))])
            .1
            .unwrap();
        assert_eq!(rows(&c), 2);
        crate::cache_admin::compact(tmp.path()).unwrap();
        let mut c = Store::open(tmp.path(), "m").unwrap();
        assert_eq!(rows(&c), 1);
        assert_eq!(
            answer(&mut c, "c"),
            Some((json!(3), Some(Decision::Answer(json!(3)))))
        );
        assert_eq!(
            answer(&mut c, "a"),
            Some((json!("pos"), Some(Decision::Escalate)))
        );
        assert_eq!(crate::cache_admin::stats(tmp.path()).unwrap().answers, 5004);
        // The replaced segment is gone: one file (`other` is too small to seal).
        let files = std::fs::read_dir(tmp.path().join(SEGMENTS))
            .unwrap()
            .count();
        assert_eq!(files, 1);
    }

    #[test]
    fn a_damaged_segment_is_a_warning_and_its_answers_are_asked_again() {
        let tmp = tempfile::tempdir().unwrap();
        let texts: Vec<String> = (0..5000).map(|i| format!("t{i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let model = suite_core::PerItemFn::new(|t: &str| json!(t.len()));
        Cached::new(&model, tmp.path(), "m")
            .predict_batch(&refs)
            .unwrap();
        crate::cache_admin::compact(tmp.path()).unwrap();
        let file = std::fs::read_dir(tmp.path().join(SEGMENTS))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
        let cached = Cached::new(&model, tmp.path(), "m");
        assert_eq!(
            cached.predict_batch(&refs[..2]).unwrap(),
            [json!(2), json!(2)]
        );
        assert_eq!((cached.hits(), cached.misses()), (0, 2));
        let warning = cached.take_warning().unwrap().to_string();
        assert!(
            warning.starts_with("reading the prediction cache ") && warning.contains("segments"),
            "{warning}"
        );
    }

    #[test]
    fn lookups_during_compactions_find_every_answer() {
        // A reader in one thread, compactions (each sealing new answers and replacing the
        // segment) in another: every lookup is a hit, however the two interleave.
        let tmp = tempfile::tempdir().unwrap();
        let texts: Vec<String> = (0..6000).map(|i| format!("t{i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let model = suite_core::PerItemFn::new(|t: &str| json!(t.len()));
        Cached::new(&model, tmp.path(), "m")
            .predict_batch(&refs[..5000])
            .unwrap();
        let done = std::sync::atomic::AtomicBool::new(false);
        let reader = Cached::new(&model, tmp.path(), "m");
        std::thread::scope(|s| {
            s.spawn(|| {
                for round in 0..4 {
                    let fresh = &refs[5000 + round * 250..5000 + (round + 1) * 250];
                    Cached::new(&model, tmp.path(), "m")
                        .predict_batch(fresh)
                        .unwrap();
                    crate::cache_admin::compact(tmp.path()).unwrap();
                }
                done.store(true, std::sync::atomic::Ordering::SeqCst);
            });
            let mut rounds = 0;
            while !done.load(std::sync::atomic::Ordering::SeqCst) || rounds == 0 {
                for chunk in refs[..5000].chunks(500) {
                    reader.predict_batch(chunk).unwrap();
                }
                rounds += 1;
            }
        });
        assert_eq!(reader.misses(), 0);
        assert!(reader.take_warning().is_none());
        let s = crate::cache_admin::stats(tmp.path()).unwrap();
        assert_eq!(s.answers, 6000);
    }

    #[test]
    fn a_format_1_file_is_imported_once_with_its_keys() {
        // Answers paid for under format 1 (one JSONL file per identity) keep matching.
        let tmp = tempfile::tempdir().unwrap();
        let identity = "classify\0cmd\0[\"m\"]";
        let name = blake3::hash(b"capkit-prediction-cache/1\0classify\0cmd\0[\"m\"]").to_hex();
        let legacy = tmp.path().join(format!("predictions/{name}.jsonl"));
        std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
        let mut key = blake3::Hasher::new();
        key.update(b"capkit-prediction-cache/1\0classify\0cmd\0[\"m\"]\0good");
        assert_eq!(answer_key(identity, "good"), *key.finalize().as_bytes());
        std::fs::write(
            &legacy,
            format!(
                "{{\"k\":\"{}\",\"label\":\"pos\",\"decision\":\"pos\"}}\n{{\"k\": \"12",
                key.finalize().to_hex()
            ),
        )
        .unwrap();
        let mut c = Store::open(tmp.path(), identity).unwrap();
        let slot = c.get("good").unwrap();
        assert_eq!(*c.values.get(slot.output), json!("pos"));
        assert_eq!(
            c.values.decision(slot),
            Some(Decision::Answer(json!("pos")))
        );
        drop(c);
        // Imported once: the file is left alone, and a later change to it is not read again.
        std::fs::write(&legacy, "").unwrap();
        let mut c = Store::open(tmp.path(), identity).unwrap();
        assert!(c.get("good").is_some());
        let count: i64 = c
            .conn
            .query_row("SELECT count(*) FROM answers", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 1);
    }

    #[test]
    fn a_batch_is_stored_whole_or_not_at_all() {
        let tmp = tempfile::tempdir().unwrap();
        let mut c = Store::open(tmp.path(), "m").unwrap();
        // A second connection holds the write lock: the batch's transaction cannot start and
        // none of its answers is stored.
        let (blocker, _) = open_database(tmp.path()).unwrap();
        blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
        c.conn.busy_timeout(Duration::from_millis(10)).unwrap();
        let (_, written) = c.put_all(&[("a", &json!(1), None), ("b", &json!(2), None)]);
        assert!(written.is_err());
        blocker.execute_batch("ROLLBACK").unwrap();
        assert!(c.get("a").is_none() && c.get("b").is_none());
    }

    #[test]
    fn many_processes_opening_one_new_cache_at_once_all_get_it() {
        // Connections in threads lock the file as processes do (SQLite tracks locks per file,
        // not per process). Opening a new cache switches it to WAL and creates its tables: done
        // by all at once, none may fail (a failed open is a run without its cache).
        for round in 0..10 {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("cache");
            let barrier = std::sync::Barrier::new(8);
            std::thread::scope(|s| {
                for i in 0..8 {
                    let (dir, barrier) = (&dir, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        let mut store = Store::open(dir, &format!("m{}", i % 3))
                            .unwrap_or_else(|e| panic!("round {round}, opener {i}: {e}"));
                        let (_, written) = store.put_all(&[(&*format!("t{i}"), &json!(i), None)]);
                        written.unwrap_or_else(|e| panic!("round {round}, writer {i}: {e}"));
                    });
                }
            });
            let (conn, _) = open_database(&dir).unwrap();
            let n: i64 = conn
                .query_row("SELECT count(*) FROM answers", [], |r| r.get(0))
                .unwrap();
            assert_eq!(n, 8, "round {round}");
        }
    }

    #[test]
    fn another_format_is_refused_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let (conn, _) = open_database(tmp.path()).unwrap();
        conn.execute(
            "UPDATE meta SET value = 'capkit-prediction-cache/9' WHERE key = 'format'",
            [],
        )
        .unwrap();
        drop(conn);
        let err = Store::open(tmp.path(), "m").err().unwrap().to_string();
        assert!(
            err.contains("its format is `capkit-prediction-cache/9`"),
            "{err}"
        );
    }

    #[test]
    fn a_cache_that_cannot_be_written_keeps_answering_and_warns_once() {
        let tmp = tempfile::tempdir().unwrap();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let model = suite_core::PerItemFn::new(|t: &str| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            json!(t.len())
        });
        let cached = Cached::new(&model, tmp.path(), "m");
        if let Some(store) = &mut cached.state().store {
            store.conn.pragma_update(None, "query_only", true).unwrap();
        }
        assert_eq!(cached.predict_batch(&["ab"]).unwrap(), [json!(2)]);
        let warning = cached.take_warning().unwrap();
        assert!(
            warning
                .to_string()
                .starts_with("writing the prediction cache "),
            "{warning}"
        );
        assert_eq!(
            cached.predict_batch(&["ab", "abc"]).unwrap(),
            [json!(2), json!(3)]
        );
        assert!(cached.take_warning().is_none());
        assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 3);
        assert_eq!((cached.hits(), cached.misses()), (0, 3));
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
