//! `openai:` replies, files against the cache's database: writes N synthetic replies as earlier
//! capkit did (one file each in `DIR/chat`, `chat_client::ResponseCache`), imports them into the
//! database (`ReplyDatabase::open`, the one-time migration), looks every one up, then stores N
//! fresh replies in the database; prints wall and CPU time of each step, the bytes on disk and
//! the peak RSS.
//!
//! ```sh
//! cargo run --release -p capkit-model-adapters --example reply_store -- 100000 /path/to/new/dir
//! ```
//!
//! Replies are about 60 bytes (a short label or a small JSON record, as `openai:` classifiers
//! and extractors answer).

use std::path::Path;
use std::time::Instant;

use chat_client::{CanonicalRequest, ChatMessage, ReplyStore, ResponseCache};
use model_adapters::{DATABASE, ReplyDatabase, cache_size, reply_cache_dir};

mod measure;

use measure::{cpu_seconds, peak_rss_mib};

fn request(i: u64) -> CanonicalRequest {
    CanonicalRequest {
        model: "synthetic-model".to_owned(),
        messages: vec![ChatMessage {
            role: "user".to_owned(),
            content: format!("Label this text:\nsynthetic review number {i}"),
        }],
        temperature: 0.0,
        seed: 0,
        max_tokens: None,
    }
}

fn reply(i: u64) -> String {
    format!(
        "{{\"label\": \"{}\", \"id\": {i}}}",
        ["pos", "neg"][(i % 2) as usize]
    )
}

/// Files under `dir` and their bytes (contents, not blocks).
fn files_and_bytes(dir: &Path) -> (u64, u64) {
    let mut total = (0, 0);
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            let (n, b) = files_and_bytes(&path);
            total = (total.0 + n, total.1 + b);
        } else if let Ok(m) = entry.metadata() {
            total = (total.0 + 1, total.1 + m.len());
        }
    }
    total
}

/// Runs `step`, printing its wall and CPU time and the rate over `n` items.
fn timed<T>(name: &str, n: u64, step: impl FnOnce() -> T) -> T {
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let out = step();
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    println!(
        "{name}: {wall:.2} s wall, {cpu:.2} s CPU; {:.0}/s wall, {:.0} per CPU second",
        n as f64 / wall,
        n as f64 / cpu.max(0.01)
    );
    out
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: reply_store N DIR (DIR new or empty)";
    let n: u64 = args.next().ok_or(usage)?.parse()?;
    let dir = std::path::PathBuf::from(args.next().ok_or(usage)?);
    if dir.join(DATABASE).exists() || reply_cache_dir(&dir).exists() {
        return Err(format!("{}: not empty ({usage})", dir.display()).into());
    }
    let old = ResponseCache::new(reply_cache_dir(&dir));
    timed("write N reply files (earlier capkit)", n, || {
        (0..n).try_for_each(|i| old.put(&request(i), &reply(i)))
    })?;
    let (files, bytes) = files_and_bytes(old.dir());
    println!(
        "files: {files}, {bytes} bytes of contents ({:.0} per reply; each also takes a file-system block and an inode)",
        bytes as f64 / n as f64
    );
    let keys: Vec<blake3::Hash> = (0..n).map(|i| request(i).key()).collect();
    let db = timed("open = import them into the database (once)", n, || {
        ReplyDatabase::open(&dir)
    })?;
    let found = timed("look up every reply (one thread)", n, || {
        keys.iter().filter(|k| db.get_reply(k).is_some()).count() as u64
    });
    assert_eq!(found, n, "an imported reply is missing");
    timed("store N fresh replies (one transaction each)", n, || {
        (n..2 * n).try_for_each(|i| db.put_reply(&request(i).key(), "synthetic-model", &reply(i)))
    })?;
    drop(db);
    let size = cache_size(&dir.join(DATABASE));
    println!(
        "database: {size} bytes for {} replies ({:.0} per reply)",
        2 * n,
        size as f64 / (2 * n) as f64
    );
    println!("peak RSS {:.1} MiB", peak_rss_mib());
    Ok(())
}
