//! The 54 upstream golden cases (LangState `LLMEvaluator` at df40bc49, see
//! `tests/fixtures/cases.json`), replayed end to end: ops → states, fixed client reply →
//! `LlmMutator` → `Evaluator`. Every contract field is asserted; the informational
//! Python-flavoured `difference` strings are compared too and their count is printed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use mutator_eval::{
    ClientError, Error, EvaluationContext, Evaluator, InterpretiveState, LlmClient, LlmMutator,
    StructuredInput, parse_json,
};
use profile_types::{Inference, ValueConfidence};
use serde_json::{Value, json};

const MUTATOR_ID: &str = "<LLMMutator instance id>";

/// The fake client of the goldens: ignores the prompt, returns the fixed reply, records calls.
struct Fixed {
    reply: String,
    prompts: Mutex<Vec<String>>,
}

impl LlmClient for Fixed {
    fn generate(&self, prompt: &str) -> Result<String, ClientError> {
        self.prompts.lock().unwrap().push(prompt.to_owned());
        Ok(self.reply.clone())
    }
}

fn build_state(ops: &Value) -> InterpretiveState {
    let mut state = InterpretiveState::new();
    for op in ops.as_array().unwrap() {
        let path = op["path"].as_str().unwrap();
        match op["op"].as_str().unwrap() {
            "add_value" => state.add_value(
                path,
                ValueConfidence::new(op["value"].clone(), op["confidence"].as_f64().unwrap())
                    .unwrap(),
            ),
            "add_inference" => state.add_inference(
                path,
                Inference {
                    content: op["content"].as_str().unwrap().to_owned(),
                    mutator_id: op["mutator_id"].as_str().map(str::to_owned),
                    message_id: op["message_id"].as_str().map(str::to_owned),
                },
            ),
            other => panic!("unknown op {other}"),
        }
    }
    state
}

/// `line L column C` out of a Python `JSONDecodeError` message.
fn python_position(message: &str) -> (usize, usize) {
    let words: Vec<&str> = message.split_whitespace().collect();
    let at = |key: &str| {
        let i = words.iter().position(|w| *w == key).unwrap();
        words[i + 1].parse::<usize>().unwrap()
    };
    (at("line"), at("column"))
}

#[test]
fn golden_upstream_cases() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/cases.json"
    ))
    .unwrap();
    // Read with the crate's own parser: correctly rounded floats, like Python's.
    let doc = parse_json(&text).unwrap();
    assert_eq!(doc["format"], "langstate-mutator-eval-golden/1");
    let cases = doc["cases"].as_array().unwrap();

    let (mut ok_cases, mut error_cases, mut failures) = (0, 0, Vec::new());
    let (mut differences, mut differences_same) = (0, 0);
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let mut problems: Vec<String> = Vec::new();
        let mut check = |what: &str, ours: Value, theirs: &Value| {
            if &ours != theirs {
                problems.push(format!("{what}: ours {ours}, upstream {theirs}"));
            }
        };

        let pre_state = build_state(&case["pre_state_ops"]);
        let expected = build_state(&case["expected_post_state_ops"]);
        check(
            "pre_state_snapshot",
            serde_json::to_value(&pre_state).unwrap(),
            &case["pre_state_snapshot"],
        );
        check(
            "expected_post_state_snapshot",
            serde_json::to_value(&expected).unwrap(),
            &case["expected_post_state_snapshot"],
        );
        let input: StructuredInput =
            serde_json::from_value(case["mutation_input"].clone()).unwrap();
        let metadata = case["metadata"].clone();
        let metadata = (!metadata.is_null()).then_some(metadata);
        let client = Fixed {
            reply: case["client_reply"].as_str().unwrap().to_owned(),
            prompts: Mutex::new(Vec::new()),
        };
        let mutator = LlmMutator::with_id(&client, MUTATOR_ID);
        let pre_before = pre_state.clone();
        let outcome = Evaluator.evaluate(EvaluationContext {
            mutator: &mutator,
            pre_state: &pre_state,
            expected_post_state: &expected,
            mutation_input: &input,
            metadata: metadata.as_ref(),
        });

        let prompts = client.prompts.lock().unwrap();
        check(
            "client_called",
            json!(prompts.len()),
            &case["client_called"],
        );
        check(
            "prompt_checks.contains_user_prompt",
            json!(prompts.iter().all(|p| p.contains(&input.prompt))),
            &case["prompt_checks"]["contains_user_prompt"],
        );
        check(
            "pre_state_unchanged",
            json!(pre_state == pre_before),
            &case["pre_state_unchanged"],
        );

        match (case["outcome"].as_str().unwrap(), outcome) {
            ("ok", Ok(result)) => {
                ok_cases += 1;
                let want = &case["result"];
                let c = &result.comparison;
                check(
                    "matching_fields",
                    json!(c.matching_fields),
                    &want["matching_fields"],
                );
                check(
                    "mismatched_fields",
                    json!(c.mismatched_fields),
                    &want["mismatched_fields"],
                );
                check(
                    "missing_fields",
                    json!(c.missing_fields),
                    &want["missing_fields"],
                );
                check("extra_fields", json!(c.extra_fields), &want["extra_fields"]);
                check(
                    "overall_match",
                    json!(c.overall_match),
                    &want["overall_match"],
                );
                // Exact float equality, as Python computes it.
                check(
                    "accuracy_score",
                    json!(result.accuracy_score),
                    &want["accuracy_score"],
                );
                check("metadata", json!(result.metadata), &want["metadata"]);
                check(
                    "actual_post_state_snapshot",
                    serde_json::to_value(&result.actual_post_state).unwrap(),
                    &want["actual_post_state_snapshot"],
                );
                let want_fields = want["fields"].as_array().unwrap();
                check(
                    "fields.len",
                    json!(c.fields.len()),
                    &json!(want_fields.len()),
                );
                for (ours, theirs) in c.fields.iter().zip(want_fields) {
                    let p = &ours.field_path;
                    check("field_path", json!(p), &theirs["field_path"]);
                    check(
                        &format!("{p}.matches"),
                        json!(ours.matches),
                        &theirs["matches"],
                    );
                    check(
                        &format!("{p}.category"),
                        json!(ours.category),
                        &theirs["category"],
                    );
                    check(
                        &format!("{p}.expected_value"),
                        json!(ours.expected_value),
                        &theirs["expected_value"],
                    );
                    check(
                        &format!("{p}.actual_value"),
                        json!(ours.actual_value),
                        &theirs["actual_value"],
                    );
                    if !theirs["difference"].is_null() {
                        differences += 1;
                        if json!(ours.difference) == theirs["difference"] {
                            differences_same += 1;
                        }
                    }
                }
            }
            ("error", Err(err)) => {
                error_cases += 1;
                let want = &case["error"];
                let message = want["message_first_line"].as_str().unwrap();
                assert_eq!(want["is_ValueError_subclass"], true);
                match (want["python_type"].as_str().unwrap(), &err) {
                    ("JSONDecodeError", Error::ReplyNotJson { line, column, .. }) => {
                        check(
                            "decode position",
                            json!([line, column]),
                            &json!(python_position(message)),
                        );
                    }
                    ("ValueError", Error::ReplyNotArray { found }) => {
                        check(
                            "not-array type",
                            json!(message.ends_with(&format!("got {found}"))),
                            &json!(true),
                        );
                    }
                    ("ValidationError", Error::InvalidElement { key, .. }) => {
                        let loc = &want["validation_errors"][0]["loc"];
                        let their_key = loc
                            .as_array()
                            .unwrap()
                            .first()
                            .cloned()
                            .unwrap_or(Value::Null);
                        check("invalid element key", json!(key), &their_key);
                    }
                    (class, _) => {
                        problems.push(format!("error class: ours {err:?}, upstream {class}"))
                    }
                }
            }
            (want, Ok(_)) => problems.push(format!("outcome: ours ok, upstream {want}")),
            (want, Err(e)) => problems.push(format!("outcome: ours error ({e}), upstream {want}")),
        }
        if !problems.is_empty() {
            failures.push(format!("{id}:\n  {}", problems.join("\n  ")));
        }
    }

    let total = cases.len();
    println!(
        "golden mutator cases: {} of {total} reproduced ({ok_cases} results, {error_cases} errors); \
         difference texts identical: {differences_same} of {differences}",
        total - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!((total, ok_cases, error_cases), (54, 39, 15));
    // Informational upstream text, but we render it the same way: keep it that way.
    assert_eq!(differences_same, differences);
}
