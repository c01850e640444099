//! A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`):
//! no port, no websocket, nothing but std. Chromium reads commands from its fd 3 and writes
//! replies and events to its fd 4, each message NUL-terminated JSON; a shell `exec` maps our
//! stdin/stdout pipes onto those descriptors.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one command or wait may take (the CI machine is small and shared).
const TIMEOUT: Duration = Duration::from_secs(60);

/// The Chromium binary: `$CAPKIT_CHROMIUM`, or `chromium` on the `PATH` (Debian's package).
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CAPKIT_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromium"))
            .find(|p| p.is_file())
    })
}

/// A running browser; dropped, it closes Chromium and removes its profile directory.
pub struct Browser {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    /// Events received while waiting for something else, in order.
    pub events: Vec<Value>,
    log: PathBuf,
    // Last: removed after Chromium has exited.
    dir: tempfile::TempDir,
}

/// One page (a tab) of the browser.
pub struct Tab {
    session: String,
}

impl Browser {
    /// Starts Chromium headless, offline-minded and with a fresh profile in a temporary
    /// directory (its temporary and cache files too, so nothing is left behind).
    pub fn launch(binary: &Path) -> Result<Browser, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let profile = dir.path().join("profile");
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
        let log = dir.path().join("chromium.log");
        let stderr = File::create(&log).map_err(|e| e.to_string())?;
        let mut child = Command::new("sh")
            .arg("-c")
            // fd 3 = our commands, fd 4 = its replies; its own stdout goes to stderr.
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>&2"#)
            .arg(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-default-apps",
                "--disable-dev-shm-usage",
                "--disable-crash-reporter",
                "--disable-breakpad",
                "--metrics-recording-only",
                "--mute-audio",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .env("TMPDIR", &tmp)
            .env("HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if buf.last() == Some(&0) {
                            buf.pop();
                        }
                        if let Ok(v) = serde_json::from_slice::<Value>(&buf)
                            && tx.send(v).is_err()
                        {
                            break;
                        }
                    }
                }
            }
        });
        Ok(Browser {
            child,
            stdin,
            messages,
            next_id: 1,
            events: Vec::new(),
            log,
            dir,
        })
    }

    /// What Chromium wrote on stderr so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn post(&mut self, session: Option<&str>, method: &str, params: Value) -> Result<u64, String> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message).map_err(|e| e.to_string())?;
        bytes.push(0);
        self.stdin
            .write_all(&bytes)
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("{method}: browser gone: {e}"))?;
        Ok(id)
    }

    /// Sends a command and waits for its reply (events meanwhile are kept in `events`).
    pub fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.post(session, method, params)?;
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let message = self.receive(deadline, method)?;
            if message.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(error) = message.get("error") {
                    return Err(format!("{method}: {error}"));
                }
                return Ok(message.get("result").cloned().unwrap_or(Value::Null));
            }
        }
    }

    /// Waits for an event of `method` on `session`, returning it.
    pub fn wait_for(&mut self, session: &str, method: &str) -> Result<Value, String> {
        if let Some(at) = self
            .events
            .iter()
            .position(|e| is_event(e, session, method))
        {
            return Ok(self.events.remove(at));
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let message = self.receive(deadline, method)?;
            if is_event(&message, session, method)
                && let Some(at) = self
                    .events
                    .iter()
                    .rposition(|e| is_event(e, session, method))
            {
                return Ok(self.events.remove(at));
            }
        }
    }

    /// The next message; an event is kept in `events`, and a JavaScript dialog is dismissed at
    /// once (it would block the page), its event kept for the test to see.
    fn receive(&mut self, deadline: Instant, what: &str) -> Result<Value, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = match self.messages.recv_timeout(left) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!("{what}: no answer in {TIMEOUT:?}"));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(format!(
                    "{what}: the browser exited; its log:\n{}",
                    self.log()
                ));
            }
        };
        if message.get("method").is_some() {
            if message["method"] == "Page.javascriptDialogOpening"
                && let Some(session) = message.get("sessionId").and_then(Value::as_str)
            {
                let session = session.to_owned();
                self.post(
                    Some(&session),
                    "Page.handleJavaScriptDialog",
                    json!({"accept": false}),
                )?;
            }
            self.events.push(message.clone());
        }
        Ok(message)
    }

    /// A new tab with the page, runtime, log and network domains on, the network offline.
    pub fn tab(&mut self) -> Result<Tab, String> {
        let target = self.call(None, "Target.createTarget", json!({"url": "about:blank"}))?;
        let target_id = target["targetId"].as_str().ok_or("no targetId")?.to_owned();
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
        )?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or("no sessionId")?
            .to_owned();
        for domain in [
            "Page.enable",
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
        ] {
            self.call(Some(&session), domain, json!({}))?;
        }
        self.call(
            Some(&session),
            "Network.emulateNetworkConditions",
            json!({"offline": true, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0}),
        )?;
        Ok(Tab { session })
    }

    /// Sets the tab's viewport (CSS pixels) and opens `url`, waiting for its load event.
    pub fn open(&mut self, tab: &Tab, url: &str, width: u32, mobile: bool) -> Result<(), String> {
        self.call(
            Some(&tab.session),
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": mobile}),
        )?;
        self.events.clear();
        self.call(Some(&tab.session), "Page.navigate", json!({"url": url}))?;
        self.wait_for(&tab.session, "Page.loadEventFired")?;
        Ok(())
    }

    /// Evaluates `expression` in the page, returning its value.
    pub fn eval(&mut self, tab: &Tab, expression: &str) -> Result<Value, String> {
        let r = self.call(
            Some(&tab.session),
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!("{expression}: {e}"));
        }
        Ok(r["result"]["value"].clone())
    }

    /// A PNG of the whole page at the current width.
    pub fn screenshot(&mut self, tab: &Tab) -> Result<Vec<u8>, String> {
        use base64::Engine as _;
        let metrics = self.call(Some(&tab.session), "Page.getLayoutMetrics", json!({}))?;
        let size = &metrics["cssContentSize"];
        let (w, h) = (
            size["width"].as_f64().unwrap_or(1280.0),
            size["height"].as_f64().unwrap_or(900.0),
        );
        let shot = self.call(
            Some(&tab.session),
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true,
                   "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}}),
        )?;
        let data = shot["data"].as_str().ok_or("no screenshot data")?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| e.to_string())
    }

    /// The events of `session` so far.
    pub fn events_of<'a>(&'a self, tab: &'a Tab) -> impl Iterator<Item = &'a Value> {
        self.events
            .iter()
            .filter(move |e| e.get("sessionId").and_then(Value::as_str) == Some(&tab.session))
    }
}

fn is_event(message: &Value, session: &str, method: &str) -> bool {
    message.get("method").and_then(Value::as_str) == Some(method)
        && message.get("sessionId").and_then(Value::as_str) == Some(session)
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Close politely, then make sure: only our own child, by its handle.
        let _ = self.post(None, "Browser.close", json!({}));
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = &self.dir;
    }
}
