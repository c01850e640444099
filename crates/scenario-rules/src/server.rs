//! A JSON server on 127.0.0.1 for the tests of `http:` and `openai:` models (the model
//! adapters' and the command line's): one request per connection, each on its own thread.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use suite_core::{Decision, Model};

/// Answers a request: (path, JSON body) → (HTTP status, body).
pub type Handler = dyn Fn(&str, &Value) -> (u16, String) + Send + Sync;

/// The JSON bodies a server received, in order of arrival.
pub type Received = Arc<Mutex<Vec<Value>>>;

/// Serves `handler` on 127.0.0.1 until the process ends; returns the address
/// (`http://127.0.0.1:PORT`) and the bodies received. A request the server cannot read panics
/// its connection's thread (test support: the test then fails on the missing answer).
pub fn serve(handler: Arc<Handler>) -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .unwrap_or_else(|e| panic!("binding a test server on 127.0.0.1: {e}"));
    let addr = match listener.local_addr() {
        Ok(addr) => format!("http://{addr}"),
        Err(e) => panic!("the test server's address: {e}"),
    };
    let seen: Received = Arc::default();
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let handler = Arc::clone(&handler);
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let Ok(reading) = stream.try_clone() else {
                    return;
                };
                let mut reader = BufReader::new(reading);
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    return;
                }
                let path = request_line.split(' ').nth(1).unwrap_or("").to_owned();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some((k, v)) = line.split_once(':')
                        && k.eq_ignore_ascii_case("content-length")
                    {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let body: Value = serde_json::from_slice(&body)
                    .unwrap_or_else(|e| panic!("a request body that is not JSON: {e}"));
                log.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(body.clone());
                let (status, reply) = handler(&path, &body);
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
            });
        }
    });
    (addr, seen)
}

/// An `http:` model's server over `model`: `{"texts": […]}` → `{KEY: […]}` (`key` is `labels`
/// or `records`), plus `"decisions"` (an escalation as `null`) when the model has a decision
/// API. A model error is answered with status 500.
pub fn model_server(model: Arc<dyn Model + Send + Sync>, key: &'static str) -> Arc<Handler> {
    Arc::new(move |_: &str, body: &Value| {
        let texts: Vec<&str> = body["texts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let labels = match model.predict_batch(&texts) {
            Ok(labels) => labels,
            Err(e) => return (500, json!({"error": e.to_string()}).to_string()),
        };
        let mut reply = json!({ key: labels });
        match model.decide_batch(&texts) {
            None => {}
            Some(Ok(decisions)) => {
                let decisions: Vec<Value> = decisions
                    .into_iter()
                    .map(|d| match d {
                        Decision::Escalate => Value::Null,
                        Decision::Answer(v) => v,
                    })
                    .collect();
                reply["decisions"] = json!(decisions);
            }
            Some(Err(e)) => return (500, json!({"error": e.to_string()}).to_string()),
        }
        (200, reply.to_string())
    })
}
