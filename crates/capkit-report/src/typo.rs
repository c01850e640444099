//! The typo-score article: per task exact match, precision, recall and F1, rules (`nothing`)
//! and tables (`language`, `keyboard`) in separate sections, never one number across them.

use maud::{Markup, html};
use profile_types::{NeedsGroup, TypoScoreReport};

use profile_stats::{Level, bounded_mean_interval};

use crate::format::score;
use crate::parts::{Ids, Source, scroll, source_rows};
use crate::svg::{BarChart, BarRow};

/// The article for one typo score report.
pub(crate) fn article(report: &TypoScoreReport, source: &Source, ids: &Ids) -> Markup {
    let tasks: usize = report.groups.iter().map(|g| g.tasks.len()).sum();
    html! {
        h2 { "Typo-task scores" }
        (verdict(report))
        dl.meta {
            (source_rows(source))
            @if let Some(f) = &report.corpus { dt { "Corpus" } dd { span.spec { (f.path) } " (" (f.bytes) " bytes)" } }
            @if let Some(f) = &report.predictions { dt { "Predictions" } dd { span.spec { (f.path) } " (" (f.bytes) " bytes)" } }
            dt { "Examples scored" }
            dd { (report.scored) " with a prediction, " (report.unpredicted) " without (scored as empty answers)" }
            dt { "Tasks" }
            dd { (tasks) " in " (report.groups.len()) " group" @if report.groups.len() != 1 { "s" } }
        }
        p.note {
            "A rule task is learnable from examples alone; a table task is reproducible only by "
            "memorising data (a language's tables or a keyboard layout). Each kind has its own "
            "section below, and no number on this page averages across them. Scores are "
            "macro-averaged over each task's examples, as " code { "capkit typo score" } " prints them."
        }
        p.note {
            "Each score carries a 95 % interval in brackets: Wilson's for exact match, and for the "
            "mean precision, recall and F1 Wilson's formula at the mean, which is conservative for "
            "scores in [0, 1] (their variance is at most mean × (1 − mean)); at n = 2 to 5 they are "
            "wide, as they should be. An empty answer (or a missing prediction) has precision 1 by "
            "upstream's rule, kept so the scores match upstream's: it claims nothing false, but it "
            "finds nothing either, so read precision beside recall, never alone. Where the scores "
            "say so (" code { "capkit typo score --json" } " does), a precision is followed by the "
            "number of empty answers and the precision of the rest (“N empty”, “rest P”): precision "
            "as what it is."
        }
        @if report.groups.is_empty() {
            p { "No task was scored." }
        }
        @for group in &report.groups {
            (group_section(group, report.answers.as_ref(), ids))
        }
    }
}

/// The answer first: per group (rules, each kind of table — never mixed), the best and the
/// worst task by F1, with their intervals.
fn verdict(report: &TypoScoreReport) -> Markup {
    let f1 = |t: &profile_types::TaskSummary| {
        let i = bounded_mean_interval(t.f1, t.n as u64, Level::DEFAULT);
        html! { code { (t.task) } " F1 " (score(t.f1)) " " span.small { (format!("[{:.2}, {:.2}]", i.lower, i.upper)) } }
    };
    html! {
        section.verdict-first {
            h3 { "Verdict" }
            ul.verdicts {
                @for group in &report.groups {
                    @let best = group.tasks.iter().max_by(|a, b| a.f1.total_cmp(&b.f1));
                    @let worst = group.tasks.iter().min_by(|a, b| a.f1.total_cmp(&b.f1));
                    li {
                        strong { "Needs " (group.needs.as_str()) ": " }
                        @match (best, worst) {
                            (Some(b), Some(w)) if group.tasks.len() > 1 => { "best " (f1(b)) ", worst " (f1(w)) }
                            (Some(b), _) => { "one task, " (f1(b)) }
                            _ => { "no task scored" }
                        }
                    }
                }
                @if report.groups.is_empty() { li { "No task was scored." } }
            }
        }
    }
}

fn group_section(
    group: &NeedsGroup,
    answers: Option<&std::collections::BTreeMap<String, profile_types::TaskAnswers>>,
    ids: &Ids,
) -> Markup {
    let heading = group.needs.heading();
    let chart = BarChart {
        id: ids.next(),
        title: format!("F1 and exact match per task: {heading}"),
        desc: format!(
            "Horizontal bars from 0 to 1, two per task: F1 (dark) and exact match (light). {}",
            group
                .tasks
                .iter()
                .map(|t| format!(
                    "{}: F1 {}, exact {}",
                    t.task,
                    score(t.f1),
                    score(t.exact_match)
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        series: vec!["F1".to_owned(), "exact match".to_owned()],
        rows: group
            .tasks
            .iter()
            .map(|t| BarRow {
                label: t.task.clone(),
                values: vec![t.f1, t.exact_match],
            })
            .collect(),
    };
    let count = group.tasks.len() as f64;
    let mean = |f: fn(&profile_types::TaskSummary) -> f64| {
        score(group.tasks.iter().map(f).sum::<f64>() / count)
    };
    html! {
        section.needs-group data-needs=(group.needs.as_str()) {
            h3 { (capitalised(heading)) }
            div.charts {
                figure {
                    (chart.legend())
                    (chart.render())
                }
                (scroll(html! {
                    table {
                        caption { "Scores per task (needs " (group.needs.as_str()) ")" }
                        thead { tr {
                            th scope="col" { "task" } th.num scope="col" { "n" } th.num scope="col" { "exact match" }
                            th.num scope="col" { "precision" } th.num scope="col" { "recall" } th.num scope="col" { "F1" }
                        } }
                        tbody {
                            @for t in &group.tasks {
                                tr {
                                    th scope="row" { code { (t.task) } }
                                    td.num { (t.n) }
                                    td.num { (with_interval(t.exact_match, t.n)) }
                                    td.num {
                                        (with_interval(t.precision, t.n))
                                        @if let Some(a) = answers.and_then(|a| a.get(&t.task)).filter(|a| a.empty > 0) {
                                            // Two short lines: the column stays as narrow as its intervals.
                                            br; span.small { (a.empty) " empty" }
                                            br; span.small { "rest " @match a.precision_of_answers { Some(p) => { (score(p)) }, None => "n/a" } }
                                        }
                                    }
                                    td.num { (with_interval(t.recall, t.n)) }
                                    td.num { (with_interval(t.f1, t.n)) }
                                }
                            }
                        }
                        @if group.tasks.len() > 1 {
                            tfoot { tr {
                                td colspan="2" { "mean of these " (group.tasks.len()) " tasks (needs " (group.needs.as_str()) " only)" }
                                td.num { (mean(|t| t.exact_match)) }
                                td.num { (mean(|t| t.precision)) }
                                td.num { (mean(|t| t.recall)) }
                                td.num { (mean(|t| t.f1)) }
                            } }
                        }
                    }
                }))
            }
        }
    }
}

/// A task's mean score with its 95 % interval below it (narrow columns): `0.667` / `[0.21, 0.94]`.
fn with_interval(mean: f64, n: usize) -> Markup {
    let i = bounded_mean_interval(mean, n as u64, Level::DEFAULT);
    html! {
        (score(mean)) br; span.small { (format!("[{:.2}, {:.2}]", i.lower, i.upper)) }
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
