//! `capkit profile` end to end: subprocess models in Rust (the `jsonl_model` example) and Python,
//! http: and openai: models against a server on 127.0.0.1, the prediction cache, and every
//! failure mode's one-line error (insta snapshots). The adapters themselves are tested in
//! `capkit-model-adapters`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenario_rules::{SystemNeed, system_has};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use scenario_rules::{RuleModel, model_server, serve};
use serde_json::{Value, json};
use suite_core::SuiteSpec;

mod support;

use support::{capkit_in, output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profile")
}

fn scenario_path(id: &str) -> PathBuf {
    fixtures().join(format!("scenarios/{id}.json"))
}

fn scenario(id: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(scenario_path(id)).unwrap()).unwrap()
}

const CAPTURE: [&str; 8] = [
    "scenario_01",
    "scenario_02",
    "scenario_03",
    "scenario_04",
    "scenario_05",
    "scenario_06",
    "scenario_09",
    "scenario_10",
];
const EXTRACT: [&str; 4] = ["scenario_07", "scenario_08", "scenario_11", "scenario_12"];

/// A fresh temporary directory for one test, removed when the test ends (pass or fail).
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("capkit-profile-{name}-"))
        .tempdir()
        .unwrap()
}

/// The `jsonl_model` example binary (built by `cargo test`; built here when a narrower command
/// skipped examples).
fn rust_model() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let path = profile_dir.join("examples/jsonl_model");
    if !path.exists() {
        let target = profile_dir.join("profile-example-build");
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "-p", "capkit", "--example", "jsonl_model"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success());
        return target.join("debug/examples/jsonl_model");
    }
    path
}

fn capkit(args: &[&str], dir: &Path) -> Output {
    output(capkit_in(dir).args(args))
}

/// A scenario suite in `SuiteSpec` form when every transform is a built-in one, else `None`.
fn builtin_suite(s: &Value) -> Option<Value> {
    let entries = |key: &str| -> Option<Vec<Value>> {
        s["suite"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let name = e["name"].clone();
                let t = e["transform"].as_str().unwrap();
                Some(match t {
                    "identity" | "case_jitter" | "whitespace" => {
                        json!({"name": name, "transform": t})
                    }
                    _ => {
                        let (r, seed) = t.strip_prefix("typo_r")?.split_once("_s")?;
                        json!({"name": name, "transform": "keyboard_typo",
                               "rate": r.parse::<f64>().ok()?, "seed": seed.parse::<u64>().ok()?,
                               "rng": "mixle"})
                    }
                })
            })
            .collect()
    };
    Some(json!({
        "corruptions": entries("corruptions")?,
        "invariances": entries("invariances")?,
        "probes": s["suite"]["probes"],
    }))
}

/// Built-in transforms standing in for a scenario's custom ones (the CLI only has built-ins).
fn stand_in_suite(s: &Value) -> Value {
    json!({
        "corruptions": [
            {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.1, "seed": 1},
            {"name": "typo_30", "transform": "keyboard_typo", "rate": 0.3, "seed": 2},
            {"name": "same", "transform": "identity"}
        ],
        "invariances": [
            {"name": "case", "transform": "case_jitter"},
            {"name": "space", "transform": "whitespace"}
        ],
        "probes": s["suite"]["probes"],
    })
}

/// The library's profile of the scenario's rule models under `suite`.
fn library_profile(s: &Value, suite: &Value) -> Value {
    let suite = SuiteSpec::from_json_str(&suite.to_string())
        .unwrap()
        .build()
        .unwrap();
    let student = RuleModel::from_scenario(&s["student"]).unwrap();
    let teacher = RuleModel::from_scenario(&s["teacher"]).unwrap();
    let texts: Vec<String> = serde_json::from_value(s["texts"].clone()).unwrap();
    if s["function"] == "capture_profile" {
        serde_json::to_value(capture::capture_profile(&student, &teacher, &texts, &suite).unwrap())
            .unwrap()
    } else {
        let fields: Vec<String> = serde_json::from_value(s["fields"].clone()).unwrap();
        serde_json::to_value(
            extractive::extractive_capture_profile(&student, &teacher, &texts, &suite, &fields)
                .unwrap(),
        )
        .unwrap()
    }
}

/// Writes the scenario's texts (JSONL: some contain line breaks) and `suite` into `dir`.
fn write_inputs(dir: &Path, s: &Value, suite: &Value) -> (PathBuf, PathBuf) {
    let texts = dir.join("texts.jsonl");
    let lines: String = s["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("{}\n", json!({ "text": t })))
        .collect();
    std::fs::write(&texts, lines).unwrap();
    let suite_path = dir.join("suite.json");
    std::fs::write(&suite_path, suite.to_string()).unwrap();
    (texts, suite_path)
}

/// The stdout of `capkit cache ARGS --cache-dir CACHE`, which must succeed.
fn cache_command(cache: &Path, args: &[&str]) -> String {
    let mut all = vec!["cache"];
    all.extend_from_slice(args);
    all.extend(["--cache-dir", cache.to_str().unwrap()]);
    let out = capkit(&all, &fixtures());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `capkit profile` on a scenario with the given model specs and returns the profile.
fn cli_profile(s: &Value, suite: &Value, student: &str, teacher: &str, extra: &[&str]) -> Value {
    let tmp = temp_dir(&format!(
        "run-{}-{}",
        s["id"].as_str().unwrap(),
        blake3::hash(format!("{student}{teacher}{extra:?}").as_bytes()).to_hex()[..8].to_owned()
    ));
    let dir = tmp.path();
    let (texts, suite_path) = write_inputs(dir, s, suite);
    let out = dir.join("profile.json");
    let mut args = vec![
        "profile".to_owned(),
        if s["function"] == "capture_profile" {
            "classify".to_owned()
        } else {
            "extract".to_owned()
        },
    ];
    if s["function"] != "capture_profile" {
        let fields: Vec<String> = serde_json::from_value(s["fields"].clone()).unwrap();
        args.push(format!("--fields={}", fields.join(",")));
    }
    for a in [
        "--texts",
        texts.to_str().unwrap(),
        "--suite",
        suite_path.to_str().unwrap(),
        "--student",
        student,
        "--teacher",
        teacher,
        "--out",
        out.to_str().unwrap(),
    ] {
        args.push(a.to_owned());
    }
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = capkit(&args, &fixtures());
    assert!(
        run.status.success(),
        "{}: {}",
        s["id"],
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

/// The known gap: a model that never sees a text cannot reveal its decision API, so a run with
/// no texts and no probes (scenario_12 is an extract run: probes are ignored) has no abstention.
fn without_unknowable_abstention(id: &str, mut library: Value) -> Value {
    if id == "scenario_12" {
        library.as_object_mut().unwrap().remove("abstention");
    }
    library
}

fn check_scenarios(model: impl Fn(&str, &str) -> String, extra: &[&str]) -> usize {
    let mut goldens = 0;
    for id in CAPTURE.iter().chain(&EXTRACT) {
        let s = scenario(id);
        let (suite, golden) = match builtin_suite(&s) {
            Some(suite) => (suite, true),
            None => (stand_in_suite(&s), false),
        };
        let student = model(id, "student");
        let teacher = model(id, "teacher");
        let cli = cli_profile(&s, &suite, &student, &teacher, extra);
        let library = without_unknowable_abstention(id, library_profile(&s, &suite));
        assert_eq!(
            cli, library,
            "{id}: the CLI profile differs from the library's"
        );
        if golden {
            assert_eq!(
                cli, s["expected_profile"],
                "{id}: the CLI profile differs from upstream's"
            );
            goldens += 1;
        }
    }
    goldens
}

#[test]
fn golden_rust_subprocess_model_matches_library_and_upstream() {
    let bin = rust_model();
    let goldens = check_scenarios(
        |id, side| format!("cmd:{} scenarios/{id}.json {side}", bin.to_str().unwrap()),
        &["--no-cache"],
    );
    // scenario_05 (no transforms), _10 and _11 (mixle-exact typos) run with their own suites.
    assert_eq!(goldens, 3);
}

#[test]
fn golden_chunked_runs_match_library_and_upstream_for_any_chunk_size() {
    let bin = rust_model();
    for chunk in ["1", "3"] {
        let goldens = check_scenarios(
            |id, side| format!("cmd:{} scenarios/{id}.json {side}", bin.to_str().unwrap()),
            &["--no-cache", "--chunk-size", chunk],
        );
        assert_eq!(goldens, 3, "chunk size {chunk}");
    }
}

#[test]
fn golden_python_subprocess_model_matches_library_and_upstream() {
    if !system_has(
        SystemNeed::Python3,
        "golden_python_subprocess_model_matches_library_and_upstream",
    ) {
        return;
    }
    let goldens = check_scenarios(
        |id, side| format!("cmd:python3 rule_model.py scenarios/{id}.json {side}"),
        &["--no-cache"],
    );
    assert_eq!(goldens, 3);
}

#[test]
fn scenario_12_has_no_abstention_because_no_text_reaches_the_models() {
    let s = scenario("scenario_12");
    let suite = stand_in_suite(&s);
    let cli = cli_profile(
        &s,
        &suite,
        "cmd:python3 rule_model.py scenarios/scenario_12.json student",
        "cmd:python3 rule_model.py scenarios/scenario_12.json teacher",
        &["--no-cache"],
    );
    assert_eq!(cli.get("abstention"), None);
    assert_eq!(cli["clean_f1"], json!(1.0));
}

#[test]
fn cached_second_run_makes_zero_model_calls() {
    if !system_has(
        SystemNeed::Python3,
        "cached_second_run_makes_zero_model_calls",
    ) {
        return;
    }
    let tmp = temp_dir("cache");
    let dir = tmp.path();
    let s = scenario("scenario_04");
    let suite = stand_in_suite(&s);
    let (texts, suite_path) = write_inputs(dir, &s, &suite);
    let log = dir.join("calls.log");
    let cache = dir.join("cache");
    let spec = |side: &str| {
        format!(
            "cmd:python3 rule_model.py scenarios/scenario_04.json {side} {}",
            log.display()
        )
    };
    let (student, teacher) = (spec("student"), spec("teacher"));
    let run = |suite: &Path| {
        let out = capkit(
            &[
                "profile",
                "classify",
                "--texts",
                texts.to_str().unwrap(),
                "--suite",
                suite.to_str().unwrap(),
                "--student",
                &student,
                "--teacher",
                &teacher,
                "--cache-dir",
                cache.to_str().unwrap(),
            ],
            &fixtures(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let calls = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count();
        let profile: Value = serde_json::from_slice(&out.stdout).unwrap();
        (profile, calls, String::from_utf8(out.stderr).unwrap())
    };
    let (first, calls_first, stderr_first) = run(&suite_path);
    assert!(calls_first > 0);
    assert!(stderr_first.contains(" 0 hits, "), "{stderr_first}");
    let (second, calls_second, stderr_second) = run(&suite_path);
    assert_eq!(second, first);
    assert_eq!(calls_second, calls_first, "the second run called a model");
    assert!(stderr_second.contains(" 0 misses "), "{stderr_second}");
    assert_eq!(first, library_profile(&s, &suite));

    // `capkit cache`: what the two runs stored, sound, exported line by line, compacted.
    let cache_cmd = |args: &[&str]| cache_command(&cache, args);
    let stats: Value = serde_json::from_str(&cache_cmd(&["stats", "--json"])).unwrap();
    let answers = stats["answers"].as_u64().unwrap();
    assert_eq!(stats["models"].as_array().unwrap().len(), 2, "{stats}");
    assert!(answers > 0 && answers as usize <= calls_first, "{stats}");
    assert!(cache_cmd(&["verify"]).starts_with("ok: "));
    assert_eq!(cache_cmd(&["export"]).lines().count() as u64, answers);
    assert!(cache_cmd(&["compact"]).starts_with("compacted: "));
    assert!(cache_cmd(&["stats"]).contains(&format!("answers: {answers}")));

    // Only the suite changed: only the texts never seen before reach the models.
    let mut more = suite.clone();
    more["corruptions"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "typo_50", "transform": "keyboard_typo", "rate": 0.5, "seed": 9}));
    let more_path = dir.join("more.json");
    std::fs::write(&more_path, more.to_string()).unwrap();
    let (third, calls_third, _) = run(&more_path);
    let texts_n = s["texts"].as_array().unwrap().len();
    assert!(calls_third > calls_second && calls_third <= calls_second + 2 * texts_n);
    assert_eq!(third, library_profile(&s, &more));
}

#[test]
fn file_models_answer_from_precomputed_predictions() {
    let tmp = temp_dir("file");
    let dir = tmp.path();
    let texts = fixtures().join("texts4.txt");
    let suite = fixtures().join("tiny_suite.json");
    let write_preds = |name: &str, f: &dyn Fn(&str) -> &'static str| {
        let mut lines = String::new();
        for t in ["good one", "bad one", "Good two", "nothing"] {
            for v in [t.to_owned(), suite_core::py_swapcase(t)] {
                lines.push_str(&format!("{}\n", json!({"text": v, "label": f(&v)})));
            }
        }
        let p = dir.join(name);
        std::fs::write(&p, lines).unwrap();
        p
    };
    let student = write_preds("student.jsonl", &|t| {
        if t.contains("good") { "pos" } else { "neg" }
    });
    let teacher = write_preds("teacher.jsonl", &|t| {
        if t.to_lowercase().contains("good") {
            "pos"
        } else {
            "neg"
        }
    });
    let out = capkit(
        &[
            "profile",
            "classify",
            "--texts",
            texts.to_str().unwrap(),
            "--suite",
            suite.to_str().unwrap(),
            "--student",
            &format!("file:{}", student.display()),
            "--teacher",
            &format!("file:{}", teacher.display()),
        ],
        dir,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        profile,
        json!({"clean_agreement": 0.75, "corruptions": {},
               "invariances": {"case": {"student_violation_rate": 0.25, "teacher_violation_rate": 0.0}}})
    );
}

#[test]
fn run_info_is_a_separate_block_and_default_json_is_upstream_shaped() {
    if !system_has(
        SystemNeed::Python3,
        "run_info_is_a_separate_block_and_default_json_is_upstream_shaped",
    ) {
        return;
    }
    let s = scenario("scenario_10");
    let suite = builtin_suite(&s).unwrap();
    let model = |side: &str| format!("cmd:python3 rule_model.py scenarios/scenario_10.json {side}");
    let with = cli_profile(
        &s,
        &suite,
        &model("student"),
        &model("teacher"),
        &["--no-cache", "--with-run-info"],
    );
    let run = &with["run"];
    assert_eq!(run["capkit_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(run["student"], model("student"));
    assert_eq!(run["texts"]["count"], 8);
    let texts_bytes: String = s["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("{}\n", json!({ "text": t })))
        .collect();
    assert_eq!(
        run["texts"]["blake3"],
        blake3::hash(texts_bytes.as_bytes()).to_hex().as_str()
    );
    assert_eq!(
        run["suite"]["blake3"],
        blake3::hash(suite.to_string().as_bytes()).to_hex().as_str()
    );
    let mut without = with.clone();
    without.as_object_mut().unwrap().remove("run");
    assert_eq!(without, s["expected_profile"]);
}

#[test]
fn default_suite_is_documented_and_used() {
    if !system_has(SystemNeed::Python3, "default_suite_is_documented_and_used") {
        return;
    }
    let out = capkit(&["profile", "default-suite"], &fixtures());
    assert!(out.status.success());
    let spec: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = spec["corruptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["typo_05", "typo_10", "typo_20"]);
    let texts = fixtures().join("texts4.txt");
    let out = capkit(
        &[
            "profile",
            "classify",
            "--texts",
            texts.to_str().unwrap(),
            "--student",
            "cmd:python3 bad_model.py ok",
            "--teacher",
            "cmd:python3 bad_model.py ok",
            "--no-cache",
        ],
        &fixtures(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(profile["clean_agreement"], json!(1.0));
    assert_eq!(profile["probes"]["student"].as_array().unwrap().len(), 10);
    assert_eq!(
        profile["invariances"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["case", "whitespace"]
    );
}

// ---- failure modes: exit code 1, one line on stderr, nothing written ----

fn failure(args: &[&str]) -> String {
    let tmp = temp_dir("fail");
    let dir = tmp.path();
    let out_path = dir.join("profile.json");
    let mut all: Vec<&str> = args.to_vec();
    let out_str = out_path.to_str().unwrap().to_owned();
    all.extend(["--out", &out_str, "--no-cache"]);
    let out = capkit(&all, &fixtures());
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    assert!(out.stdout.is_empty());
    assert!(
        !out_path.exists(),
        "a failed run wrote {}",
        out_path.display()
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

fn failing_student(mode: &str, extra: &[&str]) -> String {
    let student = format!("cmd:python3 bad_model.py {mode}");
    let mut args = vec![
        "profile",
        "classify",
        "--texts",
        "texts4.txt",
        "--suite",
        "tiny_suite.json",
        "--student",
        &student,
        "--teacher",
        "cmd:python3 bad_model.py ok",
    ];
    args.extend(extra);
    failure(&args)
}

#[test]
fn golden_error_model_crash() {
    if !system_has(SystemNeed::Python3, "golden_error_model_crash") {
        return;
    }
    insta::assert_snapshot!(failing_student("crash", &[]));
}

#[test]
fn golden_error_model_timeout() {
    if !system_has(SystemNeed::Python3, "golden_error_model_timeout") {
        return;
    }
    insta::assert_snapshot!(failing_student("hang", &["--timeout", "3"]));
}

#[test]
fn golden_error_invalid_json() {
    if !system_has(SystemNeed::Python3, "golden_error_invalid_json") {
        return;
    }
    insta::assert_snapshot!(failing_student("invalid_json", &[]));
}

#[test]
fn golden_error_missing_id() {
    if !system_has(SystemNeed::Python3, "golden_error_missing_id") {
        return;
    }
    insta::assert_snapshot!(failing_student("skip_id", &[]));
}

#[test]
fn golden_error_duplicate_id() {
    if !system_has(SystemNeed::Python3, "golden_error_duplicate_id") {
        return;
    }
    insta::assert_snapshot!(failing_student("duplicate_id", &[]));
}

#[test]
fn golden_error_unknown_id() {
    if !system_has(SystemNeed::Python3, "golden_error_unknown_id") {
        return;
    }
    insta::assert_snapshot!(failing_student("unknown_id", &[]));
}

#[test]
fn golden_error_missing_label() {
    if !system_has(SystemNeed::Python3, "golden_error_missing_label") {
        return;
    }
    insta::assert_snapshot!(failing_student("no_label", &[]));
}

#[test]
fn golden_error_not_a_record() {
    if !system_has(SystemNeed::Python3, "golden_error_not_a_record") {
        return;
    }
    insta::assert_snapshot!(failure(&[
        "profile",
        "extract",
        "--fields",
        "name",
        "--texts",
        "texts4.txt",
        "--suite",
        "tiny_suite.json",
        "--student",
        "cmd:python3 bad_model.py not_a_record",
        "--teacher",
        "cmd:python3 bad_model.py ok",
    ]));
}

#[test]
fn golden_error_program_not_found() {
    insta::assert_snapshot!(failure(&[
        "profile",
        "classify",
        "--texts",
        "texts4.txt",
        "--student",
        "cmd:./no-such-model --fast",
        "--teacher",
        "cmd:python3 bad_model.py ok",
    ]));
}

#[test]
fn golden_error_file_model_without_prediction() {
    if !system_has(
        SystemNeed::Python3,
        "golden_error_file_model_without_prediction",
    ) {
        return;
    }
    let tmp = temp_dir("file-missing");
    let dir = tmp.path();
    let preds = dir.join("p.jsonl");
    std::fs::write(&preds, "{\"text\": \"good one\", \"label\": \"pos\"}\n").unwrap();
    let spec = format!("file:{}", preds.display());
    let err = failure(&[
        "profile",
        "classify",
        "--texts",
        "texts4.txt",
        "--suite",
        "tiny_suite.json",
        "--student",
        "cmd:python3 bad_model.py ok",
        "--teacher",
        &spec,
    ]);
    insta::assert_snapshot!(err.replace(dir.to_str().unwrap(), "DIR"));
}

#[test]
fn golden_error_bad_model_spec() {
    insta::assert_snapshot!(failure(&[
        "profile",
        "classify",
        "--texts",
        "texts4.txt",
        "--student",
        "python3 model.py",
        "--teacher",
        "cmd:python3 bad_model.py ok",
    ]));
}

#[test]
fn golden_error_bad_texts_and_suite() {
    let missing = failure(&[
        "profile",
        "classify",
        "--texts",
        "missing.txt",
        "--student",
        "cmd:x",
        "--teacher",
        "cmd:x",
    ]);
    let suite = failure(&[
        "profile",
        "classify",
        "--texts",
        "texts4.txt",
        "--suite",
        "rule_model.py",
        "--student",
        "cmd:x",
        "--teacher",
        "cmd:x",
    ]);
    insta::assert_snapshot!(format!("{missing}{suite}"));
}

#[test]
fn a_failed_run_leaves_an_existing_profile_untouched() {
    let tmp = temp_dir("keep");
    let dir = tmp.path();
    let out = dir.join("profile.json");
    std::fs::write(&out, "previous").unwrap();
    let run = capkit(
        &[
            "profile",
            "classify",
            "--texts",
            "texts4.txt",
            "--suite",
            "tiny_suite.json",
            "--student",
            "cmd:python3 bad_model.py crash",
            "--teacher",
            "cmd:python3 bad_model.py ok",
            "--no-cache",
            "--out",
            out.to_str().unwrap(),
        ],
        &fixtures(),
    );
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
    assert_eq!(
        std::fs::read_dir(dir).unwrap().count(),
        1,
        "a temporary file was left"
    );
}

// ---- http: and openai: models against a server on 127.0.0.1 ----

/// A `{"texts"}` → `{"labels"|"records", "decisions"}` server for a scenario side.
fn rule_server(s: &Value, side: &str) -> (String, Arc<Mutex<Vec<Value>>>) {
    let model = RuleModel::from_scenario(&s[side]).unwrap();
    let key = if s["function"] == "capture_profile" {
        "labels"
    } else {
        "records"
    };
    serve(model_server(Arc::new(model), key))
}

/// `--batch-size` and `--concurrency` reach the http: adapter (that its answers do not depend
/// on them is capkit-model-adapters' test `http_models_match_the_model_in_process_…`).
#[test]
fn http_models_match_the_library_with_the_batch_size_and_concurrency_given() {
    for id in ["scenario_04", "scenario_08"] {
        let s = scenario(id);
        let suite = stand_in_suite(&s);
        let library = library_profile(&s, &suite);
        let (student_url, student_seen) = rule_server(&s, "student");
        let (teacher_url, _) = rule_server(&s, "teacher");
        let cli = cli_profile(
            &s,
            &suite,
            &format!("http:{student_url}/predict"),
            &format!("http:{teacher_url}/predict"),
            &["--no-cache", "--batch-size", "3", "--concurrency", "4"],
        );
        assert_eq!(cli, library, "{id}");
        let seen = student_seen.lock().unwrap();
        assert!(seen.len() > 1);
        assert!(
            seen.iter()
                .all(|b| b["texts"].as_array().unwrap().len() <= 3)
        );
    }
}

#[test]
fn golden_error_http_server_failure() {
    let (url, _) = serve(Arc::new(|_, _| {
        (400, "{\"error\": \"bad input\"}".to_owned())
    }));
    let spec = format!("http:{url}/predict");
    let err = failure(&[
        "profile",
        "classify",
        "--texts",
        "texts4.txt",
        "--suite",
        "tiny_suite.json",
        "--student",
        &spec,
        "--teacher",
        "cmd:python3 bad_model.py ok",
    ]);
    insta::assert_snapshot!(err.replace(&url, "http://ADDR"));
}

fn completion(content: &str) -> String {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
        .to_string()
}

/// An OpenAI-compatible server answering a scenario side's rule on the prompt's text.
fn openai_server(s: &Value, side: &str) -> (String, Arc<Mutex<Vec<Value>>>) {
    let model = RuleModel::from_scenario(&s[side]).unwrap();
    let extract = s["function"] != "capture_profile";
    serve(Arc::new(move |path, body| {
        assert_eq!(path, "/v1/chat/completions");
        let prompt = body["messages"][0]["content"].as_str().unwrap();
        let text = prompt.strip_prefix("Label this text:\n").unwrap();
        let label = model.predict(text).unwrap();
        let reply = if extract {
            format!("```json\n{label}\n```")
        } else {
            format!("  {}\n", label.as_str().unwrap())
        };
        (200, completion(&reply))
    }))
}

#[test]
fn openai_models_match_the_library() {
    let tmp = temp_dir("openai");
    let dir = tmp.path();
    let template = dir.join("prompt.txt");
    std::fs::write(&template, "Label this text:\n{text}").unwrap();
    for id in ["scenario_01", "scenario_07"] {
        let s = scenario(id);
        let suite = stand_in_suite(&s);
        let (student_url, _) = openai_server(&s, "student");
        let (teacher_url, teacher_seen) = openai_server(&s, "teacher");
        // The student on --base-url, the teacher naming its own server.
        let cli = cli_profile(
            &s,
            &suite,
            "openai:test-model",
            &format!("openai:teacher-model@{teacher_url}/v1"),
            &[
                "--no-cache",
                "--base-url",
                &format!("{student_url}/v1"),
                "--prompt-template",
                template.to_str().unwrap(),
                "--concurrency",
                "3",
            ],
        );
        assert_eq!(cli, library_profile(&s, &suite), "{id}");
        {
            let seen = teacher_seen.lock().unwrap();
            assert!(!seen.is_empty());
            assert!(
                seen.iter()
                    .all(|b| b["model"] == "teacher-model" && b["temperature"] == 0.0)
            );
        }
        // With a cache, the second run sends no request at all.
        let cache = dir.join(format!("cache-{id}"));
        let cached = || {
            cli_profile(
                &s,
                &suite,
                "openai:test-model",
                &format!("openai:teacher-model@{teacher_url}/v1"),
                &[
                    "--cache-dir",
                    cache.to_str().unwrap(),
                    "--base-url",
                    &format!("{student_url}/v1"),
                    "--prompt-template",
                    template.to_str().unwrap(),
                ],
            )
        };
        assert_eq!(cached(), cli);
        let before = teacher_seen.lock().unwrap().len();
        assert_eq!(cached(), cli);
        assert_eq!(teacher_seen.lock().unwrap().len(), before);
        // The raw replies are in the cache's database, not in files under `chat/`.
        assert!(
            !cache.join("chat").exists(),
            "{id}: replies written as files"
        );
        let cache_cmd = |args: &[&str]| cache_command(&cache, args);
        let stats: Value = serde_json::from_str(&cache_cmd(&["stats", "--json"])).unwrap();
        let replies = stats["replies"].as_u64().unwrap();
        assert!(replies > 0, "{stats}");
        assert!(cache_cmd(&["stats"]).contains(&format!("\nreplies: {replies} ")));
        let exported = cache_cmd(&["export", "--replies"]);
        assert_eq!(exported.lines().count() as u64, replies);
        assert!(exported.starts_with("{\"format\":\"capkit-chat-cache/1\",\"key\":"));
    }
}

#[test]
fn readme_example_runs_offline_in_one_command() {
    if !system_has(
        SystemNeed::Python3,
        "readme_example_runs_offline_in_one_command",
    ) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = capkit(
        &[
            "profile",
            "classify",
            "--texts",
            "examples/profile/texts.txt",
            "--suite",
            "examples/profile/suite.json",
            "--student",
            "cmd:python3 examples/profile/student.py",
            "--teacher",
            "cmd:python3 examples/profile/teacher.py",
            "--no-cache",
        ],
        &root,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(profile["clean_agreement"], json!(0.7));
    assert_eq!(
        profile["invariances"]["case"],
        json!({"student_violation_rate": 0.6, "teacher_violation_rate": 0.0})
    );
    assert_eq!(
        profile["abstention"],
        json!({"student_escalation_rate": null, "teacher_escalation_rate": 0.1})
    );
}

#[test]
fn large_batches_stream_without_deadlock() {
    // 60,000 texts per stage: megabytes in both pipes at once, more than any pipe buffer holds.
    let tmp = temp_dir("large");
    let dir = tmp.path();
    let texts: Vec<String> = (0..60_000)
        .map(|i| {
            format!(
                "  text {i} is {} indeed ",
                if i % 3 == 0 { "Good" } else { "good" }
            )
        })
        .collect();
    let path = dir.join("texts.txt");
    std::fs::write(&path, texts.join("\n")).unwrap();
    let suite = json!({"invariances": [{"name": "case", "transform": "case_jitter"},
                                       {"name": "space", "transform": "whitespace"}]});
    let suite_path = dir.join("suite.json");
    std::fs::write(&suite_path, suite.to_string()).unwrap();
    let bin = rust_model();
    let spec = |side: &str| format!("cmd:{} scenarios/scenario_01.json {side}", bin.display());
    let out = capkit(
        &[
            "profile",
            "classify",
            "--texts",
            path.to_str().unwrap(),
            "--suite",
            suite_path.to_str().unwrap(),
            "--student",
            &spec("student"),
            "--teacher",
            &spec("teacher"),
            "--no-cache",
        ],
        &fixtures(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Verbatim lines: the leading and trailing spaces are part of each text.
    let mut s = scenario("scenario_01");
    s["texts"] = json!(texts);
    s["suite"]["probes"] = json!([]);
    assert_eq!(cli, library_profile(&s, &suite));
    assert_eq!(
        cli["invariances"]["case"]["student_violation_rate"],
        json!(40_000.0 / 60_000.0)
    );
}

#[test]
fn default_cache_dir_follows_xdg_cache_home() {
    if !system_has(
        SystemNeed::Python3,
        "default_cache_dir_follows_xdg_cache_home",
    ) {
        return;
    }
    let tmp = temp_dir("xdg");
    let dir = tmp.path();
    let out = output(
        capkit_in(&fixtures())
            .args([
                "profile",
                "classify",
                "--texts",
                "texts4.txt",
                "--suite",
                "tiny_suite.json",
                "--student",
                "cmd:python3 bad_model.py ok",
                "--teacher",
                "cmd:python3 bad_model.py ok",
            ])
            .env("XDG_CACHE_HOME", dir),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    // One spec on both sides is one identity: the store is read as the run goes (never loaded
    // at open), so the teacher's answers are the ones the student's call has just stored.
    assert!(
        stderr.contains("student `cmd:python3 bad_model.py ok`: prediction cache 0 hits, 8 misses"),
        "{stderr}"
    );
    assert!(
        stderr.contains("teacher `cmd:python3 bad_model.py ok`: prediction cache 8 hits, 0 misses"),
        "{stderr}"
    );
    assert!(
        dir.join("capkit/predictions.sqlite3").is_file(),
        "the cache database is in $XDG_CACHE_HOME/capkit"
    );
    assert!(
        stderr.contains(&format!(
            "prediction cache {} (",
            dir.join("capkit/predictions.sqlite3").display()
        )),
        "the cache's place and size are said where the run starts: {stderr}"
    );
}

#[test]
fn texts_subcommand_lists_exactly_what_file_models_need() {
    let tmp = temp_dir("texts-cmd");
    let dir = tmp.path();
    let out = capkit(&["profile", "texts", "--texts", "texts4.txt"], &fixtures());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stdout).unwrap();
    let mut preds = String::new();
    for line in listed.lines() {
        let text = serde_json::from_str::<Value>(line).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_owned();
        let label = if text.contains("good") { "pos" } else { "neg" };
        preds.push_str(&format!("{}\n", json!({"text": text, "label": label})));
    }
    // Ten probes, four clean texts, and new texts from three typo rates and case jitter.
    assert!(listed.lines().count() > 14);
    let p = dir.join("preds.jsonl");
    std::fs::write(&p, preds).unwrap();
    let spec = format!("file:{}", p.display());
    let run = capkit(
        &[
            "profile",
            "classify",
            "--texts",
            "texts4.txt",
            "--student",
            &spec,
            "--teacher",
            &spec,
        ],
        &fixtures(),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let profile: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(profile["clean_agreement"], json!(1.0));
}

#[test]
fn an_unusable_cache_warns_and_the_run_goes_on() {
    if !system_has(
        SystemNeed::Python3,
        "an_unusable_cache_warns_and_the_run_goes_on",
    ) {
        return;
    }
    let tmp = temp_dir("bad-cache");
    let dir = tmp.path();
    let not_a_dir = dir.join("file");
    std::fs::write(&not_a_dir, "x").unwrap();
    let out = capkit(
        &[
            "profile",
            "classify",
            "--texts",
            "texts4.txt",
            "--suite",
            "tiny_suite.json",
            "--student",
            "cmd:python3 bad_model.py ok",
            "--teacher",
            "cmd:python3 bad_model.py ok",
            "--cache-dir",
            not_a_dir.to_str().unwrap(),
        ],
        &fixtures(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("warning: no prediction cache for"),
        "{stderr}"
    );
    let profile: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(profile["clean_agreement"], json!(1.0));
}
