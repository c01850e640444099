//! `file:` models: precomputed predictions profile like the model that made them (decisions
//! included); a missing prediction or a bad line is an error naming the file, line and text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::cell::RefCell;
use std::path::Path;

use common::{rule_model, student, suite, temp_dir, texts};
use model_adapters::{ModelSpec, Settings, Task};
use serde_json::{Value, json};
use suite_core::{BatchFn, Decision, Model};

/// Every distinct text a profile of `texts` under the test suite asks a model about.
fn asked_texts() -> Vec<String> {
    let seen = RefCell::new(Vec::<String>::new());
    let recorder = BatchFn::new(|batch: &[&str]| {
        seen.borrow_mut()
            .extend(batch.iter().map(|t| (*t).to_owned()));
        vec![json!("x"); batch.len()]
    });
    capture::capture_profile(&student(), &recorder, &texts(), &suite()).unwrap();
    let mut all = seen.into_inner();
    all.sort();
    all.dedup();
    all
}

fn open(path: &Path, task: Task) -> Result<model_adapters::Adapter, model_adapters::Error> {
    let settings = Settings {
        task,
        ..Settings::default()
    };
    ModelSpec::parse(&format!("file:{}", path.display()))
        .unwrap()
        .open(&settings)
}

#[test]
fn precomputed_predictions_profile_like_their_model() {
    let tmp = temp_dir("file");
    let model = rule_model();
    let mut lines = String::new();
    for text in asked_texts() {
        let label = model.predict_batch(&[&text]).unwrap().remove(0);
        let decision = match model.decide_batch(&[&text]).unwrap().unwrap().remove(0) {
            Decision::Escalate => Value::Null,
            Decision::Answer(v) => v,
        };
        lines.push_str(&format!(
            "{}\n",
            json!({"text": text, "label": label, "decision": decision})
        ));
        // A repeated identical line is fine.
        lines.push_str(&format!(
            "{}\n\n",
            json!({"text": text, "label": label, "decision": decision})
        ));
    }
    let path = tmp.path().join("teacher.jsonl");
    std::fs::write(&path, lines).unwrap();
    let teacher = open(&path, Task::Classify).unwrap();
    assert_eq!(
        teacher.cache_identity(),
        None,
        "precomputed: nothing to cache"
    );
    let suite = suite();
    assert_eq!(
        capture::capture_profile(&student(), &teacher, &texts(), &suite).unwrap(),
        capture::capture_profile(&student(), &model, &texts(), &suite).unwrap()
    );
}

#[test]
fn a_missing_prediction_names_the_text_and_counts_the_others() {
    let tmp = temp_dir("file-missing");
    let path = tmp.path().join("p.jsonl");
    std::fs::write(&path, "{\"text\": \"good one\", \"label\": \"pos\"}\n").unwrap();
    let model = open(&path, Task::Classify).unwrap();
    let err = model
        .predict_batch(&["good one", "bad one", "x", "y"])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "`file:{}` has no prediction for the text \"bad one\" (and 2 more texts of this stage)",
            path.display()
        )
    );
}

#[test]
fn bad_lines_name_the_file_and_line() {
    let tmp = temp_dir("file-bad");
    let path = tmp.path().join("p.jsonl");
    let check = |content: &str, task: Task, expected: &str| {
        std::fs::write(&path, content).unwrap();
        let err = open(&path, task).unwrap_err().to_string();
        let expected = expected.replace("PATH", &path.display().to_string());
        assert_eq!(err, expected);
    };
    let ok = "{\"text\": \"a\", \"label\": \"pos\"}\n";
    check(
        &format!("{ok}{{\"text\": \"b\""),
        Task::Classify,
        "model `file:PATH`: PATH:2: not valid JSON: EOF while parsing an object at line 1 column 12",
    );
    check(
        &format!("{ok}[1]\n"),
        Task::Classify,
        "model `file:PATH`: PATH:2: expected a JSON object",
    );
    check(
        "{\"label\": \"pos\"}\n",
        Task::Classify,
        "model `file:PATH`: PATH:1: no string \"text\"",
    );
    check(
        "{\"text\": \"a\", \"label\": 1, \"record\": {}}\n",
        Task::Classify,
        "model `file:PATH`: PATH:1: both \"label\" and \"record\"",
    );
    check(
        "{\"text\": \"a\"}\n",
        Task::Classify,
        "model `file:PATH`: PATH:1: no \"label\" (or \"record\")",
    );
    check(
        &format!("{ok}\n{{\"text\": \"a\", \"label\": \"neg\"}}\n"),
        Task::Classify,
        "model `file:PATH`: PATH:3: a different prediction for \"a\" than on line 1",
    );
    check(
        ok,
        Task::Extract,
        "model `file:PATH`: PATH:1: a record must be a JSON object, got \"pos\"",
    );
    check(
        &format!("{ok}{{\"text\": \"b\", \"label\": \"pos\", \"decision\": null}}\n"),
        Task::Classify,
        "model `file:PATH`: 1 of 2 predictions have a \"decision\"; give it on every line or none",
    );
    let missing = tmp.path().join("none.jsonl");
    let err = open(&missing, Task::Classify).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("model `file:{}`: {}", missing.display(), missing.display())
    );
    assert!(std::error::Error::source(&err).is_some());
}

/// `file:PATH` for `task`, its lookup file kept in `cache` (not cached: precomputed).
fn open_in(
    path: &Path,
    task: Task,
    cache: &Path,
) -> Result<model_adapters::Cached<model_adapters::Adapter>, model_adapters::Error> {
    let settings = Settings {
        task,
        ..Settings::default()
    };
    ModelSpec::parse(&format!("file:{}", path.display()))
        .unwrap()
        .open_cached(&settings, Some(cache), None)
}

/// The lookup files in `cache`, by name.
fn segments(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache.join("file-segments"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[cfg(unix)]
fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap())
}

#[test]
fn a_conflicting_repeat_far_from_the_first_names_both_lines() {
    let tmp = temp_dir("file-far");
    let path = tmp.path().join("p.jsonl");
    let mut lines: String = (0..20_000)
        .map(|i| format!("{}\n", json!({"text": format!("text {i}"), "label": i % 5})))
        .collect();
    lines.push('\n');
    // Equal answers in another key order are the same answer; a different one is refused.
    lines.push_str("{\"text\": \"text 17\", \"label\": 2}\n");
    lines.push_str("{\"text\": \"text 3\", \"label\": 4}\n");
    std::fs::write(&path, &lines).unwrap();
    let err = open(&path, Task::Classify).err().unwrap().to_string();
    assert_eq!(
        err,
        format!(
            "model `file:{0}`: {0}:20003: a different prediction for \"text 3\" than on line 4",
            path.display()
        )
    );
}

#[test]
fn the_lookup_file_is_built_once_per_file_content_and_survives_compaction() {
    let tmp = temp_dir("file-reuse");
    let cache = tmp.path().join("cache");
    let path = tmp.path().join("p.jsonl");
    let write = |labels: &[(&str, &str)]| {
        let lines: String = labels
            .iter()
            .map(|(t, l)| format!("{}\n", json!({"text": t, "label": l})))
            .collect();
        std::fs::write(&path, lines).unwrap();
    };
    write(&[("a", "pos"), ("b", "neg")]);
    let first = open_in(&path, Task::Classify, &cache).unwrap();
    assert_eq!(
        first.predict_batch(&["b", "a"]).unwrap(),
        [json!("neg"), json!("pos")]
    );
    assert_eq!(first.path(), None, "precomputed: not cached");
    let [built] = segments(&cache).try_into().unwrap();
    let built_path = cache.join("file-segments").join(&built);
    #[cfg(unix)]
    let ino = inode(&built_path);

    // A cache beside it, compacted and verified: the lookup file is neither removed nor
    // reported.
    let cached = model_adapters::Cached::new(common::rule_model(), &cache, "rule");
    cached.predict_batch(&["good", "bad"]).unwrap();
    drop(cached);
    model_adapters::cache_admin::compact(&cache).unwrap();
    assert_eq!(
        model_adapters::cache_admin::verify(&cache).unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(segments(&cache), std::slice::from_ref(&built));

    // The same file again: the same lookup file, opened, not rebuilt.
    let again = open_in(&path, Task::Classify, &cache).unwrap();
    assert_eq!(again.predict_batch(&["a"]).unwrap(), [json!("pos")]);
    assert_eq!(segments(&cache), std::slice::from_ref(&built));
    #[cfg(unix)]
    assert_eq!(inode(&built_path), ino, "rebuilt");
    drop((first, again));

    // A changed file: a lookup file of its own, answering the new labels.
    write(&[("a", "neg"), ("b", "neg")]);
    let changed = open_in(&path, Task::Classify, &cache).unwrap();
    assert_eq!(changed.predict_batch(&["a"]).unwrap(), [json!("neg")]);
    let names = segments(&cache);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&built));
}

#[test]
fn decisions_and_escalations_come_back_from_the_lookup_file() {
    let tmp = temp_dir("file-decisions");
    let cache = tmp.path().join("cache");
    let path = tmp.path().join("p.jsonl");
    let lines = [
        json!({"text": "a", "label": "pos", "decision": "pos"}),
        json!({"text": "b", "label": "neg", "decision": null}),
        json!({"text": "c", "label": {"k": [1, 2.5]}, "decision": {"k": [1, 2.5]}}),
    ];
    let content: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, content).unwrap();
    for _ in 0..2 {
        let model = open_in(&path, Task::Classify, &cache).unwrap();
        let texts = ["c", "b", "a", "b"];
        assert_eq!(
            model.predict_batch(&texts).unwrap(),
            [
                json!({"k": [1, 2.5]}),
                json!("neg"),
                json!("pos"),
                json!("neg")
            ]
        );
        assert_eq!(
            model.decide_batch(&texts).unwrap().unwrap(),
            [
                Decision::Answer(json!({"k": [1, 2.5]})),
                Decision::Escalate,
                Decision::Answer(json!("pos")),
                Decision::Escalate
            ]
        );
    }
    assert_eq!(segments(&cache).len(), 1);
}

#[test]
fn records_keep_their_key_order_through_the_lookup_file() {
    let tmp = temp_dir("file-records");
    let path = tmp.path().join("p.jsonl");
    std::fs::write(
        &path,
        "{\"text\": \"x\", \"record\": {\"name\": \"Ann\", \"city\": \"Oslo\", \"age\": 3}}\n\
         {\"text\": \"y\", \"record\": {}}\n\
         {\"text\": \"x\", \"record\": {\"age\": 3, \"city\": \"Oslo\", \"name\": \"Ann\"}}\n",
    )
    .unwrap();
    let model = open(&path, Task::Extract).unwrap();
    let answers = model.predict_batch(&["y", "x"]).unwrap();
    assert_eq!(answers[0], json!({}));
    let keys: Vec<&String> = answers[1].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "city", "age"], "the first line's order");
    // The same bytes under another task are checked (and kept) apart: a label is no record.
    let cache = tmp.path().join("cache");
    std::fs::write(&path, "{\"text\": \"x\", \"label\": \"pos\"}\n").unwrap();
    assert!(open_in(&path, Task::Classify, &cache).is_ok());
    let err = open_in(&path, Task::Extract, &cache)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.ends_with(":1: a record must be a JSON object, got \"pos\""),
        "{err}"
    );
}

#[test]
fn the_first_bad_line_in_file_order_is_the_one_named() {
    let tmp = temp_dir("file-order");
    let path = tmp.path().join("p.jsonl");
    let line = |t: &str, l: &str| format!("{}\n", json!({"text": t, "label": l}));
    // Repeats are found in key order: whichever of the two texts sorts first, the earlier
    // contradiction is named.
    for (x, y) in [("apple", "pear"), ("pear", "apple")] {
        let content = [
            line(x, "pos"),
            line(y, "pos"),
            line(y, "neg"),
            line(x, "neg"),
        ]
        .concat();
        std::fs::write(&path, format!("{content}[1]\n")).unwrap();
        let err = open(&path, Task::Classify).err().unwrap().to_string();
        assert!(
            err.ends_with(&format!(
                ":3: a different prediction for \"{y}\" than on line 2"
            )),
            "{err}"
        );
    }
    // A bad line before a contradiction is named first; reading stops there.
    std::fs::write(
        &path,
        [line("a", "pos"), "[1]\n".into(), line("a", "neg")].concat(),
    )
    .unwrap();
    let err = open(&path, Task::Classify).err().unwrap().to_string();
    assert!(err.ends_with(":2: expected a JSON object"), "{err}");
}

#[test]
fn a_lookup_file_unused_for_a_month_is_removed_by_the_next_build() {
    let tmp = temp_dir("file-unused");
    let cache = tmp.path().join("cache");
    let path = tmp.path().join("p.jsonl");
    let dir = cache.join("file-segments");
    let day = std::time::Duration::from_secs(24 * 3600);
    let age = |file: &Path, days: u32| {
        let then = std::time::SystemTime::now() - day * days;
        std::fs::File::options()
            .write(true)
            .open(file)
            .unwrap()
            .set_modified(then)
            .unwrap();
    };
    let days_old = |file: &Path| {
        let modified = std::fs::metadata(file).unwrap().modified().unwrap();
        modified.elapsed().unwrap_or_default().as_secs() / day.as_secs()
    };
    std::fs::write(&path, "{\"text\": \"a\", \"label\": \"pos\"}\n").unwrap();
    drop(open_in(&path, Task::Classify, &cache).unwrap());
    let [first] = segments(&cache).try_into().unwrap();
    let first = dir.join(first);
    // Opening marks it used.
    age(&first, 40);
    drop(open_in(&path, Task::Classify, &cache).unwrap());
    assert_eq!(days_old(&first), 0);
    // Unused for 40 days, and a killed build's leftovers: the next build removes both, and
    // keeps a temporary file of a build that may still be under way.
    age(&first, 40);
    let (old_tmp, new_tmp) = (dir.join("x.seg.1-2-3.tmp"), dir.join("y.seg.1-2-3.tmp"));
    for tmp in [&old_tmp, &new_tmp] {
        std::fs::write(tmp, "").unwrap();
    }
    age(&old_tmp, 2);
    std::fs::write(&path, "{\"text\": \"a\", \"label\": \"neg\"}\n").unwrap();
    drop(open_in(&path, Task::Classify, &cache).unwrap());
    let names = segments(&cache);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&"y.seg.1-2-3.tmp".to_owned()), "{names:?}");
    assert!(!first.exists() && !old_tmp.exists());
}
