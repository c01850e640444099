//! The page's one inline style sheet and the heat-map colour ramp.

/// The style sheet: system fonts only, one column that reflows from a phone's width to 1280 px
/// and beyond, wide tables scroll inside their own box, charts scale with the column.
pub const CSS: &str = r#"
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #1a1a1a;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header.page, main, footer { max-width: 1180px; margin: 0 auto; padding: 0 16px; }
header.page { border-bottom: 3px solid #1a1a1a; padding-bottom: 8px; }
h1 { font-size: 1.7rem; margin: 16px 0 4px; }
h2 { font-size: 1.4rem; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #1a1a1a; }
h3 { font-size: 1.15rem; margin: 28px 0 8px; }
h4 { font-size: 1rem; margin: 16px 0 4px; }
p { margin: 6px 0; max-width: 72em; }
.sub { color: #4a4a4a; }
nav ol { margin: 4px 0; padding-left: 1.4em; }
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 16px; margin: 8px 0 16px; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
section.verdict-first { border-left: 4px solid #1f5fa8; padding: 2px 0 2px 14px; margin: 12px 0 20px; }
section.verdict-first h3 { margin-top: 4px; }
section.verdict-first ul.verdicts li { margin: 4px 0; }
table.ranking td { white-space: normal; }
section.recommendation { border-left-color: #1a7f37; }
p.paste { font-size: 1.05rem; }
p.key, details.rule > summary { font-size: .88rem; }
.h-source { font-size: .8rem; font-weight: 400; overflow-wrap: anywhere; }
section.provenance { margin-top: 36px; border-top: 1px solid #ccc; font-size: .9em; }
.spec, code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .92em; overflow-wrap: anywhere; }
.spec { unicode-bidi: plaintext; }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll th[scope=row] { position: sticky; left: 0; background: #fff; z-index: 1; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border-bottom: 1px solid #cfcfcf; padding: 4px 10px; text-align: left; vertical-align: top; }
thead th { border-bottom: 2px solid #1a1a1a; }
tfoot td { border-top: 2px solid #1a1a1a; font-style: italic; }
td.num, th.num, table.pairwise td { text-align: right; white-space: nowrap; }
table.wraps td.num { white-space: normal; min-width: 7em; }
table.pairwise tr.folded td { text-align: left; white-space: normal; }
td.text { overflow-wrap: anywhere; min-width: 8em; max-width: 28em; }
td.verdict { min-width: 16em; }
td.against { min-width: 6em; }
tr.differs td { background: #fbe3b4; }
tr.differs td:first-child { box-shadow: inset 5px 0 0 #1a1a1a; }
.mark { font-weight: 700; }
.verdict { font-weight: 600; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 210px), 1fr)); gap: 12px; margin: 12px 0; }
.card { border: 1px solid #bdbdbd; border-radius: 6px; padding: 8px 12px; }
.card .big { display: block; font-size: 1.5rem; font-weight: 700; }
.card .small { display: block; color: #4a4a4a; font-size: .88rem; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 480px), 1fr)); gap: 16px 28px; }
.stack { margin-bottom: 8px; }
figure { margin: 0 0 16px; min-width: 0; }
figcaption { font-size: .92rem; color: #333; margin-top: 4px; }
figcaption .zoom { font-weight: 600; }
svg.chart { display: block; width: 100%; height: auto; max-width: 600px; }
svg.chart text { font-family: sans-serif; font-size: 13px; }
svg.chart text:not([fill]) { fill: #1a1a1a; }
svg.chart text.note { font-size: 12px; }
svg.chart text.heading { font-weight: 700; }
svg.chart .grid line { stroke: #e0e0e0; }
svg.chart .axis { stroke: #1a1a1a; }
svg.chart .axis-break { stroke: #1a1a1a; fill: none; stroke-width: 1.5; }
svg.chart .band { opacity: .16; }
svg.chart .band.several { opacity: .09; }
svg.chart .curve { fill: none; stroke-width: 2.5; }
svg.chart .threshold { stroke: #1a1a1a; stroke-dasharray: 1 4; stroke-width: 1.5; }
svg.chart .break-even { stroke-dasharray: 3 3; stroke-width: 1.5; }
svg.chart .clean { fill: none; stroke: #1a1a1a; stroke-width: 1.5; }
svg.chart .whisker { stroke-width: 2; }
ul.legend { list-style: none; padding: 0; margin: 4px 0 8px; display: flex; flex-wrap: wrap; gap: 4px 18px; }
svg.swatch { width: 36px; height: 14px; vertical-align: middle; }
table.heat td.cell { text-align: center; min-width: 4.6em; font-weight: 600; background: #eeeeee; }
table.heat td.cell[style] { background: hsl(212, 55%, var(--l)); }
table.heat td.cell.w { color: #fff; }
.note { color: #333; font-size: .92rem; }
.noop { font-weight: 700; color: #7a2e00; }
details.stage-examples { border: 1px solid #cfcfcf; border-radius: 6px; padding: 4px 10px; margin: 6px 0; }
details.stage-examples > summary { font-weight: 600; overflow-wrap: anywhere; }
ol.examples { padding-left: 1.6em; margin: 4px 0; }
dl.example { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px; margin: 4px 0 12px; }
dl.example dt { color: #4a4a4a; }
dl.example dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.ex { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .92em; background: #f4f4f4; }
details.text > summary { overflow-wrap: anywhere; }
footer { margin-top: 40px; padding-top: 8px; border-top: 1px solid #bdbdbd; color: #4a4a4a; font-size: .9rem; }
@media (max-width: 600px) {
  body { font-size: 14px; }
  h1 { font-size: 1.4rem; }
  th, td { padding: 3px 6px; }
  dl.meta { grid-template-columns: minmax(0, 1fr); gap: 0; }
  dl.meta dd { margin-bottom: 6px; }
  svg.chart text { font-size: 15px; }
  svg.chart text.note { font-size: 14px; }
  .narrow-cards, .narrow-cards :is(tbody, tr, th, td, caption) { display: block; width: auto; }
  .narrow-cards thead { display: none; }
  .narrow-cards tr { border-bottom: 2px solid #cfcfcf; padding: 4px 0; }
  .narrow-cards :is(th, td) { border: 0; padding: 1px 4px; position: static; }
  .narrow-cards td.num { text-align: left; white-space: normal; }
  .narrow-cards td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
  .ranking td:nth-of-type(2)::before { content: "leader − runner-up: "; font-weight: 600; }
  .ranking td:nth-of-type(3)::before { content: "Holm-adjusted p: "; font-weight: 600; }
}
"#;

/// The lightness of a heat-map cell for a value in `[0, 1]`: one hue (the style sheet's
/// `td.cell`) whose lightness falls from 96 % (0) to 30 % (1), so cells order the same way in
/// greyscale; the text turns white on dark cells (`true`). `None` (undefined) is light grey
/// (`td.cell` without a lightness). The cell carries only `--l: NN%`: a 50-stage, five-student
/// heat map has 255 cells.
pub fn heat(value: Option<f64>) -> Option<(u32, bool)> {
    value.filter(|v| v.is_finite()).map(|v| {
        let lightness = (96.0 - 66.0 * v.clamp(0.0, 1.0)).round() as u32;
        (lightness, lightness < 60)
    })
}

#[cfg(test)]
mod tests {
    use super::heat;

    #[test]
    fn heat_is_monotone_in_lightness() {
        assert_eq!(heat(Some(0.0)), Some((96, false)));
        assert_eq!(heat(Some(1.0)), Some((30, true)));
        assert_eq!(heat(Some(0.6)).map(|h| h.1), Some(true));
        assert_eq!(heat(Some(0.5)).map(|h| h.1), Some(false));
        assert_eq!(heat(None), None);
    }
}
