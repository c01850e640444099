//! `capkit-downstream-example TEXTS SUITE.json STUDENT TEACHER`: the profile of two models
//! named by specs (`cmd:…` or `file:…`), as JSON on stdout; the texts one per line.
//!
//! A downstream crate: it depends on `capkit-model-adapters` (default features off, so no HTTP
//! client is compiled) and `capkit-capture`, nothing else of capkit. Its test runs it on the
//! README's offline example (`examples/profile/`).

use capture::{SuiteSpec, capture_profile};
use model_adapters::{ModelSpec, Settings};

type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [texts, suite, student, teacher] = args.as_slice() else {
        eprintln!("usage: capkit-downstream-example TEXTS SUITE.json STUDENT TEACHER");
        return std::process::ExitCode::from(2);
    };
    match run(texts, suite, student, teacher) {
        Ok(json) => {
            println!("{json}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("capkit-downstream-example: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(texts: &str, suite: &str, student: &str, teacher: &str) -> Result<String, Error> {
    let texts = std::fs::read_to_string(texts).map_err(|e| format!("{texts}: {e}"))?;
    let texts: Vec<&str> = texts.lines().collect();
    let suite = std::fs::read_to_string(suite).map_err(|e| format!("{suite}: {e}"))?;
    let suite = SuiteSpec::from_json_str(&suite)?.build()?;
    let settings = Settings::default();
    let student = ModelSpec::parse(student)?.open(&settings)?;
    let teacher = ModelSpec::parse(teacher)?.open(&settings)?;
    let profile = capture_profile(&student, &teacher, &texts, &suite)?;
    student.finish()?;
    teacher.finish()?;
    Ok(capture::serde_json::to_string_pretty(&profile)?)
}
