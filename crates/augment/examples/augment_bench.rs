//! Benchmark: augment N training texts (default 1,000,000, streamed from a file) with a fast
//! in-process teacher; prints rows per second of this process's CPU time (the teacher's share
//! measured apart) and the peak resident memory.
//!
//! ```sh
//! cargo run --release -p capkit-augment --example augment_bench -- [N] [FRACTION] [CHUNK]
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::Cell;
use std::io::{BufWriter, Write};
use std::time::Duration;

use augment::{Evaluation, InMemory, Job, Options, TextsFile, Total, suite_fingerprint};
use cpu_time::ProcessTime;
use profile_stats::{ClassifyCounts, Counts, ProfileReport, SuiteDescriptor};
use serde_json::json;
use suite_core::{Label, Model, ModelError, SharedLabel, SuiteSpec};

const SUITE: &str = r#"{
  "corruptions": [
    {"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05, "seed": 0},
    {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.10, "seed": 0},
    {"name": "typo_20", "transform": "keyboard_typo", "rate": 0.20, "seed": 0}
  ],
  "invariances": [
    {"name": "case", "transform": "case_jitter"},
    {"name": "whitespace", "transform": "whitespace"}
  ]
}"#;

const WORDS: [&str; 16] = [
    "the", "food", "was", "good", "bad", "service", "slow", "friendly", "coffee", "really",
    "great", "not", "staff", "value", "money", "terrible",
];

/// A text of 6 to 17 words, different for every `i`.
fn text(i: u64, out: &mut String) {
    out.clear();
    let mut x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5851_f42d_4c95_7f2d;
    for _ in 0..6 + i % 12 {
        x ^= x >> 29;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        out.push_str(WORDS[(x >> 60) as usize]);
        out.push(' ');
    }
    out.push_str(&i.to_string());
}

/// A teacher that answers from the text alone, timing itself.
struct Teacher {
    pos: SharedLabel,
    neg: SharedLabel,
    time: Cell<Duration>,
}

impl Model for Teacher {
    fn predict_batch(&self, texts: &[&str]) -> Result<Vec<Label>, ModelError> {
        Ok(self
            .predict_shared(texts)?
            .into_iter()
            .map(|l| (*l).clone())
            .collect())
    }
    fn predict_shared(&self, texts: &[&str]) -> Result<Vec<SharedLabel>, ModelError> {
        let start = ProcessTime::now();
        let out = texts
            .iter()
            .map(|t| {
                if t.contains("good") {
                    self.pos.clone()
                } else {
                    self.neg.clone()
                }
            })
            .collect();
        self.time.set(self.time.get() + start.elapsed());
        Ok(out)
    }
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(1_000_000, |a| a.parse().unwrap());
    let fraction: f64 = args.next().map_or(1.0, |a| a.parse().unwrap());
    let chunk: usize = args.next().map_or(4096, |a| a.parse().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let train_path = dir.path().join("train.txt");
    {
        let mut w = BufWriter::new(std::fs::File::create(&train_path).unwrap());
        let mut t = String::new();
        for i in 0..n {
            text(i, &mut t);
            writeln!(w, "{t}").unwrap();
        }
    }
    // 10,000 evaluation texts, a tenth of them also among the training texts.
    let eval = InMemory::new((0..10_000u64).map(|i| {
        let mut t = String::new();
        text(if i % 10 == 0 { i * 7 } else { n + i }, &mut t);
        t
    }));
    let spec = SuiteSpec::from_json_str_with(SUITE, transforms::Catalogue::standard()).unwrap();
    let names: Vec<&str> = spec.corruptions.iter().map(|c| c.name.as_str()).collect();
    let inv = ["case", "whitespace"];
    let mut c = ClassifyCounts::new(names.iter().copied(), inv, None);
    for i in 0..2000u64 {
        c.record_clean(true);
        c.corruptions["typo_05"].agree.record(true, i % 20 != 0);
        c.corruptions["typo_10"].agree.record(true, i % 8 != 0);
        c.corruptions["typo_20"].agree.record(true, i % 3 != 0);
        c.invariances["case"].changed.record(i % 5 == 0, false);
        c.invariances["whitespace"]
            .changed
            .record(i % 100 == 0, false);
    }
    let suite = SuiteDescriptor::new(names.iter().map(|n| (*n, None)), inv, 0);
    let report = ProfileReport::new(suite, Counts::Classify(c), None)
        .with_suite_fingerprint(Some(suite_fingerprint(&spec)))
        .to_json();
    let evaluation = Evaluation::from_json(&report, "report", None).unwrap();
    let options = Options {
        total: Total::Fraction(fraction),
        chunk_size: chunk,
        ..Options::default()
    };
    let teacher = Teacher {
        pos: json!("pos").into(),
        neg: json!("neg").into(),
        time: Cell::new(Duration::ZERO),
    };
    let start = ProcessTime::now();
    let wall = std::time::Instant::now();
    let job = Job::new(
        &evaluation,
        &spec,
        transforms::Catalogue::standard(),
        &eval,
        options,
    )
    .unwrap();
    let setup = start.elapsed();
    let out_path = dir.path().join("rows.jsonl");
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out_path).unwrap());
    let summary = job
        .run(&TextsFile::new(&train_path), &teacher, &mut out)
        .unwrap();
    out.flush().unwrap();
    let cpu = start.elapsed();
    let capkit = cpu - teacher.time.get();
    let rows = summary.written();
    print!("{}", summary.to_text());
    println!(
        "{n} training texts, {rows} rows: capkit CPU {:.2} s (leak guard set-up {:.2} s), teacher {:.2} s, wall {:.2} s",
        capkit.as_secs_f64(),
        setup.as_secs_f64(),
        teacher.time.get().as_secs_f64(),
        wall.elapsed().as_secs_f64()
    );
    println!(
        "{:.0} rows/s and {:.0} training texts/s of capkit CPU; peak RSS {:.1} MiB; rows file {:.1} MiB",
        rows as f64 / capkit.as_secs_f64(),
        n as f64 / capkit.as_secs_f64(),
        peak_rss_mib().unwrap_or(f64::NAN),
        std::fs::metadata(&out_path).map_or(0, |m| m.len()) as f64 / (1024.0 * 1024.0)
    );
}
