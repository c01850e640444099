//! The prediction cache's crash contract: a `capkit profile` through `cmd:` models killed with
//! SIGKILL at seeded random moments resumes, from its cache, to the profile an uninterrupted run
//! gives, and the models are asked again only about texts of the batches in flight at the kill.
//! Two profiles sharing one cache at once finish with the right profiles and lose no answer.
//!
//! Sizes: `CAPKIT_KILL_TEXTS` texts (default 4,000) and `CAPKIT_KILLS` kills (default 5), so
//! the issue's run (200,000 texts, 20 kills) is the same test with both set. `CAPKIT_BIN` runs
//! another `capkit` binary than the one this test was built with (a release build, or a copy
//! that a rebuild cannot replace under a long run).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenario_rules::{SystemNeed, system_has};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use serde_json::Value;

mod support;

use support::{capkit_at, output, stderr};

/// Texts per chunk: one `cmd:` model call per stage of a chunk, so at most this many texts per
/// model are in flight when the process dies.
const CHUNK: usize = 512;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profile")
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Setup {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    texts: PathBuf,
    suite: PathBuf,
}

fn setup(n: usize) -> Setup {
    let tmp = tempfile::Builder::new()
        .prefix("capkit-cache-kill-")
        .tempdir()
        .unwrap();
    let dir = tmp.path().to_owned();
    let texts = dir.join("texts.txt");
    let words = [
        "good", "bad", "great", "awful", "fine", "meh", "Good", "BAD",
    ];
    let body: String = (0..n)
        .map(|i| {
            format!(
                "review {i}: the food was {} and the service {}\n",
                words[i % words.len()],
                words[(i / 8) % words.len()]
            )
        })
        .collect();
    std::fs::write(&texts, body).unwrap();
    let suite = dir.join("suite.json");
    std::fs::write(
        &suite,
        r#"{"corruptions": [{"name": "typo_10", "transform": "keyboard_typo", "rate": 0.1}],
            "invariances": [{"name": "case", "transform": "case_jitter"}]}"#,
    )
    .unwrap();
    Setup {
        _tmp: tmp,
        dir,
        texts,
        suite,
    }
}

/// The binary under test: `CAPKIT_BIN` when set, else the one this test was built with.
fn capkit_exe() -> PathBuf {
    std::env::var_os("CAPKIT_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_capkit")),
        PathBuf::from,
    )
}

/// `capkit profile classify` over the setup, each side's asked texts appended to `log_SIDE`.
fn profile(s: &Setup, cache: Option<&Path>, log: &str) -> Command {
    let spec = |side: &str| {
        format!(
            "cmd:python3 rule_model.py scenarios/scenario_04.json {side} {}",
            s.dir.join(format!("{log}_{side}.log")).display()
        )
    };
    let mut cmd = capkit_at(capkit_exe(), &fixtures());
    cmd.args(["profile", "classify", "--texts"])
        .arg(&s.texts)
        .arg("--suite")
        .arg(&s.suite)
        .args(["--student", &spec("student"), "--teacher", &spec("teacher")])
        .args(["--chunk-size", &CHUNK.to_string()]);
    match cache {
        Some(dir) => cmd.arg("--cache-dir").arg(dir),
        None => cmd.arg("--no-cache"),
    };
    cmd
}

fn finished(out: Output) -> Value {
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn asked(s: &Setup, log: &str, side: &str) -> usize {
    std::fs::read_to_string(s.dir.join(format!("{log}_{side}.log")))
        .unwrap_or_default()
        .lines()
        .count()
}

/// A small seeded generator for the kill moments (splitmix64).
fn next(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

#[test]
fn a_profile_killed_at_random_moments_resumes_to_the_same_profile() {
    if !system_has(
        SystemNeed::Python3,
        "a_profile_killed_at_random_moments_resumes_to_the_same_profile",
    ) {
        return;
    }
    let n = env_or("CAPKIT_KILL_TEXTS", 4_000);
    let kills = env_or("CAPKIT_KILLS", 5);
    let s = setup(n);
    let started = Instant::now();
    let reference = finished(output(&mut profile(&s, None, "reference")));
    let full = started.elapsed();
    let distinct = [
        asked(&s, "reference", "student"),
        asked(&s, "reference", "teacher"),
    ];
    let mut seed = 0x5EED_u64;
    for k in 0..kills {
        let cache = s.dir.join(format!("cache-{k}"));
        let log = format!("trial{k}");
        // Somewhere in the first 90 % of an uninterrupted run's time (the cache's own writes
        // make a cached run a little slower, so the kill lands before its end).
        let at = full.mul_f64(0.9 * next(&mut seed));
        let mut child = profile(&s, Some(&cache), &log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let before = [asked(&s, &log, "student"), asked(&s, &log, "teacher")];
        let resumed = finished(output(&mut profile(&s, Some(&cache), &log)));
        assert_eq!(resumed, reference, "trial {k}: killed after {at:?}");
        for (i, side) in ["student", "teacher"].into_iter().enumerate() {
            let total = asked(&s, &log, side);
            // Every distinct text once, plus at most the one call (a chunk's stage) in flight.
            assert!(
                total <= distinct[i] + CHUNK,
                "trial {k}: {side} asked {total} texts ({} before the kill at {at:?}), \
                 {} distinct, calls of at most {CHUNK} texts",
                before[i],
                distinct[i]
            );
        }
    }
}

#[test]
fn two_profiles_share_one_cache_at_once() {
    if !system_has(SystemNeed::Python3, "two_profiles_share_one_cache_at_once") {
        return;
    }
    let s = setup(3_000);
    let reference = finished(output(&mut profile(&s, None, "reference")));
    let cache = s.dir.join("shared-cache");
    // One log for all three runs: the model's argv is part of its cache identity.
    let spawn = || {
        profile(&s, Some(&cache), "shared")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    for out in [&a, &b] {
        assert!(!stderr(out).contains("warning"), "{}", stderr(out));
    }
    assert_eq!(finished(a), reference);
    assert_eq!(finished(b), reference);
    // No answer was lost: a third run asks no model anything.
    let before = asked(&s, "shared", "student") + asked(&s, "shared", "teacher");
    let third = finished(output(&mut profile(&s, Some(&cache), "shared")));
    assert_eq!(third, reference);
    let after = asked(&s, "shared", "student") + asked(&s, "shared", "teacher");
    assert_eq!(after, before, "the third run asked a model");
}
