//! Preloads a prediction cache with one answer for every text a profile will ask: how the
//! 10-million-text run "answered from the cache" is set up without first spending hours filling
//! the cache through a profile (docs/model-protocol.md).
//!
//! ```sh
//! capkit profile texts --texts TEXTS --suite SUITE > asked.jsonl
//! cargo run --release -p capkit-model-adapters --example cache_preload -- \
//!     DIR asked.jsonl '"pos"' SPEC [SPEC …]
//! ```
//!
//! Every `{"text": …}` line of `asked.jsonl` gets the answer LABEL_JSON (a classifier's label, no
//! decision API) for each spec, keyed exactly as `capkit profile classify` keys that model's
//! answers (the identity is the opened model's own), written straight into the store's table in key order (in transactions of a
//! million rows). A later `capkit profile classify` with the same texts, suite and specs then
//! asks no model anything.

use std::io::BufRead as _;

use model_adapters::{Cached, DATABASE, ModelSpec, Settings, answer_key};
use rusqlite::params;
use suite_core::PerItemFn;

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The cache identity `capkit profile classify` gives the model of `spec`: asked of the opened
/// model itself (a `cmd:` model's process is started and stopped again), so the keys are the
/// profile's own whatever the identity holds.
fn identity(spec: &str) -> Result<String, Failure> {
    let model = ModelSpec::parse(spec)?.open(&Settings::default())?;
    model
        .cache_identity()
        .ok_or_else(|| format!("{spec}: a model without cached answers (file:)").into())
}

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, asked, label, specs @ ..] = args.as_slice() else {
        return Err("usage: cache_preload DIR ASKED.jsonl LABEL_JSON SPEC…".into());
    };
    if specs.is_empty() {
        return Err("name at least one model spec".into());
    }
    serde_json::from_str::<serde_json::Value>(label)
        .map_err(|e| format!("LABEL_JSON {label:?} is not JSON: {e}"))?;
    let dir = std::path::Path::new(dir);
    let started = std::time::Instant::now();

    // Create the cache and each model's row as a profile would.
    let nobody = PerItemFn::new(|_: &str| serde_json::Value::Null);
    let mut conn = None;
    let mut models = Vec::new();
    for spec in specs {
        let identity = identity(spec)?;
        let cached = Cached::new(&nobody, dir, &identity);
        if let Some(w) = cached.take_warning() {
            return Err(w.into());
        }
        drop(cached);
        let c = conn.get_or_insert(rusqlite::Connection::open(dir.join(DATABASE))?);
        let id: i64 = c.query_row(
            "SELECT id FROM models WHERE identity = ?1",
            params![identity],
            |r| r.get(0),
        )?;
        models.push((identity, id));
    }
    let Some(mut conn) = conn else {
        return Ok(());
    };

    let mut keys: Vec<([u8; 32], i64)> = Vec::new();
    let file = std::fs::File::open(asked).map_err(|e| format!("{asked}: {e}"))?;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{asked}: {e}"))?;
        #[derive(serde::Deserialize)]
        struct Asked {
            text: String,
        }
        let Asked { text } =
            serde_json::from_str(&line).map_err(|e| format!("{asked}, line {}: {e}", n + 1))?;
        for (identity, id) in &models {
            keys.push((answer_key(identity, &text), *id));
        }
    }
    keys.sort_unstable();
    conn.pragma_update(None, "synchronous", "OFF")?;
    for rows in keys.chunks(1_000_000) {
        let tx = conn.transaction()?;
        {
            let mut st = tx.prepare_cached(
                "INSERT OR IGNORE INTO answers(k, model, label, decision) VALUES (?1, ?2, ?3, NULL)",
            )?;
            for (key, model) in rows {
                st.execute(params![&key[..], model, label])?;
            }
        }
        tx.commit()?;
    }
    println!(
        "preloaded {} answers ({} models) in {:.1} s",
        keys.len(),
        models.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
