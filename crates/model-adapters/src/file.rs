//! `file:` models: precomputed predictions, one `{"text", "label"}` (or `"record"`) per line.
//!
//! The file is never held in memory. It is read line by line, every line checked, each answer
//! appended to a temporary SQLite table with its line and its text's key; read back sorted by key
//! and line, the table gives each text's first answer (a later line giving another is an error
//! naming both) and becomes a sealed segment ([`crate::segment`]): a lookup is one positioned
//! read. The segment is named by blake3 of the file's bytes and the task, in `DIR/file-segments/`
//! of the prediction cache when there is one (a second run hashes the unchanged file and opens
//! the segment without rebuilding it), else in a temporary directory removed with the backend.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, params};
use serde_json::Value;
use suite_core::{Decision, decision_of};

use crate::backend::{Answer, Backend, protocol_message, short};
use crate::error::Error;
use crate::segment::{PageBuf, RemoveOnDrop, Segment, SegmentWriter, unique_suffix};
use crate::settings::{Settings, Task};

/// The directory of `file:` models' segments inside a prediction cache directory: apart from
/// the cache's own `segments/` (which `cache compact` empties of every file the database does
/// not name), and not counted in the cache's size (they hold no paid-for answer).
pub(crate) const FILE_SEGMENTS: &str = "file-segments";
/// The domain of a text's key. Its own (not the prediction cache's `answer_key` domain): a
/// `file:` key can never be taken for a cached answer's, and this tag is bumped if the
/// derivation changes. A hash, not the text: 32 bytes per text in the staging table and the
/// segment however long the texts are, spread evenly over the segment's pages.
const KEY_DOMAIN: &str = "capkit-file-model/1";
/// The domain of a segment's name: bumped when what a segment holds for a given file changes,
/// or when the checks of a line change (a segment is reused without checking the file again);
/// the segment format's own magic is hashed too.
const NAME_DOMAIN: &str = "capkit-file-segment/1";
/// Temporary files in [`FILE_SEGMENTS`] older than this are the leftovers of a killed build
/// (a build under way writes its files continuously) and are removed by the next build.
const STALE: Duration = Duration::from_secs(24 * 3600);
/// A segment not opened for this long is removed by the next build in its directory (each open
/// marks it used): a predictions file that changed leaves its old segment behind otherwise.
const UNUSED: Duration = Duration::from_secs(30 * 24 * 3600);
/// Answers kept parsed by offset (a classifier's few labels are parsed once); past it the table
/// is cleared, so memory stays flat for free-text answers.
const MAX_PARSED: usize = 1 << 16;

pub(crate) struct FileBackend {
    name: String,
    /// The segment file (for messages).
    path: PathBuf,
    segment: Segment,
    page: PageBuf,
    parsed: HashMap<u64, Answer>,
    /// The temporary directory of the segment when there is no cache directory: removed on
    /// drop, after the segment's handle (declared last).
    _temp: Option<TempDir>,
}

/// The key of `text` in a `file:` model's segment.
fn text_key(text: &str) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(KEY_DOMAIN.as_bytes());
    h.update(&[0]);
    h.update(text.as_bytes());
    *h.finalize().as_bytes()
}

/// The hasher of a segment's name, before the file's bytes.
fn name_hasher(task: Task) -> blake3::Hasher {
    let mut h = blake3::Hasher::new();
    for part in [
        NAME_DOMAIN.as_bytes(),
        crate::segment::MAGIC,
        task.name().as_bytes(),
    ] {
        h.update(part);
        h.update(&[0]);
    }
    h
}

fn segment_name(digest: &blake3::Hash) -> String {
    format!("file-{}.seg", digest.to_hex())
}

impl FileBackend {
    /// Reads and checks every line into a segment (see the module's doc); a text given twice
    /// with different answers is an error. The segment goes in `cache_dir`'s
    /// [`FILE_SEGMENTS`] when given (and is reused while the file is unchanged), else in a
    /// temporary directory (also when the cache's cannot be created: a cache never fails a run).
    pub(crate) fn load(
        name: &str,
        path: &Path,
        settings: &Settings,
        cache_dir: Option<&Path>,
    ) -> Result<Self, Error> {
        FileBackend::load_in(name, path, settings, cache_dir, &std::env::temp_dir())
    }

    /// [`FileBackend::load`], a temporary directory made under `temp` if needed.
    fn load_in(
        name: &str,
        path: &Path,
        settings: &Settings,
        cache_dir: Option<&Path>,
        temp: &Path,
    ) -> Result<Self, Error> {
        let read_error = |source| Error::ReadPredictions {
            model: name.to_owned(),
            path: path.to_owned(),
            source,
        };
        let shared = cache_dir
            .map(|dir| dir.join(FILE_SEGMENTS))
            .filter(|dir| std::fs::create_dir_all(dir).is_ok());
        let (dir, temp) = match shared {
            Some(dir) => {
                // Unchanged since a segment was built from it: open that one.
                let mut hasher = name_hasher(settings.task);
                hash_file(path, &mut hasher).map_err(read_error)?;
                let existing = dir.join(segment_name(&hasher.finalize()));
                if let Ok(segment) = Segment::open(&existing) {
                    // Marked used (best effort: a read-only cache still answers).
                    let _ = std::fs::File::options()
                        .write(true)
                        .open(&existing)
                        .and_then(|f| f.set_modified(std::time::SystemTime::now()));
                    return Ok(FileBackend::new(name, existing, segment, None));
                }
                remove_stale(&dir);
                (dir, None)
            }
            None => {
                let temp = TempDir::new(temp).map_err(|source| Error::Cache {
                    action: "creating",
                    path: temp.to_owned(),
                    source,
                })?;
                (temp.0.clone(), Some(temp))
            }
        };
        let staged = Staged::read(name, path, settings, &dir)?;
        let file = dir.join(segment_name(&staged.digest));
        staged.write(name, path, &file)?;
        let segment = Segment::open(&file).map_err(|source| Error::Cache {
            action: "reading",
            path: file.clone(),
            source,
        })?;
        Ok(FileBackend::new(name, file, segment, temp))
    }

    fn new(name: &str, path: PathBuf, segment: Segment, temp: Option<TempDir>) -> FileBackend {
        FileBackend {
            name: name.to_owned(),
            path,
            segment,
            page: PageBuf::default(),
            parsed: HashMap::new(),
            _temp: temp,
        }
    }

    fn damaged(&self, source: io::Error) -> Error {
        Error::ReadPredictions {
            model: self.name.clone(),
            path: self.path.clone(),
            source,
        }
    }

    /// The answer at heap offset `at`.
    fn answer_at(&mut self, at: u64) -> Result<Answer, Error> {
        if let Some(answer) = self.parsed.get(&at) {
            return Ok(answer.clone());
        }
        let (label, decision) = self.segment.answer(at).map_err(|e| self.damaged(e))?;
        let answer = columns_answer(&label, decision.as_deref())
            .map_err(|e| self.damaged(io::Error::new(io::ErrorKind::InvalidData, e)))?;
        if self.parsed.len() >= MAX_PARSED {
            self.parsed.clear();
        }
        self.parsed.insert(at, answer.clone());
        Ok(answer)
    }
}

impl Backend for FileBackend {
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, Error> {
        // Looked up in key order: neighbouring keys share a page read (as the cache's batches).
        let mut keyed: Vec<([u8; 32], usize)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (text_key(t), i))
            .collect();
        keyed.sort_unstable_by_key(|k| k.0);
        let mut found: Vec<Option<u64>> = vec![None; texts.len()];
        for (key, i) in &keyed {
            let at = self
                .segment
                .find(key, &mut self.page)
                .map_err(|e| self.damaged(e))?;
            if let Some(place) = found.get_mut(*i) {
                *place = at;
            }
        }
        let mut missing = texts
            .iter()
            .zip(&found)
            .filter(|(_, at)| at.is_none())
            .map(|(t, _)| t);
        if let Some(first) = missing.next() {
            let more = missing.count();
            let others = match more {
                0 => String::new(),
                n => format!(" (and {n} more texts of this stage)"),
            };
            return Err(Error::Model(format!(
                "`{}` has no prediction for the text {:?}{others}",
                self.name,
                short(first)
            )));
        }
        let mut out = Vec::with_capacity(texts.len());
        for at in found.into_iter().flatten() {
            out.push(self.answer_at(at)?);
        }
        done(texts.len() as u64);
        Ok(out)
    }

    fn identity(&self) -> Option<String> {
        None
    }
}

/// An answer from its stored columns (the label's JSON; the decision's, `null` for an
/// escalation, none without a decision API).
fn columns_answer(label: &str, decision: Option<&str>) -> Result<Answer, serde_json::Error> {
    Ok(Answer {
        output: serde_json::from_str(label)?,
        decision: decision
            .map(serde_json::from_str::<Value>)
            .transpose()?
            .map(decision_of),
    })
}

/// An answer's columns (see [`columns_answer`]).
fn answer_columns(answer: &Answer) -> (String, Option<String>) {
    let decision = answer.decision.as_ref().map(|d| match d {
        Decision::Escalate => "null".to_owned(),
        Decision::Answer(v) => v.to_string(),
    });
    (answer.output.to_string(), decision)
}

/// Feeds every byte of `path` to `hasher`.
fn hash_file(path: &Path, hasher: &mut blake3::Hasher) -> io::Result<()> {
    let mut file = File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                hasher.update(&buf[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Removes the temporary files in `dir` older than [`STALE`] and the segments unused for
/// [`UNUSED`] (best effort; a process still reading a removed segment keeps its open file, and
/// one about to open it builds it again).
fn remove_stale(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let age = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .unwrap_or_default();
        let name = entry.file_name().to_string_lossy().into_owned();
        let unused = name.starts_with("file-") && name.ends_with(".seg") && age > UNUSED;
        if (name.ends_with(".tmp") && age > STALE) || unused {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A predictions file read and staged: every answer line's key, line number and answer in a
/// temporary database (removed on drop), in line order, and the digest naming its segment.
///
/// Rows are appended in line order (cheap), not inserted at their keys: inserting 10 million
/// random keys into a B-tree larger than SQLite's page cache costs a page read or two each.
/// Repeats are found afterwards, when the rows are read sorted by key and line (SQLite's
/// external merge sort, in bounded memory) on their way into the segment.
struct Staged {
    conn: Connection,
    /// The database file (for messages).
    db: PathBuf,
    digest: blake3::Hash,
    rows: u64,
    /// The first line that failed its checks: reading stopped there. A repeat that contradicts
    /// an earlier line comes first if it is on an earlier line.
    bad: Option<Error>,
    /// The database file, removed after the connection is closed (declared after it).
    _file: RemoveOnDrop,
}

impl Staged {
    /// Reads `path` line by line into a staging database in `dir`, checking each line as the
    /// protocol says, up to the first bad line.
    fn read(name: &str, path: &Path, settings: &Settings, dir: &Path) -> Result<Staged, Error> {
        let read_error = |source| Error::ReadPredictions {
            model: name.to_owned(),
            path: path.to_owned(),
            source,
        };
        let input = File::open(path).map_err(read_error)?;
        let db = dir.join(format!("stage-{}.sqlite3.tmp", unique_suffix()));
        let mut file = RemoveOnDrop::default();
        file.add(&db);
        let store_error = staging_error(&db);
        let conn = Connection::open(&db).map_err(&store_error)?;
        // A scratch table, rebuilt from the file if lost: no journal, no syncs. The page cache
        // size (32 MiB) also bounds the sort's memory before it spills to temporary files, so
        // the two together stay under ~70 MiB whatever the file's size.
        conn.execute_batch(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
             PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -32768;
             CREATE TABLE staged(
                 line INTEGER PRIMARY KEY,
                 k BLOB NOT NULL,
                 label TEXT NOT NULL,
                 decision TEXT);",
        )
        .map_err(&store_error)?;
        let mut hasher = name_hasher(settings.task);
        let (mut rows, mut bad) = (0u64, None);
        {
            let tx = conn.unchecked_transaction().map_err(&store_error)?;
            let mut insert = tx
                .prepare("INSERT INTO staged VALUES (?1, ?2, ?3, ?4)")
                .map_err(&store_error)?;
            let mut reader = BufReader::with_capacity(1 << 20, input);
            let mut bytes = Vec::new();
            let mut n = 0usize;
            loop {
                bytes.clear();
                if reader.read_until(b'\n', &mut bytes).map_err(read_error)? == 0 {
                    break;
                }
                hasher.update(&bytes);
                n += 1;
                let line = line_text(&bytes).map_err(read_error)?;
                let (text, answer) = match check_line(name, path, settings, n, line) {
                    Ok(Some(checked)) => checked,
                    Ok(None) => continue,
                    Err(e) => {
                        bad = Some(e);
                        break;
                    }
                };
                let (label, decision) = answer_columns(&answer);
                insert
                    .execute(params![n as i64, &text_key(&text)[..], label, decision])
                    .map_err(&store_error)?;
                rows += 1;
            }
            drop(insert);
            tx.commit().map_err(&store_error)?;
        }
        Ok(Staged {
            conn,
            db,
            digest: hasher.finalize(),
            rows,
            bad,
            _file: file,
        })
    }

    /// Reads the staged rows in key order, each text's first line giving its answer, into the
    /// segment `path` (nothing is written if a line was bad). The first error in line order
    /// is returned: a text given again with another answer, the bad line, or decisions on some
    /// lines only.
    fn write(self, name: &str, path: &Path, segment: &Path) -> Result<(), Error> {
        let store_error = staging_error(&self.db);
        let write_error = |source| Error::Cache {
            action: "writing",
            path: segment.to_owned(),
            source,
        };
        let mut writer = match self.bad {
            Some(_) => None,
            None => Some(SegmentWriter::create(segment, self.rows).map_err(write_error)?),
        };
        // The earliest contradicting line and the line it contradicts.
        let mut conflict: Option<(i64, i64)> = None;
        let (mut answers, mut with_decision) = (0u64, 0u64);
        {
            let mut st = self
                .conn
                .prepare("SELECT k, line, label, decision FROM staged ORDER BY k, line")
                .map_err(&store_error)?;
            let mut rows = st.query([]).map_err(&store_error)?;
            let mut first: Option<FirstRow> = None;
            while let Some(row) = rows.next().map_err(&store_error)? {
                let key: [u8; 32] = row
                    .get::<_, Vec<u8>>(0)
                    .map_err(&store_error)?
                    .try_into()
                    .map_err(|_| Error::CacheStore {
                        action: "reading",
                        path: self.db.clone(),
                        message: "a staged key of the wrong length".to_owned(),
                    })?;
                let line: i64 = row.get(1).map_err(&store_error)?;
                let label: String = row.get(2).map_err(&store_error)?;
                let decision: Option<String> = row.get(3).map_err(&store_error)?;
                match &mut first {
                    Some(f) if f.key == key => {
                        // Compared as answers, JSON objects equal in any key order; only the
                        // earliest contradiction of a text matters (rows come in line order).
                        if !f.contradicted
                            && (f.label.as_str(), f.decision.as_deref())
                                != (label.as_str(), decision.as_deref())
                            && columns_answer(&f.label, f.decision.as_deref()).ok()
                                != columns_answer(&label, decision.as_deref()).ok()
                        {
                            f.contradicted = true;
                            if conflict.is_none_or(|(c, _)| line < c) {
                                conflict = Some((line, f.line));
                            }
                        }
                    }
                    _ => {
                        answers += 1;
                        with_decision += u64::from(decision.is_some());
                        if let Some(w) = &mut writer {
                            w.push(key, (label.clone(), decision.clone()))
                                .map_err(write_error)?;
                        }
                        first = Some(FirstRow {
                            key,
                            line,
                            label,
                            decision,
                            contradicted: false,
                        });
                    }
                }
            }
        }
        // Reading stopped at the bad line, if any: a contradiction staged is on an earlier line.
        if let Some((line, at)) = conflict {
            return Err(Error::Predictions {
                model: name.to_owned(),
                path: path.to_owned(),
                line: line as usize,
                problem: format!(
                    "a different prediction for {:?} than on line {at}",
                    short(&text_on_line(path, line as usize).unwrap_or_default())
                ),
            });
        }
        if let Some(e) = self.bad {
            return Err(e);
        }
        if with_decision != 0 && with_decision != answers {
            return Err(Error::PartialDecisions {
                model: name.to_owned(),
                with: with_decision as usize,
                total: answers as usize,
            });
        }
        match writer {
            Some(w) => w.finish().map(|_| ()).map_err(write_error),
            None => Ok(()),
        }
    }
}

/// A text's first row in the staging table, read in key and line order.
struct FirstRow {
    key: [u8; 32],
    line: i64,
    label: String,
    decision: Option<String>,
    /// A later line gave another answer (the earliest such line is the one that counts).
    contradicted: bool,
}

/// The error of an operation on the staging database `db`.
fn staging_error(db: &Path) -> impl Fn(rusqlite::Error) -> Error + use<> {
    let db = db.to_owned();
    move |e| Error::CacheStore {
        action: "writing",
        path: db.clone(),
        message: e.to_string(),
    }
}

/// A line's text without its end (`str::lines`: `\n` or `\r\n`); not UTF-8 is an error.
fn line_text(bytes: &[u8]) -> io::Result<&str> {
    let mut line = bytes;
    if let Some(rest) = line.strip_suffix(b"\n") {
        line = rest.strip_suffix(b"\r").unwrap_or(rest);
    }
    std::str::from_utf8(line).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// The `"text"` of line `n` of `path` (read again for a message: the staging table keeps keys).
fn text_on_line(path: &Path, n: usize) -> Option<String> {
    let line = BufReader::new(File::open(path).ok()?)
        .split(b'\n')
        .nth(n.checked_sub(1)?)?
        .ok()?;
    let value: Value = serde_json::from_str(line_text(&line).ok()?).ok()?;
    match value.get("text")? {
        Value::String(text) => Some(text.clone()),
        _ => None,
    }
}

/// The text and answer of line `n` (`None`: a blank line), checked as the protocol says.
fn check_line(
    name: &str,
    path: &Path,
    settings: &Settings,
    n: usize,
    line: &str,
) -> Result<Option<(String, Answer)>, Error> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let bad = |problem: String| Error::Predictions {
        model: name.to_owned(),
        path: path.to_owned(),
        line: n,
        problem,
    };
    let value: Value =
        serde_json::from_str(line).map_err(|e| bad(format!("not valid JSON: {e}")))?;
    let Value::Object(mut obj) = value else {
        return Err(bad("expected a JSON object".to_owned()));
    };
    let Some(Value::String(text)) = obj.remove("text") else {
        return Err(bad("no string \"text\"".to_owned()));
    };
    let output = match (obj.remove("label"), obj.remove("record")) {
        (Some(v), None) | (None, Some(v)) => v,
        (Some(_), Some(_)) => return Err(bad("both \"label\" and \"record\"".to_owned())),
        (None, None) => return Err(bad("no \"label\" (or \"record\")".to_owned())),
    };
    crate::check_output(settings.task.answer_kind(), &output)
        .map_err(|e| bad(protocol_message(&e)))?;
    let answer = Answer {
        output,
        decision: obj.remove("decision").map(decision_of),
    };
    Ok(Some((text, answer)))
}

/// A directory of its own under the system's temporary directory, removed (with what it holds)
/// on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(base: &Path) -> io::Result<TempDir> {
        let mut tries = 0;
        loop {
            let dir = base.join(format!("capkit-file-{}", unique_suffix()));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(TempDir(dir)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 16 => tries += 1,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn nothing_is_left_behind_after_a_load_a_drop_or_a_refused_file() {
        let tmp = tempfile::tempdir().unwrap();
        let (temp, cache) = (tmp.path().join("temp"), tmp.path().join("cache"));
        std::fs::create_dir_all(&temp).unwrap();
        let path = tmp.path().join("p.jsonl");
        let mut lines: String = (0..3_000)
            .map(|i| format!("{{\"text\": \"t{i}\", \"label\": \"l{}\"}}\n", i % 3))
            .collect();
        std::fs::write(&path, &lines).unwrap();
        let settings = Settings::default();
        let load = |cache_dir| FileBackend::load_in("m", &path, &settings, cache_dir, &temp);

        // No cache directory: one temporary directory holding the segment alone, removed with
        // the backend.
        let mut backend = load(None).unwrap();
        let [dir] = names(&temp).try_into().unwrap();
        let [seg] = names(&temp.join(&dir)).try_into().unwrap();
        assert!(seg.starts_with("file-") && seg.ends_with(".seg"), "{seg}");
        let answers = backend.answer(&["t4", "t2999"], &mut |_| {}).unwrap();
        assert_eq!(answers[0].output, serde_json::json!("l1"));
        assert_eq!(answers[1].output, serde_json::json!("l2"));
        drop(backend);
        assert_eq!(names(&temp), Vec::<String>::new());

        // In the cache: the segment alone.
        drop(load(Some(&cache)).unwrap());
        let [seg] = names(&cache.join(FILE_SEGMENTS)).try_into().unwrap();
        assert!(seg.starts_with("file-") && seg.ends_with(".seg"), "{seg}");

        // Refused on its last line: no staging database, no half-written segment, anywhere.
        lines.push_str("{\"text\": \"t1\", \"label\": \"other\"}\n");
        std::fs::write(&path, &lines).unwrap();
        for cache_dir in [None, Some(cache.as_path())] {
            let err = load(cache_dir).err().unwrap().to_string();
            assert!(err.ends_with(":3001: a different prediction for \"t1\" than on line 2"));
        }
        assert_eq!(names(&temp), Vec::<String>::new());
        assert_eq!(names(&cache.join(FILE_SEGMENTS)), [seg]);
    }
}
