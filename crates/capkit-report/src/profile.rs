//! The profile article (classifier or extractor) and the pieces the comparison article shares:
//! severity-curve figures, invariance charts, abstention and probe tables, the methods note.

use maud::{Markup, html};
use profile_stats::analysis::{self, AbstentionAnalysis, ClassifyAnalysis, ExtractAnalysis};
use profile_stats::{
    Counts, FieldSums, Interval, Method, ProfileReport, SeverityCurve, f1_interval, wilson,
};
use profile_types::py_value::key_label;
use profile_types::value::py_str;
use profile_types::{FieldBreakdown, Label};

use crate::document::ProfileDocument;
use crate::figures::{CURVE_SEVERITIES, Figures, InvarianceRow, interval_row};
use crate::format::{
    Direction, corruption_verdict, invariance_verdict, number, p_value, percent,
    points_with_interval, rate_with_interval,
};
use crate::parts::{Ids, Source, run_rows, scroll, source_rows, stage_meta};
use crate::style::heat;
use crate::svg::{Curve, CurvePoint, IntervalChart, IntervalGroup, LineChart, legend};
use crate::whose::{self, MEASURES_NOTHING, changed_cell, reference_short};

/// What a report's curves measure, in words.
pub(crate) fn metric(report: &ProfileReport) -> &'static str {
    match report.counts {
        Counts::Classify(_) => "agreement with the teacher",
        Counts::Extract(_) => "student F1 against the gold",
    }
}

/// The interval of each point of a curve: the stages at its severity pooled (counts added),
/// so a point of one stage has exactly that stage's interval.
pub(crate) fn point_intervals(
    report: &ProfileReport,
    figures: &Figures,
    curve: &SeverityCurve,
) -> Vec<Interval> {
    let level = report.settings.level;
    curve
        .points
        .iter()
        .map(|point| {
            let stages = point.stages.len() as u64;
            match (&report.counts, figures) {
                // A sampled teacher: each corrupted stage's interval is its prediction-powered
                // one (its counts are the sample's), and stages of one severity pool as the
                // mean of their intervals (as their estimates do, `severity_curve`): if every
                // stage's interval covers its rate, the mean covers the pooled rate.
                (Counts::Classify(c), Figures::Classify(a)) if c.sample.is_some() => {
                    let each: Vec<Interval> = point
                        .stages
                        .iter()
                        .map(|s| match a.corruptions.get(s) {
                            // The point is the stage's headline (its reference's agreement).
                            Some(k) => *k.headline().0,
                            None => a.clean.agreement,
                        })
                        .collect();
                    mean_interval(&each)
                }
                (Counts::Classify(c), _) => {
                    let hits: u64 = point
                        .stages
                        .iter()
                        .map(|s| match c.corruptions.get(s) {
                            // A stage against the teacher's clean answer is drawn at that
                            // agreement (`profile-stats`' curves), so its interval is too.
                            Some(k) => match (report.suite.reference(s), &k.change) {
                                (profile_types::Reference::TeacherClean, Some(change)) => {
                                    change.reference.table().second()
                                }
                                _ => k.agree.table().second(),
                            },
                            None => c.clean.agree,
                        })
                        .sum();
                    wilson(hits, c.n * stages, level)
                }
                (Counts::Extract(c), _) => {
                    let mut sums = FieldSums::default();
                    for s in &point.stages {
                        sums += match c.corruptions.get(s) {
                            Some(k) => k.student,
                            None => c.clean.student,
                        };
                    }
                    f1_interval(&sums, c.n * stages, level)
                }
            }
        })
        .collect()
}

/// The mean of intervals (estimates and limits); prediction-powered when any of them is.
fn mean_interval(each: &[Interval]) -> Interval {
    let k = each.len().max(1) as f64;
    let estimate: Option<Vec<f64>> = each.iter().map(|i| i.estimate).collect();
    let estimated = each.iter().any(|i| i.method == Method::PpiPowerTuned);
    match each {
        [one] => *one,
        _ => Interval {
            estimate: estimate.map(|e| e.iter().sum::<f64>() / k),
            lower: each.iter().map(|i| i.lower).sum::<f64>() / k,
            upper: each.iter().map(|i| i.upper).sum::<f64>() / k,
            level: each.first().map_or(0.95, |i| i.level),
            method: if estimated {
                Method::PpiPowerTuned
            } else {
                each.first().map_or(Method::Wilson, |i| i.method)
            },
        },
    }
}

/// One curve of a severity figure.
pub(crate) struct CurveSeries<'a> {
    pub name: String,
    pub style: usize,
    pub curve: &'a SeverityCurve,
    pub intervals: Vec<Interval>,
}

/// A severity-curve figure: the chart (bands, clean point, threshold, break-even marks), a
/// caption with each curve's area and break-even severity, and the table of its points.
pub(crate) fn curve_figure(
    ids: &Ids,
    family: &str,
    what: &str,
    series: &[CurveSeries<'_>],
    threshold: f64,
    level: f64,
) -> Markup {
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    let mut chart = LineChart {
        id: ids.next(),
        title: format!("{what} against {family} severity"),
        desc: format!(
            "{what} (y) against the severity of {family} (x) for {}. Shaded bands \
             are {:.0} % intervals; the ringed point at severity 0 is the clean texts; the \
             dotted line is the {} break-even threshold, and a dashed vertical line marks where \
             a curve first falls below it. {}",
            names.join(", "),
            level * 100.0,
            percent(Some(threshold)),
            series
                .iter()
                .map(|s| format!("{}: {}", s.name, points_text(s)))
                .collect::<Vec<_>>()
                .join(". ")
        ),
        x_label: format!("{family} severity"),
        y_label: what.to_owned(),
        curves: series
            .iter()
            .map(|s| Curve {
                name: s.name.clone(),
                style: s.style,
                points: s
                    .curve
                    .points
                    .iter()
                    .zip(&s.intervals)
                    .map(|(p, i)| CurvePoint {
                        x: p.severity,
                        y: p.value,
                        band: p.value.map(|_| (i.lower, i.upper)),
                    })
                    .collect(),
                break_even: s.curve.break_even.severity,
            })
            .collect(),
        threshold: Some(threshold),
    };
    let zoom = chart.zoom_note();
    chart.desc = format!(
        "{} {}",
        zoom.as_deref()
            .unwrap_or("The y axis runs from 0 to 100 %."),
        chart.desc
    );
    let first = series.first();
    // One curve's table is narrow enough to sit beside its chart; several curves' is not.
    let layout = if series.len() > 1 { "stack" } else { "charts" };
    html! {
        div class=(layout) {
        figure.curve data-family=(family) {
            (legend(series.iter().map(|s| (s.style, s.name.as_str()))))
            (chart.render())
            figcaption {
                @if let Some(zoom) = &zoom { span.zoom { (zoom) } br; }
                @for s in series {
                    span.mark { (s.name) } ": " (curve_summary(s.curve)) br;
                }
            }
        }
        @if let Some(first) = first {
            (scroll(html! {
                table.curve-points {
                    caption { (what) " by " (family) " severity" }
                    thead { tr {
                        th.num scope="col" { "severity" } th scope="col" { "stages" }
                        @for s in series { th.num scope="col" { (s.name) } }
                    } }
                    tbody {
                        @for (k, point) in first.curve.points.iter().enumerate() {
                            tr {
                                td.num { (number(point.severity)) }
                                td { (point.stages.join(", ")) }
                                @for s in series {
                                    td.num { @if let Some(i) = s.intervals.get(k) { (rate_with_interval(i)) } }
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

fn points_text(s: &CurveSeries<'_>) -> String {
    let points = &s.curve.points;
    let at =
        |p: &profile_stats::CurvePoint| format!("{} at {}", percent(p.value), number(p.severity));
    // A long curve is described by its ends; the table beside the chart has every point.
    if points.len() > DESC_POINTS {
        let (first, last) = (points.first().map(at), points.last().map(at));
        format!(
            "{} severities, from {} to {} (every point is in the table)",
            points.len(),
            first.unwrap_or_default(),
            last.unwrap_or_default()
        )
    } else {
        points.iter().map(at).collect::<Vec<_>>().join(", ")
    }
}

/// Curves with more points than this are described by their ends in the chart's `<desc>`.
const DESC_POINTS: usize = 12;

/// `area under the curve 0.873; break-even severity 0.125 (first below 90.0 %)`.
pub(crate) fn curve_summary(curve: &SeverityCurve) -> String {
    let auc = match curve.auc {
        Some(a) => format!("normalised area under the curve {a:.3}"),
        None => "no area (a single severity)".to_owned(),
    };
    let max = curve.points.last().map_or(0.0, |p| p.severity);
    let threshold = percent(Some(curve.break_even.threshold));
    let break_even = match curve.break_even.severity {
        Some(0.0) => format!("already below {threshold} on clean texts (break-even severity 0)"),
        Some(s) => format!(
            "break-even severity {} (first below {threshold})",
            crate::format::interpolated(s)
        ),
        None => format!("never below {threshold} up to severity {}", number(max)),
    };
    // A sampled teacher: the points are estimates, and so are the area and break-even (no
    // interval of their own).
    let estimated = if curve.estimated.is_some() {
        " (estimated: computed from the estimated points, without an interval)"
    } else {
        ""
    };
    format!("{auc}; {break_even}{estimated}")
}

/// The article for one profile report.
pub(crate) fn article(doc: &ProfileDocument, source: &Source, ids: &Ids) -> Markup {
    let report = &doc.report;
    let figures = Figures::of(report);
    let level = report.settings.level.get();
    let recommendation = crate::recommend::recommend_profile(report);
    let (student, teacher) = (&recommendation.student, &recommendation.teacher);
    html! {
        // Named, so that several profiles on one page have headings of their own.
        h2 {
            @match &figures {
                Figures::Classify(_) => "Classifier profile: ",
                Figures::Extract(_) => "Extractor profile: ",
            }
            bdi { (student) } " against " bdi { (teacher) } " "
            span.h-source { "(" (source.name) ")" }
        }
        (crate::verdict::profile_recommendation(&recommendation, ids))
        (crate::verdict::profile(report, &figures))
        (cards(report, &figures, ids))
        (curves_section(report, &figures, ids, student))
        @match &figures {
            Figures::Classify(a) => {
                (classify_corruptions(a, &report.suite, level, report.n(), ids))
                (whose::whose_section(a, report.n(), level, ids))
                (invariances_section(&figures.invariances(), &report.suite, level, ids, "label", report.n(), (student, teacher)))
                @if let Some(e) = &report.examples {
                    (whose::examples_section(e, report.n(), &|s, inv| stage_changed(&figures, s, inv), None))
                }
            }
            Figures::Extract(a) => {
                (extract_corruptions(a, &report.suite, level, ids))
                (invariances_section(&figures.invariances(), &report.suite, level, ids, "record", report.n(), (student, teacher)))
                (extract_f1_under_invariances(a))
                (validity_section(a, ids))
                (heat_map_section(a, doc.fields.as_ref()))
            }
        }
        @if let Some(a) = figures.abstention() {
            (abstention_section(report, a, ids))
        }
        @if let Some(p) = &report.probes {
            (probes_section(&[("teacher", &p.teacher), ("student", &p.student)], report.suite.probe_texts.as_deref()))
        }
        (methods(level, sampled(report)))
        // What was run, with its hashes and versions: at the end, not in the reader's way.
        section.provenance id=(ids.section("provenance")) {
            h3 { "Provenance" }
            dl.meta {
                (source_rows(source))
                dt { "Student" } dd { span.spec { (report.models.student.as_deref().unwrap_or("unnamed")) } }
                dt { "Teacher" } dd { span.spec { (report.models.teacher.as_deref().unwrap_or("unnamed")) } }
                (suite_rows(report))
                (run_rows(&doc.runs))
                dt { "Texts profiled" } dd { (report.n()) }
                (settings_rows(report))
            }
        }
    }
}

/// The suite's rows of the "what was run" list.
pub(crate) fn suite_rows(report: &ProfileReport) -> Markup {
    let suite = &report.suite;
    // A stage's transform and parameters, when the report records them.
    let spec = |name: &str| -> Option<String> {
        let Some(serde_json::Value::Object(t)) = suite.transforms.as_ref()?.get(name) else {
            return None;
        };
        let transform = t.get("transform")?.as_str()?;
        let params: Vec<String> = t
            .iter()
            .filter(|(k, _)| k.as_str() != "transform")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        Some(if params.is_empty() {
            transform.to_owned()
        } else {
            format!("{transform} {}", params.join(" "))
        })
    };
    // (name, what it is): the name is the user's, bidi-isolated in the list.
    let corruptions: Vec<(&str, Option<String>)> = suite
        .corruptions
        .iter()
        .map(|c| {
            let what = match (spec(&c.name), &c.family, c.severity) {
                (Some(t), _, Some(s)) => Some(format!("{t}; severity {}", number(s))),
                (Some(t), _, None) => Some(t),
                (None, Some(f), Some(s)) => Some(format!("{f} {}", number(s))),
                _ => None,
            };
            (c.name.as_str(), what)
        })
        .collect();
    let invariances: Vec<(&str, Option<String>)> = suite
        .invariances
        .iter()
        .map(|name| (name.as_str(), spec(name)))
        .collect();
    let list = |stages: &[(&str, Option<String>)]| {
        html! {
            @if stages.is_empty() { "none" }
            @for (k, (name, what)) in stages.iter().enumerate() {
                @if k > 0 { ", " }
                bdi { (name) }
                @if let Some(what) = what { " (" (what) ")" }
                (stage_meta(suite, name))
            }
        }
    };
    html! {
        dt { "Suite" }
        dd {
            @if let Some(f) = &suite.fingerprint { span.spec { (f) } br; }
            "corruptions: " (list(&corruptions)) br;
            "invariances: " (list(&invariances)) br;
            (suite.probes) " probes"
        }
        @if let Counts::Classify(c) = &report.counts && let Some(sample) = &c.sample {
            dt { "Teacher sample" }
            dd {
                (format!(
                    "{} of {} texts (fraction {}, seed {}): the teacher answered their corrupted and \
                     rewritten versions only; figures marked (estimated) are prediction-powered \
                     (PPI++) estimates of the full profile's values, the rest is exact",
                    sample.labelled, c.n, number(sample.design.fraction), sample.design.seed
                ))
            }
        }
    }
}

/// Level and threshold.
pub(crate) fn settings_rows(report: &ProfileReport) -> Markup {
    html! {
        dt { "Intervals" }
        dd { (format!("{:.0} %", report.settings.level.get() * 100.0)) " (Wilson score; Wilson at the effective number of fields for F1; Tango's score interval for paired differences, at the level of each test's Holm step)" }
        dt { "Break-even threshold" }
        dd { (percent(Some(report.settings.break_even))) }
    }
}

fn cards(report: &ProfileReport, figures: &Figures, ids: &Ids) -> Markup {
    let level = report.settings.level.get();
    // A rewrite that changed no text measures nothing: it is not counted either way.
    let invariances: Vec<_> = figures
        .invariances()
        .into_iter()
        .filter(|i| !i.changed_nothing())
        .collect();
    let worse = invariances
        .iter()
        .filter(|i| Direction::of(i.test, level) == Direction::FirstHigher)
        .count();
    let left_out = figures.invariances().len() - invariances.len();
    // A sampled teacher: a tile's count can move with the sample alone, so it says from how
    // many texts it is estimated and how many invariances the sample leaves undecided (the
    // student's estimate is the higher, but not significantly).
    let sample = match &report.counts {
        Counts::Classify(c) => c.sample.as_ref().map(|s| s.labelled),
        Counts::Extract(_) => None,
    };
    let undecided = invariances
        .iter()
        .filter(|i| {
            i.test.difference.method == Method::PpiPowerTuned
                && Direction::of(i.test, level) == Direction::NoDifference
                && i.test.difference.estimate.is_some_and(|d| d > 0.0)
        })
        .count();
    let invariances = invariances.len();
    html! {
        div.cards id=(ids.section("cards")) {
            @match figures {
                Figures::Classify(a) => div.card {
                    "Clean agreement" span.big { (percent(a.clean.agreement.estimate)) }
                    span.small { "interval " (crate::format::limits(&a.clean.agreement)) }
                },
                Figures::Extract(a) => {
                    div.card {
                        "Clean F1 (micro)" span.big { (percent(a.clean.f1.estimate)) }
                        span.small { "interval " (crate::format::limits(&a.clean.f1)) }
                    }
                    div.card {
                        "Exact record match" span.big { (percent(a.clean.exact_match.estimate)) }
                        span.small { "interval " (crate::format::limits(&a.clean.exact_match)) }
                    }
                    div.card {
                        "Schema validity" span.big { (percent(a.clean.schema_validity.student.estimate)) }
                        span.small { "student; teacher " (percent(a.clean.schema_validity.teacher.estimate)) }
                    }
                }
            }
            @for (family, curve) in figures.drawn_curves() {
                div.card {
                    (family) span.big {
                        @match curve.break_even.severity {
                            Some(s) => { "break-even " (crate::format::interpolated(s)) },
                            None => "never below",
                        }
                    }
                    span.small { "threshold " (percent(Some(curve.break_even.threshold)))
                        @if let Some(a) = curve.auc { "; area " (format!("{a:.3}")) } }
                    @if let (Some(k), Some(_)) = (sample, &curve.estimated) {
                        span.small.sampled { "estimated from " (k) " texts: it can move with the sample" }
                    }
                }
            }
            @if invariances > 0 {
                div.card {
                    "Invariances" span.big { (worse) " of " (invariances) }
                    span.small { "where the student is significantly less invariant than the teacher"
                        @if left_out > 0 { " (" (left_out) " that changed no text left out)" } }
                    @if let Some(k) = sample {
                        span.small.sampled { "estimated from " (k) " texts; " (undecided) " invariance" @if undecided != 1 { "s" } " not decidable at this sample" }
                    }
                }
            }
        }
    }
}

/// `student` is the student's name on the page: its curve's and dots' legend.
fn curves_section(report: &ProfileReport, figures: &Figures, ids: &Ids, student: &str) -> Markup {
    let level = report.settings.level.get();
    let drawn = figures.drawn_curves();
    let dots = figures.dot_stages();
    let series = [DotSeries {
        name: student,
        style: 0,
        stages: with_clean(figures, &dots),
    }];
    html! {
        section.curves {
            h3 { "Severity curves" }
            @if drawn.is_empty() {
                p { "No family of this suite's corruptions has " (CURVE_SEVERITIES)
                    " severities or more, so there is no curve." }
            } @else {
                p.note { "Each family of corruptions with " (CURVE_SEVERITIES)
                    " severities or more gives one curve of " (metric(report))
                    ", from the clean texts (severity 0) up." }
                @for (family, curve) in &drawn {
                    (curve_figure(ids, family, metric(report), &[CurveSeries {
                        name: student.to_owned(),
                        style: 0,
                        curve,
                        intervals: point_intervals(report, figures, curve),
                    }], report.settings.break_even, level))
                }
            }
            @if !dots.is_empty() {
                (dot_plot(ids, metric(report), &series, level))
            }
        }
    }
}

/// The clean texts' rate first (what each dot is read against), then `dots`.
pub(crate) fn with_clean<'a>(
    figures: &'a Figures,
    dots: &[(&'a str, &'a Interval)],
) -> Vec<(&'a str, &'a Interval)> {
    std::iter::once(("clean", figures.clean()))
        .chain(dots.iter().copied())
        .collect()
}

/// One series of a dot plot: a student's headline at each stage on no curve.
pub(crate) struct DotSeries<'a> {
    pub name: &'a str,
    pub style: usize,
    pub stages: Vec<(&'a str, &'a Interval)>,
}

/// The stages on no curve ([`Figures::dot_stages`]) in one compact chart: each stage's
/// headline with its interval, one row per series (one per student on a comparison), no line
/// and no break-even (a family with fewer than [`CURVE_SEVERITIES`] severities has none).
pub(crate) fn dot_plot(ids: &Ids, what: &str, series: &[DotSeries<'_>], level: f64) -> Markup {
    let Some(first) = series.first() else {
        return html! {};
    };
    let stages: Vec<&str> = first.stages.iter().map(|(k, _)| *k).collect();
    let groups: Vec<IntervalGroup> = stages
        .iter()
        .map(|stage| IntervalGroup {
            heading: (*stage).to_owned(),
            rows: series
                .iter()
                .filter_map(|s| {
                    let (_, i) = s.stages.iter().find(|(k, _)| k == stage)?;
                    Some(interval_row(s.name, s.style, i))
                })
                .collect(),
        })
        .collect();
    let chart = IntervalChart {
        id: ids.next(),
        title: format!("{what} at the stages without a curve"),
        desc: format!(
            "{what} on the clean texts and at each corruption whose family has fewer than \
             {CURVE_SEVERITIES} severities, or none, with {:.0} % intervals: {}.",
            level * 100.0,
            stages
                .iter()
                .map(|stage| {
                    let rows: Vec<String> = series
                        .iter()
                        .filter_map(|s| {
                            let (_, i) = s.stages.iter().find(|(k, _)| k == stage)?;
                            Some(format!("{} {}", s.name, rate_with_interval(i)))
                        })
                        .collect();
                    format!("{stage}: {}", rows.join(", "))
                })
                .collect::<Vec<_>>()
                .join("; ")
        ),
        axis_label: what.to_owned(),
        groups,
    };
    html! {
        figure.dots {
            @if series.len() > 1 {
                (legend(series.iter().map(|s| (s.style, s.name))))
            }
            (chart.render())
            figcaption.note {
                "The clean texts, then the corruptions whose family has fewer than " (CURVE_SEVERITIES)
                " severities (the clean point not counted), or none: each stage's "
                (what) " with its " (format!("{:.0}", level * 100.0)) " % interval. "
                "They get no curve and no break-even severity: a line through one or two "
                "measured points would be interpolated where nothing was measured."
            }
        }
    }
}

/// The texts a stage changed, as its figures record them.
pub(crate) fn stage_changed(figures: &Figures, stage: &str, invariance: bool) -> Option<u64> {
    if invariance {
        figures
            .invariances()
            .into_iter()
            .find(|r| r.name == stage)
            .and_then(|r| r.texts_changed)
    } else {
        figures.corruption_changed(stage)
    }
}

fn classify_corruptions(
    a: &ClassifyAnalysis,
    suite: &profile_stats::SuiteDescriptor,
    level: f64,
    n: u64,
    ids: &Ids,
) -> Markup {
    // Older reports did not count changed texts: their tables keep today's columns.
    let counted = a.corruptions.values().any(|c| c.texts_changed.is_some());
    // Estimated figures carry "(estimated)": their cells may wrap, so the table fits.
    let estimated = a.corruptions.values().any(|c| c.estimated.is_some());
    html! {
        @if !a.corruptions.is_empty() {
            section.corruptions id=(ids.section("corruptions")) {
                h3 { "Corruptions" }
                (scroll(html! {
                    table class=[estimated.then_some("wraps")] {
                        caption {
                            "Agreement with the teacher under each corruption"
                            @if counted { " (against the reference each stage declares)" }
                            ", paired with the clean texts"
                        }
                        thead { tr {
                            th scope="col" { "corruption" } th scope="col" { "family" } th.num scope="col" { "severity" }
                            @if counted { th scope="col" { "texts changed" } }
                            th.num scope="col" { "agreement" }
                            @if counted { th scope="col" { "against" } }
                            th.num scope="col" { "clean − corrupted" } th scope="col" { "verdict" }
                        } }
                        tbody {
                            @for (name, c) in &a.corruptions {
                                @let (agreement, test) = c.headline();
                                tr {
                                    th scope="row" { (name) (stage_meta(suite, name)) }
                                    td { (c.family.as_deref().unwrap_or("—")) }
                                    td.num { (c.severity.map_or("—".to_owned(), number)) }
                                    @if counted { td { (changed_cell(c.texts_changed, n)) } }
                                    td.num { (rate_with_interval(agreement)) }
                                    @if counted { td.against { (reference_short(c.reference)) } }
                                    td.num { (points_with_interval(&test.difference)) }
                                    td.verdict {
                                        @if c.changed_nothing() { span.noop { (MEASURES_NOTHING) } }
                                        @else { (corruption_verdict(test, level, "agreement")) }
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

fn extract_corruptions(
    a: &ExtractAnalysis,
    suite: &profile_stats::SuiteDescriptor,
    level: f64,
    ids: &Ids,
) -> Markup {
    html! {
        @if !a.corruptions.is_empty() {
            section.corruptions id=(ids.section("corruptions")) {
                h3 { "Corruptions" }
                (scroll(html! {
                    table {
                        caption { "F1 against the gold (the teacher's clean records) under each corruption; exact record matches paired with the clean texts" }
                        thead { tr {
                            th scope="col" { "corruption" } th.num scope="col" { "severity" }
                            th.num scope="col" { "student F1" } th.num scope="col" { "teacher F1" }
                            th.num scope="col" { "exact match" } th.num scope="col" { "clean − corrupted" } th scope="col" { "verdict" }
                        } }
                        tbody {
                            @for (name, c) in &a.corruptions {
                                tr {
                                    th scope="row" { (name) (stage_meta(suite, name)) }
                                    td.num { (c.severity.map_or("—".to_owned(), number)) }
                                    td.num { (rate_with_interval(&c.student_f1)) }
                                    td.num { (rate_with_interval(&c.teacher_f1)) }
                                    td.num { (rate_with_interval(&c.exact_match)) }
                                    td.num { (points_with_interval(&c.clean_vs_corrupted.difference)) }
                                    td.verdict { (corruption_verdict(&c.clean_vs_corrupted, level, "exact match")) }
                                }
                            }
                        }
                    }
                }))
            }
        }
    }
}

fn extract_f1_under_invariances(a: &ExtractAnalysis) -> Markup {
    html! {
        @if !a.invariances.is_empty() {
            (scroll(html! {
                table {
                    caption { "F1 of each side against its own clean records under each invariance" }
                    thead { tr { th scope="col" { "invariance" } th.num scope="col" { "student F1" } th.num scope="col" { "teacher F1" } } }
                    tbody {
                        @for (name, i) in &a.invariances {
                            tr { th scope="row" { (name) } td.num { (rate_with_interval(&i.student_f1)) } td.num { (rate_with_interval(&i.teacher_f1)) } }
                        }
                    }
                }
            }))
        }
    }
}

/// `names`: the student's and the teacher's names on the page (the chart's legend and rows).
fn invariances_section(
    rows: &[InvarianceRow<'_>],
    suite: &profile_stats::SuiteDescriptor,
    level: f64,
    ids: &Ids,
    answer: &str,
    n: u64,
    names: (&str, &str),
) -> Markup {
    if rows.is_empty() {
        return html! {};
    }
    let counted = rows.iter().any(|r| r.texts_changed.is_some());
    let chart = IntervalChart {
        id: ids.next(),
        title: "Violation rates: student and teacher side by side".to_owned(),
        desc: format!(
            "For each invariance, the fraction of texts whose {answer} changed under the rewrite, \
             student (circle, solid) and teacher (square, dashed), with {:.0} % intervals. {}",
            level * 100.0,
            rows.iter()
                .map(|r| format!(
                    "{}: student {}, teacher {}; {}",
                    r.name,
                    percent(r.student.estimate),
                    percent(r.teacher.estimate),
                    invariance_verdict(r.test, level, "student", "teacher")
                ))
                .collect::<Vec<_>>()
                .join(". ")
        ),
        axis_label: format!("texts whose {answer} changed"),
        groups: rows
            .iter()
            .map(|r| IntervalGroup {
                heading: r.name.to_owned(),
                rows: vec![
                    interval_row(names.0, 0, r.student),
                    interval_row(names.1, 1, r.teacher),
                ],
            })
            .collect(),
    };
    html! {
        section.invariances id=(ids.section("invariances")) {
            h3 { "Invariances" }
            p.note { "A violation is a text whose " (answer) " changes under a rewrite that should not change it. "
                "Student and teacher are paired text by text (McNemar's score test, Tango's interval of the difference; p-values Holm-adjusted over every paired test of this page)." }
            ul.verdicts {
                @for r in rows {
                    li { strong { bdi { (r.name) } } ": "
                        @if r.changed_nothing() {
                            span.noop { "changed 0 of " (n) " texts: " (MEASURES_NOTHING) }
                        } @else {
                            span.verdict { (invariance_verdict(r.test, level, "student", "teacher")) }
                            @if let Some(k) = r.texts_changed { " " span.note { "(it changed " (k) " of " (n) " texts)" } }
                        }
                    }
                }
            }
            div.stack {
                figure {
                    (legend([(0, names.0), (1, names.1)]))
                    (chart.render())
                }
                (scroll(html! {
                    table {
                        caption { "Violation rates and the paired test" }
                        thead { tr {
                            th scope="col" { "invariance" }
                            @if counted { th scope="col" { "texts changed" } }
                            th.num scope="col" { "student" } th.num scope="col" { "teacher" }
                            th.num scope="col" { "student − teacher" } th.num scope="col" { "Holm-adjusted p" }
                        } }
                        tbody {
                            @for r in rows {
                                tr {
                                    th scope="row" { (r.name) (stage_meta(suite, r.name)) }
                                    @if counted { td { (changed_cell(r.texts_changed, n)) } }
                                    td.num { (rate_with_interval(r.student)) }
                                    td.num { (rate_with_interval(r.teacher)) }
                                    td.num { (points_with_interval(&r.test.difference)) }
                                    // A no-op rewrite's test is in no family: its p is not adjusted.
                                    td.num { @if r.changed_nothing() { "—" } @else { (p_value(r.test.p)) } }
                                }
                            }
                        }
                    }
                }))
            }
        }
    }
}

fn validity_section(a: &ExtractAnalysis, ids: &Ids) -> Markup {
    let v = &a.clean.schema_validity;
    let chart = IntervalChart {
        id: ids.next(),
        title: "Schema validity of the clean records".to_owned(),
        desc: format!(
            "Fraction of clean records that are complete and grounded: student {}, teacher {}.",
            rate_with_interval(&v.student),
            rate_with_interval(&v.teacher)
        ),
        axis_label: "complete and grounded records".to_owned(),
        groups: vec![IntervalGroup {
            heading: "schema validity".to_owned(),
            rows: vec![
                interval_row("student", 0, &v.student),
                interval_row("teacher", 1, &v.teacher),
            ],
        }],
    };
    html! {
        section.validity {
            h3 { "Schema validity" }
            p.note { "A record is valid when every expected field is present with a value and every value occurs in its source text." }
            div.charts {
                figure { (chart.render()) }
                (scroll(html! {
                    table {
                        caption { "Valid clean records" }
                        tbody {
                            tr { th scope="row" { "student" } td.num { (rate_with_interval(&v.student)) } }
                            tr { th scope="row" { "teacher" } td.num { (rate_with_interval(&v.teacher)) } }
                        }
                    }
                }))
            }
        }
    }
}

/// The F1 heat map: fields (and the micro F1 over all of them) × stages.
fn heat_map_section(a: &ExtractAnalysis, fields: Option<&FieldBreakdown>) -> Markup {
    let mut stages: Vec<(String, &'static str)> = vec![("clean".to_owned(), "clean")];
    stages.extend(a.corruptions.keys().map(|k| (k.clone(), "corruption")));
    stages.extend(a.invariances.keys().map(|k| (k.clone(), "invariance")));
    let micro: Vec<Option<f64>> = std::iter::once(a.clean.f1.estimate)
        .chain(a.corruptions.values().map(|c| c.student_f1.estimate))
        .chain(a.invariances.values().map(|i| i.student_f1.estimate))
        .collect();
    let mut rows: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    // Keys the student made up (only ever false positives) are counted, not mapped: a typo in
    // a key name would otherwise add a row of zeros per misspelling.
    let mut made_up: Vec<String> = Vec::new();
    if let Some(b) = fields {
        let reports = || b.corruptions.values().chain(b.invariances.values());
        let mut names: Vec<&String> = b.clean.keys().collect();
        for r in reports() {
            names.extend(r.student.keys());
        }
        names.sort();
        names.dedup();
        for name in names {
            let counts = std::iter::once(b.clean.get(name))
                .chain(reports().map(|r| r.student.get(name)))
                .flatten();
            let referenced = counts.clone().any(|c| c.tp + c.fn_ > 0);
            if !referenced {
                // Named as the report's JSON names them (`[1]` for a key that is not a `str`).
                made_up.push(key_label(name).into_owned());
                continue;
            }
            let cells = std::iter::once(b.clean.get(name).map(|c| c.f1))
                .chain(a.corruptions.keys().map(|k| {
                    b.corruptions
                        .get(k)
                        .and_then(|r| r.student.get(name))
                        .map(|c| c.f1)
                }))
                .chain(a.invariances.keys().map(|k| {
                    b.invariances
                        .get(k)
                        .and_then(|r| r.student.get(name))
                        .map(|c| c.f1)
                }))
                .collect();
            rows.push((key_label(name).into_owned(), cells));
        }
    }
    html! {
        section.heat-map {
            h3 { "F1 per field and stage" }
            p.note {
                "The student's F1 per field: against the gold (the teacher's clean records) on clean and corrupted texts, "
                "against its own clean records under invariances. Darker is higher; each cell shows its value."
            }
            @if !made_up.is_empty() {
                p.note { "The student also produced " (made_up.len()) " key" @if made_up.len() != 1 { "s" }
                    " that no reference record has (false positives only, not mapped): "
                    @for (k, name) in made_up.iter().take(12).enumerate() { @if k > 0 { ", " } span.spec { (name) } }
                    @if made_up.len() > 12 { ", …" } @else { "." } }
            }
            @if fields.is_none() {
                p.note { "This report carries no per-field breakdown (a top-level " code { "fields" } " object), "
                    "so only the micro F1 over all fields is shown." }
            }
            (scroll(html! {
                table.heat {
                    caption { "Student F1, fields × stages" }
                    thead { tr {
                        th scope="col" { "field" }
                        @for (stage, kind) in &stages { th scope="col" title=(kind) { (stage) } }
                    } }
                    tbody {
                        @for (name, cells) in &rows {
                            tr { th scope="row" { span.spec { (name) } } @for v in cells { (heat_cell(*v)) } }
                        }
                        tr.micro { th scope="row" { "all fields (micro)" } @for v in &micro { (heat_cell(*v)) } }
                    }
                }
            }))
        }
    }
}

pub(crate) fn heat_cell(value: Option<f64>) -> Markup {
    let shade = heat(value);
    html! {
        td.cell.w[shade.is_some_and(|h| h.1)] style=[shade.map(|h| format!("--l:{}%", h.0))] {
            @match value { Some(v) => (format!("{v:.2}")), None => "—" }
        }
    }
}

/// The baseline selective agreement is read against: the same agreement as the abstention
/// counts measure it — labels equal for a classifier, an exact record match for an extractor
/// — over every clean text (an extractor's F1 is another measure and would make escalating
/// look harmful or helpful by the difference of the two).
pub(crate) fn abstention_baseline(report: &ProfileReport) -> Option<Interval> {
    let counts = match &report.counts {
        Counts::Classify(c) => c.abstention,
        Counts::Extract(c) => c.abstention,
    }?;
    let all = counts.all();
    Some(wilson(all.agree, all.n(), report.settings.level))
}

/// What "agreement" is in the abstention tables of a task.
fn agreement_measure(task: profile_stats::Task) -> &'static str {
    match task {
        profile_stats::Task::Classify => "agreement (equal labels)",
        profile_stats::Task::Extract => "agreement (exact record match)",
    }
}

/// The sides with a decision API: (name, style, figures).
fn deciding_sides(a: &AbstentionAnalysis) -> Vec<(&'static str, usize, &analysis::SideAbstention)> {
    [("student", 0, &a.student), ("teacher", 1, &a.teacher)]
        .into_iter()
        .filter_map(|(name, style, side)| side.as_ref().map(|s| (name, style, s)))
        .collect()
}

/// The abstention table's rows of one report: each deciding side, the texts both answered and
/// all clean texts (the baseline); `who` prefixes the side's name (a comparison's alias).
fn abstention_rows(a: &AbstentionAnalysis, baseline: &Interval, who: Option<&str>) -> Markup {
    let name = |side: &str| {
        html! { @if let Some(who) = who { bdi { (who) } ": " } (side) }
    };
    html! {
        @for (side, _, s) in deciding_sides(a) {
            tr {
                th scope="row" { (name(side)) }
                td.num { (rate_with_interval(&s.coverage)) }
                td.num { (rate_with_interval(&s.selective_agreement)) }
                td.num { (rate_with_interval(&s.escalated_where_disagreeing)) }
                td.num { (rate_with_interval(&s.disagreements_escalated)) }
            }
        }
        tr {
            th scope="row" { (name("both answered")) }
            td.num { (rate_with_interval(&a.both_answered.coverage)) }
            td.num { (rate_with_interval(&a.both_answered.agreement)) }
            td.num { "—" } td.num { "—" }
        }
        tr {
            th scope="row" { (name("all clean texts")) }
            td.num { "100.0 %" }
            td.num { (rate_with_interval(baseline)) }
            td.num { "—" } td.num { "—" }
        }
    }
}

fn abstention_table(task: profile_stats::Task, rows: Markup) -> Markup {
    scroll(html! {
        table {
            caption { "Selective prediction on the clean texts; " (agreement_measure(task)) " on the texts answered" }
            thead { tr {
                th scope="col" { "side" } th.num scope="col" { "coverage" } th.num scope="col" { "selective agreement" }
                th.num scope="col" { "escalated where disagreeing" } th.num scope="col" { "disagreements escalated" }
            } }
            tbody { (rows) }
        }
    })
}

/// Abstention: coverage and selective agreement of each side with a decision API, against the
/// same agreement over all clean texts.
pub(crate) fn abstention_section(
    report: &ProfileReport,
    a: &AbstentionAnalysis,
    ids: &Ids,
) -> Markup {
    let Some(baseline) = abstention_baseline(report) else {
        return html! {};
    };
    let sides = deciding_sides(a);
    let measure = agreement_measure(report.task());
    let chart = IntervalChart {
        id: ids.next(),
        title: "Coverage and selective agreement".to_owned(),
        desc: format!(
            "For each side with a decision API, the fraction of clean texts it answered (coverage) \
             and the {measure} on the texts it answered (selective agreement), with intervals. {} \
             The same agreement on all clean texts: {}.",
            sides
                .iter()
                .map(|(name, _, s)| format!(
                    "{name}: coverage {}, selective agreement {}",
                    percent(s.coverage.estimate),
                    percent(s.selective_agreement.estimate)
                ))
                .collect::<Vec<_>>()
                .join("; "),
            percent(baseline.estimate)
        ),
        axis_label: "fraction of clean texts".to_owned(),
        groups: sides
            .iter()
            .map(|(name, style, s)| IntervalGroup {
                heading: format!("{name} decides"),
                rows: vec![
                    interval_row("coverage", *style, &s.coverage),
                    interval_row("selective agr.", *style, &s.selective_agreement),
                ],
            })
            .chain(std::iter::once(IntervalGroup {
                heading: "both answer".to_owned(),
                rows: vec![
                    interval_row("coverage", 2, &a.both_answered.coverage),
                    interval_row("agreement", 2, &a.both_answered.agreement),
                ],
            }))
            .chain(std::iter::once(IntervalGroup {
                heading: "all clean texts".to_owned(),
                rows: vec![interval_row("agreement", 3, &baseline)],
            }))
            .collect(),
    };
    html! {
        section.abstention id=(ids.section("abstention")) {
            h3 { "Abstention" }
            p.note { "The " (measure) " on all clean texts is " (percent(baseline.estimate)) ". Escalating well raises the same agreement on the texts a side answers (selective agreement) above it, at the cost of coverage." }
            div.stack {
                figure { (chart.render()) }
                (abstention_table(report.task(), abstention_rows(a, &baseline, None)))
            }
        }
    }
}

/// A comparison's abstention: one table, every student's rows under its alias (the chart is
/// on each student's own profile page).
pub(crate) fn comparison_abstention(
    students: &[(&str, &ProfileReport, &AbstentionAnalysis)],
    ids: &Ids,
) -> Markup {
    let Some((_, first, _)) = students.first() else {
        return html! {};
    };
    let measure = agreement_measure(first.task());
    html! {
        section.abstention id=(ids.section("abstention")) {
            h3 { "Abstention" }
            p.note { "Per student: each side with a decision API (the teacher's selective agreement is with that student), the texts both answered and all clean texts, where the " (measure) " is the baseline escalating should raise." }
            (abstention_table(first.task(), html! {
                @for (alias, report, a) in students {
                    @if let Some(baseline) = abstention_baseline(report) {
                        (abstention_rows(a, &baseline, Some(alias)))
                    }
                }
            }))
        }
    }
}

/// The probes' raw predictions, one column per model (the first is the reference every other
/// column is compared with); rows where any prediction differs from the first are highlighted.
///
/// `texts` are the probe texts when the report carries them (`suite.probe_texts`, which the
/// command line records): each row then shows its probe's text, not only its number.
pub(crate) fn probes_section(columns: &[(&str, &Vec<Label>)], texts: Option<&[String]>) -> Markup {
    let rows = columns.iter().map(|c| c.1.len()).max().unwrap_or(0);
    let texts = texts.filter(|t| t.len() == rows);
    let cell = |c: usize, r: usize| columns.get(c).and_then(|col| col.1.get(r));
    let differs = |r: usize| {
        let first = cell(0, r).map(|l| py_str(l).into_owned());
        (1..columns.len()).any(|c| cell(c, r).map(|l| py_str(l).into_owned()) != first)
    };
    let differing = (0..rows).filter(|&r| differs(r)).count();
    html! {
        section.probes {
            h3 { "Probes" }
            p.note { "Raw predictions on the suite's probes. "
                (differing) " of " (rows) " rows differ; they are highlighted and marked ≠ (labels compared by their Python " code { "str()" } " form, as the profile compares them)." }
            (scroll(html! {
                table.probes {
                    caption { "Probe predictions" }
                    thead { tr {
                        th.num scope="col" { "probe" }
                        @if texts.is_some() { th scope="col" { "text" } }
                        @for (name, _) in columns { th scope="col" { (name) } }
                        th scope="col" { "same?" }
                    } }
                    tbody {
                        @for r in 0..rows {
                            tr.differs[differs(r)] {
                                td.num { (r + 1) }
                                @if let Some(texts) = texts {
                                    td.text { @match texts.get(r).map(String::as_str) {
                                        Some("") => em { "(empty text)" },
                                        Some(t) => span.spec { (t) },
                                        None => "—",
                                    } }
                                }
                                @for c in 0..columns.len() {
                                    td.text { @match cell(c, r) { Some(l) => span.spec { (py_str(l)) }, None => "—" } }
                                }
                                td { @if differs(r) { span.mark { "≠ differs" } } @else { "same" } }
                            }
                        }
                    }
                }
            }))
        }
    }
}

/// How the figures were computed.
/// Whether the report's teacher answered a sample of the transformed texts only.
pub(crate) fn sampled(report: &ProfileReport) -> bool {
    matches!(&report.counts, Counts::Classify(c) if c.sample.is_some())
}

pub(crate) fn methods(level: f64, sampled: bool) -> Markup {
    html! {
        section.methods {
            h3 { "Methods" }
            ul.note {
                li { "Rates carry " (format!("{:.0} %", level * 100.0)) " Wilson score intervals; micro F1 carries Wilson's interval of the micro Jaccard index J = tp / (tp + fp + fn) at the effective number of fields (the design effect of texts, from the delta-method variance, never below 1), mapped to F1 = 2J / (1 + J): never of zero width." }
                li { "Paired comparisons (clean vs corrupted, student vs teacher, student vs student) use McNemar's test without continuity correction (the score test; Fagerland, Lydersen & Laake 2013) and Tango's score interval of the difference (Tango 1998), which is that test inverted: an interval excludes 0 exactly when its test rejects. "
                    "Every p-value on the page is Holm-adjusted over all the page's paired tests (Holm 1979), and each interval is at the level of the Holm step that decided it; "
                    "a difference is called significant when the adjusted p < " (number(((1.0 - level) * 1e9).round() / 1e9)) "." }
                li { "Severity curves pool the stages of equal severity; the break-even severity is interpolated linearly where a curve first falls below the threshold; the area is normalised by the largest severity." }
                @if sampled {
                    li { "Figures marked (estimated): the teacher answered the corrupted and rewritten versions of a seeded uniform sample of the texts only. Each is a power-tuned prediction-powered estimate (PPI++) of the full profile's value, from the sampled texts' teacher answers and a surrogate on every text (the student's answer against the teacher's clean answer; the student's own change), with a normal interval (a difference's at the level of its Holm step, as Tango's are), widened to include the sample's score interval where the estimate rests on fewer than 10 sampled events (the report's few_events); the p-value of such a stage is the inversion of its difference's own interval (Holm-adjusted with the rest), so the two never disagree; with no sampled text the estimates are unavailable, never replaced by the student's figures; their curve points are the estimates, and each curve's area and break-even severity are computed from them (point estimates, without an interval)." }
                }
            }
        }
    }
}
