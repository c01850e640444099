//! Progress on stderr: one bar per model call, named by side and stage; hidden off a terminal.

use std::io::IsTerminal as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use model_adapters::Task;
use suite_core::{Side, SuiteSpec};

/// Knows the stage of each model call: the wrapped transforms record the stage they belong to
/// (see `suite::build`); calls before any transform are the probes (classify with probes) and
/// then the clean texts.
pub(crate) struct Progress {
    tracker: Arc<AtomicUsize>,
    /// Names of the transform stages, 1-based through the tracker.
    stages: Vec<String>,
    probes_first: bool,
    multi: Option<MultiProgress>,
}

impl Progress {
    pub(crate) fn new(task: Task, spec: &SuiteSpec) -> Progress {
        let stages = spec
            .corruptions
            .iter()
            .map(|c| format!("corruption `{}`", c.name))
            .chain(
                spec.invariances
                    .iter()
                    .map(|i| format!("invariance `{}`", i.name)),
            )
            .collect();
        let multi = std::io::stderr()
            .is_terminal()
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Progress {
            tracker: Arc::default(),
            stages,
            probes_first: task == Task::Classify && !spec.probes.is_empty(),
            multi,
        }
    }

    /// The counter the suite's transforms write their stage into.
    pub(crate) fn tracker(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.tracker)
    }

    /// Starts a new profile run over the same suite (`capkit profile compare` runs one per
    /// student): no transform has run yet, so the next calls are the probes and clean texts.
    pub(crate) fn new_run(&self) {
        self.tracker.store(0, Ordering::Relaxed);
    }

    /// The stage of a model's `call`-th call (1-based).
    pub(crate) fn stage_name(&self, call: u64) -> String {
        match self.tracker.load(Ordering::Relaxed) {
            0 if call == 1 && self.probes_first => "probes".to_owned(),
            0 => "clean texts".to_owned(),
            n => self
                .stages
                .get(n - 1)
                .cloned()
                .unwrap_or_else(|| "stage".to_owned()),
        }
    }

    /// A bar for one model call of `len` texts.
    pub(crate) fn stage_bar(&self, side: Side, call: u64, len: u64) -> ProgressBar {
        let Some(multi) = &self.multi else {
            return ProgressBar::hidden();
        };
        let style = ProgressStyle::with_template(
            "{prefix:>8} {msg:28} [{bar:30}] {human_pos}/{human_len} texts, {elapsed}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        multi.add(
            ProgressBar::new(len)
                .with_style(style)
                .with_prefix(side.to_string())
                .with_message(self.stage_name(call)),
        )
    }

    /// Clears the bars.
    pub(crate) fn finish(&self) {
        if let Some(multi) = &self.multi {
            let _ = multi.clear();
        }
    }
}
