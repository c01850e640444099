//! Looking after a prediction cache directory: what it holds ([`stats`]), whether it is sound
//! ([`verify`]), reclaiming space ([`compact`]) and its answers as JSONL ([`export`]). Every
//! function opens an existing cache and never creates one.

use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, params};
use serde::Serialize;

use crate::cache::{
    BUSY_TIMEOUT, DATABASE, STORE_FORMAT, cache_size, check_format, store_error as sql,
};
use crate::error::Error;

/// What a cache holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheStats {
    /// The database file.
    pub path: PathBuf,
    /// Its bytes on disk, write-ahead log included.
    pub bytes: u64,
    /// The store's format (`capkit-prediction-cache/2 (sqlite)`).
    pub format: String,
    /// Answers in all.
    pub answers: u64,
    /// Answers per model identity, most first.
    pub models: Vec<ModelAnswers>,
}

/// The answers of one model identity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelAnswers {
    /// The identity (task, scheme and what names the model), its NUL separators shown as ` · `.
    pub identity: String,
    /// How many answers the cache holds for it.
    pub answers: u64,
}

/// Opens the cache database of `dir`, which must exist and be of this capkit's format.
fn open_existing(dir: &Path, flags: OpenFlags) -> Result<(Connection, PathBuf), Error> {
    let path = dir.join(DATABASE);
    if !path.is_file() {
        return Err(Error::NoCache { path });
    }
    let conn = Connection::open_with_flags(&path, flags).map_err(sql("opening", &path))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(sql("opening", &path))?;
    check_format(&conn, &path)?;
    Ok((conn, path))
}

fn shown(identity: &str) -> String {
    identity.replace('\0', " · ")
}

/// Sizes and answers per model of the cache in `dir`.
pub fn stats(dir: &Path) -> Result<CacheStats, Error> {
    let (conn, path) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let read = sql("reading", &path);
    let mut st = conn
        .prepare(
            "SELECT models.identity, count(answers.k) AS n FROM models
             LEFT JOIN answers ON answers.model = models.id
             GROUP BY models.id ORDER BY n DESC, models.identity",
        )
        .map_err(&read)?;
    let models = st
        .query_map([], |r| {
            Ok(ModelAnswers {
                identity: shown(&r.get::<_, String>(0)?),
                answers: r.get::<_, i64>(1)?.max(0) as u64,
            })
        })
        .map_err(&read)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(&read)?;
    Ok(CacheStats {
        bytes: cache_size(&path),
        format: STORE_FORMAT.to_owned(),
        answers: models.iter().map(|m| m.answers).sum(),
        models,
        path,
    })
}

/// Checks the cache in `dir`: SQLite's integrity check, then every stored answer is JSON and
/// belongs to a known model. Returns the problems found (empty: sound).
pub fn verify(dir: &Path) -> Result<Vec<String>, Error> {
    let (conn, path) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
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
    Ok(problems)
}

fn blake3_hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reclaims the space of the cache in `dir` (checkpoints the write-ahead log and rewrites the
/// file). Returns its size before and after, in bytes. Waits for other processes' writes.
pub fn compact(dir: &Path) -> Result<(u64, u64), Error> {
    let (conn, path) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    let before = cache_size(&path);
    let write = sql("compacting", &path);
    conn.execute_batch("VACUUM").map_err(&write)?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .map_err(&write)?;
    drop(conn);
    Ok((before, cache_size(&path)))
}

/// Writes every answer of the cache in `dir` to `out` as JSONL, one
/// `{"model": IDENTITY, "k": KEY, "label": …, "decision": …}` line each (`decision` left out
/// for models without a decision API, `null` for an escalation: format 1's lines plus the
/// model), in key order. Returns the number of lines.
pub fn export(dir: &Path, out: &mut dyn Write) -> Result<u64, Error> {
    let (conn, path) = open_existing(dir, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
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
    while let Some(row) = rows.next().map_err(&read)? {
        let identity: String = row.get(0).map_err(&read)?;
        let key: Vec<u8> = row.get(1).map_err(&read)?;
        let label: String = row.get(2).map_err(&read)?;
        let decision: Option<String> = row.get(3).map_err(&read)?;
        let mut line = format!(
            "{{\"model\":{},\"k\":\"{}\",\"label\":{label}",
            serde_json::Value::String(identity),
            blake3_hex(&key)
        );
        if let Some(d) = decision {
            line.push_str(",\"decision\":");
            line.push_str(&d);
        }
        line.push_str("}\n");
        out.write_all(line.as_bytes()).map_err(io)?;
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
