//! Looking after a prediction cache directory: what it holds ([`stats`]), whether it is sound
//! ([`verify`]), sealing its answers and reclaiming space ([`compact`]), its answers as JSONL
//! ([`export`]) and its `openai:` replies as JSONL ([`export_replies`]). Every function opens an
//! existing cache and never creates one.

use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, params};
use serde::Serialize;

use crate::cache::{
    BUSY_TIMEOUT, DATABASE, SEALED_FORMAT, SEGMENTS, cache_size, check_format, sealed_name,
    store_error as sql,
};
use crate::error::Error;
use crate::segment::{Columns, Segment, SegmentWriter};

/// What a cache holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheStats {
    /// The database file.
    pub path: PathBuf,
    /// Its bytes on disk, write-ahead log and sealed segments included.
    pub bytes: u64,
    /// The store's format (`capkit-prediction-cache/2 (sqlite)`, or
    /// `capkit-prediction-cache/3 (sqlite + sealed segments)` once compacted).
    pub format: String,
    /// Answers in all.
    pub answers: u64,
    /// Answers per model identity, most first.
    pub models: Vec<ModelAnswers>,
    /// `openai:` replies kept by the exact request ([`ReplyDatabase`](crate::ReplyDatabase)).
    pub replies: u64,
}

/// The answers of one model identity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelAnswers {
    /// The identity (task, scheme and what names the model), its NUL separators shown as ` · `.
    pub identity: String,
    /// How many answers the cache holds for it.
    pub answers: u64,
}

/// Opens the cache database of `dir`, which must exist and be of this capkit's formats; returns
/// it, its path and its format.
fn open_existing(dir: &Path, flags: OpenFlags) -> Result<(Connection, PathBuf, String), Error> {
    let path = dir.join(DATABASE);
    if !path.is_file() {
        return Err(Error::NoCache { path });
    }
    let conn = Connection::open_with_flags(&path, flags).map_err(sql("opening", &path))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(sql("opening", &path))?;
    let format = check_format(&conn, &path)?;
    Ok((conn, path, format))
}

/// Whether the database has `table` (a database an earlier capkit wrote may lack one).
fn has_table(conn: &Connection, db: &Path, table: &str) -> Result<bool, Error> {
    conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        params![table],
        |r| r.get(0),
    )
    .map_err(sql("reading", db))
}

/// The sealed segments the database names: (model, file name, answers), by model. Empty for a
/// database an earlier capkit wrote (no `segments` table).
fn segments(conn: &Connection, db: &Path) -> Result<Vec<(i64, String, u64)>, Error> {
    let read = sql("reading", db);
    if !has_table(conn, db, "segments")? {
        return Ok(Vec::new());
    }
    let mut st = conn
        .prepare("SELECT model, file, answers FROM segments ORDER BY model")
        .map_err(&read)?;
    st.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)?.max(0) as u64))
    })
    .map_err(&read)?
    .collect::<Result<Vec<_>, _>>()
    .map_err(&read)
}

/// The error of file operation `action` on `path` (for `map_err`).
fn file_error(action: &'static str, path: &Path) -> impl Fn(std::io::Error) -> Error + use<> {
    let path = path.to_owned();
    move |source| Error::Cache {
        action,
        path: path.clone(),
        source,
    }
}

fn shown(identity: &str) -> String {
    identity.replace('\0', " · ")
}

/// Sizes and answers per model of the cache in `dir`.
pub fn stats(dir: &Path) -> Result<CacheStats, Error> {
    let (conn, path, format) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let read = sql("reading", &path);
    let sealed = segments(&conn, &path)?;
    let mut st = conn
        .prepare(
            "SELECT models.id, models.identity, count(answers.k) FROM models
             LEFT JOIN answers ON answers.model = models.id GROUP BY models.id",
        )
        .map_err(&read)?;
    let mut models = st
        .query_map([], |r| {
            let id: i64 = r.get(0)?;
            let in_segment = sealed.iter().find(|s| s.0 == id).map_or(0, |s| s.2);
            Ok(ModelAnswers {
                identity: shown(&r.get::<_, String>(1)?),
                answers: r.get::<_, i64>(2)?.max(0) as u64 + in_segment,
            })
        })
        .map_err(&read)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(&read)?;
    models.sort_by(|a, b| {
        b.answers
            .cmp(&a.answers)
            .then_with(|| a.identity.cmp(&b.identity))
    });
    let replies = if has_table(&conn, &path, "replies")? {
        conn.query_row("SELECT count(*) FROM replies", [], |r| r.get::<_, i64>(0))
            .map_err(&read)?
            .max(0) as u64
    } else {
        0
    };
    Ok(CacheStats {
        bytes: cache_size(&path),
        format,
        answers: models.iter().map(|m| m.answers).sum(),
        models,
        replies,
        path,
    })
}

/// Checks the cache in `dir`: SQLite's integrity check, then every stored answer is JSON and
/// belongs to a known model, then each sealed segment (its digest, its keys in order, its
/// answers JSON), then every `openai:` reply has a 32-byte key and a text model and reply (a
/// reply is free text: its content is not checked). Returns the problems found (empty: sound).
pub fn verify(dir: &Path) -> Result<Vec<String>, Error> {
    let (conn, path, _) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let read = sql("reading", &path);
    let mut problems: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .map_err(&read)?
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(&read)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(&read)?
        .into_iter()
        .filter(|line| line != "ok")
        .collect();
    let mut st = conn
        .prepare(
            "SELECT answers.k, answers.label, answers.decision, models.id IS NULL FROM answers
             LEFT JOIN models ON models.id = answers.model",
        )
        .map_err(&read)?;
    let mut rows = st.query([]).map_err(&read)?;
    while let Some(row) = rows.next().map_err(&read)? {
        let key: Vec<u8> = row.get(0).map_err(&read)?;
        let label: String = row.get(1).map_err(&read)?;
        let decision: Option<String> = row.get(2).map_err(&read)?;
        let orphan: bool = row.get(3).map_err(&read)?;
        let name = blake3_hex(&key);
        if key.len() != 32 {
            problems.push(format!("answer {name}: key of {} bytes, not 32", key.len()));
        }
        if serde_json::from_str::<serde_json::Value>(&label).is_err() {
            problems.push(format!("answer {name}: label is not JSON"));
        }
        if let Some(d) = decision
            && serde_json::from_str::<serde_json::Value>(&d).is_err()
        {
            problems.push(format!("answer {name}: decision is not JSON"));
        }
        if orphan {
            problems.push(format!("answer {name}: belongs to no model"));
        }
    }
    for (model, name, answers) in segments(&conn, &path)? {
        let file = dir.join(SEGMENTS).join(&name);
        let found = Segment::open(&file).and_then(|segment| {
            let mut found = segment.check()?;
            if segment.answers() != answers {
                found.push(format!(
                    "holds {} answers, the database says {answers}",
                    segment.answers()
                ));
            }
            Ok(found)
        });
        match found {
            Ok(found) => problems.extend(
                found
                    .into_iter()
                    .map(|p| format!("segment {} (model {model}): {p}", file.display())),
            ),
            Err(e) => problems.push(format!("segment {} (model {model}): {e}", file.display())),
        }
    }
    if has_table(&conn, &path, "replies")? {
        let mut st = conn
            .prepare(
                "SELECT k, typeof(model) = 'text', typeof(reply) = 'text' FROM replies
                 WHERE length(k) != 32 OR typeof(k) != 'blob'
                    OR typeof(model) != 'text' OR typeof(reply) != 'text'",
            )
            .map_err(&read)?;
        let mut rows = st.query([]).map_err(&read)?;
        while let Some(row) = rows.next().map_err(&read)? {
            let key = match row.get_ref(0).map_err(&read)? {
                rusqlite::types::ValueRef::Blob(b) => b.to_vec(),
                rusqlite::types::ValueRef::Text(t) => t.to_vec(),
                _ => Vec::new(),
            };
            let name = blake3_hex(&key);
            if key.len() != 32 {
                problems.push(format!("reply {name}: key of {} bytes, not 32", key.len()));
            }
            if !row.get::<_, bool>(1).map_err(&read)? {
                problems.push(format!("reply {name}: model is not text"));
            }
            if !row.get::<_, bool>(2).map_err(&read)? {
                problems.push(format!("reply {name}: reply is not text"));
            }
        }
    }
    Ok(problems)
}

fn blake3_hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// Seals the answers of the cache in `dir` and reclaims its space: each model's answers in the
/// database are merged with its sealed segment (if any) into a new segment file, which replaces
/// the old one and takes the answers out of the database in one transaction (a model without a
/// segment and fewer than 4,096 answers stays in the database); then the database is rewritten
/// and its write-ahead log emptied. Returns the cache's size before and after, in
/// bytes.
///
/// Lookups go on meanwhile (readers never wait), but the compaction holds the database's write
/// lock throughout: a run storing answers at the same time waits for it, and past the busy
/// timeout (30 s) goes on without storing (with a warning). Compact between runs. A compaction
/// killed at any point leaves the cache as it was (a half-written segment file is never named,
/// and the next compaction removes it).
pub fn compact(dir: &Path) -> Result<(u64, u64), Error> {
    let (mut conn, path, _) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    let before = cache_size(&path);
    seal(&mut conn, dir, &path)?;
    let write = sql("compacting", &path);
    conn.execute_batch("VACUUM").map_err(&write)?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .map_err(&write)?;
    drop(conn);
    Ok((before, cache_size(&path)))
}

/// The fewest answers a model must have in the database for a compaction to seal them into its
/// first segment: a small B-tree is read from memory anyway, and a segment has a fixed cost of
/// two pages.
const SEAL_FROM: u64 = 4096;

/// A name no other segment file has had: the time and this process.
fn fresh_name(model: i64) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("m{model}-{nanos:x}-{:x}.seg", std::process::id())
}

/// Moves every model's answers out of the database into its sealed segment (see [`compact`]).
fn seal(conn: &mut Connection, dir: &Path, db: &Path) -> Result<(), Error> {
    let write = sql("compacting", db);
    let folder = dir.join(SEGMENTS);
    std::fs::create_dir_all(&folder).map_err(file_error("creating", &folder))?;
    // The write lock for the whole compaction: no answer is stored meanwhile, so the rows read
    // are the rows deleted, and no other compaction is under way.
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(&write)?;
    // Files no row names: the leftovers of a compaction that did not commit, or of one that
    // committed but was killed before removing the segments it replaced.
    let named: Vec<String> = segments(&tx, db)?.into_iter().map(|s| s.1).collect();
    for entry in std::fs::read_dir(&folder).map_err(file_error("reading", &folder))? {
        let entry = entry.map_err(file_error("reading", &folder))?;
        if !named.iter().any(|n| entry.file_name() == n.as_str()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let models: Vec<(i64, u64)> = tx
        .prepare("SELECT model, count(*) FROM answers GROUP BY model")
        .map_err(&write)?
        .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64)))
        .map_err(&write)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(&write)?;
    let mut replaced = Vec::new();
    for (model, rows) in models {
        let old = sealed_name(&tx, model).map(|name| folder.join(name));
        if old.is_none() && rows < SEAL_FROM {
            continue;
        }
        let old_segment = match &old {
            Some(file) => Some(Segment::open(file).map_err(file_error("reading", file))?),
            None => None,
        };
        let name = fresh_name(model);
        let file = folder.join(&name);
        let expected = rows + old_segment.as_ref().map_or(0, Segment::answers);
        let mut writer =
            SegmentWriter::create(&file, expected).map_err(file_error("writing", &file))?;
        let mut st = tx
            .prepare("SELECT k, label, decision FROM answers WHERE model = ?1 ORDER BY k")
            .map_err(&write)?;
        let mut rows = st.query(params![model]).map_err(&write)?;
        let mut next_row = || -> Result<Option<([u8; 32], Columns)>, Error> {
            while let Some(row) = rows.next().map_err(&write)? {
                let key: Vec<u8> = row.get(0).map_err(&write)?;
                // A damaged key (`cache verify` names it) could never be looked up.
                if let Ok(key) = <[u8; 32]>::try_from(key.as_slice()) {
                    return Ok(Some((
                        key,
                        (row.get(1).map_err(&write)?, row.get(2).map_err(&write)?),
                    )));
                }
            }
            Ok(None)
        };
        let mut sealed = old_segment.as_ref().map(Segment::in_order);
        let old_file = old.clone().unwrap_or_default();
        let mut next_sealed = || -> Result<Option<([u8; 32], Columns)>, Error> {
            sealed
                .as_mut()
                .and_then(Iterator::next)
                .transpose()
                .map_err(file_error("reading", &old_file))
        };
        let push = file_error("writing", &file);
        // A merge of two key-ordered streams; a key in both (stored again by a run that did not
        // see the segment yet) is the same answer, written once.
        let (mut a, mut b) = (next_sealed()?, next_row()?);
        loop {
            let from_segment = match (&a, &b) {
                (None, None) => break,
                (Some(x), Some(y)) => x.0 <= y.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            if from_segment {
                if let Some((key, answer)) = a.take() {
                    if b.as_ref().is_some_and(|r| r.0 == key) {
                        b = next_row()?;
                    }
                    writer.push(key, answer).map_err(&push)?;
                }
                a = next_sealed()?;
            } else {
                if let Some((key, answer)) = b.take() {
                    writer.push(key, answer).map_err(&push)?;
                }
                b = next_row()?;
            }
        }
        drop(rows);
        drop(st);
        let answers = writer.finish().map_err(&push)?;
        tx.execute(
            "INSERT OR REPLACE INTO segments(model, file, answers) VALUES (?1, ?2, ?3)",
            params![model, name, answers as i64],
        )
        .map_err(&write)?;
        tx.execute("DELETE FROM answers WHERE model = ?1", params![model])
            .map_err(&write)?;
        replaced.extend(old);
    }
    if !segments(&tx, db)?.is_empty() {
        tx.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'format'",
            params![SEALED_FORMAT],
        )
        .map_err(&write)?;
    }
    tx.commit().map_err(&write)?;
    // Readers that opened a replaced segment keep reading it (an open file outlives its name).
    for file in replaced {
        let _ = std::fs::remove_file(file);
    }
    Ok(())
}

/// Writes every answer of the cache in `dir` to `out` as JSONL, one
/// `{"model": IDENTITY, "k": KEY, "label": …, "decision": …}` line each (`decision` left out
/// for models without a decision API, `null` for an escalation: format 1's lines plus the
/// model): the database's answers in key order, then each sealed segment's in key order.
/// Returns the number of lines.
pub fn export(dir: &Path, out: &mut dyn Write) -> Result<u64, Error> {
    let (conn, path, _) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let read = sql("reading", &path);
    let io = |source| Error::Cache {
        action: "exporting",
        path: path.clone(),
        source,
    };
    let mut st = conn
        .prepare(
            "SELECT models.identity, answers.k, answers.label, answers.decision FROM answers
             JOIN models ON models.id = answers.model ORDER BY answers.k",
        )
        .map_err(&read)?;
    let mut rows = st.query(params![]).map_err(&read)?;
    let mut n = 0;
    let mut write = |identity: &str, key: &[u8], label: &str, decision: Option<&str>| {
        let mut line = format!(
            "{{\"model\":{},\"k\":\"{}\",\"label\":{label}",
            serde_json::Value::String(identity.to_owned()),
            blake3_hex(key)
        );
        if let Some(d) = decision {
            line.push_str(",\"decision\":");
            line.push_str(d);
        }
        line.push_str("}\n");
        n += 1;
        out.write_all(line.as_bytes()).map_err(&io)
    };
    while let Some(row) = rows.next().map_err(&read)? {
        let identity: String = row.get(0).map_err(&read)?;
        let key: Vec<u8> = row.get(1).map_err(&read)?;
        let label: String = row.get(2).map_err(&read)?;
        let decision: Option<String> = row.get(3).map_err(&read)?;
        write(&identity, &key, &label, decision.as_deref())?;
    }
    for (model, name, _) in segments(&conn, &path)? {
        let identity: String = conn
            .query_row(
                "SELECT identity FROM models WHERE id = ?1",
                params![model],
                |r| r.get(0),
            )
            .map_err(&read)?;
        let file = dir.join(SEGMENTS).join(name);
        let reading = file_error("reading", &file);
        let segment = Segment::open(&file).map_err(&reading)?;
        for answer in segment.in_order() {
            let (key, (label, decision)) = answer.map_err(&reading)?;
            write(&identity, &key, &label, decision.as_deref())?;
        }
    }
    Ok(n)
}

/// Writes every `openai:` reply of the cache in `dir` to `out` as JSONL, in key order, one line
/// each exactly as earlier capkit's reply file held it
/// (`{"format":"capkit-chat-cache/1","key":HEX,"model":…,"reply":…}`, see
/// `chat_client::ReplyEntry::to_json`). Returns the number of lines (0 for a cache without
/// replies).
pub fn export_replies(dir: &Path, out: &mut dyn Write) -> Result<u64, Error> {
    let (conn, path, _) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    if !has_table(&conn, &path, "replies")? {
        return Ok(0);
    }
    let read = sql("reading", &path);
    let mut st = conn
        .prepare("SELECT k, model, reply FROM replies ORDER BY k")
        .map_err(&read)?;
    let mut rows = st.query([]).map_err(&read)?;
    let mut n = 0;
    while let Some(row) = rows.next().map_err(&read)? {
        let key: Vec<u8> = row.get(0).map_err(&read)?;
        // A damaged key (`cache verify` names it) has no entry form.
        let Ok(key) = <[u8; 32]>::try_from(key.as_slice()) else {
            continue;
        };
        let entry = chat_client::ReplyEntry {
            key: blake3::Hash::from_bytes(key),
            model: row.get(1).map_err(&read)?,
            reply: row.get(2).map_err(&read)?,
        };
        let mut line = entry.to_json();
        line.push('\n');
        out.write_all(line.as_bytes())
            .map_err(|source| Error::Cache {
                action: "exporting",
                path: path.clone(),
                source,
            })?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::Cached;
    use serde_json::json;
    use suite_core::{Model, PerItemFn};

    #[test]
    fn stats_verify_compact_and_export_a_cache() {
        let tmp = tempfile::tempdir().unwrap();
        let model = PerItemFn::new(|t: &str| json!(t.len()));
        Cached::new(&model, tmp.path(), "a\0one")
            .predict_batch(&["x", "yy", "zzz"])
            .unwrap();
        Cached::new(&model, tmp.path(), "b")
            .predict_batch(&["x"])
            .unwrap();
        let s = stats(tmp.path()).unwrap();
        assert_eq!(s.answers, 4);
        assert_eq!(
            s.models,
            [
                ModelAnswers {
                    identity: "a · one".into(),
                    answers: 3
                },
                ModelAnswers {
                    identity: "b".into(),
                    answers: 1
                }
            ]
        );
        assert!(s.bytes > 0);
        assert_eq!(verify(tmp.path()).unwrap(), Vec::<String>::new());
        let mut out = Vec::new();
        assert_eq!(export(tmp.path(), &mut out).unwrap(), 4);
        let text = String::from_utf8(out).unwrap();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v["k"].as_str().unwrap().len() == 64 && v.get("decision").is_none());
        }
        let (before, after) = compact(tmp.path()).unwrap();
        assert!(after <= before, "{before} -> {after}");
        assert_eq!(stats(tmp.path()).unwrap().answers, 4);
    }

    /// A cache with 5,000 answers of model `a` (enough to seal), the model and its texts.
    fn sealable_cache() -> (
        tempfile::TempDir,
        PerItemFn<impl Fn(&str) -> serde_json::Value>,
        Vec<String>,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let model = PerItemFn::new(|t: &str| json!(t.len()));
        let texts: Vec<String> = (0..5000).map(|i| format!("t{i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        Cached::new(&model, tmp.path(), "a")
            .predict_batch(&refs)
            .unwrap();
        (tmp, model, texts)
    }

    #[test]
    fn a_compacted_cache_counts_exports_and_verifies_its_sealed_answers() {
        let (tmp, model, texts) = sealable_cache();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        Cached::new(&model, tmp.path(), "b")
            .predict_batch(&refs[..10])
            .unwrap();
        let mut before = Vec::new();
        export(tmp.path(), &mut before).unwrap();
        compact(tmp.path()).unwrap();
        let s = stats(tmp.path()).unwrap();
        assert_eq!((s.answers, s.format.as_str()), (5010, SEALED_FORMAT));
        assert_eq!(s.models[0].answers, 5000);
        // "b" is too small to seal: one segment.
        assert_eq!(
            std::fs::read_dir(tmp.path().join(SEGMENTS))
                .unwrap()
                .count(),
            1
        );
        assert_eq!(verify(tmp.path()).unwrap(), Vec::<String>::new());
        let mut after = Vec::new();
        assert_eq!(export(tmp.path(), &mut after).unwrap(), 5010);
        let sorted = |bytes: &[u8]| {
            let mut lines: Vec<String> = String::from_utf8(bytes.to_vec())
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect();
            lines.sort();
            lines
        };
        assert_eq!(sorted(&before), sorted(&after));
        // A run after the compaction asks the model about nothing it answered before.
        let again = Cached::new(&model, tmp.path(), "a");
        again.predict_batch(&refs).unwrap();
        assert_eq!((again.hits(), again.misses()), (5000, 0));
        // A damaged segment is named.
        let file = std::fs::read_dir(tmp.path().join(SEGMENTS))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let mut bytes = std::fs::read(&file).unwrap();
        let at = bytes.len() - 2;
        bytes[at] ^= 0x55;
        std::fs::write(&file, bytes).unwrap();
        let problems = verify(tmp.path()).unwrap();
        assert!(
            problems
                .iter()
                .any(|p| p.contains("segment") && p.contains("digest")),
            "{problems:?}"
        );
    }

    #[test]
    fn replies_are_counted_verified_exported_and_kept_by_a_compaction() {
        use chat_client::{ReplyStore as _, ResponseCache};
        let (tmp, _, _) = sealable_cache();
        // A cache from before replies: none, and nothing to export.
        assert_eq!(stats(tmp.path()).unwrap().replies, 0);
        assert_eq!(export_replies(tmp.path(), &mut Vec::new()).unwrap(), 0);
        let db = crate::ReplyDatabase::open(tmp.path()).unwrap();
        let keys: Vec<blake3::Hash> = (0..3).map(|i| blake3::hash(&[i])).collect();
        for (i, key) in keys.iter().enumerate() {
            db.put_reply(key, "gpt", &format!("reply \"{i}\"\n"))
                .unwrap();
        }
        drop(db);
        let s = stats(tmp.path()).unwrap();
        assert_eq!((s.replies, s.answers), (3, 5000));
        assert_eq!(verify(tmp.path()).unwrap(), Vec::<String>::new());
        let mut before = Vec::new();
        assert_eq!(export_replies(tmp.path(), &mut before).unwrap(), 3);
        // Each line is an entry file of the old reply directory.
        let old = tmp.path().join("old");
        for line in String::from_utf8(before.clone()).unwrap().lines() {
            let key = &serde_json::from_str::<serde_json::Value>(line).unwrap()["key"];
            let key = key.as_str().unwrap();
            let file = old.join(&key[..2]).join(format!("{key}.json"));
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, line).unwrap();
        }
        let old = ResponseCache::new(old);
        assert_eq!(old.get_reply(&keys[1]).as_deref(), Some("reply \"1\"\n"));
        compact(tmp.path()).unwrap();
        assert_eq!(stats(tmp.path()).unwrap().replies, 3);
        let mut after = Vec::new();
        export_replies(tmp.path(), &mut after).unwrap();
        assert_eq!(before, after);
        // A damaged reply is named.
        let conn = Connection::open(tmp.path().join(DATABASE)).unwrap();
        conn.execute(
            "UPDATE replies SET reply = X'ff' WHERE model = 'gpt' AND k = ?1",
            params![&keys[0].as_bytes()[..]],
        )
        .unwrap();
        drop(conn);
        let problems = verify(tmp.path()).unwrap();
        assert_eq!(
            problems,
            [format!("reply {}: reply is not text", keys[0].to_hex())]
        );
    }

    #[test]
    fn a_missing_cache_is_named_and_not_created() {
        let tmp = tempfile::tempdir().unwrap();
        let err = stats(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("there is no prediction cache there"), "{err}");
        assert!(!tmp.path().join(DATABASE).exists());
    }

    #[test]
    fn verify_names_a_damaged_answer() {
        let tmp = tempfile::tempdir().unwrap();
        let model = PerItemFn::new(|t: &str| json!(t.len()));
        Cached::new(&model, tmp.path(), "m")
            .predict_batch(&["x"])
            .unwrap();
        let conn = Connection::open(tmp.path().join(DATABASE)).unwrap();
        conn.execute("UPDATE answers SET label = '{not json'", [])
            .unwrap();
        drop(conn);
        let problems = verify(tmp.path()).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].ends_with("label is not JSON"), "{problems:?}");
    }
}
