//! Workload B (docs/performance.md#workloads), shared by the criterion bench and the CPU-time example.
#![allow(clippy::unwrap_used, dead_code)]

use extractive::ExtractiveProfile;
use serde_json::{Value, json};
use std::sync::Arc;

use suite_core::{BatchFn, CapabilitySuite, Model, PerItemFn, SharedLabel};

/// The 20,000 texts.
pub fn texts() -> Vec<String> {
    (0..20_000)
        .map(|j| {
            format!(
                "ticket {j} name: user{j} city: City{} item: widget{} qty: {}",
                j % 50,
                j % 7,
                j % 9 + 1
            )
        })
        .collect()
}

/// The fields.
pub const FIELDS: [&str; 4] = ["name", "city", "item", "qty"];

/// The workloads' suite (docs/performance.md#workloads; shared with the other workload).
pub fn suite() -> CapabilitySuite {
    scenario_rules::workload_suite(false)
}

fn record() -> Value {
    json!({"name": "user", "city": "City", "item": "widget", "qty": "1"})
}

/// Student: per item; teacher: batch; both return one constant record, shared (upstream builds
/// `dict(R)` per text; a Rust model shares one `SharedLabel` instead of copying it).
pub fn models() -> (impl Model, impl Model) {
    let r: SharedLabel = Arc::new(record());
    let student = PerItemFn::new({
        let r = Arc::clone(&r);
        move |_: &str| Arc::clone(&r)
    });
    let teacher = BatchFn::new(move |ts: &[&str]| vec![Arc::clone(&r); ts.len()]);
    (student, teacher)
}

/// The expected profile (upstream's), so a run cannot silently skip work.
pub fn check(p: &ExtractiveProfile) {
    assert_eq!(p.clean_f1, 1.0);
    assert_eq!(
        (p.schema_validity.student, p.schema_validity.teacher),
        (0.77795, 0.77795)
    );
    assert!(
        p.corruptions
            .values()
            .chain(p.invariances.values())
            .all(|f| f.student_f1 == 1.0 && f.teacher_f1 == 1.0)
    );
    assert_eq!(p.corruptions.len(), 4);
}
