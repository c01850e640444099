//! Progress without a terminal: `--progress lines` (the default when stderr is a file) prints a
//! line every `--progress-every` seconds naming the side, the stage (told by the engine), the
//! texts done, the rate and an ETA; `--progress none` prints none.

use std::fs;

use scenario_rules::{SystemNeed, system_has};

mod support;

use support::{capkit_in, ok, output, scratch};

/// A `cmd:` model that answers one text every 50 ms: a comparison of ten texts under two
/// stages takes a few seconds, long enough for several progress lines at 0.3 s.
const SLOW: &str = r#"import json, sys, time
for line in sys.stdin:
    r = json.loads(line)
    time.sleep(0.05)
    print(json.dumps({"id": r["id"], "label": "pos" if "good" in r["text"] else "neg"}), flush=True)
"#;

fn compare(dir: &std::path::Path, progress: &[&str]) -> String {
    let mut cmd = capkit_in(dir);
    cmd.args([
        "profile",
        "compare",
        "--texts",
        "texts.txt",
        "--suite",
        "suite.json",
        "--teacher",
        "cmd:python3 slow.py",
        "--student",
        "cmd:python3 slow.py a",
        "--student",
        "cmd:python3 slow.py b",
        "--no-cache",
        "--out",
        "cmp.json",
    ])
    .args(progress);
    let out = output(&mut cmd);
    ok(&out);
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_compare_whose_stderr_is_a_file_prints_progress_lines() {
    if !system_has(
        SystemNeed::Python3,
        "a_compare_whose_stderr_is_a_file_prints_progress_lines",
    ) {
        return;
    }
    let dir = scratch("progress", "lines");
    let texts: Vec<String> = (0..10).map(|i| format!("good text number {i}")).collect();
    fs::write(dir.path().join("texts.txt"), texts.join("\n")).unwrap();
    fs::write(
        dir.path().join("suite.json"),
        r#"{"corruptions": [{"name": "typo", "transform": "keyboard_typo", "rate": 0.3}],
            "invariances": [{"name": "case", "transform": "case_jitter"}], "probes": []}"#,
    )
    .unwrap();
    fs::write(dir.path().join("slow.py"), SLOW).unwrap();

    // stderr is a pipe here, as in CI: lines are the default.
    let said = compare(dir.path(), &["--progress-every", "0.3"]);
    let lines: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("capkit: progress: "))
        .collect();
    assert!(lines.len() >= 3, "few progress lines:\n{said}");
    for line in &lines {
        assert!(line.contains(" texts of this call ("), "{line}");
        assert!(line.contains(" answers/s, ETA "), "{line}");
    }
    // The engine names each call's stage: the corrupted and rewritten texts are seen as such.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("corruption `typo` (1 of 2)")
                || l.contains("invariance `case` (2 of 2)")),
        "no transformed stage named:\n{said}"
    );

    let quiet = compare(
        dir.path(),
        &["--progress", "none", "--progress-every", "0.3"],
    );
    assert!(!quiet.contains("capkit: progress: "), "{quiet}");
}
