//! `openai:` models against an OpenAI-compatible server on 127.0.0.1: labels are the trimmed
//! replies, records the replies' JSON (fenced or not); the prompt template is required; with
//! the prediction cache (or the reply cache) a second run sends no request.
#![cfg(feature = "openai")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};

use common::{rule_label, serve, student, suite, temp_dir, texts};
use model_adapters::{ModelSpec, Settings, Task};
use serde_json::{Value, json};
use suite_core::Model;

fn completion(content: &str) -> String {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
        .to_string()
}

/// A chat server answering `answer(text)` for the text after the prompt's first line.
fn chat_server(
    answer: impl Fn(&str) -> String + Send + Sync + 'static,
) -> (String, Arc<Mutex<Vec<Value>>>) {
    serve(Arc::new(move |path: &str, body: &Value| {
        assert_eq!(path, "/v1/chat/completions");
        let prompt = body["messages"][0]["content"].as_str().unwrap();
        let text = prompt.strip_prefix("Label this text:\n").unwrap();
        (200, completion(&answer(text)))
    }))
}

fn settings(task: Task) -> Settings {
    Settings {
        task,
        prompt_template: Some("Label this text:\n{text}".to_owned()),
        concurrency: 3,
        ..Settings::default()
    }
}

#[test]
fn openai_classifiers_profile_like_the_rule_in_process() {
    let (url, seen) = chat_server(|t| format!("  {}\n", rule_label(t).as_str().unwrap()));
    let suite = suite();
    let reference = common::plain_model();
    let library = capture::capture_profile(&student(), &reference, &texts(), &suite).unwrap();
    // The model naming its own server, and the same model on `Settings::base_url`.
    let own = ModelSpec::parse(&format!("openai:teacher-model@{url}/v1")).unwrap();
    let on_base = ModelSpec::parse("openai:teacher-model").unwrap();
    let base = Settings {
        base_url: format!("{url}/v1"),
        ..settings(Task::Classify)
    };
    for spec in [own, on_base] {
        let teacher = spec.open(&base).unwrap();
        let profile = capture::capture_profile(&student(), &teacher, &texts(), &suite).unwrap();
        assert_eq!(profile, library, "{spec}");
    }
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty());
    assert!(
        seen.iter()
            .all(|b| b["model"] == "teacher-model" && b["temperature"] == 0.0)
    );
}

#[test]
fn openai_extractors_read_the_reply_as_a_json_object() {
    let (url, _) = chat_server(|t| {
        if t == "fenced" {
            "```json\n{\"name\": \"Ada\"}\n```".to_owned()
        } else if t == "list" {
            "[1, 2]".to_owned()
        } else {
            "{\"name\": null}".to_owned()
        }
    });
    let model = ModelSpec::parse(&format!("openai:m@{url}/v1"))
        .unwrap()
        .open(&settings(Task::Extract))
        .unwrap();
    assert_eq!(
        model.predict_batch(&["fenced", "plain"]).unwrap(),
        [json!({"name": "Ada"}), json!({"name": null})]
    );
    let err = model.predict_batch(&["list"]).unwrap_err().to_string();
    assert_eq!(
        err,
        format!("`openai:m@{url}/v1` (text id 2): a record must be a JSON object, got [1,2]")
    );
}

#[test]
fn a_prompt_template_with_a_text_slot_is_required() {
    let spec = ModelSpec::parse("openai:m").unwrap();
    let err = spec.open(&Settings::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model `openai:m`: needs a prompt template (a prompt with a {text} slot)"
    );
    let no_slot = Settings {
        prompt_template: Some("Label it".to_owned()),
        ..Settings::default()
    };
    let err = spec.open(&no_slot).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model `openai:m`: the prompt template has no {text} slot"
    );
}

#[test]
fn cached_answers_send_no_request() {
    let tmp = temp_dir("openai-cache");
    let (url, seen) = chat_server(|t| rule_label(t).as_str().unwrap().to_owned());
    let spec = ModelSpec::parse(&format!("openai:m@{url}/v1")).unwrap();
    let suite = suite();
    let run = |settings: &Settings, cache: Option<&std::path::Path>| {
        let adapter = spec.open(settings).unwrap();
        match cache {
            Some(dir) => {
                let teacher = adapter.cached(dir);
                assert!(teacher.take_warning().is_none());
                capture::capture_profile(&student(), &teacher, &texts(), &suite).unwrap()
            }
            None => capture::capture_profile(&student(), &adapter, &texts(), &suite).unwrap(),
        }
    };
    let requests = || seen.lock().unwrap().len();

    // The prediction cache, keyed by the model, its URL and its prompt.
    let predictions = tmp.path().join("predictions-cache");
    let first = run(&settings(Task::Classify), Some(&predictions));
    let sent = requests();
    assert!(sent > 0);
    assert_eq!(run(&settings(Task::Classify), Some(&predictions)), first);
    assert_eq!(requests(), sent, "the cached run sent a request");
    // Another prompt is another model.
    let other_prompt = Settings {
        prompt_template: Some("Label this text:\n{text}\n".to_owned()),
        ..settings(Task::Classify)
    };
    let other = spec.open(&other_prompt).unwrap().cached(&predictions);
    other.predict_batch(&["good"]).unwrap();
    assert_eq!(requests(), sent + 1);

    // The reply cache, keyed by the exact request.
    let replies = Settings {
        reply_cache: Some(tmp.path().join("chat")),
        ..settings(Task::Classify)
    };
    let before = requests();
    assert_eq!(run(&replies, None), first);
    let after_first = requests();
    assert!(after_first > before);
    assert_eq!(run(&replies, None), first);
    assert_eq!(requests(), after_first, "the reply cache sent a request");
}

/// The `.json` files under `dir`, at any depth.
fn json_files(dir: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                json_files(&p)
            } else {
                usize::from(p.extension().is_some_and(|x| x == "json"))
            }
        })
        .sum()
}

/// The server of the reply-store tests: a JSON object for every text, a valid label (the whole
/// reply) and a valid record alike, so both tasks send the same requests.
fn object_server() -> (String, Arc<Mutex<Vec<Value>>>) {
    chat_server(|t| json!({ "text": t }).to_string())
}

#[test]
fn with_a_cache_dir_replies_are_kept_in_its_database() {
    // Classify, then extract with the same prompt: the prediction cache keeps the two tasks
    // apart (another identity), the reply store answers the second from the first's replies.
    let tmp = temp_dir("openai-replies");
    let dir = tmp.path().join("cache");
    let (url, seen) = object_server();
    let spec = ModelSpec::parse(&format!("openai:m@{url}/v1")).unwrap();
    let texts = texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let classify = spec
        .open_cached(&settings(Task::Classify), Some(&dir), None)
        .unwrap();
    let labels = classify.predict_batch(&refs).unwrap();
    assert!(classify.take_warning().is_none());
    assert_eq!(labels[0], json!(json!({ "text": refs[0] }).to_string()));
    let sent = seen.lock().unwrap().len();
    assert_eq!(sent, refs.len());
    let extract = spec
        .open_cached(&settings(Task::Extract), Some(&dir), None)
        .unwrap();
    let records = extract.predict_batch(&refs).unwrap();
    assert_eq!(records[0], json!({ "text": refs[0] }));
    assert_eq!((extract.hits(), extract.misses()), (0, refs.len() as u64));
    assert_eq!(
        seen.lock().unwrap().len(),
        sent,
        "the second run sent a request"
    );
    assert_eq!(json_files(&dir), 0, "a reply was written as a file");
    let stats = model_adapters::cache_admin::stats(&dir).unwrap();
    assert_eq!(stats.replies, refs.len() as u64);
}

#[test]
fn a_reply_directory_of_earlier_capkit_is_imported_once() {
    let tmp = temp_dir("openai-replies-import");
    let dir = tmp.path().join("cache");
    let (url, seen) = object_server();
    let spec = ModelSpec::parse(&format!("openai:m@{url}/v1")).unwrap();
    let texts = texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // Earlier capkit: replies as files in `DIR/chat`.
    let old = Settings {
        reply_cache: Some(model_adapters::reply_cache_dir(&dir)),
        ..settings(Task::Classify)
    };
    spec.open(&old).unwrap().predict_batch(&refs).unwrap();
    let sent = seen.lock().unwrap().len();
    let files = json_files(&dir);
    assert_eq!(files, refs.len());
    // Now: the files' replies answer from the database; the files stay.
    let model = spec
        .open_cached(&settings(Task::Extract), Some(&dir), None)
        .unwrap();
    assert_eq!(
        model.predict_batch(&refs).unwrap()[0],
        json!({ "text": refs[0] })
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        sent,
        "an imported reply was asked again"
    );
    assert_eq!(json_files(&dir), files);
}
