//! The `"run"` block of `--with-run-info`: what produced the profile (never secrets).

use model_adapters::{ModelSpec, Settings, Task, scrub_userinfo};
use serde_json::{Value, json};

pub(crate) struct RunInfo<'a> {
    pub task: Task,
    pub fields: &'a [String],
    pub suite: &'a runner::SuiteFile,
    pub texts: &'a runner::TextsInfo,
    pub student: &'a ModelSpec,
    pub teacher: &'a ModelSpec,
    pub settings: &'a Settings,
}

impl RunInfo<'_> {
    /// `{"capkit_version", "task", "suite": {...}, "texts": {...}, "student", "teacher", ...}`.
    pub(crate) fn to_json(&self) -> Value {
        let mut run = json!({
            "capkit_version": env!("CARGO_PKG_VERSION"),
            "task": self.task.name(),
            "suite": {
                "file": self.suite.path,
                "blake3": self.suite.source_blake3,
            },
            "texts": {
                "count": self.texts.count(),
                "blake3": self.texts.file_blake3,
            },
            "student": self.student.to_string(),
            "teacher": self.teacher.to_string(),
        });
        if self.task == Task::Extract {
            run["fields"] = json!(self.fields);
        }
        let uses_openai = matches!(self.student, ModelSpec::OpenAi { base_url: None, .. })
            || matches!(self.teacher, ModelSpec::OpenAi { base_url: None, .. });
        if uses_openai {
            run["openai"] = json!({
                "base_url": scrub_userinfo(&self.settings.base_url),
                "prompt_template_blake3": self.settings.prompt_template.as_deref()
                    .map(|t| blake3::hash(t.as_bytes()).to_hex().to_string()),
            });
        }
        run
    }
}
