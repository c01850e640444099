//! `cmd:` models: a subprocess speaking JSONL on stdin/stdout (`docs/model-protocol.md`).
//!
//! The process is started once per run. For each batch a writer thread streams the batch's
//! `{"id", "text"}` lines into the child's stdin while this thread reads the answers, so neither
//! pipe can fill up and deadlock however large the batch; a reader thread drains stdout in
//! chunks (so a timeout can be enforced), another keeps the tail of stderr for error messages.

use std::collections::VecDeque;
use std::io::{BufWriter, Read as _, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::ProtocolError;

use crate::backend::{Answer, Backend, count, protocol_message, secs, short};
use crate::error::Error;
use crate::settings::{Settings, Task};

/// What the stdout reader sends: complete lines, then the end.
enum Chunk {
    Lines(Vec<u8>),
    /// End of output, with a last line that had no line break (if any).
    Eof(Vec<u8>),
    Failed(std::io::Error),
}

/// Lines of stderr kept for error messages.
const STDERR_TAIL: usize = 8;

pub(crate) struct CmdBackend {
    name: String,
    argv: Vec<String>,
    child: Child,
    stdin: Option<ChildStdin>,
    out: Receiver<Chunk>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Output bytes received and not yet parsed, and the parse position in them.
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    timeout: Duration,
    task: Task,
    next_id: u64,
    line: u64,
    /// Whether answers carry `decision` (fixed by the first answer).
    decisions: Option<bool>,
}

impl CmdBackend {
    /// Starts the program (argv, never a shell).
    pub(crate) fn start(name: &str, argv: &[String], settings: &Settings) -> Result<Self, Error> {
        let Some((program, args)) = argv.split_first() else {
            return Err(Error::Config {
                model: name.to_owned(),
                problem: "no program to start".to_owned(),
            });
        };
        let failed = |source| Error::Start {
            model: name.to_owned(),
            program: program.clone(),
            source,
        };
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(failed)?;
        let stdin = child.stdin.take();
        let no_pipe = || failed(std::io::Error::other("no pipe to the process"));
        let mut stdout = child.stdout.take().ok_or_else(no_pipe)?;
        let mut stderr = child.stderr.take().ok_or_else(no_pipe)?;
        // Bounded: the reader runs at most a few chunks ahead of the parser.
        let (tx, rx) = sync_channel::<Chunk>(16);
        std::thread::spawn(move || {
            let mut pending: Vec<u8> = Vec::new();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) => {
                        let _ = tx.send(Chunk::Eof(pending));
                        return;
                    }
                    Ok(n) => {
                        pending.extend_from_slice(&buf[..n]);
                        if let Some(last) = pending.iter().rposition(|&b| b == b'\n') {
                            let rest = pending.split_off(last + 1);
                            let lines = std::mem::replace(&mut pending, rest);
                            if tx.send(Chunk::Lines(lines)).is_err() {
                                return;
                            }
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.send(Chunk::Failed(e));
                        return;
                    }
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        std::thread::spawn(move || {
            let mut all = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                all.extend_from_slice(&buf[..n]);
                while let Some(nl) = all.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = all.drain(..=nl).collect();
                    let line = String::from_utf8_lossy(&line).trim_end().to_owned();
                    let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
                    if t.len() == STDERR_TAIL {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
                // A pathological line without a break is cut rather than kept whole.
                if all.len() > 1 << 16 {
                    all.clear();
                }
            }
            if !all.is_empty() {
                let line = String::from_utf8_lossy(&all).trim_end().to_owned();
                let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
                t.push_back(line);
            }
        });
        Ok(CmdBackend {
            name: name.to_owned(),
            argv: argv.to_vec(),
            child,
            stdin,
            out: rx,
            stderr_tail,
            buf: Vec::new(),
            pos: 0,
            eof: false,
            timeout: settings.timeout,
            task: settings.task,
            next_id: 0,
            line: 0,
            decisions: None,
        })
    }

    fn last_stderr(&self) -> String {
        // The stderr reader may still be catching up with a process that just died.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self
            .stderr_tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match tail.iter().rev().find(|l| !l.trim().is_empty()) {
            Some(l) => format!("; its last stderr line: {}", short(l.trim())),
            None => String::new(),
        }
    }

    /// Kills the process (after an error: the run is over) and reaps it.
    fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The exit status after end of output, waited for briefly.
    fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => {
                    self.kill();
                    return "closed its output".to_owned();
                }
            }
        }
    }

    /// The next output line (without its line break), or an error when the process ended or
    /// went silent for the whole timeout.
    fn next_line(&mut self, expected: u64) -> Result<(usize, usize), Error> {
        loop {
            if let Some(nl) = self.buf[self.pos..].iter().position(|&b| b == b'\n') {
                let start = self.pos;
                self.pos += nl + 1;
                self.line += 1;
                return Ok((start, start + nl));
            }
            if self.eof {
                if self.pos < self.buf.len() {
                    let start = self.pos;
                    self.pos = self.buf.len();
                    self.line += 1;
                    return Ok((start, self.buf.len()));
                }
                let status = self.exit_status();
                let stderr = self.last_stderr();
                return Err(Error::Model(format!(
                    "`{}` exited ({status}) after {} output lines, before answering text id {expected}{stderr}",
                    self.name, self.line
                )));
            }
            match self.out.recv_timeout(self.timeout) {
                Ok(Chunk::Lines(bytes)) => {
                    self.buf.drain(..self.pos);
                    self.pos = 0;
                    if self.buf.is_empty() {
                        self.buf = bytes;
                    } else {
                        self.buf.extend_from_slice(&bytes);
                    }
                }
                Ok(Chunk::Eof(rest)) => {
                    self.buf.drain(..self.pos);
                    self.pos = 0;
                    self.buf.extend_from_slice(&rest);
                    self.eof = true;
                }
                Ok(Chunk::Failed(e)) => {
                    self.kill();
                    return Err(Error::Model(format!(
                        "`{}`: reading its output: {e}",
                        self.name
                    )));
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(Error::Model(format!(
                        "`{}`: no answer for text id {expected} within {} (after {}); did the model flush its output after each answer line?",
                        self.name,
                        secs(self.timeout),
                        count(self.line, "output line")
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.eof = true;
                }
            }
        }
    }

    /// Reads and checks the answers for ids `first..first + n`.
    fn read_answers(
        &mut self,
        first: u64,
        n: usize,
        out: &mut Vec<Answer>,
        done: &mut dyn FnMut(u64),
    ) -> Result<(), Error> {
        let end = first + n as u64;
        let mut expected = first;
        let mut since_report = 0u64;
        while expected < end {
            let (a, b) = self.next_line(expected)?;
            let line = trim_cr(&self.buf[a..b]);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let at = self.line;
            let name = &self.name;
            let kind = self.task.answer_kind();
            let answer = crate::parse_answer_line(line, kind).map_err(|e| {
                let id = match &e {
                    ProtocolError::BothOutputs { id }
                    | ProtocolError::NoOutput { id, .. }
                    | ProtocolError::InAnswer { id, .. } => *id,
                    _ => expected,
                };
                Error::Model(format!(
                    "`{name}`: output line {at} (text id {id}): {}",
                    protocol_message(&e)
                ))
            })?;
            let id = answer.id;
            if id != expected {
                return Err(Error::Model(if id < expected {
                    format!(
                        "`{name}`: output line {at}: a second answer for text id {id} (expected text id {expected})"
                    )
                } else if id < self.next_id {
                    format!(
                        "`{name}`: output line {at}: no answer for text id {expected} (got text id {id}; answers must come in input order)"
                    )
                } else {
                    format!(
                        "`{name}`: output line {at}: answer for unknown text id {id} (expected text id {expected})"
                    )
                }));
            }
            let has = answer.decision.is_some();
            match self.decisions {
                None => self.decisions = Some(has),
                Some(before) if before != has => {
                    return Err(Error::Model(format!(
                        "`{name}`: output line {at} (text id {id}): {} \"decision\", unlike the first answer",
                        if has { "has a" } else { "has no" }
                    )));
                }
                Some(_) => {}
            }
            out.push(Answer {
                output: answer.output,
                decision: answer.decision,
            });
            expected += 1;
            since_report += 1;
            if since_report >= 256 {
                done(since_report);
                since_report = 0;
            }
        }
        done(since_report);
        Ok(())
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Writes the request lines of `texts` (ids from `first`).
fn write_requests(stdin: &mut ChildStdin, texts: &[&str], first: u64) -> std::io::Result<()> {
    let mut w = BufWriter::with_capacity(1 << 16, stdin);
    for (id, text) in (first..).zip(texts) {
        w.write_all(b"{\"id\":")?;
        write!(w, "{id}")?;
        w.write_all(b",\"text\":")?;
        serde_json::to_writer(&mut w, text).map_err(std::io::Error::other)?;
        w.write_all(b"}\n")?;
    }
    w.flush()
}

impl Backend for CmdBackend {
    fn answer(&mut self, texts: &[&str], done: &mut dyn FnMut(u64)) -> Result<Vec<Answer>, Error> {
        let mut out = Vec::with_capacity(texts.len());
        let first = self.next_id;
        self.next_id += texts.len() as u64;
        let Some(mut stdin) = self.stdin.take() else {
            return Err(Error::Model(format!(
                "`{}` is no longer running",
                self.name
            )));
        };
        // A writer thread streams every line of the batch while this thread reads the answers.
        let (read, written) = std::thread::scope(|scope| {
            let writer = scope.spawn(move || {
                let r = write_requests(&mut stdin, texts, first);
                (stdin, r)
            });
            let read = self.read_answers(first, texts.len(), &mut out, done);
            if read.is_err() {
                // The writer may be blocked on a full pipe of a stuck process.
                let _ = self.child.kill();
            }
            (read, writer.join())
        });
        match (read, written) {
            (Ok(()), Ok((stdin, _))) => self.stdin = Some(stdin),
            (Err(e), _) => {
                self.kill();
                return Err(e);
            }
            (Ok(()), Err(_)) => {
                self.kill();
                return Err(Error::Model(format!(
                    "`{}`: the request writer failed",
                    self.name
                )));
            }
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<(), Error> {
        // End of input tells the model the run is over.
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return Ok(()),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                _ => {
                    self.kill();
                    return Ok(());
                }
            }
        }
    }

    /// The argv: the cache cannot see a model's code change, so a changed model needs a changed
    /// spec (a version argument, say) or `--no-cache`.
    fn identity(&self) -> Option<String> {
        Some(format!(
            "cmd\0{}",
            serde_json::to_string(&self.argv).unwrap_or_default()
        ))
    }
}

impl Drop for CmdBackend {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}
