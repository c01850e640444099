//! Prints synthetic dataset cases as JSONL, for throughput runs of `capkit mutator eval`:
//!
//! ```sh
//! cargo run --release -p capkit-mutator-eval --example generate_cases -- 10000 > cases-10k.jsonl
//! capkit mutator eval cases-10k.jsonl --replay
//! ```
//!
//! A five-field booking form, a fixed reply of four extractions per case (a quarter of them with
//! one wrong value, one case in fifty malformed), so parsing, validation, copying, comparison and
//! aggregation all run. The criterion bench `benches/runner.rs` uses the same cases.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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
        let mut expected = json!({
            "booking.currency": {"values": [{"value": "NOK", "confidence": 1.0}]},
            "booking.guest.name": {"values": [{"value": name, "confidence": 0.9}]},
            "booking.city": {"values": [{"value": city, "confidence": 0.8}]},
            "booking.nights": {"values": [{"value": nights, "confidence": 0.7}]}
        });
        // Even cases expect the notes the reply adds; in odd ones they are an extra field.
        if i % 2 == 0 {
            expected["booking.notes"] =
                json!({"values": [{"value": "late arrival", "confidence": 0.4}]});
        }
        let case = json!({
            "id": format!("case-{i}"),
            "pre_state": {
                "booking.currency": {"inference": null, "values": [{"value": "NOK", "confidence": 1.0}]}
            },
            "input": {"prompt": format!("Hi, I'm {name}; {nights} nights in {city}, arriving late."), "message_id": format!("m-{i}")},
            "expected_post_state": expected,
            "metadata": {"language": "en", "revision": 1},
            "reply": reply,
        });
        out.push_str(&case.to_string());
        out.push('\n');
    }
    out
}

fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    print!("{}", generate_cases(n));
}
