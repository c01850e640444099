//! The documents the page tests render: real reports from the `capture` and `extractive`
//! profiles of small rule models (the offline example's texts and models), a comparison, a typo
//! score report, and reports whose every user string is hostile.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use capkit_report::{Document, Input, Meta, Source, render};
use capture::serde_json::{self, Value, json};
use capture::{Decision, Model, PerItemFn, SuiteSpec};

/// The offline example's texts (`examples/profile/texts.txt`).
pub fn example_texts() -> Vec<&'static str> {
    include_str!("../../../../examples/profile/texts.txt")
        .lines()
        .collect()
}

const CLASSIFY_SUITE: &str = r#"{
  "corruptions": [
    {"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05},
    {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.10},
    {"name": "typo_20", "transform": "keyboard_typo", "rate": 0.20},
    {"name": "typo_40", "transform": "keyboard_typo", "rate": 0.40}
  ],
  "invariances": [
    {"name": "case", "transform": "case_jitter"},
    {"name": "whitespace", "transform": "whitespace"}
  ],
  "probes": ["", "good", "GOOD", "ß", "not good at all"]
}"#;

fn label(positive: bool) -> Value {
    json!(if positive { "pos" } else { "neg" })
}

/// The example's student: `pos` when the text contains `good` (case-sensitive).
fn student() -> impl Model {
    PerItemFn::new(|t: &str| label(t.contains("good")))
}

/// The example's teacher: `good` in any case; escalates texts of fewer than three words.
fn teacher() -> impl Model {
    PerItemFn::new(|t: &str| label(t.to_lowercase().contains("good"))).with_decide(|t: &str| {
        if t.split_whitespace().count() < 3 {
            Decision::Escalate
        } else {
            Decision::Answer(label(t.to_lowercase().contains("good")))
        }
    })
}

/// A classifier report of the offline example's models over its texts.
pub fn classify_report() -> Value {
    let suite = SuiteSpec::from_json_str(CLASSIFY_SUITE)
        .unwrap()
        .build()
        .unwrap();
    let report = capture::capture_profile_report(&student(), &teacher(), &example_texts(), &suite)
        .unwrap()
        .with_models(
            Some("cmd:python3 examples/profile/student.py".into()),
            Some("cmd:python3 examples/profile/teacher.py".into()),
        )
        .with_suite_fingerprint(Some("blake3:5a1f00d5".into()));
    let mut json = report.to_json();
    json["run"] = json!({
        "capkit_version": "0.1.0",
        "task": "classify",
        "suite": {"file": "suite.json", "blake3": "9b2c"},
        "texts": {"count": 10, "blake3": "7e41"},
        "student": "cmd:python3 examples/profile/student.py",
        "teacher": "cmd:python3 examples/profile/teacher.py"
    });
    json
}

/// The classifier report with the teacher asked about half the texts' transformed versions.
pub fn sampled_classify_report() -> Value {
    let suite = SuiteSpec::from_json_str(CLASSIFY_SUITE)
        .unwrap()
        .build()
        .unwrap();
    let (s, t) = (student(), teacher());
    let sample = capture::TeacherSample::new(0.5, 0).unwrap();
    let mut run = capture::CaptureRun::new(&s, &t, &suite)
        .unwrap()
        .with_teacher_sample(Some(sample));
    run.add(&example_texts()).unwrap();
    run.report().unwrap().to_json()
}

/// A comparison of three students against the example's teacher.
pub fn comparison() -> Value {
    let suite = SuiteSpec::from_json_str(CLASSIFY_SUITE)
        .unwrap()
        .build()
        .unwrap();
    let exact = student();
    let shouty = PerItemFn::new(|t: &str| label(t.contains("good") || t.contains("GOOD")));
    let folded = PerItemFn::new(|t: &str| label(t.to_lowercase().contains("goo")));
    let students: [(&str, &dyn Model); 3] = [
        ("cmd:student-exact", &exact),
        ("cmd:student-shouty", &shouty),
        ("cmd:student-folded", &folded),
    ];
    capture::compare_students(&teacher(), &students, &example_texts(), &suite)
        .unwrap()
        .with_teacher(Some("cmd:teacher".into()))
        .to_json()
}

const EXTRACT_TEXTS: [&str; 10] = [
    "name: Ann Lee, city: Paris, age: 34",
    "name: Bob  Stone, city: Oslo, age: 51",
    "name: Chloe Martin, city: Lyon",
    "city: Rome, name: Dario Rossi, age: 28",
    "name: Eve, age: 40",
    "name: Farid  Haddad, city: Tunis, age: 37",
    "NAME: Greta Berg, city: Bergen, age: 45",
    "name: Hiro Sato, city: Kyoto, age: 33",
    "name: Ines Duarte, city:  Porto, age: 29",
    "name: Jonas Weber, city: Bern, age: 62",
];

/// `key: value` pairs separated by `, `; the teacher folds key case and trims values, the
/// student does neither.
fn parse(text: &str, careful: bool) -> Value {
    let mut record = serde_json::Map::new();
    for part in text.split(',') {
        if let Some((key, value)) = part.split_once(':') {
            let key = if careful {
                key.trim().to_lowercase()
            } else {
                key.trim_start().to_owned()
            };
            let value = if careful {
                value.trim()
            } else {
                value.strip_prefix(' ').unwrap_or(value)
            };
            record.insert(key, json!(value));
        }
    }
    Value::Object(record)
}

/// The extractor pages' suite: three typo rates, two invariances.
fn extract_suite() -> capture::CapabilitySuite {
    SuiteSpec::from_json_str(
        r#"{"corruptions": [
              {"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05},
              {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.10},
              {"name": "typo_20", "transform": "keyboard_typo", "rate": 0.20}],
            "invariances": [{"name": "case", "transform": "case_jitter"},
                            {"name": "whitespace", "transform": "whitespace"}]}"#,
    )
    .unwrap()
    .build()
    .unwrap()
}

/// An extractor report with its per-field breakdown.
pub fn extract_report() -> Value {
    extract_report_with(&["name", "city", "age"], None)
}

fn extract_report_with(fields: &[&str], models: Option<(&str, &str)>) -> Value {
    let suite = extract_suite();
    let teacher = PerItemFn::new(|t: &str| parse(t, true));
    let student = PerItemFn::new(|t: &str| parse(t, false));
    let (s, t) = models.unwrap_or(("http://127.0.0.1:8001/extract", "openai:teacher-large"));
    let report =
        extractive::extractive_profile_report(&student, &teacher, &EXTRACT_TEXTS, &suite, fields)
            .unwrap()
            .with_models(Some(s.into()), Some(t.into()));
    let breakdown =
        extractive::extractive_capture_report(&student, &teacher, &EXTRACT_TEXTS, &suite, fields)
            .unwrap()
            .fields;
    let mut json = report.to_json();
    json["fields"] = serde_json::to_value(&breakdown).unwrap();
    json
}

/// A typo score report (`capkit typo score --json`'s shape).
pub fn typo_scores() -> Value {
    let task = |task: &str, needs: &str, n: u64, exact: f64, p: f64, r: f64, f1: f64| json!({"task": task, "needs": needs, "n": n, "exact_match": exact, "precision": p, "recall": r, "f1": f1});
    json!({
        "scored": 2950,
        "unpredicted": 48,
        "groups": [
            {"needs": "nothing", "tasks": [
                task("co", "nothing", 298, 0.912, 0.981, 0.944, 0.958),
                task("cs", "nothing", 298, 0.874, 0.966, 0.921, 0.939),
                task("hi", "nothing", 298, 0.5, 0.833, 0.333, 0.476),
                task("tos", "nothing", 298, 0.993, 1.0, 0.995, 0.997)]},
            {"needs": "language", "tasks": [
                task("gi", "language", 298, 0.121, 0.412, 0.306, 0.331),
                task("hs", "language", 298, 0.034, 0.188, 0.097, 0.118)]},
            {"needs": "keyboard", "tasks": [
                task("acs", "keyboard", 298, 0.0, 1.0, 0.0, 0.0),
                task("rar", "keyboard", 284, 0.254, 0.731, 0.522, 0.588)]}
        ],
        "corpus": {"path": "corpus.jsonl", "bytes": 1_204_880},
        "predictions": {"path": "predictions.jsonl", "bytes": 98_112},
        "answers": {
            "acs": {"empty": 298, "precision_of_answers": null},
            "hi": {"empty": 60, "precision_of_answers": 0.79},
            "co": {"empty": 0, "precision_of_answers": 0.981}
        }
    })
}

/// The strings a page must show as text and never run.
pub const HOSTILE: [&str; 4] = [
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "javascript:alert(1)",
    "<a href=\"javascript:alert(1)\">click</a>",
];

/// A classifier report whose stage names, probe labels, model specs and run block are hostile.
pub fn hostile_classify_report() -> Value {
    let suite = json!({
        "corruptions": [
            {"name": HOSTILE[0], "transform": "keyboard_typo", "rate": 0.1},
            {"name": HOSTILE[3], "transform": "keyboard_typo", "rate": 0.3}
        ],
        "invariances": [{"name": HOSTILE[1], "transform": "case_jitter"}],
        "probes": HOSTILE
    });
    let suite = SuiteSpec::from_json_str(&suite.to_string())
        .unwrap()
        .build()
        .unwrap();
    // The student echoes its input, so the probe predictions are the hostile strings.
    let echo = PerItemFn::new(|t: &str| json!(t));
    let mut texts = example_texts();
    texts.extend(HOSTILE);
    let report = capture::capture_profile_report(&echo, &teacher(), &texts, &suite)
        .unwrap()
        .with_models(Some(HOSTILE[2].into()), Some(HOSTILE[0].into()))
        .with_suite_fingerprint(Some(HOSTILE[1].into()));
    let mut json = report.to_json();
    json["run"] = json!({
        "capkit_version": HOSTILE[0],
        "suite": {"file": HOSTILE[1], "blake3": HOSTILE[2]},
        "texts": {"count": 14, "blake3": HOSTILE[3]},
        "student": HOSTILE[2],
        "teacher": HOSTILE[0],
        "fields": [HOSTILE[1]]
    });
    json
}

/// An extractor report whose field names and model specs are hostile.
pub fn hostile_extract_report() -> Value {
    extract_report_with(&HOSTILE, Some((HOSTILE[3], HOSTILE[1])))
}

/// A comparison whose students are named by hostile strings.
pub fn hostile_comparison() -> Value {
    let suite = SuiteSpec::from_json_str(CLASSIFY_SUITE)
        .unwrap()
        .build()
        .unwrap();
    let a = student();
    let b = PerItemFn::new(|t: &str| json!(t));
    let students: [(&str, &dyn Model); 2] = [(HOSTILE[2], &a), (HOSTILE[0], &b)];
    capture::compare_students(&teacher(), &students, &example_texts(), &suite)
        .unwrap()
        .with_teacher(Some(HOSTILE[1].into()))
        .to_json()
}

/// The texts of the whose-change page: the offline example's, a hostile one, one with a
/// right-to-left override, and one longer than the 240 characters a report keeps.
pub fn whose_texts() -> Vec<String> {
    let mut texts: Vec<String> = example_texts().into_iter().map(str::to_owned).collect();
    texts.push(format!("{} good food", HOSTILE[0]));
    texts.push("\u{202E}good food, great staff".to_owned());
    // The student reads "great" as positive, the teacher does not: a clean disagreement, so
    // among the (fewer than 5) clean examples whatever its key.
    texts.push(format!(
        "great room {}",
        "and the staff were quiet ".repeat(12)
    ));
    // Short: the teacher escalates it.
    texts.push("great view".to_owned());
    texts
}

/// The teacher reads the whole word (fragile to typos), the student a word's first letter
/// (robust to most, and wrong about "great"): the teacher moves alone on many typos.
fn first_letter_student() -> impl Model {
    PerItemFn::new(|t: &str| label(t.split_whitespace().any(|w| w.starts_with('g'))))
}

/// A classifier report with whose-change counts, a stage against the teacher's clean answer, a
/// corruption and an invariance that change no text, and up to 5 examples per stage and kind.
pub fn whose_report() -> Value {
    let mut suite = SuiteSpec::from_json_str(
        r#"{"corruptions": [
              {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.10},
              {"name": "typo_30", "transform": "keyboard_typo", "rate": 0.30, "reference": "teacher_clean"}],
            "invariances": [{"name": "case", "transform": "case_jitter"},
                            {"name": "whitespace", "transform": "whitespace"}]}"#,
    )
    .unwrap()
    .build()
    .unwrap();
    // A rewrite of a character none of the texts has: it changes nothing, measures nothing.
    suite.add_corruption("no_op", capture::Transform::new(|t| t.replace('\u{7}', "")));
    let (s, t) = (first_letter_student(), teacher());
    let texts = whose_texts();
    let mut run = capture::CaptureRun::new(&s, &t, &suite)
        .unwrap()
        .with_examples(5);
    run.add(&texts).unwrap();
    run.report()
        .unwrap()
        .with_models(
            Some("cmd:first-letter".into()),
            Some("cmd:whole-word".into()),
        )
        .to_json()
}

/// A comparison of two students with examples and the whose-change suite.
pub fn whose_comparison() -> Value {
    let mut suite = SuiteSpec::from_json_str(
        r#"{"corruptions": [
              {"name": "typo_30", "transform": "keyboard_typo", "rate": 0.30, "reference": "teacher_clean"}],
            "invariances": [{"name": "case", "transform": "case_jitter"}]}"#,
    )
    .unwrap()
    .build()
    .unwrap();
    suite.add_corruption("no_op", capture::Transform::new(|t| t.replace('\u{7}', "")));
    let (a, b) = (student(), first_letter_student());
    let students: [(&str, &dyn Model); 2] = [("cmd:exact", &a), ("cmd:first-letter", &b)];
    let texts = whose_texts();
    capture::compare_students_with(&teacher(), &students, [texts.as_slice()], &suite, None, 5)
        .unwrap()
        .with_teacher(Some("cmd:whole-word".into()))
        .to_json()
}

/// The fixed date every test page is generated at.
pub const DATE: &str = "2026-12-01 12:00 UTC";

/// The page of `documents` (file name, JSON), as `capkit report` renders it.
pub fn page(documents: &[(&str, Value)]) -> String {
    let inputs: Vec<Input> = documents
        .iter()
        .map(|(name, json)| Input {
            source: Source {
                name: (*name).to_owned(),
                blake3: Some("0f1e2d3c".into()),
            },
            document: Document::from_json(json).unwrap(),
        })
        .collect();
    render(&inputs, &Meta::new(DATE))
}

/// Every page the tests render, by name.
pub fn pages() -> Vec<(&'static str, String)> {
    vec![
        ("typo", page(&[("scores.json", typo_scores())])),
        ("classify", page(&[("report.json", classify_report())])),
        (
            "extract",
            page(&[("extract-report.json", extract_report())]),
        ),
        ("compare", page(&[("comparison.json", comparison())])),
        ("whose", page(&[("whose.json", whose_report())])),
        (
            "whose-compare",
            page(&[("whose-compare.json", whose_comparison())]),
        ),
        (
            "hostile",
            page(&[
                (HOSTILE[0], hostile_classify_report()),
                (HOSTILE[1], hostile_extract_report()),
                (HOSTILE[2], hostile_comparison()),
            ]),
        ),
    ]
}

// ---- The reviewer's scenarios (issue 23): generated texts, the example's kind of models. ----

/// `n` texts from a fixed seed: five to twelve words, about half with some spelling of "good".
pub fn generated_texts(n: usize) -> Vec<String> {
    const WORDS: [&str; 16] = [
        "the", "service", "was", "really", "not", "food", "slow", "staff", "friendly", "price",
        "room", "clean", "noisy", "would", "return", "again",
    ];
    const GOOD: [&str; 4] = ["good", "GOOD", "Good", "goood"];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |m: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) % m as u64) as usize
    };
    (0..n)
        .map(|_| {
            let len = 5 + next(8);
            let good = next(2) == 0;
            let at = next(len);
            let mut words: Vec<&str> = (0..len).map(|_| WORDS[next(WORDS.len())]).collect();
            if good {
                words[at] = GOOD[next(GOOD.len())];
            }
            words.join(" ")
        })
        .collect()
}

/// Student `k` of the scenarios: each later one folds more spellings of "good".
fn scenario_student(k: usize) -> impl Model {
    PerItemFn::new(move |t: &str| {
        let lower = t.to_lowercase();
        label(match k {
            0 => t.contains("good"),
            1 => t.contains("good") || t.contains("GOOD"),
            2 => lower.contains("good"),
            3 => lower.contains("goo"),
            _ => lower.contains("go"),
        })
    })
}

fn scenario_comparison(texts: &[String], suite: &str, specs: &[String]) -> Value {
    let probes = SuiteSpec::from_json_str(suite).unwrap().probes;
    let suite = SuiteSpec::from_json_str(suite).unwrap().build().unwrap();
    let models: Vec<_> = (0..specs.len()).map(scenario_student).collect();
    let students: Vec<(&str, &dyn Model)> = specs
        .iter()
        .zip(&models)
        .map(|(s, m)| (s.as_str(), m as &dyn Model))
        .collect();
    capture::compare_students(&teacher(), &students, texts, &suite)
        .unwrap()
        .with_teacher(Some("cmd:python3 examples/profile/teacher.py".into()))
        .with_probe_texts(probes)
        .to_json()
}

/// Three students over 4,000 texts, the example's suite.
pub fn three_students() -> Value {
    let specs: Vec<String> = ["exact", "shouty", "folded"]
        .iter()
        .map(|s| format!("cmd:python3 examples/profile/student.py --variant {s}"))
        .collect();
    scenario_comparison(&generated_texts(4000), CLASSIFY_SUITE, &specs)
}

/// Five students whose specs are 400 characters long, 50 corruptions (one with an Arabic name)
/// and two invariances, over 400 texts.
pub fn five_students() -> Value {
    let mut corruptions: Vec<Value> = (1..=49)
        .map(|k| {
            json!({"name": format!("typo_{k:02}"), "transform": "keyboard_typo", "rate": k as f64 / 100.0})
        })
        .collect();
    corruptions.push(json!({"name": "تصحيف_50", "transform": "keyboard_typo", "rate": 0.5}));
    let suite = json!({
        "corruptions": corruptions,
        "invariances": [
            {"name": "case", "transform": "case_jitter"},
            {"name": "whitespace", "transform": "whitespace"}
        ],
        "probes": ["", "good", "GOOD", "ß", "not good at all", "ليس good جيدا"]
    });
    let specs: Vec<String> = (0..5)
        .map(|k| {
            let head = format!("cmd:python3 examples/profile/student.py --variant {k} --padding ");
            let pad = "x".repeat(400 - head.len());
            format!("{head}{pad}")
        })
        .collect();
    scenario_comparison(&generated_texts(400), &suite.to_string(), &specs)
}

/// Two extractors compared against a careful teacher.
pub fn extractor_comparison() -> Value {
    let suite = extract_suite();
    let teacher = PerItemFn::new(|t: &str| parse(t, true));
    let careless = PerItemFn::new(|t: &str| parse(t, false));
    let careful = PerItemFn::new(|t: &str| parse(t, true));
    let students: [(&str, &dyn Model); 2] = [
        ("http://127.0.0.1:8001/extract", &careless),
        ("http://127.0.0.1:8002/extract", &careful),
    ];
    extractive::compare_students(
        &teacher,
        &students,
        &EXTRACT_TEXTS,
        &suite,
        &["name", "city", "age"],
    )
    .unwrap()
    .with_teacher(Some("openai:teacher-large".into()))
    .to_json()
}

/// Issue 36's suite: two unrelated chains (each its own family, one severity each), a
/// keyboard typo family at three rates, weights and tags.
pub const FAMILIES_SUITE: &str = r#"{
  "corruptions": [
    {"name": "typo_05", "transform": "keyboard_typo", "rate": 0.05, "weight": 3, "tags": ["typo"]},
    {"name": "typo_10", "transform": "keyboard_typo", "rate": 0.1, "weight": 3, "tags": ["typo"]},
    {"name": "typo_20", "transform": "keyboard_typo", "rate": 0.2, "weight": 3, "tags": ["typo"]},
    {"name": "shout_rep", "transform": "chain", "severity": 0.05, "tags": ["case", "typo"],
     "steps": [{"transform": "uppercase"}, {"transform": "repeat_char", "rate": 0.05}]},
    {"name": "messy", "transform": "chain", "severity": 0.15,
     "steps": [{"transform": "char_delete", "rate": 0.05}, {"transform": "repeat_char", "rate": 0.1}]},
    {"name": "accents_30", "transform": "add_diacritics", "rate": 0.3, "weight": 0.5}
  ],
  "invariances": [
    {"name": "case", "transform": "case_jitter", "weight": 2, "tags": ["case"]},
    {"name": "title", "transform": "titlecase", "weight": 0.25}
  ],
  "probes": ["good"]
}"#;

/// Three students over 600 texts on [`FAMILIES_SUITE`], with its weights and tags recorded as
/// the command line records them.
pub fn weighted_families() -> Value {
    let catalogue = transforms::Catalogue::standard();
    let spec = SuiteSpec::from_json_str_with(FAMILIES_SUITE, catalogue).unwrap();
    let suite = spec.build_with(catalogue).unwrap();
    let models: Vec<_> = (0..3).map(scenario_student).collect();
    let names = ["exact", "shouty", "folded"];
    let students: Vec<(&str, &dyn Model)> = names
        .iter()
        .zip(&models)
        .map(|(s, m)| (*s, m as &dyn Model))
        .collect();
    let meta = spec.corruptions.iter().chain(&spec.invariances).map(|e| {
        let meta = capture::profile_stats::StageMeta {
            weight: e.weight,
            tags: e.tags.clone(),
        };
        (e.name.clone(), meta)
    });
    capture::compare_students(&teacher(), &students, &generated_texts(600), &suite)
        .unwrap()
        .with_stage_meta(meta)
        .to_json()
}

/// Issue 36: two students, one abstaining. `shouty` reads "good" and "GOOD" and answers
/// everything; `careful` reads only "good" but escalates every text with another spelling of
/// it, so it is the worse student on every text and the better one where it answers: the
/// recommendation names it as the cascade front.
pub fn cascade_comparison() -> Value {
    let suite = SuiteSpec::from_json_str(CLASSIFY_SUITE)
        .unwrap()
        .build()
        .unwrap();
    let shouty = scenario_student(1);
    let careful = PerItemFn::new(|t: &str| label(t.contains("good"))).with_decide(|t: &str| {
        if t.to_lowercase().contains("goo") && !t.contains("good") {
            Decision::Escalate
        } else {
            Decision::Answer(label(t.contains("good")))
        }
    });
    let students: [(&str, &dyn Model); 2] = [
        ("cmd:python3 students/shouty.py", &shouty),
        ("cmd:python3 students/careful.py", &careful),
    ];
    capture::compare_students(&teacher(), &students, &generated_texts(1000), &suite)
        .unwrap()
        .with_teacher(Some("cmd:python3 examples/profile/teacher.py".into()))
        .to_json()
}

/// The reviewer's scenario pages, by name.
pub fn scenario_pages() -> Vec<(&'static str, String)> {
    vec![
        ("three-students", page(&[("three.json", three_students())])),
        ("five-students", page(&[("five.json", five_students())])),
        (
            "extract-compare",
            page(&[("extract-compare.json", extractor_comparison())]),
        ),
        ("typo-score", page(&[("scores.json", typo_scores())])),
        (
            "weighted-families",
            page(&[("families.json", weighted_families())]),
        ),
        ("cascade", page(&[("cascade.json", cascade_comparison())])),
        (
            "three-profiles",
            page(&[
                ("a.json", classify_report()),
                ("b.json", sampled_classify_report()),
                ("c.json", whose_report()),
            ]),
        ),
    ]
}
