//! The comparison article: several students against one teacher, their curves on one chart,
//! their invariances side by side, and every pair of students tested stage by stage.

use maud::{Markup, html};
use profile_stats::{Comparison, Interval, PairTests, PairedTest, ProfileReport, Task};

use crate::document::ComparisonDocument;
use crate::figures::{CURVE_SEVERITIES, Figures, interval_row};
use crate::format::{
    invariance_verdict, p_value, percent, points_with_interval, rate_with_interval,
};
use crate::parts::{Ids, Source, run_rows, scroll, source_rows, stage_meta};
use crate::profile::{
    CurveSeries, DotSeries, comparison_abstention, curve_figure, dot_plot, heat_cell, methods,
    metric, point_intervals, probes_section, settings_rows, suite_rows, with_clean,
};
use crate::svg::{IntervalChart, IntervalGroup, legend};
use crate::whose::{changed_cell, examples_section, no_op_note, reference_words};

/// Style of student `k` (the teacher keeps style 1, grey dashed squares).
fn student_style(k: usize) -> usize {
    if k == 0 { 0 } else { k + 1 }
}

/// The article for one comparison.
pub(crate) fn article(doc: &ComparisonDocument, source: &Source, ids: &Ids) -> Markup {
    let c = &doc.comparison;
    // Short names everywhere on the page (given aliases, what tells the specs apart, or the
    // letters A, B, C… keyed to their specs in the recommendation); the full specs once, in
    // the provenance.
    let recommendation = crate::recommend::recommend_comparison(c);
    let aliases: Vec<String> = recommendation
        .names
        .iter()
        .map(|n| n.shown.clone())
        .collect();
    let letters: Vec<String> = c.aliases().into_keys().collect();
    let students: Vec<(&String, &ProfileReport, Figures)> = c
        .students
        .values()
        .zip(&aliases)
        .map(|(r, alias)| (alias, r, Figures::of(r)))
        .collect();
    let Some((_, first, _)) = students.first() else {
        return html! { h2 { "Student comparison" } p { "This comparison has no students." } };
    };
    let level = first.settings.level.get();
    let tests = c.pair_tests();
    let verdict_students: Vec<crate::verdict::Student<'_>> = students
        .iter()
        .zip(c.students.keys())
        .map(|((alias, _, f), name)| crate::verdict::Student {
            alias: alias.as_str(),
            name: name.as_str(),
            figures: f,
        })
        .collect();
    html! {
        h2 { "Student comparison: " @for (k, a) in aliases.iter().enumerate() { @if k > 0 { ", " } (crate::parts::iso(a)) } " against " bdi { (crate::recommend::teacher_name(c)) } " " span.h-source { "(" (source.name) ")" } }
        (crate::verdict::comparison_recommendation(&recommendation, c, ids))
        // The best overview, students × stages, on the first or second screen.
        (stage_table(&students, first, ids))
        (crate::verdict::comparison(c, &tests, &verdict_students, ids))
        div.cards {
            @for (name, _, f) in &students {
                div.card {
                    bdi.spec { (name) }
                    span.big { (percent(f.clean().estimate)) }
                    span.small { "clean " (if first.task() == Task::Classify { "agreement" } else { "F1" }) " " (crate::format::limits(f.clean())) }
                }
            }
        }
        (curves(&students, first, ids))
        (crate::whose::comparison_whose(
            &students
                .iter()
                .filter_map(|(alias, _, f)| match f {
                    Figures::Classify(a) => Some((alias.as_str(), a)),
                    Figures::Extract(_) => None,
                })
                .collect::<Vec<_>>(),
            first.n(),
            ids,
        ))
        (invariances(&students, level, ids))
        (pairs(c, &tests, &aliases, level, ids))
        (comparison_abstention(&students.iter().filter_map(|(name, r, f)| f.abstention().map(|a| (name.as_str(), *r, a))).collect::<Vec<_>>(), ids))
        (probes(&students))
        (student_examples(&students))
        (methods(level, students.iter().any(|(_, r, _)| crate::profile::sampled(r))))
        section.provenance id=(ids.section("provenance")) {
            h3 { "Provenance" }
            dl.meta {
                (source_rows(source))
                dt { "Teacher" } dd { span.spec { (c.teacher.as_deref().unwrap_or("unnamed")) } }
                dt { "Students" } dd { dl {
                    @for ((alias, letter), name) in aliases.iter().zip(&letters).zip(c.students.keys()) {
                        dt { bdi { (alias) } @if alias != letter { " (" bdi { (letter) } " in gates)" } } dd { span.spec { (name) } }
                    }
                } }
                dt { "Task" } dd { @match first.task() { Task::Classify => "classify", Task::Extract => "extract" } }
                (suite_rows(first))
                (run_rows(&doc.runs))
                dt { "Texts profiled" } dd { (first.n()) }
                (settings_rows(first))
            }
        }
    }
}

fn curves(
    students: &[(&String, &ProfileReport, Figures)],
    first: &ProfileReport,
    ids: &Ids,
) -> Markup {
    // The first student's families: every student of a comparison has the same suite.
    let families: Vec<&str> = students
        .first()
        .map(|(_, _, f)| f.drawn_curves().into_iter().map(|(k, _)| k).collect())
        .unwrap_or_default();
    let dots: Vec<DotSeries<'_>> = students
        .iter()
        .enumerate()
        .map(|(k, (name, _, f))| DotSeries {
            name: name.as_str(),
            style: student_style(k),
            stages: f.dot_stages(),
        })
        .collect();
    let any_dots = dots.iter().any(|d| !d.stages.is_empty());
    let dots: Vec<DotSeries<'_>> = dots
        .into_iter()
        .zip(students)
        .map(|(d, (_, _, f))| DotSeries {
            stages: with_clean(f, &d.stages),
            ..d
        })
        .collect();
    html! {
        section.curves {
            h3 { "Severity curves" }
            @if families.is_empty() {
                p { "No family of this suite's corruptions has " (CURVE_SEVERITIES)
                    " severities or more, so there is no curve." }
            } @else {
                div.stack {
                    @for family in &families {
                        @let series: Vec<CurveSeries<'_>> = students.iter().enumerate().filter_map(|(k, (name, r, f))| {
                            f.curves().get(*family).map(|curve| CurveSeries {
                                name: (*name).clone(),
                                style: student_style(k),
                                curve,
                                intervals: point_intervals(r, f, curve),
                            })
                        }).collect();
                        div { (curve_figure(ids, family, metric(first), &series, first.settings.break_even, first.settings.level.get())) }
                    }
                }
            }
            @if any_dots {
                (dot_plot(ids, metric(first), &dots, first.settings.level.get()))
            }
        }
    }
}

/// Per student, the headline rate at every stage: a heat map of students × stages.
fn stage_table(
    students: &[(&String, &ProfileReport, Figures)],
    first: &ProfileReport,
    ids: &Ids,
) -> Markup {
    let corruptions: Vec<&str> = first
        .suite
        .corruptions
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let what = match first.task() {
        Task::Classify => "Agreement with the teacher",
        Task::Extract => "Student F1 against the gold",
    };
    // Each stage's headline: against the reference its suite entry declares.
    let value = |f: &Figures, c: &str| match f {
        Figures::Classify(a) => a.corruptions.get(c).and_then(|x| x.headline().0.estimate),
        Figures::Extract(a) => a.corruptions.get(c).and_then(|x| x.student_f1.estimate),
    };
    let stages: Vec<&str> = std::iter::once("clean")
        .chain(corruptions.iter().copied())
        .collect();
    let cell = |f: &Figures, stage: &str| {
        if stage == "clean" {
            heat_cell(f.clean().estimate)
        } else {
            heat_cell(value(f, stage))
        }
    };
    // The longer side runs down the page: a 50-corruption suite has a row per stage and a
    // column per student, so that no column is off-screen at 1280 px.
    let stages_down = stages.len() >= students.len();
    let n = first.n();
    let figures = students.first().map(|(_, _, f)| f);
    let changed = |stage: &str| figures.and_then(|f| f.corruption_changed(stage));
    let counted = corruptions.iter().any(|c| changed(c).is_some());
    // The stage's reference, said beside its name where it is not the default.
    let against = |stage: &str| {
        let r = first.suite.reference(stage);
        (!r.is_default()).then(|| reference_words(r))
    };
    html! {
        section.stages id=(ids.section("stages")) {
            h3 { "Every stage" }
            (scroll(html! {
                table.heat {
                    caption { (what) " per student and stage (darker is higher)" }
                    @if stages_down {
                        thead { tr {
                            th scope="col" { "stage" }
                            @if counted { th scope="col" { "texts changed" } }
                            @for (name, _, _) in students { th scope="col" { (crate::parts::iso(name)) } }
                        } }
                        tbody {
                            @for stage in &stages {
                                tr {
                                    th scope="row" { bdi { (stage) } (stage_meta(&first.suite, stage)) @if let Some(w) = against(stage) { br; span.note { (w) } } }
                                    @if counted { td { @if *stage != "clean" { (changed_cell(changed(stage), n)) } } }
                                    @for (_, _, f) in students { (cell(f, stage)) }
                                }
                            }
                        }
                    } @else {
                        thead { tr {
                            th scope="col" { "student" }
                            @for stage in &stages { th scope="col" {
                                bdi { (stage) }
                                (stage_meta(&first.suite, stage))
                                @if let Some(w) = against(stage) { br; span.note { (w) } }
                                @if changed(stage) == Some(0) { br; span.noop { "changed no text" } }
                            } }
                        } }
                        tbody {
                            @for (name, _, f) in students {
                                tr {
                                    th scope="row" { bdi { (name) } }
                                    @for stage in &stages { (cell(f, stage)) }
                                }
                            }
                        }
                    }
                }
            }))
        }
    }
}

fn invariances(students: &[(&String, &ProfileReport, Figures)], level: f64, ids: &Ids) -> Markup {
    let Some((_, first, first_figures)) = students.first() else {
        return html! {};
    };
    let names: Vec<&str> = first.suite.invariances.iter().map(String::as_str).collect();
    if names.is_empty() {
        return html! {};
    }
    let rates = |f: &Figures, inv: &str| -> Option<(Interval, Interval, PairedTest)> {
        f.invariances()
            .into_iter()
            .find(|r| r.name == inv)
            .map(|r| (*r.student, *r.teacher, *r.test))
    };
    let groups: Vec<IntervalGroup> = names
        .iter()
        .map(|inv| {
            let mut rows = Vec::new();
            if let Some((_, teacher, _)) = rates(first_figures, inv) {
                rows.push(interval_row("teacher", 1, &teacher));
            }
            for (k, (name, _, f)) in students.iter().enumerate() {
                if let Some((s, _, _)) = rates(f, inv) {
                    rows.push(interval_row(name, student_style(k), &s));
                }
            }
            IntervalGroup {
                heading: (*inv).to_owned(),
                rows,
            }
        })
        .collect();
    let chart = IntervalChart {
        id: ids.next(),
        title: "Violation rates of the teacher and every student".to_owned(),
        desc: format!(
            "For each invariance, the fraction of texts whose answer changed under the rewrite, the \
             teacher first, then each student, with {:.0} % intervals.",
            level * 100.0
        ),
        axis_label: "texts whose answer changed".to_owned(),
        groups,
    };
    html! {
        section.invariances id=(ids.section("invariances")) {
            h3 { "Invariances" }
            div.stack {
                figure {
                    (legend(std::iter::once((1, "teacher")).chain(students.iter().enumerate().map(|(k, (n, _, _))| (student_style(k), n.as_str())))))
                    (chart.render())
                }
                (scroll(html! {
                    table {
                        caption { "Violation rates; each student against the teacher" }
                        thead { tr {
                            th scope="col" { "invariance" } th scope="col" { "model" } th.num scope="col" { "violation rate" }
                            th.num scope="col" { "student − teacher" } th scope="col" { "verdict" }
                        } }
                        tbody {
                            @for inv in &names {
                                @let no_op = first_figures.changed_nothing(inv, true);
                                @if let Some((_, teacher, _)) = rates(first_figures, inv) {
                                    tr {
                                        th scope="row" { (inv) }
                                        td { "teacher" } td.num { (rate_with_interval(&teacher)) } td {}
                                        td { @match crate::profile::stage_changed(first_figures, inv, true) {
                                            Some(0) => (changed_cell(Some(0), first.n())),
                                            Some(k) => { "the rewrite changed " (k) " of " (first.n()) " texts" },
                                            None => {},
                                        } }
                                    }
                                }
                                @for (name, _, f) in students {
                                    @if let Some((s, _, test)) = rates(f, inv) {
                                        tr {
                                            th scope="row" { (inv) }
                                            td { span.spec { (name) } }
                                            td.num { (rate_with_interval(&s)) }
                                            td.num { (points_with_interval(&test.difference)) }
                                            td.verdict {
                                                @if no_op { span.noop { (crate::whose::MEASURES_NOTHING) } }
                                                @else { (invariance_verdict(&test, level, "student", "teacher")) }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }))
            }
        }
    }
}

/// Pairs with more stages than this fold the stages without a significant difference into
/// one row.
const FOLD_AFTER: usize = 12;

fn pairs(c: &Comparison, tests: &[PairTests], aliases: &[String], level: f64, ids: &Ids) -> Markup {
    let alias = |name: &str| {
        c.students
            .get_index_of(name)
            .and_then(|k| aliases.get(k))
            .map_or(name.to_owned(), Clone::clone)
    };
    let task = c.task();
    // A stage that changed no text is in no family (its p is not adjusted) and measures
    // nothing: it gets no row, and the note above the tables names it.
    let (no_op_corruptions, no_op_invariances) = c.stages_that_changed_nothing();
    let rows = |t: &PairTests| -> Vec<(String, &'static str, PairedTest)> {
        std::iter::once(("clean".to_owned(), "corruption", t.clean))
            .chain(
                t.corruptions
                    .iter()
                    .filter(|(k, _)| !no_op_corruptions.contains(k.as_str()))
                    .map(|(k, test)| (k.clone(), "corruption", *test)),
            )
            .chain(
                t.invariances
                    .iter()
                    .filter(|(k, _)| !no_op_invariances.contains(k.as_str()))
                    .map(|(k, test)| (k.clone(), "invariance", *test)),
            )
            .collect()
    };
    let no_ops: Vec<&str> = no_op_corruptions
        .iter()
        .chain(&no_op_invariances)
        .copied()
        .collect();
    let n = c.students.values().next().map_or(0, |r| r.n());
    html! {
        section.pairs id=(ids.section("pairs")) {
            h3 { "Students compared pairwise" }
            p.note { "Each pair of students is paired text by text: on clean and corrupted texts by "
                (if task == Some(Task::Extract) { "exact record match with the gold" } else { "agreement with the teacher" })
                ", under invariances by violations. Differences are first minus second, in percentage points; p-values are Holm-adjusted over every stage of every pair. "
                "The last column names the better student where the difference is significant ("
                (if task == Some(Task::Extract) { "more exact matches" } else { "more agreement" })
                "; under invariances, fewer violations) and is empty where it is not." }
            (no_op_note(&no_ops, n))
            @for (k, (p, t)) in c.pairs.iter().zip(tests).enumerate() {
                @let (first, second) = (alias(&p.first), alias(&p.second));
                h4 id=(ids.section(&format!("pair-{}", k + 1))) { (crate::parts::iso(&first)) " vs " (crate::parts::iso(&second)) }
                (scroll(html! {
                    // A 50-stage, five-student page has 530 of these rows: each is kept to its
                    // numbers (no class per cell, no sentence; the columns say what they are).
                    table.pairwise {
                        thead { tr {
                            th scope="col" { "stage" } th scope="col" { (crate::parts::iso(&first)) " − " (crate::parts::iso(&second)) }
                            th scope="col" { "Holm-adjusted p" } th scope="col" { "better" }
                        } }
                        @let all = rows(t);
                        // Past a dozen stages, the stages without a significant difference
                        // share one row (named, with the range of their differences and
                        // their smallest p); the rest keep a row each.
                        @let fold = all.len() > FOLD_AFTER;
                        @let quiet: Vec<&(String, &str, PairedTest)> = all.iter().filter(|r| fold && !r.2.significant).collect();
                        tbody {
                            @for (stage, kind, test) in all.iter().filter(|r| !fold || r.2.significant) {
                                tr {
                                    // A cell holding only the name is its own bidi paragraph.
                                    th scope="row" { (stage) }
                                    td { (crate::format::points_bare(&test.difference)) }
                                    td { (p_value(test.p)) }
                                    td { @if let Some(better) = better(test, level, *kind == "invariance", &first, &second) { (crate::parts::iso(better)) } }
                                }
                            }
                            @if !quiet.is_empty() {
                                @let lows = quiet.iter().filter_map(|r| r.2.difference.estimate).fold(f64::INFINITY, f64::min);
                                @let highs = quiet.iter().filter_map(|r| r.2.difference.estimate).fold(f64::NEG_INFINITY, f64::max);
                                @let smallest = quiet.iter().map(|r| r.2.p).fold(f64::INFINITY, f64::min);
                                tr.folded {
                                    th scope="row" { (quiet.len()) " other stages" }
                                    td colspan="3" {
                                        "no significant difference"
                                        @if lows <= highs { " (first − second from " (format!("{:+.1}", lows * 100.0)) " to " (format!("{:+.1}", highs * 100.0)) " pts, smallest " (p_value(smallest)) ")" }
                                        ": "
                                        @for (k, r) in quiet.iter().enumerate() {
                                            @if k > 0 { ", " }
                                            bdi { (r.0) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }))
            }
        }
    }
}

/// The better of a pair at one test, when the difference is significant: more agreement (or
/// exact matches), or fewer violations under an invariance.
fn better<'a>(
    test: &PairedTest,
    level: f64,
    invariance: bool,
    first: &'a str,
    second: &'a str,
) -> Option<&'a str> {
    let first_higher = match crate::format::Direction::of(test, level) {
        crate::format::Direction::FirstHigher => true,
        crate::format::Direction::SecondHigher => false,
        crate::format::Direction::NoDifference => return None,
    };
    Some(if first_higher != invariance {
        first
    } else {
        second
    })
}

fn probes(students: &[(&String, &ProfileReport, Figures)]) -> Markup {
    let Some(teacher) = students.iter().find_map(|(_, r, _)| r.probes.as_ref()) else {
        return html! {};
    };
    let mut columns: Vec<(&str, &Vec<profile_types::Label>)> = vec![("teacher", &teacher.teacher)];
    for (name, r, _) in students {
        if let Some(p) = &r.probes {
            columns.push((name.as_str(), &p.student));
        }
    }
    let texts = students
        .iter()
        .find_map(|(_, r, _)| r.suite.probe_texts.as_deref());
    probes_section(&columns, texts)
}

/// Each student's examples (its report's), under its alias; nothing when no report has any.
fn student_examples(students: &[(&String, &ProfileReport, Figures)]) -> Markup {
    if students.iter().all(|(_, r, _)| r.examples.is_none()) {
        return html! {};
    }
    html! {
        section.student-examples {
            h3 { "Examples" }
            p.note { "Per student, up to k texts per stage and kind of outcome (the smallest keys: chosen by content), as on each student's own profile page." }
            @for (alias, r, f) in students {
                @if let Some(e) = &r.examples {
                    (examples_section(e, r.n(), &|s, inv| crate::profile::stage_changed(f, s, inv), Some(alias.as_str())))
                }
            }
        }
    }
}
