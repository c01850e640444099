//! The recommendation a page opens with (issue 36): which student to ship, by a stated rule,
//! with each student's worst stage, its biggest loss against the leader, abstention beside
//! unconditional agreement, and one sentence a reviewer can paste ("X, unless Y matters:
//! then Z"). For a single profile, the same for the student against its teacher.
//!
//! **The comparison rule.** Every stage that changed some text (the clean texts, each
//! corruption, each invariance) is a contest between every pair of students, decided by the
//! pair's paired test, Holm-adjusted over every stage of every pair (`Comparison::pair_tests`):
//! a significant difference is a *win* for the better student (more agreement with the
//! teacher, or F1 for extractors; fewer violations under an invariance) and a loss for the
//! other, each counted by the stage's weight in the suite (1 when none is declared). A
//! student's score is its weighted wins minus its weighted losses; students are ordered by
//! score, and equal scores are ties (the same place). A difference that is not significant
//! counts for nobody, so on few texts every student may tie.
//!
//! **The profile rule.** The student stands in for its teacher where its agreement on the
//! clean texts reaches the break-even threshold (`settings.break_even`); it falls short at a
//! corruption whose headline agreement is below the threshold and at an invariance where it is
//! significantly less invariant than its teacher (Holm-adjusted); the sentence names the
//! shortfall of the largest weighted size (threshold minus agreement, or the difference in
//! violation rates).

use profile_stats::{Comparison, Interval, PairedTest, ProfileReport};

use crate::figures::Figures;
use crate::format::{Direction, percent, points_with_interval, test_p};
use crate::names::{ModelName, short_names};

/// A sentence of the recommendation: plain words and names (a page isolates each name, so a
/// right-to-left stage name never reorders the sentence around it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sentence(pub Vec<Piece>);

/// A part of a [`Sentence`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Words.
    Text(String),
    /// A model's or a stage's name.
    Name(String),
}

impl Sentence {
    fn text(mut self, s: impl Into<String>) -> Sentence {
        self.0.push(Piece::Text(s.into()));
        self
    }

    fn name(mut self, s: impl Into<String>) -> Sentence {
        self.0.push(Piece::Name(s.into()));
        self
    }

    fn append(mut self, other: Sentence) -> Sentence {
        self.0.extend(other.0);
        self
    }
}

impl std::fmt::Display for Sentence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.0 {
            match p {
                Piece::Text(s) | Piece::Name(s) => f.write_str(s)?,
            }
        }
        Ok(())
    }
}

/// A stage of a contest: its name and whether it is an invariance (fewer violations win).
#[derive(Debug, Clone, PartialEq)]
pub struct StageRef {
    /// The stage's name (`clean`, a corruption, an invariance).
    pub name: String,
    /// Whether it is an invariance.
    pub invariance: bool,
    /// Its weight in the suite (1 when none is declared).
    pub weight: f64,
}

/// A significant loss of one student to another at one stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Loss {
    /// The stage.
    pub stage: StageRef,
    /// The student that won it (index into the comparison's students).
    pub winner: usize,
    /// The winner's advantage in rate (positive: more agreement, or fewer violations), with
    /// its interval.
    pub advantage: Interval,
    /// The test's Holm-adjusted p.
    pub p: f64,
    /// Its paired test, as a page says it (`Holm-adjusted p = 0.003`).
    pub p_text: String,
    /// Which pair of the comparison it came from (index into `Comparison::pairs`).
    pub pair: usize,
}

impl Loss {
    /// Size for choosing the loss to name: the advantage weighted by the stage's weight.
    fn size(&self) -> f64 {
        self.stage.weight * self.advantage.estimate.map_or(0.0, f64::abs)
    }
}

/// A student's headline at one stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageRate {
    /// The stage (`clean` or a corruption).
    pub stage: String,
    /// Its headline: agreement with the teacher (against the stage's reference) or F1.
    pub rate: Interval,
}

/// One student's place in the order.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// Index into the comparison's students.
    pub student: usize,
    /// Its place from 1; tied students share a place.
    pub place: usize,
    /// Weighted wins.
    pub wins: f64,
    /// Weighted losses.
    pub losses: f64,
    /// The stage with its lowest headline (clean texts or a corruption that changed a text).
    pub worst: Option<StageRate>,
    /// Its largest significant loss to the leader (for the leader: to any student), by
    /// weighted size.
    pub biggest_loss: Option<Loss>,
    /// Agreement (or F1) on every clean text.
    pub clean: Interval,
    /// With a decision API: coverage and selective agreement on the clean texts.
    pub abstention: Option<(Interval, Interval)>,
}

impl Standing {
    /// Weighted wins minus weighted losses: what orders the students.
    pub fn score(&self) -> f64 {
        self.wins - self.losses
    }
}

/// The recommendation of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Recommendation {
    /// The students' names on the page, in the comparison's order.
    pub names: Vec<ModelName>,
    /// The students, best first.
    pub standings: Vec<Standing>,
    /// The student best as a cascade front (escalating what it does not answer), when it is
    /// not the leader: its selective agreement is above the leader's unconditional agreement.
    pub cascade: Option<usize>,
    /// Whether any stage declared a weight.
    pub weighted: bool,
    /// Per student with the best point estimate at most stages: (student, stages where it is
    /// best, stages), most first; point estimates only, no test.
    pub ahead: Vec<(usize, usize, usize)>,
    /// The sentence to paste into a review.
    pub sentence: Sentence,
}

impl Recommendation {
    /// The students sharing the first place.
    pub fn leaders(&self) -> Vec<usize> {
        self.standings
            .iter()
            .filter(|s| s.place == 1)
            .map(|s| s.student)
            .collect()
    }
}

/// The rule, stated as a page states it.
pub const COMPARISON_RULE: &str = "Each stage that changed a text (and the clean texts) is a \
     contest between every pair of students, decided by their paired test, Holm-adjusted over \
     every stage of every pair: a significant difference in agreement with the teacher (or F1), \
     or in violations under an invariance, is a win for the better student and a loss for the \
     other, counted by the stage's weight (1 where none is declared). Students are ordered by \
     wins minus losses; equal scores are ties.";

/// The comparison rule in one line, as the page shows it before [`COMPARISON_RULE`].
pub const COMPARISON_RULE_SHORT: &str = "Order: significant wins minus significant losses \
     against every other student, over every stage, each counted by its weight; equal scores \
     are ties.";

/// The profile rule in one line.
pub const PROFILE_RULE_SHORT: &str = "Rule: the student stands in for its teacher at the \
     break-even threshold, unless a corruption falls below it or an invariance is significantly \
     worse; the largest weighted shortfall is named.";

/// The rule of a single profile.
pub const PROFILE_RULE: &str = "The student stands in for its teacher where it agrees with it \
     on the clean texts at least at the break-even threshold; it falls short at a corruption \
     whose agreement is below the threshold and at an invariance where it is significantly \
     less invariant than its teacher (Holm-adjusted). The sentence names the shortfall that \
     weighs most: its size times the stage's weight.";

/// The stages of a comparison that count, in suite order: clean, every corruption and
/// invariance that changed a text.
fn contested(c: &Comparison) -> Vec<StageRef> {
    let Some(first) = c.students.values().next() else {
        return Vec::new();
    };
    let (no_c, no_i) = c.stages_that_changed_nothing();
    let weight = |s: &str| first.suite.weight(s);
    let mut out = vec![StageRef {
        name: "clean".to_owned(),
        invariance: false,
        weight: weight("clean"),
    }];
    out.extend(
        first
            .suite
            .corruptions
            .iter()
            .filter(|k| !no_c.contains(k.name.as_str()))
            .map(|k| StageRef {
                name: k.name.clone(),
                invariance: false,
                weight: weight(&k.name),
            }),
    );
    out.extend(
        first
            .suite
            .invariances
            .iter()
            .filter(|k| !no_i.contains(k.as_str()))
            .map(|k| StageRef {
                name: k.clone(),
                invariance: true,
                weight: weight(k),
            }),
    );
    out
}

fn test_at<'a>(t: &'a profile_stats::PairTests, stage: &StageRef) -> Option<&'a PairedTest> {
    if stage.invariance {
        t.invariances.get(&stage.name)
    } else if stage.name == "clean" {
        Some(&t.clean)
    } else {
        t.corruptions.get(&stage.name)
    }
}

/// `d` negated.
fn flip(d: Interval) -> Interval {
    Interval {
        estimate: d.estimate.map(|e| -e),
        lower: -d.upper,
        upper: -d.lower,
        ..d
    }
}

/// The student's page names: given aliases, short names from the specs, or letters.
pub fn student_names(c: &Comparison) -> Vec<ModelName> {
    let aliases: Vec<String> = c.aliases().into_keys().collect();
    let given: Vec<Option<&str>> = c
        .students
        .keys()
        .map(|name| {
            c.given_aliases
                .iter()
                .find(|(_, n)| *n == name)
                .map(|(a, _)| a.as_str())
        })
        .collect();
    let models: Vec<&str> = c.students.keys().map(String::as_str).collect();
    let letters: Vec<&str> = aliases.iter().map(String::as_str).collect();
    short_names(&models, &given, &letters)
}

/// The teacher's page name: what tells its spec from the first student's, or `teacher`.
pub fn teacher_name(c: &Comparison) -> String {
    let Some(t) = c.teacher.as_deref() else {
        return "teacher".to_owned();
    };
    let first = c.students.keys().next().map_or("", String::as_str);
    short_names(&[first, t], &[None, None], &["student", "teacher"])
        .pop()
        .filter(|n| !n.letter && n.shown != "student")
        .map_or("teacher".to_owned(), |n| n.shown)
}

/// A student's stage with the lowest headline: clean texts or a corruption that changed text.
fn worst_stage(figures: &Figures) -> Option<StageRate> {
    let mut stages: Vec<(&str, &Interval)> = vec![("clean", figures.clean())];
    stages.extend(figures.measured_headlines());
    stages
        .into_iter()
        .filter(|(_, i)| i.estimate.is_some())
        .min_by(|a, b| {
            a.1.estimate
                .unwrap_or(f64::INFINITY)
                .total_cmp(&b.1.estimate.unwrap_or(f64::INFINITY))
        })
        .map(|(s, i)| StageRate {
            stage: s.to_owned(),
            rate: *i,
        })
}

/// The recommendation of a comparison ([`COMPARISON_RULE`]).
pub fn recommend_comparison(c: &Comparison) -> Recommendation {
    let names = student_names(c);
    let tests = c.pair_tests();
    let stages = contested(c);
    let n = c.students.len();
    let level = c
        .students
        .values()
        .next()
        .map_or(0.95, |r| r.settings.level.get());
    // Every significant loss, by loser.
    let mut losses: Vec<Vec<Loss>> = vec![Vec::new(); n];
    let mut wins = vec![0.0; n];
    let mut lost = vec![0.0; n];
    for (k, (pair, t)) in c.pairs.iter().zip(&tests).enumerate() {
        let (Some(a), Some(b)) = (
            c.students.get_index_of(&pair.first),
            c.students.get_index_of(&pair.second),
        ) else {
            continue;
        };
        for stage in &stages {
            let Some(test) = test_at(t, stage) else {
                continue;
            };
            let first_higher = match Direction::of(test, level) {
                Direction::FirstHigher => true,
                Direction::SecondHigher => false,
                Direction::NoDifference => continue,
            };
            // Higher agreement wins; a higher violation rate loses.
            let first_wins = first_higher != stage.invariance;
            let (winner, loser) = if first_wins { (a, b) } else { (b, a) };
            // The winner's advantage, positive: first − second read from the winner's side
            // (negated for an invariance, where fewer violations is better).
            let advantage = if first_wins != stage.invariance {
                test.difference
            } else {
                flip(test.difference)
            };
            wins[winner] += stage.weight;
            lost[loser] += stage.weight;
            losses[loser].push(Loss {
                stage: stage.clone(),
                winner,
                advantage,
                p: test.p,
                p_text: test_p(test),
                pair: k,
            });
        }
    }
    let figures: Vec<Figures> = c.students.values().map(Figures::of).collect();
    let mut order: Vec<usize> = (0..n).collect();
    let score = |k: usize| wins[k] - lost[k];
    order.sort_by(|&x, &y| score(y).total_cmp(&score(x)));
    let leader = order.first().copied();
    let biggest = |k: usize, against: Option<usize>| -> Option<Loss> {
        losses[k]
            .iter()
            .filter(|l| against.is_none_or(|a| l.winner == a))
            .max_by(|x, y| x.size().total_cmp(&y.size()))
            .cloned()
    };
    let standings: Vec<Standing> = order
        .iter()
        .map(|&k| {
            let f = &figures[k];
            Standing {
                student: k,
                place: 1 + (0..n).filter(|&o| score(o) > score(k)).count(),
                wins: wins[k],
                losses: lost[k],
                worst: worst_stage(f),
                biggest_loss: if Some(k) == leader {
                    biggest(k, None)
                } else {
                    biggest(k, leader)
                },
                clean: *f.clean(),
                abstention: f
                    .abstention()
                    .and_then(|a| a.student.as_ref())
                    .map(|s| (s.coverage, s.selective_agreement)),
            }
        })
        .collect();
    // The best cascade front: the highest selective agreement, when it beats the leader's
    // unconditional agreement and is not the leader.
    let cascade = standings
        .iter()
        .filter_map(|s| Some((s.student, s.abstention?.1.estimate?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(k, sel)| {
            Some(*k) != leader
                && leader.is_some_and(|l| figures[l].clean().estimate.is_some_and(|u| *sel > u))
        })
        .map(|(k, _)| k);
    let weighted = c
        .students
        .values()
        .next()
        .is_some_and(|r| r.suite.has_weights());
    // Point estimates: which student is best at each contested stage (no test; said as such).
    let mut best_at = vec![0usize; n];
    for stage in &stages {
        let rate = |k: usize| -> Option<f64> {
            let f = &figures[k];
            if stage.invariance {
                f.invariances()
                    .into_iter()
                    .find(|i| i.name == stage.name)
                    .and_then(|i| i.student.estimate.map(|e| -e))
            } else if stage.name == "clean" {
                f.clean().estimate
            } else {
                f.headlines()
                    .into_iter()
                    .find(|(k, _)| *k == stage.name)
                    .and_then(|(_, i)| i.estimate)
            }
        };
        let rates: Vec<Option<f64>> = (0..n).map(rate).collect();
        let top = rates
            .iter()
            .flatten()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let at_top: Vec<usize> = (0..n).filter(|&k| rates[k] == Some(top)).collect();
        if let [only] = at_top.as_slice() {
            best_at[*only] += 1;
        }
    }
    let mut ahead: Vec<(usize, usize, usize)> =
        (0..n).map(|k| (k, best_at[k], stages.len())).collect();
    ahead.sort_by_key(|a| std::cmp::Reverse(a.1));
    let mut rec = Recommendation {
        names,
        ahead,
        standings,
        cascade,
        weighted,
        sentence: Sentence::default(),
    };
    rec.sentence = comparison_sentence(&rec);
    rec
}

fn comparison_sentence(rec: &Recommendation) -> Sentence {
    let name = |k: usize| rec.names.get(k).map_or("?", |n| n.shown.as_str());
    let leaders = rec.leaders();
    let mut s = Sentence::default();
    let mut s = match leaders.as_slice() {
        [] => return s.text("No student to recommend: the comparison has none."),
        [only] if rec.standings.len() == 1 => s.name(name(*only)).text(": the only student."),
        [one] => match &rec.standings[0].biggest_loss {
            Some(l) => s
                .name(name(*one))
                .text(", unless ")
                .name(&l.stage.name)
                .text(" matters: then ")
                .name(name(l.winner))
                .text(format!(
                    " ({} better, {}).",
                    points_with_interval(&l.advantage),
                    l.p_text
                )),
            None => s
                .name(name(*one))
                .text(": no other student is significantly better at any stage."),
        },
        many => {
            for (k, &who) in many.iter().enumerate() {
                if k > 0 {
                    s = s.text(if k + 1 == many.len() { " and " } else { ", " });
                }
                s = s.name(name(who));
            }
            s = s
                .text(" tie: their significant wins and losses balance")
                .text(if rec.standings.iter().all(|s| s.wins == 0.0) {
                    " (no stage separates any two students on these texts)"
                } else {
                    ""
                });
            // What the point estimates say, said as no more than that.
            match rec.ahead.iter().find(|(k, _, _)| many.contains(k)) {
                Some(&(k, at, of)) if at * 2 > of => s
                    .text("; ")
                    .name(name(k))
                    .text(format!(
                        " is ahead at {at} of {of} stages, not significantly. Choose by cost or by the stage that matters most."
                    )),
                _ => s.text(". Choose by cost or by the stage that matters most."),
            }
        }
    };
    if let Some(st) = rec
        .cascade
        .and_then(|k| rec.standings.iter().find(|s| s.student == k))
        && let Some((coverage, selective)) = st.abstention
    {
        s = s
            .text(" As a cascade front (escalating what it does not answer): ")
            .name(name(st.student))
            .text(format!(
                ", which answers {} of the clean texts and agrees on {} of those.",
                percent(coverage.estimate),
                percent(selective.estimate)
            ));
    }
    s
}

/// A shortfall of a student against its teacher.
#[derive(Debug, Clone, PartialEq)]
pub struct Shortfall {
    /// The stage.
    pub stage: StageRef,
    /// The student's rate there: agreement (or F1) under a corruption, violation rate under an
    /// invariance.
    pub student: Interval,
    /// Under an invariance, the teacher's violation rate and the paired test's p as written.
    pub teacher: Option<(Interval, String)>,
    /// How far short: threshold minus agreement, or the difference of violation rates.
    pub size: f64,
}

/// The recommendation of one profile: the student against its teacher.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRecommendation {
    /// The student's and the teacher's names on the page.
    pub student: String,
    /// The teacher's.
    pub teacher: String,
    /// Whether the clean agreement reaches the threshold.
    pub clean_ok: bool,
    /// The clean agreement (or F1).
    pub clean: Interval,
    /// The break-even threshold.
    pub threshold: f64,
    /// Where the student falls short, largest weighted size first.
    pub shortfalls: Vec<Shortfall>,
    /// The stage with the lowest headline.
    pub worst: Option<StageRate>,
    /// With a decision API: the student's coverage and selective agreement.
    pub abstention: Option<(Interval, Interval)>,
    /// The sentence to paste into a review.
    pub sentence: Sentence,
}

/// The student's and teacher's page names of a profile (`student` and `teacher` when its
/// models are not recorded).
pub fn profile_names(report: &ProfileReport) -> (String, String) {
    let s = report.models.student.as_deref();
    let t = report.models.teacher.as_deref();
    match (s, t) {
        (Some(s), Some(t)) => {
            let n = short_names(&[s, t], &[None, None], &["student", "teacher"]);
            let shown = |k: usize, role: &str| {
                n.get(k)
                    .filter(|m| !m.letter)
                    .map_or(role.to_owned(), |m| m.shown.clone())
            };
            (shown(0, "student"), shown(1, "teacher"))
        }
        _ => ("student".to_owned(), "teacher".to_owned()),
    }
}

/// The recommendation of one profile ([`PROFILE_RULE`]).
pub fn recommend_profile(report: &ProfileReport) -> ProfileRecommendation {
    let figures = Figures::of(report);
    let (student, teacher) = profile_names(report);
    let level = report.settings.level.get();
    let threshold = report.settings.break_even;
    let weight = |s: &str| report.suite.weight(s);
    let mut shortfalls: Vec<Shortfall> = Vec::new();
    let corruptions = figures.measured_headlines();
    for (name, rate) in corruptions {
        if let Some(e) = rate.estimate.filter(|e| *e < threshold) {
            shortfalls.push(Shortfall {
                stage: StageRef {
                    name: name.to_owned(),
                    invariance: false,
                    weight: weight(name),
                },
                student: *rate,
                teacher: None,
                size: threshold - e,
            });
        }
    }
    for inv in figures.invariances() {
        if inv.changed_nothing() || Direction::of(inv.test, level) != Direction::FirstHigher {
            continue;
        }
        shortfalls.push(Shortfall {
            stage: StageRef {
                name: inv.name.to_owned(),
                invariance: true,
                weight: weight(inv.name),
            },
            student: *inv.student,
            teacher: Some((*inv.teacher, test_p(inv.test))),
            size: inv.test.difference.estimate.unwrap_or(0.0),
        });
    }
    shortfalls.sort_by(|a, b| (b.size * b.stage.weight).total_cmp(&(a.size * a.stage.weight)));
    let clean = *figures.clean();
    let clean_ok = clean.estimate.is_some_and(|e| e >= threshold);
    let abstention = figures
        .abstention()
        .and_then(|a| a.student.as_ref())
        .map(|s| (s.coverage, s.selective_agreement));
    let measure = match report.task() {
        profile_stats::Task::Classify => "agrees with it on",
        profile_stats::Task::Extract => "reaches an F1 of",
    };
    let (st, te) = (student.as_str(), teacher.as_str());
    let s = Sentence::default();
    let mut sentence = if !clean_ok {
        s.text("Keep ").name(te).text(": ").name(st).text(format!(
            " {measure} {} of the clean texts, below the {} threshold.",
            percent(clean.estimate),
            percent(Some(threshold))
        ))
    } else {
        let head = s.name(st).text(" in place of ").name(te);
        match shortfalls.first() {
            Some(f) => {
                let why = if let Some((t, p)) = &f.teacher {
                    Sentence::default().text(" (").name(st).text(format!(
                        " changes its answer on {} of the texts, ",
                        percent(f.student.estimate)
                    ))
                    .name(te)
                    .text(format!(" on {}; {p}).", percent(t.estimate)))
                } else {
                    Sentence::default().text(" (").name(st).text(format!(
                        " {measure} {} there, below the {} threshold).",
                        percent(f.student.estimate),
                        percent(Some(threshold))
                    ))
                };
                head.text(", unless ")
                    .name(&f.stage.name)
                    .text(" matters: then ")
                    .name(te)
                    .append(why)
            }
            None => head.text(format!(
                ": at or above the {} threshold at every stage and never significantly less invariant.",
                percent(Some(threshold))
            )),
        }
    };
    // Not fit to answer everything, but fit as the front of a cascade.
    if let Some((coverage, selective)) = abstention
        && !clean_ok
        && selective.estimate.is_some_and(|s| s >= threshold)
    {
        sentence = sentence
            .text(" As a cascade front escalating to ")
            .name(te)
            .text(" what it does not answer, ")
            .name(st)
            .text(format!(
                " will do: it answers {} of the clean texts and agrees on {} of those.",
                percent(coverage.estimate),
                percent(selective.estimate)
            ));
    }
    ProfileRecommendation {
        student,
        teacher,
        clean_ok,
        clean,
        threshold,
        shortfalls,
        worst: worst_stage(&figures),
        abstention,
        sentence,
    }
}
