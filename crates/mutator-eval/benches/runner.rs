//! Throughput of the dataset runner on 10,000 replayed (offline) cases.
//!
//! `cargo bench -p mutator-eval --bench runner`. The cases are generated here: a five-field
//! booking form, a reply of four extractions (a quarter of them with one wrong value, one in
//! fifty malformed), so parsing, validation, copying, comparison and aggregation all run.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mutator_eval::{Replies, Runner, read_cases, summarize};
use serde_json::json;

/// One JSONL line per case.
pub fn generate_cases(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let name = format!("Guest {i}");
        let city = ["Oslo", "Bergen", "Tromsø", "Lund"][i % 4];
        let nights = (i % 7 + 1).to_string();
        let wrong_city = if i % 4 == 3 { "Paris" } else { city };
        let reply = if i % 50 == 49 {
            "Sure! Here is the JSON you asked for.".to_owned()
        } else {
            json!([
                {"path": "booking.guest.name", "value": name, "confidence": 0.9, "inference": "stated"},
                {"path": "booking.city", "value": wrong_city, "confidence": 0.8, "inference": "stated"},
                {"path": "booking.nights", "value": nights, "confidence": 0.7, "inference": "counted"},
                {"path": "booking.notes", "value": "late arrival", "confidence": 0.4, "inference": "implied"}
            ])
            .to_string()
        };
        let case = json!({
            "id": format!("case-{i}"),
            "pre_state": {
                "booking.currency": {"inference": null, "values": [{"value": "NOK", "confidence": 1.0}]}
            },
            "input": {"prompt": format!("Hi, I'm {name}; {nights} nights in {city}, arriving late."), "message_id": format!("m-{i}")},
            "expected_post_state": {
                "booking.currency": {"values": [{"value": "NOK", "confidence": 1.0}]},
                "booking.guest.name": {"values": [{"value": name, "confidence": 0.9}]},
                "booking.city": {"values": [{"value": city, "confidence": 0.8}]},
                "booking.nights": {"values": [{"value": nights, "confidence": 0.7}]}
            },
            "metadata": {"language": "en", "revision": 1},
            "reply": reply,
        });
        out.push_str(&case.to_string());
        out.push('\n');
    }
    out
}

fn bench_runner(c: &mut Criterion) {
    const N: usize = 10_000;
    let text = generate_cases(N);
    let lines = read_cases(&text);
    let summary = summarize(&Runner::new(Replies::Fixed).run(&lines, &|_| {}));
    assert_eq!((summary.cases, summary.errors), (N, N / 50));

    let mut group = c.benchmark_group("runner");
    group.sample_size(10);
    group.throughput(Throughput::Elements(N as u64));
    group.bench_function("read_10k_jsonl", |b| {
        b.iter(|| read_cases(black_box(&text)))
    });
    for workers in [1, 2, 4] {
        group.bench_function(format!("replay_10k_concurrency_{workers}"), |b| {
            b.iter(|| {
                let results = Runner::new(Replies::Fixed)
                    .concurrency(workers)
                    .run(black_box(&lines), &|_| {});
                summarize(&results)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_runner);
criterion_main!(benches);
