//! `openai:` replies in the prediction cache's database: [`ReplyDatabase`], the
//! [`ReplyStore`] the chat client of `openai:` models keeps its replies in when a cache directory
//! is in use.
//!
//! One row per reply in the `replies` table of `DIR/predictions.sqlite3`, keyed by the blake3
//! hash of the exact request (`chat_client::CanonicalRequest::key`): the same keys as the
//! directory of reply files earlier capkit kept in `DIR/chat/` (`chat_client::ResponseCache`),
//! whose replies are imported the first time a cache directory's replies are opened, once (the
//! import is recorded in the `meta` table), and whose files are left where they are.
//!
//! A put is one committed transaction: a run killed at any point keeps each reply whole or not at
//! all. Several processes share the table as they share the answers (WAL, the busy timeout).
//! The table is new beside unchanged ones, so the store's format string stays: an earlier capkit
//! reads the same answers and ignores a table it does not know.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use chat_client::{ClientError, ReplyEntry, ReplyStore, ResponseCache};
use rusqlite::{Connection, OptionalExtension as _, params};

use crate::cache::{open_database, store_error};
use crate::error::Error;

/// Where earlier capkit kept `openai:` replies inside a prediction cache directory, one file per
/// reply (`chat_client::ResponseCache`): `DIR/chat`. [`ReplyDatabase::open`] imports it once.
pub fn reply_cache_dir(cache_dir: &Path) -> PathBuf {
    cache_dir.join("chat")
}

/// The table, created by the first opening of a cache directory's replies.
const TABLE: &str = "CREATE TABLE IF NOT EXISTS replies(k BLOB PRIMARY KEY, model TEXT NOT NULL, reply TEXT NOT NULL) WITHOUT ROWID";

/// The `meta` key recording that the reply directory `DIR/chat` was imported (its value: how
/// many replies were read from it).
pub(crate) const IMPORTED: &str = "chat-replies-imported";

/// Replies imported per transaction: another process's writes wait at most one batch.
const IMPORT_BATCH: usize = 4096;

/// The `openai:` replies of a prediction cache directory, in its database (see the module doc).
/// Shared by the chat client's worker threads (one connection behind a mutex: a lookup is a few
/// microseconds against a request's milliseconds to seconds).
#[derive(Debug)]
pub struct ReplyDatabase {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl ReplyDatabase {
    /// Opens (creating if needed) the replies of the cache in `dir`, importing the reply files of
    /// `DIR/chat` ([`reply_cache_dir`]) the first time. Fails when the cache's database cannot be
    /// opened or is of another format (named).
    pub fn open(dir: &Path) -> Result<ReplyDatabase, Error> {
        let (mut conn, path) = open_database(dir)?;
        conn.execute_batch(TABLE)
            .map_err(store_error("creating", &path))?;
        import_once(&mut conn, &path, &reply_cache_dir(dir))?;
        Ok(ReplyDatabase {
            path,
            conn: Mutex::new(conn),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn client_error(&self, e: rusqlite::Error) -> ClientError {
        ClientError::Cache {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }
}

impl ReplyStore for ReplyDatabase {
    /// A read error is a miss: the request is sent again.
    fn get_reply(&self, key: &blake3::Hash) -> Option<String> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached("SELECT reply FROM replies WHERE k = ?1")
            .ok()?;
        st.query_row(params![&key.as_bytes()[..]], |r| r.get(0))
            .optional()
            .ok()
            .flatten()
    }

    /// One statement, so one committed transaction: the reply is whole in the table or absent.
    fn put_reply(&self, key: &blake3::Hash, model: &str, reply: &str) -> Result<(), ClientError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached("INSERT OR REPLACE INTO replies(k, model, reply) VALUES (?1, ?2, ?3)")
            .map_err(|e| self.client_error(e))?;
        st.execute(params![&key.as_bytes()[..], model, reply])
            .map_err(|e| self.client_error(e))?;
        Ok(())
    }
}

/// Whether the reply directory has been imported into the database `conn` is open on.
fn imported(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) > 0 FROM meta WHERE key = ?1",
        params![IMPORTED],
        |r| r.get(0),
    )
}

/// Imports the valid replies of the directory `old` (what `ResponseCache::get` would answer)
/// unless the database records an import, then records it. Batches of [`IMPORT_BATCH`] replies,
/// each one transaction, in key order; a reply already in the table is kept. Killed midway, the
/// next opening imports again (the rows already in are kept, so it only costs time). Two
/// processes importing at once both insert the same rows; the second to finish sees the record
/// and stops.
fn import_once(conn: &mut Connection, db: &Path, old: &Path) -> Result<(), Error> {
    let write = store_error("importing into", db);
    if imported(conn).map_err(&write)? {
        return Ok(());
    }
    let cache = ResponseCache::new(old);
    let mut entries = cache.entries();
    let mut count: u64 = 0;
    loop {
        let mut batch: Vec<ReplyEntry> = entries.by_ref().take(IMPORT_BATCH).collect();
        batch.sort_unstable_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));
        let last = batch.len() < IMPORT_BATCH;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(&write)?;
        if imported(&tx).map_err(&write)? {
            return Ok(());
        }
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO replies(k, model, reply) VALUES (?1, ?2, ?3)",
                )
                .map_err(&write)?;
            for entry in &batch {
                st.execute(params![&entry.key.as_bytes()[..], entry.model, entry.reply])
                    .map_err(&write)?;
            }
        }
        count += batch.len() as u64;
        if last {
            tx.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES (?1, ?2)",
                params![IMPORTED, count.to_string()],
            )
            .map_err(&write)?;
        }
        tx.commit().map_err(&write)?;
        if last {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use chat_client::{CanonicalRequest, ChatMessage};

    fn request(text: &str) -> CanonicalRequest {
        CanonicalRequest {
            model: "m".into(),
            messages: vec![ChatMessage {
                role: "user".into(),
                content: text.into(),
            }],
            temperature: 0.0,
            seed: 0,
            max_tokens: None,
        }
    }

    fn rows(dir: &Path) -> i64 {
        let (conn, _) = open_database(dir).unwrap();
        conn.query_row("SELECT count(*) FROM replies", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn replies_are_kept_across_a_reopen_and_seen_by_another_connection() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (request("a").key(), request("b").key());
        let db = ReplyDatabase::open(tmp.path()).unwrap();
        assert_eq!(db.get_reply(&a), None);
        db.put_reply(&a, "m", "reply a").unwrap();
        assert_eq!(db.get_reply(&a).as_deref(), Some("reply a"));
        // A second connection (as another process would have) sees it and adds its own.
        let other = ReplyDatabase::open(tmp.path()).unwrap();
        assert_eq!(other.get_reply(&a).as_deref(), Some("reply a"));
        other.put_reply(&b, "m", "reply b").unwrap();
        assert_eq!(db.get_reply(&b).as_deref(), Some("reply b"));
        drop((db, other));
        let db = ReplyDatabase::open(tmp.path()).unwrap();
        assert_eq!(db.get_reply(&a).as_deref(), Some("reply a"));
        assert_eq!(db.get_reply(&b).as_deref(), Some("reply b"));
        assert_eq!(db.path(), tmp.path().join(crate::DATABASE));
        // Beside the answers, in the same file.
        assert_eq!(rows(tmp.path()), 2);
    }

    #[test]
    fn threads_share_one_store() {
        let tmp = tempfile::tempdir().unwrap();
        let db = ReplyDatabase::open(tmp.path()).unwrap();
        std::thread::scope(|s| {
            for t in 0..4 {
                let db = &db;
                s.spawn(move || {
                    for i in 0..50 {
                        let key = request(&format!("{t}-{i}")).key();
                        db.put_reply(&key, "m", &format!("{t}-{i}")).unwrap();
                        assert!(db.get_reply(&key).is_some());
                    }
                });
            }
        });
        assert_eq!(rows(tmp.path()), 200);
    }

    #[test]
    fn a_put_that_cannot_commit_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let db = ReplyDatabase::open(tmp.path()).unwrap();
        let (blocker, _) = open_database(tmp.path()).unwrap();
        blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
        db.conn()
            .busy_timeout(std::time::Duration::from_millis(10))
            .unwrap();
        let key = request("a").key();
        let err = db.put_reply(&key, "m", "reply").unwrap_err().to_string();
        assert!(err.contains(crate::DATABASE), "{err}");
        blocker.execute_batch("ROLLBACK").unwrap();
        assert_eq!(db.get_reply(&key), None);
    }

    #[test]
    fn the_old_reply_directory_is_imported_once_and_left_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let old = ResponseCache::new(reply_cache_dir(tmp.path()));
        let (a, b, c) = (request("a"), request("b"), request("c"));
        old.put(&a, "reply a").unwrap();
        old.put(&b, "reply b").unwrap();
        // A torn entry and a foreign one: misses for `ResponseCache::get`, so not imported.
        old.put(&c, "reply c").unwrap();
        let file_of = |r: &CanonicalRequest| {
            let hex = r.key().to_hex().to_string();
            old.dir().join(&hex[..2]).join(format!("{hex}.json"))
        };
        std::fs::write(file_of(&b), "{\"format\": \"capkit-chat-cache/1\", \"ke").unwrap();
        let foreign = std::fs::read_to_string(file_of(&c))
            .unwrap()
            .replace("capkit-chat-cache/1", "capkit-chat-cache/0");
        std::fs::write(file_of(&c), foreign).unwrap();
        let db = ReplyDatabase::open(tmp.path()).unwrap();
        assert_eq!(db.get_reply(&a.key()).as_deref(), Some("reply a"));
        assert_eq!(
            (db.get_reply(&b.key()), db.get_reply(&c.key())),
            (None, None)
        );
        let (conn, _) = open_database(tmp.path()).unwrap();
        let (model, recorded): (String, String) = conn
            .query_row(
                "SELECT replies.model, meta.value FROM replies, meta WHERE meta.key = ?1",
                params![IMPORTED],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((model.as_str(), recorded.as_str()), ("m", "1"));
        drop(db);
        // The files are left alone, and a reply added to them later is not imported again.
        assert_eq!(old.get(&a).as_deref(), Some("reply a"));
        let d = request("d");
        old.put(&d, "reply d").unwrap();
        let db = ReplyDatabase::open(tmp.path()).unwrap();
        assert_eq!(db.get_reply(&d.key()), None);
        assert_eq!(rows(tmp.path()), 1);
    }

    #[test]
    fn an_interrupted_import_is_finished_by_the_next_opening() {
        // More than one batch; an import killed after some batches (simulated: the record and
        // part of the rows removed) is done again, keeping a reply stored since.
        let tmp = tempfile::tempdir().unwrap();
        let old = ResponseCache::new(reply_cache_dir(tmp.path()));
        let n = IMPORT_BATCH + 10;
        for i in 0..n {
            old.put(&request(&i.to_string()), &format!("r{i}")).unwrap();
        }
        let db = ReplyDatabase::open(tmp.path()).unwrap();
        let newer = request("newer").key();
        db.put_reply(&newer, "m", "fresh").unwrap();
        db.conn()
            .execute_batch(&format!(
                "DELETE FROM meta WHERE key = '{IMPORTED}';
                 DELETE FROM replies WHERE reply LIKE 'r%' AND k > X'80'"
            ))
            .unwrap();
        assert!(rows(tmp.path()) < n as i64);
        drop(db);
        let db = ReplyDatabase::open(tmp.path()).unwrap();
        assert_eq!(rows(tmp.path()), n as i64 + 1);
        assert_eq!(db.get_reply(&newer).as_deref(), Some("fresh"));
        let last = (n - 1).to_string();
        assert_eq!(
            db.get_reply(&request(&last).key()),
            Some(format!("r{last}"))
        );
    }
}
