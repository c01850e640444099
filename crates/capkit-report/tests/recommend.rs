//! The recommendation rule (issue 36) on real comparisons and profiles: the order is the
//! weighted count of significant wins minus losses, recomputed here from the pair tests
//! independently of the page; ties are ties; a student that is best where it answers is named
//! as the cascade front; names come from the specs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/mod.rs"]
mod common;

use capkit_report::recommend::{recommend_comparison, recommend_profile};
use profile_stats::{Comparison, ProfileReport};

fn comparison(json: capture::serde_json::Value) -> Comparison {
    Comparison::from_json(&json).unwrap()
}

/// Each student's weighted wins minus losses, straight from the pair tests.
fn scores(c: &Comparison) -> Vec<f64> {
    let first = c.students.values().next().unwrap();
    let (no_c, no_i) = c.stages_that_changed_nothing();
    let mut score = vec![0.0; c.students.len()];
    for (p, t) in c.pairs.iter().zip(c.pair_tests()) {
        let a = c.students.get_index_of(&p.first).unwrap();
        let b = c.students.get_index_of(&p.second).unwrap();
        let mut contests = vec![("clean", false, t.clean)];
        contests.extend(
            t.corruptions
                .iter()
                .filter(|(k, _)| !no_c.contains(k.as_str()))
                .map(|(k, x)| (k.as_str(), false, *x)),
        );
        contests.extend(
            t.invariances
                .iter()
                .filter(|(k, _)| !no_i.contains(k.as_str()))
                .map(|(k, x)| (k.as_str(), true, *x)),
        );
        for (stage, invariance, test) in contests {
            if !test.significant {
                continue;
            }
            let w = first.suite.weight(stage);
            let first_better = (test.difference.estimate.unwrap() > 0.0) != invariance;
            let (win, lose) = if first_better { (a, b) } else { (b, a) };
            score[win] += w;
            score[lose] -= w;
        }
    }
    score
}

#[test]
fn the_order_is_weighted_wins_minus_losses() {
    for json in [
        common::three_students(),
        common::weighted_families(),
        common::cascade_comparison(),
        common::comparison(),
    ] {
        let c = comparison(json);
        let rec = recommend_comparison(&c);
        let expected = scores(&c);
        for s in &rec.standings {
            assert!(
                (s.score() - expected[s.student]).abs() < 1e-9,
                "{}: {} against {}",
                rec.names[s.student].shown,
                s.score(),
                expected[s.student]
            );
            // Place: one more than the students with a strictly higher score.
            let above = expected
                .iter()
                .filter(|&&x| x > expected[s.student] + 1e-9)
                .count();
            assert_eq!(s.place, above + 1);
        }
        let order: Vec<f64> = rec.standings.iter().map(|s| s.score()).collect();
        assert!(order.windows(2).all(|w| w[0] >= w[1]), "{order:?}");
    }
}

#[test]
fn weights_change_the_scores() {
    let c = comparison(common::weighted_families());
    let rec = recommend_comparison(&c);
    assert!(rec.weighted);
    // A typo stage weighs 3: some student's wins are not a whole count of stages.
    let wins: Vec<f64> = rec.standings.iter().map(|s| s.wins).collect();
    assert!(wins.iter().any(|w| *w >= 3.0), "{wins:?}");
    assert_eq!(
        rec.names
            .iter()
            .map(|n| n.shown.as_str())
            .collect::<Vec<_>>(),
        ["exact", "shouty", "folded"]
    );
}

#[test]
fn names_leaders_and_the_sentence() {
    let c = comparison(common::three_students());
    let rec = recommend_comparison(&c);
    let names: Vec<&str> = rec.names.iter().map(|n| n.shown.as_str()).collect();
    assert_eq!(names, ["exact", "shouty", "folded"]);
    assert_eq!(rec.leaders(), [2]);
    assert_eq!(
        rec.sentence.to_string(),
        "folded: no other student is significantly better at any stage."
    );
    // Ten texts separate nobody: every student ties, and the sentence says so.
    let c = comparison(common::comparison());
    let rec = recommend_comparison(&c);
    assert_eq!(rec.leaders().len(), 3);
    assert!(
        rec.sentence
            .to_string()
            .contains("tie: their significant wins and losses balance"),
        "{}",
        rec.sentence
    );
}

#[test]
fn the_abstaining_student_is_the_cascade_front() {
    let c = comparison(common::cascade_comparison());
    let rec = recommend_comparison(&c);
    assert_eq!(rec.leaders(), [0], "{}", rec.sentence);
    assert_eq!(rec.cascade, Some(1));
    let careful = rec.standings.iter().find(|s| s.student == 1).unwrap();
    let (coverage, selective) = careful.abstention.unwrap();
    assert!(coverage.estimate.unwrap() < 1.0);
    assert!(selective.estimate.unwrap() > careful.clean.estimate.unwrap());
    let text = rec.sentence.to_string();
    assert!(text.starts_with("shouty"), "{text}");
    assert!(
        text.contains("As a cascade front (escalating what it does not answer): careful"),
        "{text}"
    );
}

#[test]
fn a_profile_names_its_shortfall_against_the_teacher() {
    let report = ProfileReport::from_json(&common::classify_report()).unwrap();
    let rec = recommend_profile(&report);
    assert_eq!(
        (rec.student.as_str(), rec.teacher.as_str()),
        ("student", "teacher")
    );
    assert!(!rec.clean_ok);
    assert_eq!(
        rec.sentence.to_string(),
        "Keep teacher: student agrees with it on 70.0 % of the clean texts, below the 90.0 % threshold."
    );
    let mut named = 0;
    for json in [common::classify_report(), common::whose_report()] {
        let report = ProfileReport::from_json(&json).unwrap();
        let rec = recommend_profile(&report);
        named += rec.shortfalls.len();
        same_shortfalls(&report, &rec);
    }
    assert!(
        named > 0,
        "no report with a shortfall: the check above checked nothing"
    );
}

/// The shortfalls, recomputed: corruptions below the threshold (that changed a text),
/// invariances where the student is significantly less invariant.
fn same_shortfalls(report: &ProfileReport, rec: &capkit_report::recommend::ProfileRecommendation) {
    let a = profile_stats::analysis::classify(
        match &report.counts {
            profile_stats::Counts::Classify(c) => c,
            profile_stats::Counts::Extract(_) => unreachable!(),
        },
        &report.suite,
        &report.settings,
    );
    let mut expected: Vec<&str> = a
        .corruptions
        .iter()
        .filter(|(_, k)| {
            !k.changed_nothing() && k.headline().0.estimate.unwrap() < report.settings.break_even
        })
        .map(|(n, _)| n.as_str())
        .chain(
            a.invariances
                .iter()
                .filter(|(_, i)| {
                    !i.changed_nothing()
                        && i.student_vs_teacher.significant
                        && i.student_vs_teacher.difference.estimate.unwrap() > 0.0
                })
                .map(|(n, _)| n.as_str()),
        )
        .collect();
    let mut found: Vec<&str> = rec
        .shortfalls
        .iter()
        .map(|s| s.stage.name.as_str())
        .collect();
    expected.sort_unstable();
    found.sort_unstable();
    assert_eq!(found, expected);
    // Largest weighted shortfall first.
    let sizes: Vec<f64> = rec
        .shortfalls
        .iter()
        .map(|s| s.size * s.stage.weight)
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
}
