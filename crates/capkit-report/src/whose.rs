//! Which texts, and whose change (issue 32): how many texts each stage changed, which teacher
//! answer a corruption's headline is compared with, the teacher's own change beside the
//! student's, who moved on each new disagreement, and the example texts behind the counts.
//!
//! A leaf like `parts`: the profile and comparison articles import it, it imports neither.
//! Every text and label here came from a user (or a model) and is escaped by maud and
//! bidi-isolated (`<bdi>`), as every label of the page is.

use maud::{Markup, html};
use profile_stats::analysis::{ClassifyAnalysis, ClassifyCorruption};
use profile_stats::{
    EXAMPLE_CHARS, Example, ExampleAnswers, ExampleList, Examples, NewDisagreements, PairedTest,
};
use profile_types::Reference;

use crate::figures::interval_row;
use crate::format::{Direction, percent, points_with_interval, rate_with_interval, test_p};
use crate::parts::{Ids, scroll};
use crate::svg::{IntervalChart, IntervalGroup, StackedBarChart, StackedRow, legend};

/// Which answer a corruption's headline figure is compared with, in words.
pub(crate) fn reference_words(reference: Reference) -> &'static str {
    match reference {
        Reference::TeacherClean => "against the teacher's clean answer",
        Reference::TeacherTransformed => "against the teacher's answer on the corrupted text",
    }
}

/// The same, short, for a table column headed "against".
pub(crate) fn reference_short(reference: Reference) -> &'static str {
    match reference {
        Reference::TeacherClean => "the teacher's clean answer",
        Reference::TeacherTransformed => "the teacher on the corrupted text",
    }
}

/// The words a stage that changed no text gets wherever its verdict would be.
pub(crate) const MEASURES_NOTHING: &str =
    "measures nothing: left out of rankings, verdicts and the Holm family";

/// How many of `n` texts a stage changed: `8 of 10`, plainly marked when it changed none (a
/// no-op stage measures nothing), `—` when the report did not count it (an older report).
pub(crate) fn changed_cell(changed: Option<u64>, n: u64) -> Markup {
    match changed {
        None => html! { "—" },
        Some(0) => html! { span.noop { "changed 0 of " (n) " texts" } },
        Some(k) => html! { (k) " of " (n) },
    }
}

/// The stages that changed no text, in one sentence (nothing when there are none).
pub(crate) fn no_op_note(stages: &[&str], n: u64) -> Markup {
    html! {
        @if !stages.is_empty() {
            p.note.noop-note {
                span.noop { "Measures nothing: " }
                @for (k, s) in stages.iter().enumerate() {
                    @if k > 0 { ", " }
                    bdi { (s) }
                }
                " changed 0 of " (n) " texts, so "
                (if stages.len() == 1 { "it is" } else { "they are" })
                " left out of the rankings, verdicts and the Holm family of the tests."
            }
        }
    }
}

/// The verdict on the student's change rate against the teacher's under a corruption (the
/// test is student minus teacher).
fn change_verdict(test: &PairedTest, level: f64) -> String {
    let p = test_p(test);
    match Direction::of(test, level) {
        Direction::FirstHigher => {
            format!("the student changes its answer significantly more often than the teacher, {p}")
        }
        Direction::SecondHigher => {
            format!("the student changes its answer significantly less often than the teacher, {p}")
        }
        Direction::NoDifference => {
            format!("no significant difference between the student's and the teacher's change, {p}")
        }
    }
}

/// The parts of the new-disagreement bar, in its order.
const PARTS: [&str; 3] = ["teacher only", "student only", "both"];

/// A classifier profile's "whose change" section: per corruption the student's and the
/// teacher's own change rates (with intervals and their paired test), agreement against both
/// references, and the new disagreements split by whose answer moved (a stacked bar). Nothing
/// for a report written before these were counted.
pub(crate) fn whose_section(a: &ClassifyAnalysis, n: u64, level: f64, ids: &Ids) -> Markup {
    let stages: Vec<(
        &str,
        &ClassifyCorruption,
        &profile_stats::analysis::WhoseChange,
    )> = a
        .corruptions
        .iter()
        .filter_map(|(k, c)| c.whose.as_ref().map(|w| (k.as_str(), c, w)))
        .collect();
    if stages.is_empty() {
        return html! {};
    }
    // No-op stages are in the tables (marked), not in the charts: they have nothing to draw.
    let measured: Vec<_> = stages
        .iter()
        .filter(|(_, c, _)| !c.changed_nothing())
        .collect();
    let sampled = stages.iter().find_map(|(_, _, w)| w.over_sampled_texts);
    let rates = IntervalChart {
        id: ids.next(),
        title: "Change under each corruption: student and teacher".to_owned(),
        desc: format!(
            "For each corruption, the fraction of texts whose answer changed from the side's own \
             clean answer, student (circle, solid) and teacher (square, dashed), with {:.0} % \
             intervals. {}",
            level * 100.0,
            measured
                .iter()
                .map(|(k, _, w)| format!(
                    "{k}: student {}, teacher {}",
                    percent(w.student_change.estimate),
                    percent(w.teacher_change.estimate)
                ))
                .collect::<Vec<_>>()
                .join(". ")
        ),
        axis_label: "texts whose answer changed".to_owned(),
        groups: measured
            .iter()
            .map(|(k, _, w)| IntervalGroup {
                heading: (*k).to_owned(),
                rows: vec![
                    interval_row("student", 0, &w.student_change),
                    interval_row("teacher", 1, &w.teacher_change),
                ],
            })
            .collect(),
    };
    let bar = disagreement_bar(
        ids.next(),
        "New disagreements: whose answer moved",
        "For each corruption, the texts on which student and teacher agree on the clean text and \
         disagree on the corrupted one",
        measured
            .iter()
            .map(|(k, _, w)| ((*k).to_owned(), bar_row(k, None, &w.new_disagreements)))
            .collect(),
    );
    html! {
        section.whose {
            h3 { "Whose change" }
            p.note {
                "Under a corruption either side may change its answer. The teacher's own change rate says how robust the teacher is; "
                "a new disagreement (the two agree on the clean text, not on the corrupted one) is charged to whoever moved. "
                "A stage's headline is its agreement with the reference the suite declares for it: "
                "the teacher's answer on the corrupted text (the default, mixle's definition) or, for a label-preserving corruption, "
                "the teacher's clean answer (" code { "\"reference\": \"teacher_clean\"" } ")."
                @if let Some(k) = sampled {
                    " The teacher answered a sample of the corrupted texts: the change rates and new disagreements are over the "
                    (k) " texts it answered; agreement with its clean answer is over every text."
                }
            }
            @if !measured.is_empty() {
                div.charts {
                    figure {
                        (legend([(0, "student"), (1, "teacher")]))
                        (rates.render())
                    }
                    figure {
                        (bar.legend())
                        (bar.render())
                    }
                }
            }
            (scroll(html! {
                table.change {
                    caption { "Each side's change under each corruption (against its own clean answer), paired text by text" }
                    thead { tr {
                        th scope="col" { "corruption" } th scope="col" { "texts changed" }
                        th.num scope="col" { "student changed" } th.num scope="col" { "teacher changed" }
                        th.num scope="col" { "student − teacher" } th scope="col" { "verdict" }
                    } }
                    tbody {
                        @for (k, c, w) in &stages {
                            tr {
                                th scope="row" { bdi { (k) } }
                                td { (changed_cell(c.texts_changed, n)) }
                                td.num { (rate_with_interval(&w.student_change)) }
                                td.num { (rate_with_interval(&w.teacher_change)) }
                                td.num { (points_with_interval(&w.student_vs_teacher_change.difference)) }
                                td.verdict {
                                    @if c.changed_nothing() { span.noop { (MEASURES_NOTHING) } }
                                    @else { (change_verdict(&w.student_vs_teacher_change, level)) }
                                }
                            }
                        }
                    }
                }
            }))
            (scroll(html! {
                table.references {
                    caption { "Agreement against each reference, and the new disagreements by whose answer moved" }
                    thead { tr {
                        th scope="col" { "corruption" } th scope="col" { "headline against" }
                        th scope="col" { "agreement against the teacher on the corrupted text" }
                        th scope="col" { "agreement against the teacher's clean answer" }
                        th scope="col" { "new disagreements" }
                        th scope="col" { "teacher only" } th scope="col" { "student only" } th scope="col" { "both" }
                    } }
                    tbody {
                        @for (k, c, w) in &stages {
                            @let d = &w.new_disagreements;
                            tr {
                                th scope="row" { bdi { (k) } }
                                td.against { (reference_short(c.reference)) }
                                td.num { (rate_with_interval(&c.agreement)) }
                                td.num { (rate_with_interval(&w.teacher_clean_agreement)) }
                                td.num { (d.total()) }
                                td.num { (d.teacher_only) } td.num { (d.student_only) } td.num { (d.both) }
                            }
                        }
                    }
                }
            }))
        }
    }
}

/// A comparison's "whose change": per corruption the teacher's own change rate (the same
/// teacher and texts for every student) beside each student's, and each student's new
/// disagreements by whose answer moved (one stacked bar per stage and student). Nothing when
/// no student's report counted them.
pub(crate) fn comparison_whose(
    students: &[(&str, &ClassifyAnalysis)],
    n: u64,
    ids: &Ids,
) -> Markup {
    let Some((_, first)) = students.first() else {
        return html! {};
    };
    let rows: Vec<StageWhose<'_>> = first
        .corruptions
        .iter()
        .filter_map(|(k, c)| {
            let each: Vec<_> = students
                .iter()
                .filter_map(|(alias, a)| {
                    a.corruptions
                        .get(k)
                        .and_then(|x| x.whose.as_ref())
                        .map(|w| (*alias, w))
                })
                .collect();
            (!each.is_empty()).then_some((k.as_str(), c, each))
        })
        .collect();
    if rows.is_empty() {
        return html! {};
    }
    let measured = rows.iter().filter(|(_, c, _)| !c.changed_nothing());
    // Past this many stage-and-student bars the section is summed up (a 50-stage, five-student
    // page stays within its size budget; each student's own profile page has every stage).
    if measured
        .clone()
        .map(|(_, _, each)| each.len())
        .sum::<usize>()
        > MAX_BARS
    {
        return comparison_whose_summary(students, &rows);
    }
    let bar = disagreement_bar(
        ids.next(),
        "New disagreements of each student: whose answer moved",
        "For each corruption and student, the texts on which the student and the teacher agree \
         on the clean text and disagree on the corrupted one",
        rows.iter()
            .filter(|(_, c, _)| !c.changed_nothing())
            .flat_map(|(k, _, each)| {
                // The stage heads its students' rows: each name is a text of its own.
                each.iter().enumerate().map(move |(i, (alias, w))| {
                    let heading = (i == 0).then(|| (*k).to_owned());
                    (
                        format!("{k}, {alias}"),
                        bar_row(alias, heading, &w.new_disagreements),
                    )
                })
            })
            .collect(),
    );
    html! {
        section.whose {
            h3 { "Whose change" }
            p.note {
                "The teacher's own change rate under each corruption (against its own clean answer) beside each student's, "
                "and each student's new disagreements with the teacher by whose answer moved. "
                "A fragile teacher's changes are not the students' losses: under a label-preserving corruption read the agreement against the teacher's clean answer."
            }
            @if !bar.rows.is_empty() {
                figure {
                    (bar.legend())
                    (bar.render())
                }
            }
            (scroll(html! {
                // A row per stage and model (the teacher first), so the table keeps its width
                // whatever the number of students.
                table.change {
                    caption { "Each side's change under each corruption (against its own clean answer), and each student's new disagreements with the teacher" }
                    thead { tr {
                        th scope="col" { "corruption" } th scope="col" { "model" }
                        th.num scope="col" { "changed its answer" }
                        th scope="col" { "new disagreements (teacher only / student only / both)" }
                    } }
                    tbody {
                        @for (k, c, each) in &rows {
                            @if let Some((_, w)) = each.first() {
                                tr {
                                    th scope="row" { bdi { (k) } br; span.note {
                                        @match c.texts_changed {
                                            Some(k) if k > 0 => { "changed " (k) " of " (n) " texts" },
                                            other => (changed_cell(other, n)),
                                        }
                                    } }
                                    td { "teacher" }
                                    td.num { (rate_with_interval(&w.teacher_change)) }
                                    td {}
                                }
                            }
                            @for (alias, w) in each {
                                @let d = &w.new_disagreements;
                                tr {
                                    th scope="row" { bdi { (k) } }
                                    td { bdi { (alias) } }
                                    td.num { (rate_with_interval(&w.student_change)) }
                                    td { (d.total()) " (" (d.teacher_only) " / " (d.student_only) " / " (d.both) ")" }
                                }
                            }
                        }
                    }
                }
            }))
        }
    }
}

/// One corruption of a comparison: its name, the first student's figures of it (its texts
/// changed and reference are every student's) and each student's whose-change, by alias.
type StageWhose<'a> = (
    &'a str,
    &'a ClassifyCorruption,
    Vec<(&'a str, &'a profile_stats::analysis::WhoseChange)>,
);

/// One bar of new disagreements, its parts in [`PARTS`] order.
fn bar_row(label: &str, heading: Option<String>, d: &NewDisagreements) -> StackedRow {
    StackedRow {
        label: label.to_owned(),
        parts: vec![d.teacher_only, d.student_only, d.both],
        heading,
    }
}

/// The stacked bar of new disagreements: `intro` says what a bar counts; each row comes with
/// its name in the text alternative, which gives every bar's numbers in words.
fn disagreement_bar(
    id: String,
    title: &str,
    intro: &str,
    rows: Vec<(String, StackedRow)>,
) -> StackedBarChart {
    let words: Vec<String> = rows
        .iter()
        .map(|(name, row)| match row.parts.as_slice() {
            [t, s, b] => format!(
                "{name}: {} new disagreements, {t} teacher only, {s} student only, {b} both",
                t + s + b
            ),
            _ => name.clone(),
        })
        .collect();
    StackedBarChart {
        id,
        title: title.to_owned(),
        desc: format!(
            "{intro}, split into those where only the teacher's answer changed (grey), only the \
             student's (black) and both (light grey), each bar 100 % of its new disagreements, \
             their number at the right. {}",
            words.join(". ")
        ),
        parts: PARTS.iter().map(|p| (*p).to_owned()).collect(),
        unit: "new disagreements".to_owned(),
        rows: rows.into_iter().map(|(_, row)| row).collect(),
    }
}

/// The most stage-and-student bars a comparison draws (see [`comparison_whose`]).
const MAX_BARS: usize = 24;

/// A large comparison's "whose change" in a few lines: the range of the teacher's own change
/// rate over the corruptions, and each student's new disagreements summed over them.
fn comparison_whose_summary(
    students: &[(&str, &ClassifyAnalysis)],
    rows: &[StageWhose<'_>],
) -> Markup {
    let teacher: Vec<(&str, f64)> = rows
        .iter()
        .filter(|(_, c, _)| !c.changed_nothing())
        .filter_map(|(k, _, each)| Some((*k, each.first()?.1.teacher_change.estimate?)))
        .collect();
    // Each student's new disagreements summed over the corruptions that changed a text.
    let sums: Vec<(&str, profile_stats::NewDisagreements)> = students
        .iter()
        .map(|(alias, _)| {
            let mut d = profile_stats::NewDisagreements::default();
            for (_, c, each) in rows {
                if let Some((_, w)) = each.iter().find(|(a, _)| a == alias)
                    && !c.changed_nothing()
                {
                    d += w.new_disagreements;
                }
            }
            (*alias, d)
        })
        .collect();
    let low = teacher.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let high = teacher.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    html! {
        section.whose {
            h3 { "Whose change" }
            @if let (Some(low), Some(high)) = (low, high) {
                p { "The teacher's own change rate (against its own clean answer) runs from "
                    (percent(Some(low.1))) " (" bdi { (low.0) } ") to " (percent(Some(high.1))) " (" bdi { (high.0) } ")." }
            }
            ul {
                @for (alias, d) in &sums {
                    li { bdi { (alias) } ": " (d.total()) " new disagreements over every corruption: "
                        (d.teacher_only) " where only the teacher's answer changed, " (d.student_only) " only the student's, " (d.both) " both" }
                }
            }
            p.note { "Each student's own profile page has its change rates and new disagreements stage by stage." }
        }
    }
}

/// Texts longer than this many characters are folded (`<details>`), their first
/// [`FOLD_HEAD`] characters shown.
const FOLD_AFTER: usize = 120;
/// Characters of a folded text shown before it is opened.
const FOLD_HEAD: usize = 60;

/// One text of an example: escaped, bidi-isolated, whitespace kept (a whitespace rewrite must
/// show), folded when long, and marked when the report cut it.
fn text_view(text: &str, cut: bool) -> Markup {
    let chars = text.chars().count();
    let cut_note = html! {
        @if cut {
            span.note.cut { "… (cut: the report keeps the first " (EXAMPLE_CHARS) " characters)" }
        }
    };
    html! {
        @if text.is_empty() {
            em { "(empty text)" }
        } @else if chars > FOLD_AFTER {
            details.text {
                summary {
                    bdi.ex { (text.chars().take(FOLD_HEAD).collect::<String>()) } "… "
                    span.note { "(" (chars) " characters" @if cut { ", cut" } "; open to read all)" }
                }
                bdi.ex { (text) } (cut_note)
            }
        } @else {
            bdi.ex { (text) } (cut_note)
        }
    }
}

/// A label as shown: bidi-isolated, monospace, `(empty)` for an empty string.
fn label(l: &str) -> Markup {
    html! {
        @if l.is_empty() { em { "(empty)" } } @else { bdi.spec { (l) } }
    }
}

/// One side's answers: `pos → neg`, the changed answer in bold, escalations when recorded.
fn answers(a: &ExampleAnswers, clean_only: bool) -> Markup {
    html! {
        (label(&a.clean))
        @if a.escalated == Some(true) { " " span.note { "(escalated the clean text)" } }
        @if !clean_only {
            " → "
            @match &a.transformed {
                Some(t) if *t == a.clean => (label(t)),
                Some(t) => strong { (label(t)) },
                None => span.note { "not asked (outside the teacher sample)" },
            }
        }
    }
}

/// One example as a list of terms (it reflows to a phone's width, where a five-column table
/// would not).
fn example(e: &Example, transformed: &str) -> Markup {
    let clean_only = e.transformed.is_none();
    html! {
        li {
            dl.example {
                dt { "text" } dd { (text_view(&e.text, e.text_cut)) }
                @if let Some(t) = &e.transformed {
                    dt { (transformed) } dd { (text_view(t, e.transformed_cut)) }
                }
                dt { "student" } dd { (answers(&e.student, clean_only)) }
                dt { "teacher" } dd { (answers(&e.teacher, clean_only)) }
            }
        }
    }
}

/// What each kind of example is, in a heading.
fn kind_heading(kind: &str) -> &'static str {
    match kind {
        "student_only" => "Only the student's answer changed",
        "teacher_only" => "Only the teacher's answer changed",
        _ => "Both answers changed",
    }
}

/// One stage's examples, folded under a summary that counts them by kind.
fn stage_examples(
    name: &str,
    kinds: &[(&'static str, &ExampleList)],
    transformed: &str,
    changed: Option<u64>,
    n: u64,
) -> Markup {
    let count = |k: &str| {
        kinds
            .iter()
            .find(|(x, _)| *x == k)
            .map_or(0, |(_, l)| l.0.len())
    };
    html! {
        details.stage-examples {
            summary {
                bdi { (name) } ": "
                (count("student_only")) " student only, "
                (count("teacher_only")) " teacher only, "
                (count("both")) " both"
                @if let Some(k) = changed { " " span.note { "(it changed " (k) " of " (n) " texts)" } }
            }
            @for (kind, list) in kinds {
                @if !list.0.is_empty() {
                    h4 { (kind_heading(kind)) " (" (list.0.len()) ")" }
                    ol.examples { @for e in &list.0 { (example(e, transformed)) } }
                }
            }
        }
    }
}

/// The stages of one section (corruptions or invariances) with their examples; the stages
/// without any are named in one line.
fn section_examples(
    stages: &indexmap::IndexMap<String, profile_stats::StageExamples>,
    transformed: &str,
    changed: &dyn Fn(&str) -> Option<u64>,
    n: u64,
) -> Markup {
    let empty: Vec<&str> = stages
        .iter()
        .filter(|(_, s)| {
            s.student_only.0.is_empty() && s.teacher_only.0.is_empty() && s.both.0.is_empty()
        })
        .map(|(k, _)| k.as_str())
        .collect();
    html! {
        @for (name, s) in stages {
            @if !empty.contains(&name.as_str()) {
                (stage_examples(name, &[("student_only", &s.student_only), ("teacher_only", &s.teacher_only), ("both", &s.both)], transformed, changed(name), n))
            }
        }
        @if !empty.is_empty() {
            p.note {
                "No example (neither answer changed on any text): "
                @for (k, s) in empty.iter().enumerate() {
                    @if k > 0 { ", " }
                    bdi { (s) }
                    @if changed(s) == Some(0) { " " span.noop { "(changed no text)" } }
                }
                "."
            }
        }
    }
}

/// The examples of a report: the clean disagreements, then per corruption and invariance the
/// texts where only the student's answer changed, only the teacher's, or both.
///
/// `changed` gives the texts a stage changed (`true`: an invariance), `who` names whose
/// examples these are on a comparison page.
pub(crate) fn examples_section(
    examples: &Examples,
    n: u64,
    changed: &dyn Fn(&str, bool) -> Option<u64>,
    who: Option<&str>,
) -> Markup {
    html! {
        section.examples {
            @match who {
                Some(who) => h4 { "Examples: " bdi { (who) } },
                None => {
                    h3 { "Examples" }
                    p.note {
                        "Up to " (examples.k) " texts per stage and kind of outcome: those whose keys (the first 64 bits of the clean text's blake3 hash) are smallest, "
                        "so the choice depends on the texts alone, never on their order, chunks or shards. "
                        "Each side's answer is shown on the clean text → on the transformed text, a changed answer in bold. "
                        "Texts longer than " (FOLD_AFTER) " characters are folded (open them to read all); the report keeps the first " (EXAMPLE_CHARS) " characters of a text and marks a cut with an ellipsis (…)."
                    }
                }
            }
            @if !examples.clean.0.is_empty() {
                details.stage-examples {
                    summary { "Clean texts: " (examples.clean.0.len()) " where student and teacher disagree" }
                    ol.examples { @for e in &examples.clean.0 { (example(e, "transformed")) } }
                }
            }
            (section_examples(&examples.corruptions, "corrupted", &|s| changed(s, false), n))
            (section_examples(&examples.invariances, "rewritten", &|s| changed(s, true), n))
        }
    }
}
