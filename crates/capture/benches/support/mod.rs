//! Workload A (docs/performance.md#workloads), shared by the criterion bench and the CPU-time example.
#![allow(clippy::unwrap_used, dead_code)]

use capture::CaptureProfile;
use serde_json::json;
use std::sync::Arc;

use suite_core::{BatchFn, CapabilitySuite, Model, PerItemFn, SharedLabel};

/// The 100,000 texts.
pub fn texts() -> Vec<String> {
    const W: [&str; 5] = ["good", "bad", "great", "awful", "fine"];
    (0..100_000)
        .map(|i| {
            format!(
                "sample {i}: the service was {} and the food was {} overall",
                W[i % 5],
                W[(i * 7) % 5]
            )
        })
        .collect()
}

/// The workloads' suite (docs/performance.md#workloads; shared with the other workload).
pub fn suite() -> CapabilitySuite {
    scenario_rules::workload_suite(true)
}

/// Mode `classify`: a per-item student and a batch teacher, both always `"pos"` (one shared
/// label: upstream's constant `"pos"` is one Python object too).
pub fn models() -> (impl Model, impl Model) {
    let pos: SharedLabel = Arc::new(json!("pos"));
    let student = PerItemFn::new({
        let pos = Arc::clone(&pos);
        move |_: &str| Arc::clone(&pos)
    });
    let teacher = BatchFn::new(move |ts: &[&str]| vec![Arc::clone(&pos); ts.len()]);
    (student, teacher)
}

/// The expected profile (upstream's) for mode `classify`, so a run cannot silently skip work.
pub fn check(p: &CaptureProfile) {
    assert_eq!(p.clean_agreement, 1.0);
    assert!(p.corruptions.values().all(|&a| a == 1.0) && p.corruptions.len() == 4);
    assert!(
        p.invariances
            .values()
            .all(|v| v.student_violation_rate == 0.0 && v.teacher_violation_rate == 0.0)
    );
    assert_eq!(p.probes.as_ref().unwrap().student, vec![json!("pos"); 10]);
}
