//! A `cmd:` model for `capkit profile`: answers the JSONL protocol (docs/model-protocol.md) with
//! one of the upstream scenarios' rule models.
//!
//! ```sh
//! cargo build --release -p capkit --example jsonl_model
//! capkit profile classify --texts t.txt \
//!   --student "cmd:target/release/examples/jsonl_model scenario.json student" \
//!   --teacher "cmd:target/release/examples/jsonl_model scenario.json teacher"
//! ```
//!
//! The file is a scenario (its `student` or `teacher` object is used) or a model object
//! `{"rule": …, "decision": {"escalate_if": …}}`. The answer carries `"decision"` when the model
//! has a decision API. Output is flushed whenever no more input is waiting, so batches stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead as _, BufReader, BufWriter, Write as _};

use scenario_rules::RuleModel;
use serde::Deserialize;
use serde_json::Value;
use suite_core::Decision;

#[derive(Deserialize)]
struct Request<'a> {
    id: u64,
    #[serde(borrow)]
    text: std::borrow::Cow<'a, str>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: jsonl_model MODEL.json [student|teacher]");
        std::process::exit(2);
    };
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let spec = match args.get(1) {
        Some(side) if spec.get("rule").is_none() => spec[side.as_str()].clone(),
        _ => spec,
    };
    let model = RuleModel::from_scenario(&spec).unwrap();
    let key = if spec["task"] == "extract" {
        "record"
    } else {
        "label"
    };

    let stdin = std::io::stdin();
    let mut input = BufReader::with_capacity(1 << 16, stdin.lock());
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = Vec::new();
    loop {
        // Flush before blocking on input, so the caller gets every answer it is waiting for.
        if input.buffer().is_empty() {
            out.flush().unwrap();
        }
        line.clear();
        if input.read_until(b'\n', &mut line).unwrap() == 0 {
            break;
        }
        let request: Request = serde_json::from_slice(&line).unwrap();
        let label = model.predict(&request.text).unwrap();
        write!(out, "{{\"id\":{},\"{key}\":", request.id).unwrap();
        serde_json::to_writer(&mut out, &label).unwrap();
        if let Some(decision) = model.decide(&request.text) {
            out.write_all(b",\"decision\":").unwrap();
            match decision.unwrap() {
                Decision::Escalate => out.write_all(b"null").unwrap(),
                Decision::Answer(v) => serde_json::to_writer(&mut out, &v).unwrap(),
            }
        }
        out.write_all(b"}\n").unwrap();
    }
    out.flush().unwrap();
}
