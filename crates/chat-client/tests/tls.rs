//! The https path (feature `tls`): a rustls server on 127.0.0.1 with a self-signed certificate
//! made at test time by rcgen. The client trusts it only when told to (`root_certificates`).
#![cfg(feature = "tls")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use chat_client::{ChatClient, ChatConfig, ClientError};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};
use serde_json::json;

/// Starts an https server answering every chat request with `reply`; returns its base URL and
/// the certificate's DER bytes.
fn serve_https(reply: &'static str) -> (String, Vec<u8>) {
    let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let cert_der: CertificateDer<'static> = certified.cert.der().clone();
    let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert_der.clone()], key.into())
        .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("https://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            let conn = rustls::ServerConnection::new(Arc::clone(&config)).unwrap();
            // A client that refuses the certificate ends the handshake: just go on.
            let _ = answer(rustls::StreamOwned::new(conn, stream), reply);
        }
    });
    (base, cert_der.to_vec())
}

fn answer(stream: impl Read + Write, reply: &str) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut len = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.trim().eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body)?;
    let body =
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}]})
            .to_string();
    let stream = reader.get_mut();
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

fn config(base: &str) -> ChatConfig {
    let mut c = ChatConfig::new(base, "test-model");
    c.api_key_env = None;
    c.proxy_from_env = false;
    c.timeout = Duration::from_secs(10);
    c.max_retries = 0;
    c
}

#[test]
fn https_with_a_trusted_self_signed_certificate() {
    let (base, cert) = serve_https("over tls");
    let mut c = config(&base);
    c.root_certificates = vec![cert];
    let client = ChatClient::new(c).unwrap();
    assert_eq!(client.complete("hello").unwrap(), "over tls");
    assert_eq!(client.attempts(), 1);
}

#[test]
fn https_refuses_an_untrusted_certificate() {
    let (base, _) = serve_https("must not arrive");
    // The bundled Mozilla roots do not include a certificate made a moment ago.
    let client = ChatClient::new(config(&base)).unwrap();
    let e = client.complete("hello").unwrap_err();
    match &e {
        ClientError::Exhausted { attempts: 1, last } => {
            assert!(matches!(**last, ClientError::Transport { .. }), "{last:?}");
        }
        other => panic!("expected a refused handshake, got {other:?}"),
    }
}
