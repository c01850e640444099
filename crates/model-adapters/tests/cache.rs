//! The prediction cache: a cached second profile makes no model call and computes the same
//! profile (decisions included); a changed suite asks only about new texts; any `Model` can
//! wear it; an unusable cache never fails a run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use scenario_rules::{SystemNeed, system_has};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{fixture_model, logged, rule_label, rule_model, student, suite, temp_dir, texts};
use model_adapters::{Cached, ModelSpec, Settings};
use serde_json::json;
use suite_core::{Decision, Model, PerItemFn, SuiteSpec};

#[test]
fn a_cached_second_run_makes_no_model_call() {
    if !system_has(
        SystemNeed::Python3,
        "a_cached_second_run_makes_no_model_call",
    ) {
        return;
    }
    let tmp = temp_dir("cache");
    let log = tmp.path().join("asked.log");
    let cache = tmp.path().join("cache");
    let spec = ModelSpec::parse(&fixture_model("rule", Some(&log))).unwrap();
    let run = |suite: &suite_core::CapabilitySuite| {
        let teacher = spec.open(&Settings::default()).unwrap().cached(&cache);
        let profile = capture::capture_profile(&student(), &teacher, &texts(), suite).unwrap();
        teacher.flush().unwrap();
        teacher.inner().finish().unwrap();
        (profile, teacher.hits(), teacher.misses())
    };
    let library = capture::capture_profile(&student(), &rule_model(), &texts(), &suite()).unwrap();
    let (first, hits, misses) = run(&suite());
    assert_eq!(first, library);
    assert_eq!(hits, 0);
    let asked = logged(&log).len();
    assert_eq!(misses as usize, asked);

    let (second, hits, misses) = run(&suite());
    assert_eq!(
        second, first,
        "decisions and labels come back from the cache"
    );
    assert_eq!((hits as usize, misses), (asked, 0));
    assert_eq!(logged(&log).len(), asked, "the second run called the model");

    // Only the suite changed: only the texts never seen before reach the model.
    let more = SuiteSpec::from_json_str(
        r#"{"corruptions": [{"name": "typo_20", "transform": "keyboard_typo", "rate": 0.2, "seed": 1},
                            {"name": "typo_50", "transform": "keyboard_typo", "rate": 0.5, "seed": 9}],
            "invariances": [{"name": "case", "transform": "case_jitter"},
                            {"name": "space", "transform": "whitespace"}],
            "probes": ["", "good", "GOOD"]}"#,
    )
    .unwrap()
    .build()
    .unwrap();
    let (third, _, misses) = run(&more);
    assert_eq!(
        third,
        capture::capture_profile(&student(), &rule_model(), &texts(), &more).unwrap()
    );
    let new = logged(&log).len() - asked;
    assert!(new > 0 && new <= texts().len());
    assert_eq!(misses as usize, new);
}

#[test]
fn any_model_can_wear_the_cache_decisions_included() {
    let tmp = temp_dir("cache-generic");
    let predicted = AtomicUsize::new(0);
    let decided = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&decided);
    let model = PerItemFn::new(|t: &str| {
        predicted.fetch_add(1, Ordering::Relaxed);
        rule_label(t)
    })
    .with_decide(move |t: &str| {
        counter.fetch_add(1, Ordering::Relaxed);
        if t.len() < 5 {
            Decision::Escalate
        } else {
            Decision::Answer(json!("sure"))
        }
    });
    let texts = ["good", "bad service", "good food"];
    let first = Cached::new(&model, tmp.path(), "rule v1");
    assert_eq!(
        first.predict_batch(&texts).unwrap(),
        [json!("pos"), json!("neg"), json!("pos")]
    );
    // Decisions are asked with the predictions, so the cached answer is complete.
    assert_eq!(decided.load(Ordering::Relaxed), 3);
    let expected = [
        Decision::Escalate,
        Decision::Answer(json!("sure")),
        Decision::Answer(json!("sure")),
    ];
    assert_eq!(first.decide_batch(&texts).unwrap().unwrap(), expected);
    drop(first);

    let second = Cached::new(&model, tmp.path(), "rule v1");
    assert_eq!(second.predict_batch(&texts).unwrap()[2], json!("pos"));
    assert_eq!(second.decide_batch(&texts).unwrap().unwrap(), expected);
    assert_eq!(predicted.load(Ordering::Relaxed), 3);
    assert_eq!(decided.load(Ordering::Relaxed), 3);

    // A model without a decision API has none, cached or not.
    let plain = PerItemFn::new(rule_label);
    let cached = Cached::new(&plain, tmp.path(), "plain v1");
    cached.predict_batch(&texts).unwrap();
    assert!(cached.decide_batch(&texts).is_none());
    let again = Cached::new(&plain, tmp.path(), "plain v1");
    again.predict_batch(&texts).unwrap();
    assert_eq!(again.hits(), 3);
    assert!(again.decide_batch(&texts).is_none());
}

#[test]
fn an_unusable_cache_passes_through_with_a_warning() {
    let tmp = temp_dir("cache-bad");
    let not_a_dir = tmp.path().join("file");
    std::fs::write(&not_a_dir, "x").unwrap();
    let model = rule_model();
    let cached = Cached::new(&model, &not_a_dir, "m");
    let warning = cached.take_warning().unwrap();
    assert!(
        warning
            .to_string()
            .starts_with("creating the prediction cache "),
        "{warning}"
    );
    assert!(cached.take_warning().is_none(), "a warning is given once");
    assert_eq!(cached.path(), None);
    assert_eq!(
        cached.predict_batch(&["good one here"]).unwrap(),
        [json!("pos")]
    );
    assert_eq!(
        cached.decide_batch(&["good one here"]).unwrap().unwrap(),
        [Decision::Answer(json!("pos"))]
    );
    assert_eq!((cached.hits(), cached.misses()), (0, 0));
}
