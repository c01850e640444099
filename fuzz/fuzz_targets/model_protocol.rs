//! The model protocol's answer parsers (cmd: lines, http: batches): an accepted answer written
//! back parses to the same answer, records are objects, and a batch has one answer per text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use model_adapters::{AnswerKind, parse_answer_line, parse_batch_answer};
use serde_json::{Map, Value};
use suite_core::Decision;

fuzz_target!(|data: &[u8]| {
    let Some((&head, body)) = data.split_first() else {
        return;
    };
    let kind = if head & 1 == 0 {
        AnswerKind::Label
    } else {
        AnswerKind::Record
    };
    if let Ok(answer) = parse_answer_line(body, kind) {
        if kind == AnswerKind::Record {
            assert!(answer.output.is_object());
        }
        let mut line = Map::new();
        line.insert("id".into(), answer.id.into());
        line.insert(kind.key().into(), answer.output.clone());
        match &answer.decision {
            None => {}
            Some(Decision::Escalate) => {
                line.insert("decision".into(), Value::Null);
            }
            Some(Decision::Answer(v)) => {
                line.insert("decision".into(), v.clone());
            }
        }
        let written = serde_json::to_vec(&Value::Object(line)).expect("serialises");
        let again = parse_answer_line(&written, kind).expect("written answer parses");
        assert_eq!(again, answer);
    }
    let Ok(text) = std::str::from_utf8(body) else {
        return;
    };
    let n = usize::from(head >> 1) % 8;
    if let Ok(answers) = parse_batch_answer(text, kind, n) {
        assert_eq!(answers.len(), n);
        if kind == AnswerKind::Record {
            assert!(answers.iter().all(|(o, _)| o.is_object()));
        }
    }
});
