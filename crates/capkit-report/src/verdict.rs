//! The verdict a page opens with: the answer to the reader's question, in one screen, before
//! any table. For a profile: where the student breaks (the first stage below the break-even
//! threshold, its worst invariance, its biggest gap to the teacher). For a comparison: the
//! students ranked at every stage, the leader against the runner-up with its difference,
//! interval and Holm-adjusted p, and one line per pair of students.
//!
//! Every user-given name (stage, alias) is bidi-isolated (`<bdi>`): an Arabic corruption name
//! inside an English sentence must not reorder the sentence around it.

use maud::{Markup, html};
use profile_stats::{Comparison, Interval, PairTests, PairedTest, ProfileReport, Task};

use crate::figures::Figures;
use crate::format::{Direction, invariance_verdict, percent, points_with_interval, test_p};

/// One stage's headline rate: agreement with the teacher (classifiers; against the reference
/// the stage declares) or the student's micro F1 against the gold (extractors); `clean` first,
/// then the corruptions in suite order. A corruption that changed no text measures nothing
/// and is left out (as its test is left out of the Holm family).
fn stage_rates(figures: &Figures) -> Vec<(&str, Option<f64>, &Interval)> {
    let mut out: Vec<(&str, Option<f64>, &Interval)> = vec![("clean", Some(0.0), figures.clean())];
    match figures {
        Figures::Classify(a) => out.extend(
            a.corruptions
                .iter()
                .filter(|(_, c)| !c.changed_nothing())
                .map(|(k, c)| (k.as_str(), c.severity, c.headline().0)),
        ),
        Figures::Extract(a) => out.extend(
            a.corruptions
                .iter()
                .map(|(k, c)| (k.as_str(), c.severity, &c.student_f1)),
        ),
    }
    out
}

fn rate(i: &Interval) -> Markup {
    html! { (percent(i.estimate)) " " span.small { (crate::format::limits(i)) } }
}

/// The verdict of one profile.
pub(crate) fn profile(report: &ProfileReport, figures: &Figures) -> Markup {
    let level = report.settings.level.get();
    let threshold = report.settings.break_even;
    let mut stages = stage_rates(figures);
    // In order of severity (the clean texts first; stages without a severity last, in suite
    // order): the first below the threshold is where the student breaks.
    stages.sort_by(|a, b| {
        a.1.unwrap_or(f64::INFINITY)
            .total_cmp(&b.1.unwrap_or(f64::INFINITY))
    });
    let below = stages
        .iter()
        .find(|(_, _, i)| i.estimate.is_some_and(|e| e < threshold));
    let lowest = stages.iter().min_by(|a, b| {
        a.2.estimate
            .unwrap_or(f64::INFINITY)
            .total_cmp(&b.2.estimate.unwrap_or(f64::INFINITY))
    });
    let invariances: Vec<_> = figures
        .invariances()
        .into_iter()
        .filter(|i| !i.changed_nothing())
        .collect();
    let worst = invariances.iter().max_by(|a, b| {
        a.student
            .estimate
            .unwrap_or(0.0)
            .total_cmp(&b.student.estimate.unwrap_or(0.0))
    });
    let measure = match report.task() {
        Task::Classify => "agreement with the teacher",
        Task::Extract => "F1 against the gold",
    };
    // Which teacher answer a corruption's agreement is against, said where it is named.
    let against = |stage: &str| match figures {
        Figures::Classify(a) => a
            .corruptions
            .get(stage)
            // An older report knows one reference only: its page says nothing new.
            .filter(|c| c.whose.is_some())
            .map(|c| crate::whose::reference_words(c.reference)),
        Figures::Extract(_) => None,
    };
    let no_ops = figures.no_op_stages();
    let gap = match figures {
        Figures::Extract(a) => a
            .corruptions
            .iter()
            .filter_map(|(k, c)| {
                Some((
                    k.as_str(),
                    c.teacher_f1.estimate? - c.student_f1.estimate?,
                    &c.student_f1,
                    &c.teacher_f1,
                ))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(k, _, s, t)| {
                html! { bdi { (k) } ": student F1 " (rate(s)) ", teacher " (rate(t)) }
            }),
        Figures::Classify(a) => lowest.map(|(k, _, i)| {
            let against = a
                .corruptions
                .get(*k)
                .filter(|c| c.whose.is_some())
                .map(|c| crate::whose::reference_words(c.reference));
            html! {
                bdi { (k) } ": the student agrees with the teacher on " (rate(i)) " of texts"
                @if let Some(w) = against { ", " (w) }
            }
        }),
    };
    html! {
        section.verdict-first {
            h3 { "Verdict" }
            ul.verdicts {
                li {
                    strong { "Breaks: " }
                    @match below {
                        Some(("clean", _, i)) => {
                            "already below the " (percent(Some(threshold))) " threshold on the clean texts ("
                            (measure) " " (rate(i)) ")"
                        }
                        Some((k, s, i)) => {
                            "first below the " (percent(Some(threshold))) " threshold at " bdi { (k) }
                            @if let Some(s) = s { " (severity " (crate::format::number(*s)) ")" }
                            ": " (measure) " " (rate(i))
                            @if let Some(w) = against(k) { ", " (w) }
                        }
                        None => {
                            "never below the " (percent(Some(threshold))) " threshold"
                            @if let Some((k, _, i)) = lowest { " (lowest: " bdi { (k) } ", " (rate(i)) ")" }
                        }
                    }
                }
                @if let Some(w) = worst {
                    li {
                        strong { "Worst invariance: " }
                        bdi { (w.name) } ": the student changes on " (rate(w.student))
                        " of texts, the teacher on " (percent(w.teacher.estimate)) "; "
                        span.verdict { (invariance_verdict(w.test, level, "student", "teacher")) }
                    }
                }
                @if let Some(gap) = gap {
                    li { strong { "Biggest gap to the teacher: " } (gap) }
                }
                @if !no_ops.is_empty() {
                    li { (crate::whose::no_op_note(&no_ops, report.n())) }
                }
            }
        }
    }
}

/// A student's alias and figures, for the comparison's verdict.
pub(crate) struct Student<'a> {
    pub alias: &'a str,
    pub name: &'a str,
    pub figures: &'a Figures,
}

/// One stage of the comparison: its name, whether higher is better, and each student's rate.
struct Stage<'a> {
    name: &'a str,
    higher_is_better: bool,
    rates: Vec<(usize, &'a Interval)>,
}

fn stages<'a>(students: &'a [Student<'a>]) -> Vec<Stage<'a>> {
    let Some(first) = students.first() else {
        return Vec::new();
    };
    let mut out: Vec<Stage<'a>> = stage_rates(first.figures)
        .iter()
        .enumerate()
        .map(|(k, (name, _, _))| Stage {
            name,
            higher_is_better: true,
            rates: students
                .iter()
                .enumerate()
                .filter_map(|(s, st)| stage_rates(st.figures).get(k).map(|r| (s, r.2)))
                .collect(),
        })
        .collect();
    for (k, inv) in first.figures.invariances().iter().enumerate() {
        // A rewrite that changed no text ranks nobody.
        if inv.changed_nothing() {
            continue;
        }
        out.push(Stage {
            name: inv.name,
            higher_is_better: false,
            rates: students
                .iter()
                .enumerate()
                .filter_map(|(s, st)| st.figures.invariances().get(k).map(|r| (s, r.student)))
                .collect(),
        });
    }
    out
}

/// The pair test between students `a` and `b` at `stage` (first minus second as stored; the
/// sign says whether it had to be flipped to read `a` minus `b`).
fn pair_test<'a>(
    c: &Comparison,
    tests: &'a [PairTests],
    names: (&str, &str),
    stage: &str,
    invariance: bool,
) -> Option<(&'a PairedTest, bool)> {
    c.pairs.iter().zip(tests).find_map(|(p, t)| {
        let flipped = if (p.first.as_str(), p.second.as_str()) == names {
            false
        } else if (p.second.as_str(), p.first.as_str()) == names {
            true
        } else {
            return None;
        };
        let test = if invariance {
            t.invariances.get(stage)
        } else if stage == "clean" {
            Some(&t.clean)
        } else {
            t.corruptions.get(stage)
        }?;
        Some((test, flipped))
    })
}

/// The difference `a − b` of a test stored the other way round.
fn oriented(test: &PairedTest, flipped: bool) -> Interval {
    oriented_interval(test.difference, flipped)
}

/// `d`, or `−d` when `flipped`.
fn oriented_interval(d: Interval, flipped: bool) -> Interval {
    if flipped {
        Interval {
            estimate: d.estimate.map(|e| -e),
            lower: -d.upper,
            upper: -d.lower,
            ..d
        }
    } else {
        d
    }
}

/// A stage's students, best first.
fn ranked<'a>(s: &Stage<'a>) -> Vec<(usize, &'a Interval)> {
    let mut r = s.rates.clone();
    r.sort_by(|a, b| {
        let (x, y) = (
            a.1.estimate.unwrap_or(f64::NAN),
            b.1.estimate.unwrap_or(f64::NAN),
        );
        if s.higher_is_better {
            y.total_cmp(&x)
        } else {
            x.total_cmp(&y)
        }
    });
    r
}

/// Each student's mean place over `stages`, each stage counted by `weight` (the suite's
/// declared weight, 1 when none): (student, mean place), best (lowest) first. Students tied at
/// a stage share the better place; a student without a rate at a stage is not placed there.
fn weighted_places(stages: &[Stage<'_>], weight: impl Fn(&str) -> f64) -> Vec<(usize, f64)> {
    let mut sums: Vec<(usize, f64, f64)> = Vec::new();
    for s in stages {
        let w = weight(s.name);
        for (who, i) in &s.rates {
            let Some(e) = i.estimate else { continue };
            let better = s
                .rates
                .iter()
                .filter(|(_, j)| {
                    j.estimate
                        .is_some_and(|f| if s.higher_is_better { f > e } else { f < e })
                })
                .count();
            let place = (better + 1) as f64;
            match sums.iter_mut().find(|(k, _, _)| k == who) {
                Some(slot) => {
                    slot.1 += w * place;
                    slot.2 += w;
                }
                None => sums.push((*who, w * place, w)),
            }
        }
    }
    let mut out: Vec<(usize, f64)> = sums
        .into_iter()
        .filter(|(_, _, w)| *w > 0.0)
        .map(|(k, p, w)| (k, p / w))
        .collect();
    // Stable: equal mean places keep the students' order.
    out.sort_by(|a, b| a.1.total_cmp(&b.1));
    out
}

/// The verdict of a comparison.
pub(crate) fn comparison(
    c: &Comparison,
    tests: &[PairTests],
    students: &[Student<'_>],
    ids: &crate::parts::Ids,
) -> Markup {
    let level = c
        .students
        .values()
        .next()
        .map_or(0.95, |r| r.settings.level.get());
    let mut stages = stages(students);
    let suite = c.students.values().next().map(|r| &r.suite);
    // Declared weights rank the stages (heaviest first; suite order among equals) and weigh
    // the overall row; a suite without weights keeps its order and has no overall row.
    let weight = |stage: &str| suite.map_or(1.0, |s| s.weight(stage));
    let weighted = suite.is_some_and(|s| s.has_weights());
    if weighted {
        stages.sort_by(|a, b| weight(b.name).total_cmp(&weight(a.name)));
    }
    let overall = weighted.then(|| weighted_places(&stages, weight));
    // The students saw the same texts: a stage no student's texts changed is left out.
    let (no_op_corruptions, no_op_invariances) = c.stages_that_changed_nothing();
    let no_ops: Vec<&str> = no_op_corruptions
        .into_iter()
        .chain(no_op_invariances)
        .collect();
    let n = c.students.values().next().map_or(0, |r| r.n());
    html! {
        section.verdict-first id=(ids.section("ranking")) {
            h3 { "Verdict" }
            ul.verdicts {
                @for (i, a) in students.iter().enumerate() {
                    @for b in &students[i + 1..] {
                        li { (pair_line(c, tests, a, b, level)) }
                    }
                }
                @if !no_ops.is_empty() {
                    li { (crate::whose::no_op_note(&no_ops, n)) }
                }
            }
            (crate::parts::scroll(html! {
                table.ranking.narrow-cards {
                    caption {
                        "Students ranked at every stage (agreement or F1: higher first; invariances: fewest violations first), and the leader against the runner-up"
                        @if weighted {
                            "; stages heaviest first, and the first row orders the students by their mean place over the stages, each stage counted by its weight in the suite (1 where none is declared)"
                        }
                    }
                    thead { tr {
                        th scope="col" { "stage" } th scope="col" { "ranking" }
                        th.num scope="col" { "leader − runner-up" } th.num scope="col" { "Holm-adjusted p" }
                    } }
                    tbody {
                        @if let Some(places) = &overall {
                            tr.overall {
                                th scope="row" { "all stages, weighted" }
                                td { @for (k, (who, place)) in places.iter().enumerate() {
                                    @if k > 0 { " · " }
                                    b { (crate::parts::iso(students[*who].alias)) } " "
                                    "mean place " (format!("{place:.2}"))
                                } }
                                td.num { "—" } td.num.p { "—" }
                            }
                        }
                        @for s in &stages {
                            @let r = ranked(s);
                            tr {
                                th scope="row" {
                                    bdi { (s.name) }
                                    @if let Some(suite) = suite { (crate::parts::stage_meta(suite, s.name)) }
                                }
                                td { @for (k, (who, i)) in r.iter().enumerate() {
                                    @if k > 0 { " · " }
                                    b { (crate::parts::iso(students[*who].alias)) } " " (percent(i.estimate))
                                } }
                                @match (r.first(), r.get(1)) {
                                    (Some((a, _)), Some((b, _))) => {
                                        @let names = (students[*a].name, students[*b].name);
                                        @match pair_test(c, tests, names, s.name, !s.higher_is_better) {
                                            Some((t, flipped)) => {
                                                td.num { (points_with_interval(&oriented(t, flipped))) }
                                                td.num.p { (crate::format::p_value(t.p)) }
                                            }
                                            None => { td.num { "n/a" } td.num.p { "n/a" } }
                                        }
                                    }
                                    _ => { td.num { "n/a" } td.num.p { "n/a" } }
                                }
                            }
                        }
                    }
                }
            }))
        }
    }
}

/// One line per pair: where one is significantly better, or that neither is anywhere.
fn pair_line(
    c: &Comparison,
    tests: &[PairTests],
    a: &Student<'_>,
    b: &Student<'_>,
    level: f64,
) -> Markup {
    let names = (a.name, b.name);
    let first = stages_of(a.figures);
    let mut better: [Vec<(String, Interval)>; 2] = [Vec::new(), Vec::new()];
    let mut smallest: Option<&PairedTest> = None;
    for (stage, invariance) in first {
        let Some((t, flipped)) = pair_test(c, tests, names, stage, invariance) else {
            continue;
        };
        if smallest.is_none_or(|s| t.p < s.p) {
            smallest = Some(t);
        }
        let d = oriented(t, flipped);
        let a_higher = match Direction::of(t, level) {
            Direction::FirstHigher => !flipped,
            Direction::SecondHigher => flipped,
            Direction::NoDifference => continue,
        };
        // Higher agreement is better; a higher violation rate is worse.
        let a_better = a_higher != invariance;
        // Each stage is listed by the better student's advantage, positive: more agreement,
        // or fewer violations under an invariance.
        let advantage = if a_better != invariance {
            d
        } else {
            oriented_interval(d, true)
        };
        better[usize::from(!a_better)].push((stage.to_owned(), advantage));
    }
    let item = |(stage, d): &(String, Interval)| {
        html! { bdi { (stage) } " (" (points_with_interval(d)) ")" }
    };
    // One line per pair whatever the suite: up to three stages are listed; more are counted,
    // with the largest and smallest difference (the pairwise table has every stage).
    let list = |v: &[(String, Interval)]| {
        let size = |(_, d): &&(String, Interval)| d.estimate.map_or(0.0, f64::abs);
        let largest = v.iter().max_by(|x, y| size(x).total_cmp(&size(y)));
        let smallest = v.iter().min_by(|x, y| size(x).total_cmp(&size(y)));
        html! {
            @if v.len() <= 3 {
                @for (k, s) in v.iter().enumerate() {
                    @if k > 0 { ", " }
                    (item(s))
                }
            } @else if let (Some(l), Some(s)) = (largest, smallest) {
                (v.len()) " stages, most at " (item(l)) ", least at " (item(s))
            }
        }
    };
    html! {
        strong { bdi { (a.alias) } " vs " bdi { (b.alias) } ": " }
        @if better[0].is_empty() && better[1].is_empty() {
            "no significant difference at any stage"
            @if let Some(t) = smallest { " (smallest " (test_p(t)) ")" }
        } @else {
            @for (k, (who, v)) in [(a, &better[0]), (b, &better[1])].into_iter().enumerate() {
                @if !v.is_empty() {
                    @if k == 1 && !better[0].is_empty() { "; " }
                    bdi { (who.alias) } " significantly better at " (list(v))
                }
            }
            " (the better student's advantage in points, Holm-adjusted over the comparison)"
        }
    }
}

/// Every stage of a student's figures: (name, is an invariance).
fn stages_of(figures: &Figures) -> Vec<(&str, bool)> {
    let mut out: Vec<(&str, bool)> = stage_rates(figures)
        .into_iter()
        .map(|(k, _, _)| (k, false))
        .collect();
    out.extend(
        figures
            .invariances()
            .iter()
            .filter(|i| !i.changed_nothing())
            .map(|i| (i.name, true)),
    );
    out
}

/// A recommendation's sentence, each name bidi-isolated.
fn sentence(s: &crate::recommend::Sentence) -> Markup {
    use crate::recommend::Piece;
    html! {
        @for p in &s.0 {
            @match p {
                Piece::Text(t) => (t),
                Piece::Name(n) => bdi { (n) },
            }
        }
    }
}

/// The block a comparison page opens with: the sentence to paste, the rule, and the students
/// in order with their worst stage, biggest loss against the leader and abstention; each claim
/// links to its evidence below.
pub(crate) fn comparison_recommendation(
    rec: &crate::recommend::Recommendation,
    c: &Comparison,
    ids: &crate::parts::Ids,
) -> Markup {
    let name = |k: usize| rec.names.get(k).map_or("?", |n| n.shown.as_str());
    let leader = rec.standings.first().map(|s| s.student);
    let aliases: Vec<String> = c.aliases().into_keys().collect();
    let measure = if c.task() == Some(Task::Extract) {
        "clean F1"
    } else {
        "clean agreement"
    };
    let any_abstention = rec.standings.iter().any(|s| s.abstention.is_some());
    let stage_link = |stage: &crate::recommend::StageRef| {
        if stage.invariance {
            format!("#{}", ids.section("invariances"))
        } else {
            format!("#{}", ids.section("stages"))
        }
    };
    html! {
        section.verdict-first.recommendation id=(ids.section("recommendation")) {
            h3 { "Recommendation" }
            p.paste { strong { (sentence(&rec.sentence)) } }
            p.note { (crate::recommend::COMPARISON_RULE_SHORT) " "
                a href=(format!("#{}", ids.section("ranking"))) { "Every stage ranked" } ", "
                a href=(format!("#{}", ids.section("pairs"))) { "every pair tested" } "." }
            details.rule { summary { "The rule in full" } p.note { (crate::recommend::COMPARISON_RULE) } }
            (crate::parts::scroll(html! {
                table.standings.narrow-cards {
                    caption { "The students in order" @if rec.weighted { " (stages counted by their weight)" } }
                    thead { tr {
                        th scope="col" { "place" } th scope="col" { "student" }
                        th.num scope="col" { "wins − losses" }
                        th.num scope="col" { (measure) }
                        @if any_abstention { th.num scope="col" { "coverage · selective" } }
                        th scope="col" { "worst stage" }
                        th scope="col" { "biggest loss" }
                    } }
                    tbody {
                        @for s in &rec.standings {
                            tr {
                                td data-label="place" { (s.place) @if rec.standings.iter().filter(|o| o.place == s.place).count() > 1 { " (tie)" } }
                                th scope="row" { (crate::parts::iso(name(s.student))) }
                                td.num data-label="wins − losses" { (crate::format::number(s.wins)) " − " (crate::format::number(s.losses)) }
                                td.num data-label=(measure) { (rate(&s.clean)) }
                                @if any_abstention {
                                    td.num data-label="coverage · selective" {
                                        @match s.abstention {
                                            Some((cov, sel)) => a href=(format!("#{}", ids.section("abstention"))) { (percent(cov.estimate)) " · " (percent(sel.estimate)) },
                                            None => "answers every text",
                                        }
                                    }
                                }
                                td data-label="worst stage" { @if let Some(w) = &s.worst {
                                    a href=(format!("#{}", ids.section("stages"))) { bdi { (w.stage) } } " " (rate(&w.rate))
                                } }
                                td data-label="biggest loss" { @match &s.biggest_loss {
                                    Some(l) => {
                                        a href=(stage_link(&l.stage)) { bdi { (l.stage.name) } } ": "
                                        bdi { (name(l.winner)) } " "
                                        a href=(format!("#{}", ids.section(&format!("pair-{}", l.pair + 1)))) { (points_with_interval(&l.advantage)) " better, " (crate::format::p_value(l.p)) }
                                    }
                                    None => @if Some(s.student) == leader { "none: no student is significantly better anywhere" } @else { "none against the leader" },
                                } }
                            }
                        }
                    }
                }
            }))
            @if let Some(k) = rec.cascade {
                p { strong { "Best as a cascade front: " } bdi { (name(k)) }
                    " has the highest selective agreement (on the clean texts it answers), above the leader's agreement on every text; "
                    a href=(format!("#{}", ids.section("abstention"))) { "see abstention" }
                    ". Escalation is counted on the clean texts only: under corruptions this report has no abstention counts." }
            }
            @if rec.names.iter().zip(&aliases).any(|(n, a)| n.shown != *a || n.letter) {
                p.note.key { "Names: "
                    @for (k, (n, a)) in rec.names.iter().zip(&aliases).enumerate() {
                        @if k > 0 { "; " }
                        bdi { (n.shown) }
                        @if n.shown != *a { " = " bdi { (a) } }
                        @if n.letter { " (" span.spec { (crate::svg::truncate_middle(c.students.get_index(k).map_or("", |s| s.0.as_str()), 48)) } ")" }
                    }
                    " (the letters name the students in gates; "
                    a href=(format!("#{}", ids.section("provenance"))) { "full specs" } ")." }
            }
        }
    }
}

/// The block a profile page opens with: the student against its teacher.
pub(crate) fn profile_recommendation(
    rec: &crate::recommend::ProfileRecommendation,
    ids: &crate::parts::Ids,
) -> Markup {
    let link = |s: &str| format!("#{}", ids.section(s));
    html! {
        section.verdict-first.recommendation id=(ids.section("recommendation")) {
            h3 { "Recommendation" }
            p.paste { strong { (sentence(&rec.sentence)) } }
            p.note { (crate::recommend::PROFILE_RULE_SHORT) }
            details.rule { summary { "The rule in full" } p.note { (crate::recommend::PROFILE_RULE) } }
            ul.verdicts {
                li { strong { "Clean texts: " } bdi { (rec.student) } " " (rate(&rec.clean))
                    " (threshold " (percent(Some(rec.threshold))) "; "
                    a href=(link("cards")) { "figures" } ")" }
                @if let Some(w) = &rec.worst {
                    li { strong { "Worst stage: " } a href=(link(if w.stage == "clean" { "cards" } else { "corruptions" })) { bdi { (w.stage) } } " " (rate(&w.rate)) }
                }
                @if let Some(f) = rec.shortfalls.first() {
                    li { strong { "Biggest loss against " bdi { (rec.teacher) } ": " }
                        a href=(link(if f.stage.invariance { "invariances" } else { "corruptions" })) { bdi { (f.stage.name) } }
                        @match &f.teacher {
                            Some((t, p)) => { ": violations " (rate(&f.student)) " against " (percent(t.estimate)) ", " (p) },
                            None => { ": " (rate(&f.student)) ", below the threshold" },
                        }
                        @if rec.shortfalls.len() > 1 { " (" (rec.shortfalls.len() - 1) " more shortfall" @if rec.shortfalls.len() > 2 { "s" } ")" }
                    }
                }
                @if let Some((cov, sel)) = &rec.abstention {
                    li { strong { "When it answers: " } bdi { (rec.student) } " answers " (percent(cov.estimate))
                        " of the clean texts and agrees on " (rate(sel)) " of those, against " (percent(rec.clean.estimate))
                        " on every text (" a href=(link("abstention")) { "abstention" }
                        "; escalation is counted on the clean texts only)" }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use profile_stats::Method;

    fn at(e: f64) -> Interval {
        Interval {
            estimate: Some(e),
            lower: e,
            upper: e,
            level: 0.95,
            method: Method::Wilson,
        }
    }

    /// Issue 36: the overall row weighs each stage's places by its weight.
    #[test]
    fn places_are_weighted_by_stage() {
        let (hi, lo, mid) = (at(0.9), at(0.5), at(0.7));
        let stages = [
            // Student 0 leads at `typo`, student 1 at `case` (fewer violations), and they
            // tie at `nfd`.
            Stage {
                name: "typo",
                higher_is_better: true,
                rates: vec![(0, &hi), (1, &lo)],
            },
            Stage {
                name: "case",
                higher_is_better: false,
                rates: vec![(0, &hi), (1, &lo)],
            },
            Stage {
                name: "nfd",
                higher_is_better: true,
                rates: vec![(0, &mid), (1, &mid)],
            },
        ];
        let even = weighted_places(&stages, |_| 1.0);
        assert_eq!(even, [(0, 4.0 / 3.0), (1, 4.0 / 3.0)]);
        let typos = weighted_places(&stages, |s| if s == "typo" { 3.0 } else { 1.0 });
        // 0: (3·1 + 2 + 1) / 5 = 1.2; 1: (3·2 + 1 + 1) / 5 = 1.6.
        assert_eq!(typos, [(0, 1.2), (1, 1.6)]);
        let cases = weighted_places(&stages, |s| if s == "case" { 3.0 } else { 1.0 });
        assert_eq!(cases, [(1, 1.2), (0, 1.6)]);
    }
}
