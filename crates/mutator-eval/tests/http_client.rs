//! The dataset runner over the chat client (`capkit-chat-client`), used as an `LlmClient` (feature `http`). No
//! server: replies come from a pre-filled reply cache, and failures from a closed port on
//! 127.0.0.1. The client's own tests, against a scripted local server, live in
//! `crates/chat-client/tests/client.rs`.
#![cfg(feature = "http")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::time::Duration;

use mutator_eval::{
    Case, ChatClient, ChatConfig, Replies, ResponseCache, Runner, build_prompt, read_cases,
    summarize,
};
use profile_types::FailureKind;

const EXTRACTION: &str =
    r#"[{"path": "name", "value": "Ada", "confidence": 0.9, "inference": "stated"}]"#;

/// A base URL on 127.0.0.1 where nothing listens.
fn closed_port() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/v1", l.local_addr().unwrap())
}

fn config(base: &str) -> ChatConfig {
    let mut c = ChatConfig::new(base, "test-model");
    c.api_key_env = None;
    // The server is local: a proxy from the environment must not intercept it.
    c.proxy_from_env = false;
    c.timeout = Duration::from_secs(5);
    c.max_retries = 2;
    c.backoff_base = Duration::from_millis(1);
    c.backoff_max = Duration::from_millis(5);
    c
}

/// A client whose cache already holds `EXTRACTION` as the reply to the prompt of each case line.
fn cached_client(cache_dir: &std::path::Path, cases: &str) -> ChatClient {
    let client = ChatClient::new(config(&closed_port())).unwrap();
    let cache = ResponseCache::new(cache_dir);
    for (i, line) in cases.lines().enumerate() {
        let case = Case::from_line(line, i + 1).unwrap();
        let prompt = build_prompt(&case.pre_state, &case.input);
        cache.put(&client.request(&prompt), EXTRACTION).unwrap();
    }
    client.with_cache(ResponseCache::new(cache_dir))
}

fn case(id: &str, prompt: &str) -> String {
    format!(
        r#"{{"id": "{id}", "input": {{"prompt": "{prompt}", "message_id": "m1"}}, "expected_post_state": {{"name": {{"values": [{{"value": "Ada", "confidence": 0.9}}]}}}}}}"#
    )
}

#[test]
fn runner_scores_a_client_reply() {
    let tmp = tempfile::tempdir().unwrap();
    let text = case("ada", "I am Ada");
    let client = cached_client(tmp.path(), &text);
    let lines = read_cases(&text);
    let results = Runner::new(Replies::Client(&client)).run(&lines, &|_| {});
    let r = results[0].result.as_ref().unwrap();
    assert!(r.comparison.overall_match);
    assert_eq!(r.accuracy_score, 1.0);
    let inference = r.actual_post_state["name"]
        .as_ref()
        .unwrap()
        .inference
        .as_ref()
        .unwrap();
    assert_eq!(inference.message_id.as_deref(), Some("m1"));
    assert_eq!((client.attempts(), client.cache_hits()), (0, 1));
}

#[test]
fn unreachable_servers_exhaust_the_retries_and_are_not_a_score() {
    let client = ChatClient::new(config(&closed_port())).unwrap();
    let lines = read_cases(r#"{"id": "c", "input": {"prompt": "p"}, "expected_post_state": {}}"#);
    let results = Runner::new(Replies::Client(&client)).run(&lines, &|_| {});
    assert_eq!(client.attempts(), 3);
    assert!(results[0].result.is_none());
    let failure = results[0].error.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::Client);
    assert!(
        failure.message.contains("gave up after 3 attempts"),
        "{}",
        failure.message
    );
    let summary = summarize(&results);
    assert_eq!((summary.evaluated, summary.errors), (0, 1));
    assert_eq!(summary.errors_by_kind.get(&FailureKind::Client), Some(&1));
    assert_eq!(summary.mean_accuracy, None);
}

#[test]
fn concurrent_cases_share_one_client() {
    let n = 24;
    let text: String = (0..n)
        .map(|i| case(&format!("c{i}"), &format!("case {i}")) + "\n")
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let client = cached_client(tmp.path(), &text);
    let mut results = Vec::new();
    Runner::new(Replies::Client(&client))
        .concurrency(4)
        .run_jsonl_each(&text, &|_| {}, |r| results.push(r));
    assert_eq!((client.attempts(), client.cache_hits()), (0, n as u64));
    let ids: Vec<String> = results.iter().map(|r| r.id.clone()).collect();
    assert_eq!(ids, (0..n).map(|i| format!("c{i}")).collect::<Vec<_>>());
    assert!(results.iter().all(|r| {
        r.result
            .as_ref()
            .is_some_and(|e| e.comparison.overall_match)
    }));
}
