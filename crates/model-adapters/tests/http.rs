//! `http:` models against a server on 127.0.0.1: the same profile as the model in process for
//! any batch size and concurrency, decisions included; retries of 5xx; failures naming the model
//! and the text ids.
#![cfg(feature = "http")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{rule_model, serve, student, suite, texts};
use model_adapters::{ModelSpec, Settings, Task};
use scenario_rules::model_server;
use serde_json::{Value, json};
use suite_core::Model;

#[test]
fn http_models_match_the_model_in_process_for_any_batch_size_and_concurrency() {
    let suite = suite();
    let library = capture::capture_profile(&student(), &rule_model(), &texts(), &suite).unwrap();
    for (batch, workers) in [(1, 1), (3, 4), (64, 8)] {
        let (url, seen) = serve(model_server(Arc::new(rule_model()), "labels"));
        let settings = Settings {
            batch_size: batch,
            concurrency: workers,
            ..Settings::default()
        };
        let teacher = ModelSpec::parse(&format!("http:{url}/predict"))
            .unwrap()
            .open(&settings)
            .unwrap();
        let profile = capture::capture_profile(&student(), &teacher, &texts(), &suite).unwrap();
        assert_eq!(profile, library, "batch {batch} concurrency {workers}");
        let seen = seen.lock().unwrap();
        assert!(
            seen.iter()
                .all(|b| b["texts"].as_array().unwrap().len() <= batch)
        );
    }
}

#[test]
fn http_extractors_answer_records() {
    let records = suite_core::PerItemFn::new(|t: &str| json!({"len": t.chars().count()}));
    let (url, _) = serve(model_server(Arc::new(records), "records"));
    let settings = Settings {
        task: Task::Extract,
        batch_size: 2,
        ..Settings::default()
    };
    let model = ModelSpec::parse(&url).unwrap().open(&settings).unwrap();
    assert_eq!(
        model.predict_batch(&["ab", "", "xyz"]).unwrap(),
        [json!({"len": 2}), json!({"len": 0}), json!({"len": 3})]
    );
}

#[test]
fn server_errors_name_the_model_and_the_text_ids() {
    let (url, _) = serve(Arc::new(|_: &str, _: &Value| {
        (400, "{\"error\": \"bad input\"}".to_owned())
    }));
    let model = ModelSpec::parse(&format!("http:{url}/predict"))
        .unwrap()
        .open(&Settings::default())
        .unwrap();
    let err = model.predict_batch(&["a", "b", "c", "d"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("`http:{url}/predict` (text ids 0..4): HTTP 400: {{\"error\": \"bad input\"}}")
    );

    // A batch of the wrong length names the ids it was for.
    let (url, _) = serve(Arc::new(|_: &str, _: &Value| {
        (200, "{\"labels\": [\"pos\"]}".to_owned())
    }));
    let model = ModelSpec::parse(&url)
        .unwrap()
        .open(&Settings::default())
        .unwrap();
    let err = model.predict_batch(&["a", "b"]).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("`http:{url}` (text ids 0..2): ")),
        "{err}"
    );
}

#[test]
fn unavailable_servers_are_retried() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let (url, _) = serve(Arc::new(move |_: &str, _: &Value| {
        if counted.fetch_add(1, Ordering::SeqCst) < 2 {
            (503, "busy".to_owned())
        } else {
            (200, "{\"labels\": [\"pos\"]}".to_owned())
        }
    }));
    let settings = Settings {
        retries: 2,
        ..Settings::default()
    };
    let model = ModelSpec::parse(&url).unwrap().open(&settings).unwrap();
    assert_eq!(model.predict_batch(&["a"]).unwrap(), [json!("pos")]);
    assert_eq!(calls.load(Ordering::SeqCst), 3);

    let (url, _) = serve(Arc::new(|_: &str, _: &Value| (503, "busy".to_owned())));
    let settings = Settings {
        retries: 1,
        ..Settings::default()
    };
    let model = ModelSpec::parse(&url).unwrap().open(&settings).unwrap();
    let err = model.predict_batch(&["a"]).unwrap_err().to_string();
    assert!(err.ends_with("HTTP 503: busy (after 2 attempts)"), "{err}");
}

#[cfg(not(feature = "tls"))]
#[test]
fn https_needs_the_tls_feature() {
    let err = ModelSpec::parse("https://127.0.0.1:9/p")
        .unwrap()
        .open(&Settings::default())
        .unwrap_err();
    assert!(err.to_string().contains("`tls` feature"), "{err}");
}
