//! Plain inline SVG charts, built by hand: a line chart with interval bands (severity curves),
//! an interval chart (rates with their intervals, side by side), bar charts and stacked bars
//! (parts of a whole: who moved on each new disagreement).
//!
//! Each chart first computes its geometry — where every point, band and mark lands in the
//! chart's view box — as plain numbers ([`LineChart::geometry`], [`IntervalChart::geometry`]),
//! then writes it as SVG with maud, which escapes every label. The geometry is unit-tested:
//! points land where the numbers say. Text uses the generic `sans-serif` family (no font file,
//! nothing fetched); every chart carries a `<title>` and a `<desc>` and is drawn beside a table
//! of the same numbers. Series differ by dash pattern and marker shape as well as by colour, so
//! they stay apart in greyscale.

use maud::{Markup, html};

/// A linear map from a domain interval to a range interval (pixels of the view box).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    d0: f64,
    d1: f64,
    r0: f64,
    r1: f64,
}

impl Scale {
    /// Maps `domain.0 → range.0` and `domain.1 → range.1` (the range may be inverted).
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Scale {
        Scale {
            d0: domain.0,
            d1: domain.1,
            r0: range.0,
            r1: range.1,
        }
    }

    /// Where `v` lands; an empty domain maps everything to the middle of the range.
    pub fn map(&self, v: f64) -> f64 {
        let span = self.d1 - self.d0;
        if span == 0.0 || !span.is_finite() {
            return (self.r0 + self.r1) / 2.0;
        }
        self.r0 + (v - self.d0) / span * (self.r1 - self.r0)
    }
}

/// A view box and the margins around its plot area.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// View-box width.
    pub width: f64,
    /// View-box height.
    pub height: f64,
    /// Left margin (axis labels).
    pub left: f64,
    /// Right margin.
    pub right: f64,
    /// Top margin.
    pub top: f64,
    /// Bottom margin (axis labels).
    pub bottom: f64,
}

impl Frame {
    /// The frame of a 440-wide chart of horizontal bars: `rows` units of bars from the top
    /// (8), an axis of ticks under them (36), labels in the `left` margin, values in the
    /// `right` one.
    pub fn of_rows(rows: f64, left: f64, right: f64) -> Frame {
        let (top, bottom) = (8.0, 36.0);
        Frame {
            width: 440.0,
            height: top + rows + bottom,
            left,
            right,
            top,
            bottom,
        }
    }

    /// The horizontal scale of the plot area for `domain`.
    pub fn x(&self, domain: (f64, f64)) -> Scale {
        Scale::new(domain, (self.left, self.width - self.right))
    }

    /// The vertical scale of the plot area for `domain` (larger values higher up).
    pub fn y(&self, domain: (f64, f64)) -> Scale {
        Scale::new(domain, (self.height - self.bottom, self.top))
    }
}

/// How a series is drawn: a colour, a dash pattern and a marker shape, distinct in greyscale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesStyle {
    /// Stroke and fill colour.
    pub colour: &'static str,
    /// `stroke-dasharray` (`""` for solid).
    pub dash: &'static str,
    /// Marker shape.
    pub marker: Marker,
}

/// A marker shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled square.
    Square,
    /// A filled triangle.
    Triangle,
    /// A filled diamond.
    Diamond,
    /// A hollow circle.
    Ring,
    /// A hollow square.
    HollowSquare,
    /// A hollow triangle.
    HollowTriangle,
    /// A hollow diamond.
    HollowDiamond,
}

/// Series colours, cycled (7, prime to the 8 markers: colour and marker together repeat only
/// after 56 series).
pub const COLOURS: [&str; 7] = [
    "#1a1a1a", "#767676", "#0a5fb4", "#a34b00", "#5b3a8c", "#1b7a3a", "#b0105a",
];

/// Dash patterns, cycled (`""` is solid).
pub const DASHES: [&str; 5] = ["", "7 4", "2 3", "10 3 2 3", "4 2"];

/// Marker shapes, cycled.
pub const MARKERS: [Marker; 8] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Ring,
    Marker::HollowSquare,
    Marker::HollowTriangle,
    Marker::HollowDiamond,
];

/// How many series [`style`] tells apart by colour and marker together (7 × 8).
pub const DISTINCT_STYLES: usize = COLOURS.len() * MARKERS.len();

/// The style of series `index`: series 0 is the student (black, solid, circles), 1 the teacher
/// (grey, dashed, squares), further students after. Colour, dash and marker cycle through
/// lists of coprime lengths, so any two of the first [`DISTINCT_STYLES`] series differ in
/// their colour and marker pair (a greyscale print still tells them apart by marker and dash).
pub fn style(index: usize) -> SeriesStyle {
    SeriesStyle {
        colour: COLOURS[index % COLOURS.len()],
        dash: DASHES[index % DASHES.len()],
        marker: MARKERS[index % MARKERS.len()],
    }
}

/// One point of a curve: `y` and its band are fractions in `[0, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    /// Severity.
    pub x: f64,
    /// The value, `None` when undefined (the line breaks there).
    pub y: Option<f64>,
    /// The interval `(lower, upper)` drawn as a band.
    pub band: Option<(f64, f64)>,
}

/// One curve of a line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The legend's name for it.
    pub name: String,
    /// Its style index ([`style`]).
    pub style: usize,
    /// The points, the clean point (severity 0) first, severities increasing.
    pub points: Vec<CurvePoint>,
    /// Where it first falls below the threshold, if it does.
    pub break_even: Option<f64>,
}

/// A line chart of rates against severity, with interval bands, the clean point ringed, a
/// threshold line and each curve's break-even severity marked.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// A page-unique id (ASCII, never user text): prefixes the title and desc ids.
    pub id: String,
    /// The chart's title (`<title>`).
    pub title: String,
    /// Its description (`<desc>`): what it shows, in words.
    pub desc: String,
    /// The x axis.
    pub x_label: String,
    /// The y axis.
    pub y_label: String,
    /// The curves.
    pub curves: Vec<Curve>,
    /// The break-even threshold, drawn as a horizontal line.
    pub threshold: Option<f64>,
}

/// Where a curve's pieces land in the view box.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveGeometry {
    /// Polylines (a new one after every undefined point).
    pub lines: Vec<Vec<(f64, f64)>>,
    /// The band's polygon: upper limits left to right, then lower limits right to left.
    pub band: Vec<(f64, f64)>,
    /// Markers at the defined points.
    pub markers: Vec<(f64, f64)>,
    /// The clean point (severity 0), ringed.
    pub clean: Option<(f64, f64)>,
    /// The break-even mark's x, if any.
    pub break_even: Option<f64>,
}

/// Where a line chart's pieces land.
#[derive(Debug, Clone, PartialEq)]
pub struct LineGeometry {
    /// The frame.
    pub frame: Frame,
    /// The severity axis' largest value.
    pub x_max: f64,
    /// Ticks of the x axis: (severity, x), labels at least 34 units apart.
    pub x_ticks: Vec<(f64, f64)>,
    /// Ticks of the y axis: (value, y).
    pub y_ticks: Vec<(f64, f64)>,
    /// The y axis' range: `(0, 1)`, or zoomed to the data ([`LineChart::y_domain`]).
    pub y_domain: (f64, f64),
    /// The threshold line's y.
    pub threshold: Option<f64>,
    /// Per curve.
    pub curves: Vec<CurveGeometry>,
    /// The chart's notes ("clean", the threshold, each break-even severity), placed so that no
    /// two overlap; a note that fits nowhere is dropped (the table beside has its number).
    pub notes: Vec<Note>,
}

/// A short text placed in the plot area.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// The text.
    pub text: String,
    /// Its colour, when not the default.
    pub colour: Option<&'static str>,
    /// Anchor point (`text-anchor="end"` when `end`, else start) and baseline.
    pub x: f64,
    /// Baseline.
    pub y: f64,
    /// Right-aligned at `x`.
    pub end: bool,
}

impl Note {
    /// The box the text is estimated to cover: `(left, top, right, bottom)`, at 12 px
    /// sans-serif (about 7 units per character at most, 12 above the baseline, 4 below).
    pub fn bbox(&self) -> (f64, f64, f64, f64) {
        let width = NOTE_CHAR * self.text.chars().count() as f64;
        let left = if self.end { self.x - width } else { self.x };
        (left, self.y - 12.0, left + width, self.y + 4.0)
    }
}

/// Estimated width of one character of a note (12 px sans-serif; generous, digits and
/// lower-case letters are narrower).
const NOTE_CHAR: f64 = 7.0;

/// Whether two boxes `(left, top, right, bottom)` overlap.
pub fn overlaps(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Whether the segment `a`–`z` passes through the box `(left, top, right, bottom)`: the
/// segment clipped to the box's x range, then its y range compared (Liang–Barsky in one axis).
fn crosses(b: (f64, f64, f64, f64), a: (f64, f64), z: (f64, f64)) -> bool {
    let (lo, hi) = if a.0 <= z.0 { (a, z) } else { (z, a) };
    if hi.0 < b.0 || lo.0 > b.2 {
        return false;
    }
    let y_at = |x: f64| {
        if hi.0 == lo.0 {
            lo.1
        } else {
            lo.1 + (hi.1 - lo.1) * (x - lo.0) / (hi.0 - lo.0)
        }
    };
    let (xa, xz) = (lo.0.max(b.0), hi.0.min(b.2));
    let (ya, yz) = if hi.0 == lo.0 {
        (lo.1.min(hi.1), lo.1.max(hi.1))
    } else {
        (y_at(xa).min(y_at(xz)), y_at(xa).max(y_at(xz)))
    };
    ya < b.3 && yz > b.1
}

/// At most this many markers per curve: beyond it markers are thinned to every k-th point (the
/// line and the table carry every point; markers only tell the series apart).
const MAX_MARKERS: usize = 13;

/// The line chart's frame: a 440 × 280 view box (small, so that its text stays legible when
/// the chart shrinks to a phone's width).
pub const LINE_FRAME: Frame = Frame {
    width: 440.0,
    height: 280.0,
    left: 52.0,
    right: 16.0,
    top: 28.0,
    bottom: 46.0,
};

impl LineChart {
    /// The y axis' range: from 0 to 1 unless every value, band and the threshold lie in a
    /// narrower range, then zoomed to it on round ticks (so that an 84–98 % curve is not
    /// squashed into the top sixth). Zoomed only when it at least halves the range.
    pub fn y_domain(&self) -> (f64, f64) {
        let values = self
            .curves
            .iter()
            .flat_map(|c| c.points.iter())
            .flat_map(|p| {
                let band = p.band.map_or([None, None], |(lo, hi)| [Some(lo), Some(hi)]);
                [p.y, band[0], band[1]]
            })
            .chain(std::iter::once(self.threshold))
            .flatten()
            .filter(|v| v.is_finite())
            .map(|v| v.clamp(0.0, 1.0));
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        if lo > hi {
            return (0.0, 1.0);
        }
        // The finest step that covers the data in at most five intervals.
        for step in [0.01, 0.02, 0.05, 0.1, 0.25] {
            let from = ((lo / step) + 1e-9).floor() * step;
            let to = (((hi / step) - 1e-9).ceil() * step)
                .min(1.0)
                .max(from + step);
            if (to - from) / step <= 5.0 + 1e-9 {
                return if to - from <= 0.5 {
                    (from, to)
                } else {
                    (0.0, 1.0)
                };
            }
        }
        (0.0, 1.0)
    }

    /// Words for a zoomed y axis ("The y axis runs from 80 % to 100 %, not from 0."), or
    /// `None` when it runs from 0 to 100 %.
    pub fn zoom_note(&self) -> Option<String> {
        let (from, to) = self.y_domain();
        ((from, to) != (0.0, 1.0)).then(|| {
            format!(
                "The y axis runs from {} to {}, not from 0 to 100 %: it is zoomed to the data.",
                tick_percent(from),
                tick_percent(to)
            )
        })
    }

    /// Where every piece lands in [`LINE_FRAME`]: x from 0 to the largest severity, y over
    /// [`LineChart::y_domain`].
    pub fn geometry(&self) -> LineGeometry {
        let frame = LINE_FRAME;
        let x_max = self
            .curves
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.x))
            .filter(|x| x.is_finite())
            .fold(0.0_f64, f64::max);
        let x_max = if x_max > 0.0 { x_max } else { 1.0 };
        let xs = frame.x((0.0, x_max));
        let y_domain = self.y_domain();
        let ys = frame.y(y_domain);
        let at = |x: f64, y: f64| (xs.map(x), ys.map(y.clamp(y_domain.0, y_domain.1)));
        let curves: Vec<CurveGeometry> = self
            .curves
            .iter()
            .map(|curve| {
                let mut lines: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
                let mut markers = Vec::new();
                for p in &curve.points {
                    match p.y {
                        Some(y) if y.is_finite() => {
                            let point = at(p.x, y);
                            markers.push(point);
                            if let Some(line) = lines.last_mut() {
                                line.push(point);
                            }
                        }
                        _ => lines.push(Vec::new()),
                    }
                }
                lines.retain(|l| !l.is_empty());
                let every = markers.len().div_ceil(MAX_MARKERS).max(1);
                let markers = markers.into_iter().step_by(every).collect();
                let banded: Vec<(f64, f64, f64)> = curve
                    .points
                    .iter()
                    .filter_map(|p| p.band.map(|(lo, hi)| (p.x, lo, hi)))
                    .collect();
                let band = banded
                    .iter()
                    .map(|&(x, _, hi)| at(x, hi))
                    .chain(banded.iter().rev().map(|&(x, lo, _)| at(x, lo)))
                    .collect();
                let clean = curve
                    .points
                    .iter()
                    .find(|p| p.x == 0.0)
                    .and_then(|p| p.y.filter(|y| y.is_finite()))
                    .map(|y| at(0.0, y));
                CurveGeometry {
                    lines,
                    band,
                    markers,
                    clean,
                    break_even: curve.break_even.map(|x| xs.map(x.clamp(0.0, x_max))),
                }
            })
            .collect();
        let mut severities: Vec<f64> = self
            .curves
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.x))
            .filter(|x| x.is_finite())
            .collect();
        severities.sort_by(f64::total_cmp);
        severities.dedup();
        let mut x_ticks: Vec<(f64, f64)> = Vec::new();
        for s in severities {
            let x = xs.map(s);
            if x_ticks.last().is_none_or(|&(_, last)| x - last >= 34.0) {
                x_ticks.push((s, x));
            }
        }
        let y_ticks = if y_domain == (0.0, 1.0) {
            [0.0, 0.25, 0.5, 0.75, 1.0]
                .into_iter()
                .map(|v| (v, ys.map(v)))
                .collect()
        } else {
            let span = y_domain.1 - y_domain.0;
            let step = [0.01, 0.02, 0.05, 0.1, 0.25]
                .into_iter()
                .find(|s| span / s <= 5.0 + 1e-9)
                .unwrap_or(0.25);
            let count = (span / step).round() as usize;
            (0..=count)
                .map(|k| {
                    let v = y_domain.0 + step * k as f64;
                    (v, ys.map(v))
                })
                .collect()
        };
        let threshold = self
            .threshold
            .map(|t| ys.map(t.clamp(y_domain.0, y_domain.1)));
        let notes = self.place_notes(frame, threshold, &curves);
        LineGeometry {
            frame,
            x_max,
            x_ticks,
            y_ticks,
            y_domain,
            threshold,
            curves,
            notes,
        }
    }

    /// The notes, placed greedily: the threshold's first, then "clean", then each curve's
    /// break-even severity; each at the first of its candidate places inside the plot area
    /// where it overlaps no note placed before and no clean ring, or dropped.
    fn place_notes(
        &self,
        frame: Frame,
        threshold: Option<f64>,
        curves: &[CurveGeometry],
    ) -> Vec<Note> {
        let (x0, x1) = (frame.left, frame.width - frame.right);
        let (y0, y1) = (frame.height - frame.bottom, frame.top);
        let inside = |b: (f64, f64, f64, f64)| b.0 >= x0 && b.2 <= x1 && b.1 >= y1 && b.3 <= y0;
        let rings: Vec<(f64, f64, f64, f64)> = curves
            .iter()
            .filter_map(|c| c.clean)
            .map(|(x, y)| (x - 9.0, y - 9.0, x + 9.0, y + 9.0))
            .collect();
        let segments: Vec<((f64, f64), (f64, f64))> = curves
            .iter()
            .flat_map(|c| c.lines.iter())
            .flat_map(|l| l.windows(2).map(|w| (w[0], w[1])))
            .collect();
        let mut placed: Vec<Note> = Vec::new();
        // Each curve's break-even line: another curve's break-even label never crosses it (a
        // label across a neighbour's line reads as the neighbour's, issue 36).
        let verticals: Vec<Option<f64>> = curves.iter().map(|c| c.break_even).collect();
        // A place clear of the curves' lines is preferred; failing that, one that at least
        // overlaps no other note, no clean ring and no other curve's break-even line; failing
        // that, the note is dropped.
        let place = |candidates: Vec<Note>, own: Option<usize>, placed: &mut Vec<Note>| {
            let free = |c: &Note| {
                let b = c.bbox();
                inside(b)
                    && !rings.iter().any(|r| overlaps(b, *r))
                    && !placed.iter().any(|p| overlaps(b, p.bbox()))
                    && !verticals.iter().enumerate().any(|(k, x)| {
                        own.is_some_and(|o| o != k)
                            && x.is_some_and(|x| b.0 - 1.0 < x && x < b.2 + 1.0)
                    })
            };
            let clear = |c: &Note| !segments.iter().any(|&(a, z)| crosses(c.bbox(), a, z));
            let best = candidates
                .iter()
                .position(|c| free(c) && clear(c))
                .or_else(|| candidates.iter().position(free));
            if let Some(k) = best {
                placed.push(candidates[k].clone());
            }
        };
        let note = |text: &str, colour, x, y, end| Note {
            text: text.to_owned(),
            colour,
            x,
            y,
            end,
        };
        if let (Some(y), Some(t)) = (threshold, self.threshold) {
            let text = format!("threshold {}", crate::format::percent(Some(t)));
            place(
                vec![
                    note(&text, None, x1 - 4.0, y - 5.0, true),
                    note(&text, None, x1 - 4.0, y + 15.0, true),
                    note(&text, None, x0 + 24.0, y - 5.0, false),
                    note(&text, None, x0 + 24.0, y + 15.0, false),
                ],
                None,
                &mut placed,
            );
        }
        if let Some((x, y)) = curves.iter().find_map(|c| c.clean) {
            place(
                [-10.0, 20.0, -24.0, 34.0]
                    .into_iter()
                    .map(|dy| note("clean", None, x + 10.0, y + dy, false))
                    .collect(),
                None,
                &mut placed,
            );
        }
        for (k, (curve, geometry)) in self.curves.iter().zip(curves).enumerate() {
            // A curve already below on the clean texts has its break-even at the y axis: the
            // caption says so, and a label there would only crowd the clean points.
            if let (Some(x), Some(s)) = (geometry.break_even, curve.break_even.filter(|s| *s > 0.0))
            {
                let text = format!("break-even {}", crate::format::interpolated(s));
                let colour = Some(style(curve.style).colour);
                let rows = ((y0 - y1 - 12.0) / 14.0).floor().max(0.0) as usize;
                let candidates = (0..=rows)
                    .flat_map(|r| {
                        let y = y1 + 12.0 + 14.0 * r as f64;
                        [
                            note(&text, colour, x + 4.0, y, false),
                            note(&text, colour, x - 4.0, y, true),
                        ]
                    })
                    .collect();
                place(candidates, Some(k), &mut placed);
            }
        }
        placed
    }

    /// The chart as an inline `<svg>`.
    pub fn render(&self) -> Markup {
        let g = self.geometry();
        let f = g.frame;
        let (x0, x1) = (f.left, f.width - f.right);
        let (y0, y1) = (f.height - f.bottom, f.top);
        let title_id = format!("{}-title", self.id);
        let desc_id = format!("{}-desc", self.id);
        html! {
            svg.chart viewBox=(format!("0 0 {} {}", f.width, f.height)) role="img"
                aria-labelledby=(format!("{title_id} {desc_id}")) {
                title id=(title_id) { (self.title) }
                desc id=(desc_id) { (self.desc) }
                g.grid {
                    @for &(v, y) in &g.y_ticks {
                        line x1=(n(x0)) x2=(n(x1)) y1=(n(y)) y2=(n(y)) {}
                        text.tick x=(n(x0 - 6.0)) y=(n(y + 4.0)) text-anchor="end" { (tick_percent(v)) }
                    }
                    @for &(s, x) in &g.x_ticks {
                        line x1=(n(x)) x2=(n(x)) y1=(n(y0)) y2=(n(y0 + 5.0)) {}
                        text.tick x=(n(x)) y=(n(y0 + 18.0)) text-anchor="middle" { (crate::format::number(s)) }
                    }
                }
                line.axis x1=(n(x0)) x2=(n(x1)) y1=(n(y0)) y2=(n(y0)) {}
                line.axis x1=(n(x0)) x2=(n(x0)) y1=(n(y0)) y2=(n(y1)) {}
                text.label x=(n((x0 + x1) / 2.0)) y=(n(f.height - 8.0)) text-anchor="middle" { (self.x_label) }
                // Above the axis, level: a rotated label beside the tick labels collides with
                // them once the text is enlarged on a phone.
                text.label x="4" y="14" { "↑ " (self.y_label) }
                @if let Some(y) = g.threshold {
                    line.threshold x1=(n(x0)) x2=(n(x1)) y1=(n(y)) y2=(n(y)) {}
                }
                @if g.y_domain.0 > 0.0 {
                    // A break in the y axis: it does not start at 0.
                    path.axis-break d=(format!("M{},{} l8,-4 M{},{} l8,-4", n(x0 - 4.0), n(y0 - 6.0), n(x0 - 4.0), n(y0 - 2.0))) {}
                }
                @for (curve, geometry) in self.curves.iter().zip(&g.curves) {
                    @let st = style(curve.style);
                    @if geometry.band.len() > 2 {
                        path.band.several[self.curves.len() > 1] d=(closed_path(&geometry.band)) fill=(st.colour) {}
                    }
                }
                @for (curve, geometry) in self.curves.iter().zip(&g.curves) {
                    @let st = style(curve.style);
                    @for line in &geometry.lines {
                        path.curve d=(open_path(line)) stroke=(st.colour) stroke-dasharray=[dash(st)] {}
                    }
                    @for &(x, y) in &geometry.markers {
                        (marker(st, x, y))
                    }
                    @if let Some(x) = geometry.break_even {
                        line.break-even x1=(n(x)) x2=(n(x)) y1=(n(y0)) y2=(n(y1)) stroke=(st.colour) {}
                    }
                }
                @for geometry in &g.curves {
                    @if let Some((x, y)) = geometry.clean {
                        circle.clean cx=(n(x)) cy=(n(y)) r="8" {}
                    }
                }
                @for note in &g.notes {
                    text.note x=(n(note.x)) y=(n(note.y)) text-anchor=[note.end.then_some("end")] fill=[note.colour] { (note.text) }
                }
            }
        }
    }
}

/// A y tick: whole percents (`85 %`).
fn tick_percent(v: f64) -> String {
    format!("{:.0} %", v * 100.0)
}

/// The legend of a set of series, as HTML (it wraps on narrow screens).
pub fn legend<'a>(entries: impl IntoIterator<Item = (usize, &'a str)>) -> Markup {
    html! {
        ul.legend {
            @for (index, name) in entries {
                li {
                    svg.swatch viewBox="0 0 36 14" aria-hidden="true" {
                        @let st = style(index);
                        line x1="2" x2="34" y1="7" y2="7" stroke=(st.colour) stroke-width="2" stroke-dasharray=[dash(st)] {}
                        (marker(st, 18.0, 7.0))
                    }
                    " " (name)
                }
            }
        }
    }
}

/// One row of an interval chart: a rate with its interval.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalRow {
    /// The row's label (truncated in the chart; the table beside it has it whole).
    pub label: String,
    /// Its style index ([`style`]).
    pub style: usize,
    /// The estimate, `None` when undefined.
    pub estimate: Option<f64>,
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
}

/// A group of rows under a heading (an invariance: student, teacher).
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalGroup {
    /// The heading.
    pub heading: String,
    /// The rows.
    pub rows: Vec<IntervalRow>,
}

/// Rates from 0 to 100 % with their intervals, in groups of rows drawn side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalChart {
    /// A page-unique id (ASCII, never user text).
    pub id: String,
    /// Title.
    pub title: String,
    /// Description.
    pub desc: String,
    /// The axis label.
    pub axis_label: String,
    /// The groups.
    pub groups: Vec<IntervalGroup>,
}

/// Where one interval row lands.
#[derive(Debug, Clone, PartialEq)]
pub struct RowGeometry {
    /// The row's centre line.
    pub y: f64,
    /// Whisker ends (lower, upper).
    pub whisker: (f64, f64),
    /// The estimate's x.
    pub estimate: Option<f64>,
}

/// Where an interval chart's pieces land.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalGeometry {
    /// The frame (its height grows with the rows).
    pub frame: Frame,
    /// Each group's heading baseline.
    pub headings: Vec<f64>,
    /// Each group's rows.
    pub rows: Vec<Vec<RowGeometry>>,
    /// Ticks: (value, x).
    pub ticks: Vec<(f64, f64)>,
}

/// Height of an interval row.
const ROW: f64 = 20.0;
/// Height of a group heading.
const HEADING: f64 = 22.0;

impl IntervalChart {
    /// Where every piece lands: x from 0 to 1 over the plot area, rows stacked from the top.
    pub fn geometry(&self) -> IntervalGeometry {
        let rows: usize = self.groups.iter().map(|g| g.rows.len()).sum();
        let top = 8.0;
        let height = top + HEADING * self.groups.len() as f64 + ROW * rows as f64 + 40.0;
        let frame = Frame {
            width: 440.0,
            height,
            left: 120.0,
            right: 72.0,
            top,
            bottom: 40.0,
        };
        let xs = frame.x((0.0, 1.0));
        let mut y = top;
        let mut headings = Vec::new();
        let mut geometry = Vec::new();
        for group in &self.groups {
            headings.push(y + 15.0);
            y += HEADING;
            let mut rows = Vec::new();
            for row in &group.rows {
                let centre = y + ROW / 2.0;
                rows.push(RowGeometry {
                    y: centre,
                    whisker: (
                        xs.map(row.lower.clamp(0.0, 1.0)),
                        xs.map(row.upper.clamp(0.0, 1.0)),
                    ),
                    estimate: row
                        .estimate
                        .filter(|e| e.is_finite())
                        .map(|e| xs.map(e.clamp(0.0, 1.0))),
                });
                y += ROW;
            }
            geometry.push(rows);
        }
        let ticks = quarter_ticks(xs);
        IntervalGeometry {
            frame,
            headings,
            rows: geometry,
            ticks,
        }
    }

    /// The chart as an inline `<svg>`.
    pub fn render(&self) -> Markup {
        let g = self.geometry();
        let f = g.frame;
        let (x0, x1) = (f.left, f.width - f.right);
        let body = html! {
                text.label x=(n((x0 + x1) / 2.0)) y=(n(f.height - 6.0)) text-anchor="middle" { (self.axis_label) }
                @for ((group, heading), rows) in self.groups.iter().zip(&g.headings).zip(&g.rows) {
                    text.heading x="4" y=(n(*heading)) { (truncate(&group.heading, 34)) }
                    @for (row, at) in group.rows.iter().zip(rows) {
                        @let st = style(row.style);
                        text.tick x=(n(x0 - 8.0)) y=(n(at.y + 4.0)) text-anchor="end" { (truncate_middle(&row.label, 14)) }
                        line.whisker x1=(n(at.whisker.0)) x2=(n(at.whisker.1)) y1=(n(at.y)) y2=(n(at.y)) stroke=(st.colour) {}
                        line.whisker x1=(n(at.whisker.0)) x2=(n(at.whisker.0)) y1=(n(at.y - 4.0)) y2=(n(at.y + 4.0)) stroke=(st.colour) {}
                        line.whisker x1=(n(at.whisker.1)) x2=(n(at.whisker.1)) y1=(n(at.y - 4.0)) y2=(n(at.y + 4.0)) stroke=(st.colour) {}
                        @if let Some(x) = at.estimate {
                            (marker(st, x, at.y))
                        }
                        text.value x=(n(x1 + 8.0)) y=(n(at.y + 4.0)) { (crate::format::percent(row.estimate)) }
                    }
                }
        };
        value_chart(
            (&self.id, &self.title, &self.desc),
            f,
            &g.ticks,
            tick_percent_whole,
            body,
        )
    }
}

/// One row of a bar chart: a label and one value in `[0, 1]` per series.
#[derive(Debug, Clone, PartialEq)]
pub struct BarRow {
    /// The row's label.
    pub label: String,
    /// One value per series.
    pub values: Vec<f64>,
}

/// Horizontal bars from 0 to 1, one bar per series in each row (the typo scores per task).
/// The first series is drawn solid and dark, the second light with a dark outline.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// A page-unique id (ASCII, never user text).
    pub id: String,
    /// Title.
    pub title: String,
    /// Description.
    pub desc: String,
    /// The series' names, in the order of each row's values.
    pub series: Vec<String>,
    /// The rows.
    pub rows: Vec<BarRow>,
}

/// Where one bar lands: its rectangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarGeometry {
    /// Left edge (the plot's left).
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width (the value's length).
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// Where a bar chart's pieces land.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChartGeometry {
    /// The frame (its height grows with the rows).
    pub frame: Frame,
    /// Each row's label baseline and its bars.
    pub rows: Vec<(f64, Vec<BarGeometry>)>,
    /// Ticks: (value, x).
    pub ticks: Vec<(f64, f64)>,
}

/// Height of one bar.
const BAR: f64 = 9.0;
/// Space between rows.
const BAR_GAP: f64 = 8.0;

/// Fill and outline of the bar series: dark solid, then light outlined.
const BAR_STYLES: [(&str, &str); 2] = [("#1a1a1a", "#1a1a1a"), ("#d9d9d9", "#1a1a1a")];

impl BarChart {
    /// Where every bar lands: x from 0 to 1 over the plot area, rows stacked from the top.
    pub fn geometry(&self) -> BarChartGeometry {
        let per_row = BAR * self.series.len().max(1) as f64 + BAR_GAP;
        let frame = Frame::of_rows(per_row * self.rows.len() as f64, 56.0, 96.0);
        let top = frame.top;
        let xs = frame.x((0.0, 1.0));
        let rows = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let y = top + per_row * i as f64;
                let bars = row
                    .values
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| BarGeometry {
                        x: frame.left,
                        y: y + BAR * k as f64,
                        width: xs.map(if v.is_finite() {
                            v.clamp(0.0, 1.0)
                        } else {
                            0.0
                        }) - frame.left,
                        height: BAR,
                    })
                    .collect();
                (y + per_row / 2.0, bars)
            })
            .collect();
        let ticks = quarter_ticks(xs);
        BarChartGeometry { frame, rows, ticks }
    }

    /// The chart as an inline `<svg>`.
    pub fn render(&self) -> Markup {
        let g = self.geometry();
        let f = g.frame;
        let body = html! {
                @for (row, (label_y, bars)) in self.rows.iter().zip(&g.rows) {
                    text.tick x=(n(f.left - 8.0)) y=(n(label_y + 4.0)) text-anchor="end" { (truncate(&row.label, 8)) }
                    @for (k, bar) in bars.iter().enumerate() {
                        @let (fill, stroke) = BAR_STYLES[k % BAR_STYLES.len()];
                        rect.bar x=(n(bar.x)) y=(n(bar.y)) width=(n(bar.width)) height=(n(bar.height)) fill=(fill) stroke=(stroke) {}
                    }
                    text.value x=(n(f.width - f.right + 8.0)) y=(n(label_y + 4.0)) {
                        (row.values.iter().map(|v| crate::format::score(*v)).collect::<Vec<_>>().join(" / "))
                    }
                }
        };
        value_chart(
            (&self.id, &self.title, &self.desc),
            f,
            &g.ticks,
            crate::format::score,
            body,
        )
    }

    /// The legend of the series (HTML).
    pub fn legend(&self) -> Markup {
        fill_legend(&BAR_STYLES, &self.series, None)
    }
}

/// One row of a stacked bar: a label and its parts (counts of texts), drawn as shares of their
/// total so that rows of very different sizes read alike; the total is written beside the bar.
#[derive(Debug, Clone, PartialEq)]
pub struct StackedRow {
    /// The row's label (truncated in the chart; the table beside it has it whole).
    pub label: String,
    /// One count per part, in the chart's part order.
    pub parts: Vec<u64>,
    /// A heading drawn on its own line above the row (a stage above its students' rows), so
    /// that a user's name is its own text and never shares one with another name.
    pub heading: Option<String>,
}

/// Horizontal bars split into parts (the new disagreements of each corruption, by whose answer
/// moved: teacher only, student only, both), each bar 0 to 100 % of its row's total.
#[derive(Debug, Clone, PartialEq)]
pub struct StackedBarChart {
    /// A page-unique id (ASCII, never user text).
    pub id: String,
    /// Title.
    pub title: String,
    /// Description: the text alternative, every number of the chart in words.
    pub desc: String,
    /// The parts' names, in the order of each row's counts.
    pub parts: Vec<String>,
    /// What a row's total counts (`new disagreements`), written after it.
    pub unit: String,
    /// The rows.
    pub rows: Vec<StackedRow>,
}

/// Where one part of a stacked bar lands (its rectangle spans the row's bar height).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentGeometry {
    /// Left edge.
    pub x: f64,
    /// Width (the part's share of the plot width).
    pub width: f64,
}

/// Where one stacked row lands.
#[derive(Debug, Clone, PartialEq)]
pub struct StackedRowGeometry {
    /// The baseline of the row's heading, when it has one.
    pub heading_y: Option<f64>,
    /// Top of the bar.
    pub y: f64,
    /// The label's baseline.
    pub label_y: f64,
    /// One segment per part (zero width for an empty part; none at all for an empty row).
    pub segments: Vec<SegmentGeometry>,
}

/// Where a stacked bar chart's pieces land.
#[derive(Debug, Clone, PartialEq)]
pub struct StackedGeometry {
    /// The frame (its height grows with the rows).
    pub frame: Frame,
    /// The rows.
    pub rows: Vec<StackedRowGeometry>,
    /// Ticks: (share, x).
    pub ticks: Vec<(f64, f64)>,
}

/// Height of a stacked bar.
const STACK_BAR: f64 = 14.0;
/// Space between stacked bars.
const STACK_GAP: f64 = 10.0;

/// Fill and outline of each part, in order: the teacher's grey and the student's black of the
/// line and interval charts ([`style`] 1 and 0), then light grey outlined for both: three
/// lightnesses, apart in greyscale too.
pub const STACK_STYLES: [(&str, &str); 3] = [
    ("#767676", "#767676"),
    ("#1a1a1a", "#1a1a1a"),
    ("#d9d9d9", "#1a1a1a"),
];

impl StackedBarChart {
    /// Where every segment lands: each row's parts side by side from the plot's left, their
    /// widths their shares of the row's total (an empty row has no segment).
    pub fn geometry(&self) -> StackedGeometry {
        let per_row = STACK_BAR + STACK_GAP;
        let headings = self.rows.iter().filter(|r| r.heading.is_some()).count();
        let frame = Frame::of_rows(
            per_row * self.rows.len() as f64 + HEADING * headings as f64,
            112.0,
            64.0,
        );
        let mut top = frame.top;
        let xs = frame.x((0.0, 1.0));
        let rows = self
            .rows
            .iter()
            .map(|row| {
                let heading_y = row.heading.as_ref().map(|_| {
                    top += HEADING;
                    top - HEADING + 15.0
                });
                let y = top + STACK_GAP / 2.0;
                top += per_row;
                let total: u64 = row.parts.iter().sum();
                let mut segments = Vec::new();
                if total > 0 {
                    let mut before = 0u64;
                    for &part in &row.parts {
                        let x = xs.map(before as f64 / total as f64);
                        before += part;
                        segments.push(SegmentGeometry {
                            x,
                            width: xs.map(before as f64 / total as f64) - x,
                        });
                    }
                }
                StackedRowGeometry {
                    heading_y,
                    y,
                    label_y: y + STACK_BAR / 2.0 + 4.0,
                    segments,
                }
            })
            .collect();
        let ticks = quarter_ticks(xs);
        StackedGeometry { frame, rows, ticks }
    }

    /// The chart as an inline `<svg>`.
    pub fn render(&self) -> Markup {
        let g = self.geometry();
        let f = g.frame;
        let body = html! {
                @for (row, at) in self.rows.iter().zip(&g.rows) {
                    @if let (Some(heading), Some(hy)) = (&row.heading, at.heading_y) {
                        text.heading x="4" y=(n(hy)) { (truncate(heading, 34)) }
                    }
                    text.tick x=(n(f.left - 8.0)) y=(n(at.label_y)) text-anchor="end" { (truncate(&row.label, 12)) }
                    @for (k, seg) in at.segments.iter().enumerate() {
                        @if seg.width > 0.0 {
                            @let (fill, stroke) = STACK_STYLES[k % STACK_STYLES.len()];
                            rect.segment x=(n(seg.x)) y=(n(at.y)) width=(n(seg.width)) height=(n(STACK_BAR)) fill=(fill) stroke=(stroke) {}
                        }
                    }
                    text.value x=(n(f.width - f.right + 8.0)) y=(n(at.label_y)) {
                        @match row.parts.iter().sum::<u64>() { 0 => "none", total => (total) }
                    }
                }
        };
        value_chart(
            (&self.id, &self.title, &self.desc),
            f,
            &g.ticks,
            tick_percent_whole,
            body,
        )
    }

    /// The legend of the parts (HTML), swatches drawn as the segments are.
    pub fn legend(&self) -> Markup {
        let unit = html! { li { "(number: " (self.unit) ")" } };
        fill_legend(&STACK_STYLES, &self.parts, Some(unit))
    }
}

/// The ticks of a 0 to 1 axis at every quarter: (value, x).
fn quarter_ticks(xs: Scale) -> Vec<(f64, f64)> {
    [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|v| (v, xs.map(v)))
        .collect()
}

/// A tick of a 0 to 100 % axis, in whole percent.
fn tick_percent_whole(v: f64) -> String {
    format!("{:.0} %", v * 100.0)
}

/// The `<svg>` of a chart whose values run left to right: its title and description (the text
/// alternative), a vertical grid line with its label at each tick (value, x), then `body`.
fn value_chart(
    (id, title, desc): (&str, &str, &str),
    f: Frame,
    ticks: &[(f64, f64)],
    tick_label: impl Fn(f64) -> String,
    body: Markup,
) -> Markup {
    let (y0, y1) = (f.height - f.bottom, f.top);
    let title_id = format!("{id}-title");
    let desc_id = format!("{id}-desc");
    html! {
        svg.chart viewBox=(format!("0 0 {} {}", f.width, n(f.height))) role="img"
            aria-labelledby=(format!("{title_id} {desc_id}")) {
            title id=(title_id) { (title) }
            desc id=(desc_id) { (desc) }
            g.grid {
                @for &(v, x) in ticks {
                    line x1=(n(x)) x2=(n(x)) y1=(n(y1)) y2=(n(y0)) {}
                    text.tick x=(n(x)) y=(n(y0 + 16.0)) text-anchor="middle" { (tick_label(v)) }
                }
            }
            (body)
        }
    }
}

/// The legend of filled series (bars, segments): a swatch drawn as the series is, then its
/// name; `extra` is a last item.
fn fill_legend(styles: &[(&str, &str)], names: &[String], extra: Option<Markup>) -> Markup {
    html! {
        ul.legend {
            @for (k, name) in names.iter().enumerate() {
                @let (fill, stroke) = styles[k % styles.len()];
                li {
                    svg.swatch viewBox="0 0 36 14" aria-hidden="true" {
                        rect x="2" y="2" width="32" height="10" fill=(fill) stroke=(stroke) {}
                    }
                    " " (name)
                }
            }
            @if let Some(extra) = extra { (extra) }
        }
    }
}

/// A coordinate with one decimal.
fn n(v: f64) -> String {
    format!("{v:.1}")
}

fn dash(st: SeriesStyle) -> Option<&'static str> {
    (!st.dash.is_empty()).then_some(st.dash)
}

fn open_path(points: &[(f64, f64)]) -> String {
    let mut d = String::new();
    for (i, &(x, y)) in points.iter().enumerate() {
        d.push_str(if i == 0 { "M" } else { " L" });
        d.push_str(&format!("{},{}", n(x), n(y)));
    }
    d
}

fn closed_path(points: &[(f64, f64)]) -> String {
    let mut d = open_path(points);
    d.push_str(" Z");
    d
}

fn marker(st: SeriesStyle, x: f64, y: f64) -> Markup {
    // Hollow shapes are white inside with a coloured outline.
    let hollow = matches!(
        st.marker,
        Marker::Ring | Marker::HollowSquare | Marker::HollowTriangle | Marker::HollowDiamond
    );
    let fill = if hollow { "#fff" } else { st.colour };
    let stroke = hollow.then_some(st.colour);
    let width = hollow.then_some("2");
    match st.marker {
        Marker::Circle | Marker::Ring => {
            html! { circle.marker cx=(n(x)) cy=(n(y)) r="4" fill=(fill) stroke=[stroke] stroke-width=[width] {} }
        }
        Marker::Square | Marker::HollowSquare => {
            html! { rect.marker x=(n(x - 3.5)) y=(n(y - 3.5)) width="7" height="7" fill=(fill) stroke=[stroke] stroke-width=[width] {} }
        }
        Marker::Triangle | Marker::HollowTriangle => html! {
            path.marker d=(format!("M{},{} L{},{} L{},{} Z", n(x), n(y - 5.0), n(x + 5.0), n(y + 4.0), n(x - 5.0), n(y + 4.0))) fill=(fill) stroke=[stroke] stroke-width=[width] {}
        },
        Marker::Diamond | Marker::HollowDiamond => html! {
            path.marker d=(format!("M{},{} L{},{} L{},{} L{},{} Z", n(x), n(y - 5.0), n(x + 5.0), n(y), n(x), n(y + 5.0), n(x - 5.0), n(y))) fill=(fill) stroke=[stroke] stroke-width=[width] {}
        },
    }
}

/// At most `max` characters, the middle cut out (model specs differ at their ends:
/// `cmd:…student_b.py`).
pub fn truncate_middle(s: &str, max: usize) -> String {
    let count = s.chars().count();
    if count <= max || max < 3 {
        return truncate(s, max);
    }
    let head = max / 3;
    let tail = max - head - 1;
    let mut t: String = s.chars().take(head).collect();
    t.push('…');
    t.extend(s.chars().skip(count - tail));
    t
}

/// At most `max` characters, an ellipsis marking a cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn scales_map_ends_and_middles() {
        let s = LINE_FRAME.x((0.0, 0.2));
        assert!(close(s.map(0.0), 52.0));
        assert!(close(s.map(0.2), 424.0));
        assert!(close(s.map(0.1), 238.0));
        let inverted = LINE_FRAME.y((0.0, 1.0));
        assert!(close(inverted.map(0.0), 234.0));
        assert!(close(inverted.map(1.0), 28.0));
        assert!(close(inverted.map(0.5), 131.0));
        assert!(close(Scale::new((1.0, 1.0), (0.0, 10.0)).map(7.0), 5.0));
    }

    fn curve(points: &[(f64, Option<f64>, (f64, f64))], break_even: Option<f64>) -> Curve {
        Curve {
            name: "student".into(),
            style: 0,
            points: points
                .iter()
                .map(|&(x, y, band)| CurvePoint {
                    x,
                    y,
                    band: Some(band),
                })
                .collect(),
            break_even,
        }
    }

    fn chart(curves: Vec<Curve>) -> LineChart {
        LineChart {
            id: "c1".into(),
            title: "t".into(),
            desc: "d".into(),
            x_label: "severity".into(),
            y_label: "agreement".into(),
            curves,
            threshold: Some(0.9),
        }
    }

    #[test]
    fn curve_points_bands_and_marks_land_where_the_numbers_say() {
        // Plot area: x 52..424 for severities 0..0.2, y 234 (0) .. 28 (1).
        let c = chart(vec![curve(
            &[
                (0.0, Some(1.0), (0.8, 1.0)),
                (0.1, Some(0.9), (0.6, 0.98)),
                (0.2, Some(0.5), (0.2, 0.8)),
            ],
            Some(0.125),
        )]);
        let g = c.geometry();
        let y = |v: f64| 234.0 - 206.0 * v;
        let cg = &g.curves[0];
        let expected = [(52.0, y(1.0)), (238.0, y(0.9)), (424.0, y(0.5))];
        assert_eq!(cg.lines.len(), 1);
        for (got, want) in cg.lines[0].iter().zip(expected) {
            assert!(
                close(got.0, want.0) && close(got.1, want.1),
                "{got:?} vs {want:?}"
            );
        }
        assert_eq!(cg.markers, cg.lines[0]);
        assert_eq!(cg.clean, Some((52.0, y(1.0))));
        // Band: upper limits left to right, then lower limits right to left.
        let band_want = [
            (52.0, y(1.0)),
            (238.0, y(0.98)),
            (424.0, y(0.8)),
            (424.0, y(0.2)),
            (238.0, y(0.6)),
            (52.0, y(0.8)),
        ];
        assert_eq!(cg.band.len(), 6);
        for (got, want) in cg.band.iter().zip(band_want) {
            assert!(
                close(got.0, want.0) && close(got.1, want.1),
                "{got:?} vs {want:?}"
            );
        }
        // Break-even 0.125 is 5/8 of the way: 52 + 0.625 · 372.
        assert!(close(
            cg.break_even.unwrap_or(f64::NAN),
            52.0 + 0.625 * 372.0
        ));
        assert!(close(g.threshold.unwrap_or(f64::NAN), y(0.9)));
        let ticks: Vec<f64> = g.x_ticks.iter().map(|t| t.0).collect();
        assert_eq!(ticks, [0.0, 0.1, 0.2]);
        assert!(close(g.y_ticks[2].1, y(0.5)));
    }

    #[test]
    fn undefined_points_break_the_line_and_close_ticks_are_thinned() {
        let c = chart(vec![curve(
            &[
                (0.0, Some(1.0), (0.9, 1.0)),
                (0.01, None, (0.0, 1.0)),
                (0.02, Some(0.8), (0.7, 0.9)),
                (0.5, Some(0.4), (0.3, 0.5)),
            ],
            None,
        )]);
        let g = c.geometry();
        assert_eq!(g.curves[0].lines.len(), 2);
        assert_eq!(g.curves[0].markers.len(), 3);
        assert_eq!(g.curves[0].break_even, None);
        // 0.01 and 0.02 are under 34 units from 0 at this scale (372 / 0.5 per unit).
        let ticks: Vec<f64> = g.x_ticks.iter().map(|t| t.0).collect();
        assert_eq!(ticks, [0.0, 0.5]);
    }

    #[test]
    fn rendered_svg_carries_the_geometry_and_escapes_labels() {
        let mut c = chart(vec![curve(
            &[(0.0, Some(1.0), (0.8, 1.0)), (0.2, Some(0.5), (0.2, 0.8))],
            Some(0.16),
        )]);
        c.title = "<script>alert(1)</script>".into();
        let svg = c.render().into_string();
        assert!(svg.contains("M52.0,28.0 L424.0,131.0"), "{svg}");
        assert!(
            svg.contains(r#"<circle class="marker" cx="424.0" cy="131.0""#),
            "{svg}"
        );
        assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("break-even 0.16"));
    }

    #[test]
    fn interval_rows_land_where_the_numbers_say() {
        let chart = IntervalChart {
            id: "i1".into(),
            title: "t".into(),
            desc: "d".into(),
            axis_label: "violation rate".into(),
            groups: vec![IntervalGroup {
                heading: "case".into(),
                rows: vec![
                    IntervalRow {
                        label: "student".into(),
                        style: 0,
                        estimate: Some(0.6),
                        lower: 0.31,
                        upper: 0.83,
                    },
                    IntervalRow {
                        label: "teacher".into(),
                        style: 1,
                        estimate: None,
                        lower: 0.0,
                        upper: 1.0,
                    },
                ],
            }],
        };
        let g = chart.geometry();
        // Plot area x: 120 .. 368 (440 − 72).
        let x = |v: f64| 120.0 + 248.0 * v;
        let row = &g.rows[0][0];
        assert!(close(row.estimate.unwrap_or(f64::NAN), x(0.6)));
        assert!(close(row.whisker.0, x(0.31)) && close(row.whisker.1, x(0.83)));
        assert!(close(row.y, 8.0 + 22.0 + 10.0));
        assert!(close(g.rows[0][1].y, row.y + 20.0));
        assert_eq!(g.rows[0][1].estimate, None);
        assert!(close(g.headings[0], 23.0));
        assert!(close(g.frame.height, 8.0 + 22.0 + 40.0 + 40.0));
        let svg = chart.render().into_string();
        assert!(svg.contains(&format!(r#"cx="{:.1}""#, x(0.6))), "{svg}");
        assert!(svg.contains("60.0 %") && svg.contains("n/a"));
    }

    /// Issue 36: the dot plot of the stages without a curve (an interval chart of one group
    /// per stage, one row per student) stacks every heading and row without overlap, inside
    /// the frame, and keeps every label in its own column (headings and row labels left of the
    /// plot area, values right of it).
    #[test]
    fn dot_plot_rows_never_overlap() {
        let row = |label: &str, style: usize, e: f64| IntervalRow {
            label: label.into(),
            style,
            estimate: Some(e),
            lower: (e - 0.1).max(0.0),
            upper: (e + 0.05).min(1.0),
        };
        let groups: Vec<IntervalGroup> = ["clean", "shout_rep", "messy", "accents_30"]
            .iter()
            .enumerate()
            .map(|(k, stage)| IntervalGroup {
                heading: (*stage).into(),
                rows: vec![
                    row("exact", 0, 0.9 - 0.1 * k as f64),
                    row("a very long student alias indeed", 2, 0.95),
                    row("folded", 3, 1.0),
                ],
            })
            .collect();
        let chart = IntervalChart {
            id: "d1".into(),
            title: "t".into(),
            desc: "d".into(),
            axis_label: "agreement".into(),
            groups,
        };
        let g = chart.geometry();
        let mut bands: Vec<(f64, f64)> = Vec::new();
        for (heading, rows) in g.headings.iter().zip(&g.rows) {
            // A heading's text box (baseline − 15 .. baseline + 7), then each row's.
            bands.push((heading - 15.0, heading + 7.0));
            for r in rows {
                bands.push((r.y - ROW / 2.0, r.y + ROW / 2.0));
                assert!(
                    r.whisker.0 >= g.frame.left && r.whisker.1 <= g.frame.width - g.frame.right
                );
            }
        }
        for w in bands.windows(2) {
            assert!(w[0].1 <= w[1].0 + 1e-9, "overlap: {w:?}");
        }
        let last = bands.last().map_or(0.0, |b| b.1);
        assert!(last <= g.frame.height - g.frame.bottom + 1e-9);
        assert!(close(g.frame.height, 8.0 + 4.0 * 22.0 + 12.0 * 20.0 + 40.0));
        // Row labels are cut to fit the left column, right-aligned before the plot area.
        let svg = chart.render().into_string();
        assert!(!svg.contains("a very long student alias indeed"), "{svg}");
        assert!(
            svg.contains(r#"x="112.0" y="44.0" text-anchor="end">exact</text>"#),
            "{svg}"
        );
    }

    #[test]
    fn bars_are_as_long_as_their_values() {
        let chart = BarChart {
            id: "b1".into(),
            title: "t".into(),
            desc: "d".into(),
            series: vec!["F1".into(), "exact match".into()],
            rows: vec![
                BarRow {
                    label: "co".into(),
                    values: vec![0.5, 0.25],
                },
                BarRow {
                    label: "hi".into(),
                    values: vec![1.0, f64::NAN],
                },
            ],
        };
        let g = chart.geometry();
        // Plot area x: 56 .. 344; rows of 2 · 9 + 8 = 26 units from y = 8.
        let (_, bars) = &g.rows[0];
        assert!(close(bars[0].x, 56.0) && close(bars[0].width, 144.0));
        assert!(close(bars[1].width, 72.0) && close(bars[1].y, 17.0));
        let (label_y, bars) = &g.rows[1];
        assert!(close(*label_y, 8.0 + 26.0 + 13.0));
        assert!(close(bars[0].width, 288.0) && close(bars[1].width, 0.0));
        assert!(close(g.frame.height, 8.0 + 52.0 + 36.0));
        let svg = chart.render().into_string();
        assert!(svg.contains(r#"width="144.0""#) && svg.contains("0.500 / 0.250"));
    }

    #[test]
    fn stacked_segments_are_shares_of_their_row() {
        let chart = StackedBarChart {
            id: "s1".into(),
            title: "t".into(),
            desc: "d".into(),
            parts: vec!["teacher only".into(), "student only".into(), "both".into()],
            unit: "new disagreements".into(),
            rows: vec![
                StackedRow {
                    label: "typo_20".into(),
                    parts: vec![584, 173, 101],
                    heading: None,
                },
                StackedRow {
                    label: "quiet".into(),
                    parts: vec![0, 0, 0],
                    heading: None,
                },
                StackedRow {
                    label: "<script>".into(),
                    parts: vec![0, 2, 2],
                    heading: None,
                },
            ],
        };
        let g = chart.geometry();
        // Plot area x: 112 .. 376 (440 − 64), 264 units; rows 24 units apart from y = 8 + 5.
        let x = |v: f64| 112.0 + 264.0 * v;
        let row = &g.rows[0];
        assert!(close(row.y, 13.0) && close(row.label_y, 13.0 + 7.0 + 4.0));
        assert!(close(row.segments[0].x, 112.0));
        assert!(close(row.segments[0].width, 264.0 * 584.0 / 858.0));
        assert!(close(row.segments[1].x, x(584.0 / 858.0)));
        assert!(close(row.segments[2].x + row.segments[2].width, 376.0));
        // Segments tile the bar: each starts where the one before ends.
        for w in row.segments.windows(2) {
            assert!(close(w[0].x + w[0].width, w[1].x));
        }
        assert!(g.rows[1].segments.is_empty());
        assert!(close(g.rows[1].y, 37.0));
        let third = &g.rows[2].segments;
        assert!(close(third[0].width, 0.0) && close(third[1].width, 132.0));
        assert!(close(third[2].x, x(0.5)));
        assert!(close(g.frame.height, 8.0 + 72.0 + 36.0));
        assert!(close(g.ticks[2].1, x(0.5)));
        let svg = chart.render().into_string();
        // The empty part draws nothing; the empty row says so; labels are escaped.
        assert_eq!(svg.matches("<rect class=\"segment\"").count(), 5, "{svg}");
        assert!(svg.contains(">none<") && svg.contains(">858<"));
        assert!(svg.contains("&lt;script&gt;") && !svg.contains("<script>"));
        assert!(svg.contains(&format!(r#"width="{:.1}""#, 264.0 * 584.0 / 858.0)));
        // A heading takes a line of its own above its row, and pushes the rows below it down.
        let mut headed = chart.clone();
        headed.rows[1].heading = Some("typo_30".into());
        let h = headed.geometry();
        assert_eq!(h.rows[0].heading_y, None);
        assert!(close(
            h.rows[1].heading_y.unwrap_or(f64::NAN),
            8.0 + 24.0 + 15.0
        ));
        assert!(close(h.rows[1].y, 8.0 + 24.0 + 22.0 + 5.0));
        assert!(close(h.rows[2].y, g.rows[2].y + 22.0));
        assert!(close(h.frame.height, g.frame.height + 22.0));
        assert!(headed.render().into_string().contains(">typo_30</text>"));
    }

    #[test]
    fn the_first_56_series_differ_in_colour_and_marker() {
        let mut seen = std::collections::HashSet::new();
        for k in 0..DISTINCT_STYLES {
            let st = style(k);
            assert!(
                seen.insert((st.colour, st.marker as u8)),
                "series {k} repeats a style"
            );
        }
        // The student and the teacher keep their styles.
        assert_eq!(
            (style(0).colour, style(0).marker),
            ("#1a1a1a", Marker::Circle)
        );
        assert_eq!((style(1).dash, style(1).marker), ("7 4", Marker::Square));
    }

    #[test]
    fn the_y_axis_zooms_to_the_data_on_round_ticks() {
        let high = chart(vec![curve(
            &[
                (0.0, Some(0.97), (0.95, 0.98)),
                (0.2, Some(0.86), (0.84, 0.88)),
            ],
            None,
        )]);
        assert_eq!(high.y_domain(), (0.8, 1.0));
        let g = high.geometry();
        let ticks: Vec<String> = g.y_ticks.iter().map(|t| format!("{:.2}", t.0)).collect();
        assert_eq!(ticks, ["0.80", "0.85", "0.90", "0.95", "1.00"]);
        assert!(close(g.y_ticks[0].1, 234.0) && close(g.y_ticks[4].1, 28.0));
        assert!(
            high.zoom_note()
                .is_some_and(|z| z.contains("from 80 % to 100 %"))
        );
        // Data over more than half the range keeps 0 to 100 % and says nothing.
        let wide = chart(vec![curve(
            &[(0.0, Some(1.0), (0.8, 1.0)), (0.2, Some(0.5), (0.2, 0.8))],
            None,
        )]);
        assert_eq!(wide.y_domain(), (0.0, 1.0));
        assert_eq!(wide.zoom_note(), None);
    }

    /// Notes never overlap one another, whatever the curves: many curves breaking even at
    /// nearly the same severity, with the clean points and threshold crowded together.
    #[test]
    fn notes_never_overlap_and_stay_in_the_plot() {
        let mut state = 7_u64;
        let mut draw = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..200 {
            let count = 1 + (draw() * 12.0) as usize;
            let curves = (0..count)
                .map(|k| {
                    let start = 0.85 + 0.15 * draw();
                    let points: Vec<(f64, Option<f64>, (f64, f64))> = (0..8)
                        .map(|i| {
                            let y = (start - 0.1 * i as f64 * draw()).clamp(0.0, 1.0);
                            (i as f64 * 0.05, Some(y), (y - 0.02, (y + 0.02).min(1.0)))
                        })
                        .collect();
                    let mut c = curve(&points, Some(0.05 + 0.3 * draw()));
                    c.style = k;
                    c
                })
                .collect();
            let g = chart(curves).geometry();
            let f = g.frame;
            for (i, a) in g.notes.iter().enumerate() {
                let b = a.bbox();
                assert!(b.0 >= f.left && b.2 <= f.width - f.right, "{a:?}");
                assert!(b.1 >= f.top && b.3 <= f.height - f.bottom, "{a:?}");
                for other in &g.notes[i + 1..] {
                    assert!(!overlaps(b, other.bbox()), "{a:?} overlaps {other:?}");
                }
                // Issue 36: a break-even label never crosses another curve's break-even line
                // (its own colour says whose it is).
                if a.text.starts_with("break-even") {
                    for (c, cg) in g.curves.iter().enumerate() {
                        let theirs = style(c).colour;
                        if let Some(x) = cg.break_even
                            && a.colour != Some(theirs)
                        {
                            assert!(!(b.0 < x && x < b.2), "{a:?} crosses the line at {x}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn segments_cross_boxes_they_pass_through() {
        let b = (10.0, 10.0, 20.0, 20.0);
        assert!(crosses(b, (0.0, 15.0), (30.0, 15.0)));
        assert!(crosses(b, (0.0, 0.0), (30.0, 30.0)));
        assert!(!crosses(b, (0.0, 0.0), (30.0, 5.0)));
        assert!(!crosses(b, (21.0, 0.0), (30.0, 30.0)));
        assert!(crosses(b, (15.0, 0.0), (15.0, 30.0)));
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("ßßßßß", 3), "ßß…");
        assert_eq!(truncate_middle("cmd:student-exact", 14), "cmd:…ent-exact");
        assert_eq!(truncate_middle("teacher", 14), "teacher");
    }
}
