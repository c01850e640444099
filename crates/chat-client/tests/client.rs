//! The chat-completions client against a real HTTP server on 127.0.0.1, started by each test
//! (a scripted std `TcpListener`, one response per connection, `Connection: close`).
#![cfg(feature = "http")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chat_client::{ChatClient, ChatConfig, ClientError, ReplyStore, ResponseCache};
use serde_json::{Value, json};

const KEY: &str = "sk-test-secret-0123456789";

struct Reply {
    status: u16,
    body: String,
    delay: Duration,
    headers: Vec<(&'static str, String)>,
}

fn reply(status: u16, body: impl Into<String>) -> Reply {
    Reply {
        status,
        body: body.into(),
        delay: Duration::ZERO,
        headers: Vec::new(),
    }
}

fn completion(content: &str) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
    .to_string()
}

#[derive(Debug, Clone)]
struct Seen {
    request_line: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Serves `script` in order, one response per connection; returns the base URL and the requests.
fn serve(script: Vec<Reply>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for step in script {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut headers = Vec::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                let (k, v) = line.split_once(':').unwrap();
                headers.push((k.trim().to_owned(), v.trim().to_owned()));
            }
            let len: usize = headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                .map_or(0, |(_, v)| v.parse().unwrap());
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            log.lock().unwrap().push(Seen {
                request_line: request_line.trim_end().to_owned(),
                headers,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            });
            std::thread::sleep(step.delay);
            let mut stream = reader.into_inner();
            let mut head = format!(
                "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                step.status,
                step.body.len()
            );
            for (k, v) in &step.headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            // The client may have given up already (timeout test).
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(step.body.as_bytes());
        }
    });
    (base, seen)
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
    c.seed = 42;
    c
}

const EXTRACTION: &str =
    r#"[{"path": "name", "value": "Ada", "confidence": 0.9, "inference": "stated"}]"#;

#[test]
fn success_sends_the_canonical_request() {
    let (base, seen) = serve(vec![reply(200, completion(EXTRACTION))]);
    let client = ChatClient::new(config(&base))
        .unwrap()
        .with_api_key(Some(KEY.to_owned()));
    assert_eq!(client.complete("I am Ada").unwrap(), EXTRACTION);
    assert_eq!(client.attempts(), 1);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].request_line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(
        seen[0].body,
        json!({"model": "test-model", "messages": [{"role": "user", "content": "I am Ada"}], "temperature": 0.0, "seed": 42})
    );
    // The key never shows in a debug print.
    assert!(!format!("{client:?}").contains(KEY));
}

#[test]
fn malformed_body_is_an_error_without_retry() {
    let (base, _) = serve(vec![
        reply(200, "<html>oops</html>"),
        reply(200, r#"{"choices": []}"#),
    ]);
    let client = ChatClient::new(config(&base)).unwrap();
    let e = client.complete("p").unwrap_err();
    assert!(matches!(e, ClientError::Malformed { .. }), "{e:?}");
    assert!(e.to_string().contains("body is not JSON"), "{e}");
    let e = client.complete("p").unwrap_err();
    assert!(e.to_string().contains("choices[0].message.content"), "{e}");
    assert_eq!(client.attempts(), 2);
}

#[test]
fn rate_limit_then_success_is_retried() {
    let mut limited = reply(429, r#"{"error": {"message": "slow down"}}"#);
    limited.headers.push(("retry-after", "0".to_owned()));
    let (base, seen) = serve(vec![limited, reply(200, completion("[]"))]);
    let client = ChatClient::new(config(&base)).unwrap();
    assert_eq!(client.complete("p").unwrap(), "[]");
    assert_eq!(client.attempts(), 2);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    // The retry is the same request, byte for byte.
    assert_eq!(seen[0].body, seen[1].body);
}

#[test]
fn slow_response_times_out() {
    let mut slow = reply(200, completion("[]"));
    slow.delay = Duration::from_millis(1500);
    let (base, _) = serve(vec![slow]);
    let mut c = config(&base);
    c.timeout = Duration::from_millis(200);
    c.max_retries = 0;
    let client = ChatClient::new(c).unwrap();
    let e = client.complete("p").unwrap_err();
    match e {
        ClientError::Exhausted { attempts: 1, last } => {
            assert!(matches!(*last, ClientError::Timeout { .. }), "{last:?}")
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[test]
fn client_errors_are_not_retried_and_never_show_the_key() {
    let (base, _) = serve(vec![reply(
        401,
        format!(r#"{{"error": {{"message": "Incorrect API key provided: {KEY}"}}}}"#),
    )]);
    let client = ChatClient::new(config(&base))
        .unwrap()
        .with_api_key(Some(KEY.to_owned()));
    let e = client.complete("p").unwrap_err();
    assert_eq!(client.attempts(), 1);
    let text = format!("{e} {e:?}");
    assert!(text.contains("HTTP 401"), "{text}");
    assert!(!text.contains(KEY), "{text}");
    assert!(text.contains("***"), "{text}");
}

#[test]
fn connection_refused_is_retried_then_reported() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let client = ChatClient::new(config(&format!("http://127.0.0.1:{port}/v1"))).unwrap();
    let e = client.complete("p").unwrap_err();
    assert_eq!(client.attempts(), 3);
    assert!(
        matches!(&e, ClientError::Exhausted { attempts: 3, last } if matches!(**last, ClientError::Transport { .. })),
        "{e:?}"
    );
}

#[test]
fn cache_answers_repeats_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cache");
    let (base, seen) = serve(vec![
        reply(200, completion(EXTRACTION)),
        reply(200, completion("[]")),
    ]);
    let client = ChatClient::new(config(&base))
        .unwrap()
        .with_cache(ResponseCache::new(&dir));
    assert_eq!(client.complete("same").unwrap(), EXTRACTION);
    assert_eq!(client.complete("same").unwrap(), EXTRACTION);
    assert_eq!((client.attempts(), client.cache_hits()), (1, 1));
    // A different seed is a different request.
    let mut other = config(&base);
    other.seed = 43;
    let other = ChatClient::new(other)
        .unwrap()
        .with_cache(ResponseCache::new(&dir));
    assert_eq!(other.complete("same").unwrap(), "[]");
    assert_eq!(seen.lock().unwrap().len(), 2);
    // No key, no endpoint in the stored entries.
    for entry in std::fs::read_dir(&dir).unwrap() {
        for file in std::fs::read_dir(entry.unwrap().path()).unwrap() {
            let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
            assert!(
                !text.contains("127.0.0.1") && !text.contains("sk-"),
                "{text}"
            );
        }
    }
}

/// A reply store in memory: what the client asks of any store.
#[derive(Default)]
struct Memory(Mutex<Vec<(blake3::Hash, String, String)>>);

impl ReplyStore for Memory {
    fn get_reply(&self, key: &blake3::Hash) -> Option<String> {
        let kept = self.0.lock().unwrap();
        kept.iter().find(|e| e.0 == *key).map(|e| e.2.clone())
    }
    fn put_reply(&self, key: &blake3::Hash, model: &str, reply: &str) -> Result<(), ClientError> {
        let mut kept = self.0.lock().unwrap();
        kept.push((*key, model.to_owned(), reply.to_owned()));
        Ok(())
    }
}

#[test]
fn any_reply_store_answers_repeats_offline() {
    let (base, seen) = serve(vec![reply(200, completion(EXTRACTION))]);
    let store = Arc::new(Memory::default());
    let client = ChatClient::new(config(&base))
        .unwrap()
        .with_reply_store(store.clone());
    assert_eq!(client.complete("same").unwrap(), EXTRACTION);
    assert_eq!(client.complete("same").unwrap(), EXTRACTION);
    assert_eq!((client.attempts(), client.cache_hits()), (1, 1));
    assert_eq!(seen.lock().unwrap().len(), 1);
    // Stored under the request's key, with the model's name.
    let kept = store.0.lock().unwrap();
    assert_eq!(
        kept.as_slice(),
        [(
            client.request("same").key(),
            "test-model".to_owned(),
            EXTRACTION.to_owned()
        )]
    );
}

#[test]
fn backoff_is_exponential_bounded_and_deterministic() {
    let mut c = ChatConfig::new("http://127.0.0.1:9/v1", "m");
    c.backoff_base = Duration::from_millis(100);
    c.backoff_max = Duration::from_millis(1000);
    let client = ChatClient::new(c).unwrap();
    let key = client.request("p").key();
    for retry in 0..8 {
        let d = client.backoff_delay(&key, retry);
        let full = Duration::from_millis((100u64 << retry).min(1000));
        assert!(
            d >= full / 2 && d < full,
            "retry {retry}: {d:?} vs {full:?}"
        );
        assert_eq!(d, client.backoff_delay(&key, retry));
    }
    let other = client.request("q").key();
    assert_ne!(
        client.backoff_delay(&key, 0),
        client.backoff_delay(&other, 0)
    );
}

#[test]
fn bad_base_urls_are_refused() {
    let e = ChatClient::new(ChatConfig::new("localhost:8000", "m")).unwrap_err();
    assert!(matches!(e, ClientError::Config(_)));
    if !cfg!(feature = "tls") {
        let e =
            ChatClient::new(ChatConfig::new("https://api.example.invalid/v1", "m")).unwrap_err();
        assert!(e.to_string().contains("`tls` feature"), "{e}");
    }
}

/// `t` (seconds since the Unix epoch) as an IMF-fixdate, for `Retry-After` (Hinnant's
/// `civil_from_days`; the weekday is not checked by the client).
fn http_date(t: u64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (days, secs) = (t / 86_400 + 719_468, t % 86_400);
    let era = days / 146_097;
    let doe = days - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "Mon, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        MONTHS[(month - 1) as usize],
        secs / 3_600,
        secs / 60 % 60,
        secs % 60
    )
}

#[test]
fn retry_after_as_an_http_date_is_waited_for() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert_eq!(http_date(784_111_777), "Mon, 06 Nov 1994 08:49:37 GMT");
    let mut busy = reply(503, "busy");
    // Three seconds ahead (at least two after truncation to whole seconds), capped below by
    // `backoff_max`: the client must wait about a second where its own backoff is 1-5 ms.
    busy.headers.push(("retry-after", http_date(now + 3)));
    let (base, _) = serve(vec![busy, reply(200, completion("[]"))]);
    let mut c = config(&base);
    c.backoff_max = Duration::from_secs(1);
    let client = ChatClient::new(c).unwrap();
    let started = std::time::Instant::now();
    assert_eq!(client.complete("p").unwrap(), "[]");
    assert_eq!(client.attempts(), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(990),
        "{:?}",
        started.elapsed()
    );
}
