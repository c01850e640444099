//! Progress on stderr, told by the engine which stage each model call is for
//! ([`suite_core::Model::before_call`]): a bar per model call on a terminal, or a line every few
//! seconds (stage, texts done, rate, ETA) where stderr is a file or a pipe, or nothing.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use suite_core::{Side, Stage, SuiteSpec};

use crate::profile::ProgressMode;

/// The model call in progress (one at a time: the engine calls its models in turn).
struct Now {
    bar: ProgressBar,
    /// `student corruption `typo_05` (3 of 5)`; empty between calls.
    label: String,
    done: u64,
    len: u64,
    /// Answers received in all calls so far.
    answered: u64,
    run_started: Instant,
}

impl Now {
    /// The line `--progress lines` prints.
    fn line(&self) -> String {
        // The run's rate: an adapter may report a batch's answers only when it ends, so the
        // call's own rate is often unknown while it runs.
        let elapsed = self.run_started.elapsed().as_secs_f64();
        let rate = if elapsed > 0.0 {
            self.answered as f64 / elapsed
        } else {
            0.0
        };
        let eta = if rate > 0.0 {
            format!(
                "ETA {:.0} s",
                (self.len.saturating_sub(self.done)) as f64 / rate
            )
        } else {
            "ETA unknown".to_owned()
        };
        format!(
            "capkit: progress: {}: {}/{} texts of this call ({rate:.1} answers/s, {eta}); {} answers in {:.0} s",
            self.label,
            self.done,
            self.len,
            self.answered,
            self.run_started.elapsed().as_secs_f64()
        )
    }
}

/// The progress display of one command.
pub(crate) struct Progress {
    /// Names of the transformed stages, in suite order (for "k of N").
    stages: Vec<String>,
    multi: Option<MultiProgress>,
    now: Arc<Mutex<Now>>,
    /// The thread printing lines, stopped by dropping its sender.
    ticker: Mutex<Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>>,
}

impl Progress {
    pub(crate) fn new(mode: ProgressMode, every: f64, spec: &SuiteSpec) -> Progress {
        let stages = spec
            .corruptions
            .iter()
            .chain(&spec.invariances)
            .map(|e| e.name.clone())
            .collect();
        let multi = (mode == ProgressMode::Bar)
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        let now = Arc::new(Mutex::new(Now {
            bar: ProgressBar::hidden(),
            label: String::new(),
            done: 0,
            len: 0,
            answered: 0,
            run_started: Instant::now(),
        }));
        let ticker = (mode == ProgressMode::Lines).then(|| {
            let (stop, stopped) = mpsc::channel::<()>();
            let now = Arc::clone(&now);
            let every = Duration::from_secs_f64(every);
            let handle = std::thread::spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    let now = now.lock().unwrap_or_else(PoisonError::into_inner);
                    if !now.label.is_empty() {
                        eprintln!("{}", now.line());
                    }
                }
            });
            (stop, handle)
        });
        Progress {
            stages,
            multi,
            now,
            ticker: Mutex::new(ticker),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Now> {
        self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `stage` as the display names it, with its place among the transformed stages.
    fn stage_label(&self, stage: &Stage) -> String {
        let name = match stage {
            Stage::Corruption(n) | Stage::Invariance(n) => n,
            _ => return stage.to_string(),
        };
        match self.stages.iter().position(|s| s == name) {
            Some(k) => format!("{stage} ({} of {})", k + 1, self.stages.len()),
            None => stage.to_string(),
        }
    }

    /// A model call of `len` texts for `stage` begins.
    pub(crate) fn start_call(&self, side: Side, stage: &Stage, len: u64) {
        let label = format!("{side} {}", self.stage_label(stage));
        let bar = match &self.multi {
            None => ProgressBar::hidden(),
            Some(multi) => {
                let style = ProgressStyle::with_template(
                    "{prefix:>8} {msg:28} [{bar:30}] {human_pos}/{human_len} texts, {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
                multi.add(
                    ProgressBar::new(len)
                        .with_style(style)
                        .with_prefix(side.to_string())
                        .with_message(stage.to_string()),
                )
            }
        };
        let mut now = self.lock();
        now.bar = bar;
        now.label = label;
        now.done = 0;
        now.len = len;
    }

    /// The call in progress received `n` more answers (the adapters call this).
    pub(crate) fn advance(&self, n: u64) {
        let mut now = self.lock();
        now.bar.inc(n);
        now.done += n;
        now.answered += n;
    }

    /// The model call in progress ended.
    pub(crate) fn end_call(&self) {
        let mut now = self.lock();
        now.bar.finish();
        now.label.clear();
    }

    /// Clears the bars and stops the lines.
    pub(crate) fn finish(&self) {
        if let Some(multi) = &self.multi {
            let _ = multi.clear();
        }
        let ticker = self
            .ticker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((stop, handle)) = ticker {
            drop(stop);
            let _ = handle.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
