//! Gates: conditions over report paths that fail a release.
//!
//! A gate is one comparison of a number in a report (or a comparison) with a constant:
//!
//! ```text
//! gate    := path op number
//! path    := segment ("." segment)*
//! segment := [A-Za-z0-9_-]+  |  '"' chars '"'     (quotes for names with other characters;
//!                                                   \" and \\ escape inside them)
//! op      := "<" | "<=" | ">" | ">=" | "==" | "!="
//! number  := a decimal number (0.9, 1e-3, -0.05)
//! ```
//!
//! Segments name object keys, or array positions (`pairs.0.clean.p`). Under a comparison's
//! `students`, a student is also named by its position (`students.0`) or its short alias
//! (`students.A`: the comparison's `aliases`, or A, B, C… in order when it has none), so a gate
//! never has to quote a full model spec. A gate **fails when its
//! comparison holds**: `corruptions.typo_10.agreement.lower < 0.9` fails when the lower limit of
//! typo_10's agreement is below 0.9. A path that is not in the report, or whose value is not a
//! number (an object, or `null` for an estimate without texts), is an error, never a pass.
//!
//! ```
//! use profile_stats::Gate;
//! use serde_json::json;
//!
//! let report = json!({"invariances": {"case": {"student_vs_teacher": {"p": 0.004}}}});
//! let gate = Gate::parse("invariances.case.student_vs_teacher.p < 0.01")?;
//! assert!(gate.evaluate(&report)?.failed);
//! let err = Gate::parse("invariances.space.student_vs_teacher.p < 0.01")?.evaluate(&report).unwrap_err();
//! assert_eq!(err.to_string(), "unknown path `invariances.space.student_vs_teacher.p`: \
//!     `invariances` has no `space`; valid: invariances.case");
//! # Ok::<(), profile_stats::Error>(())
//! ```

use std::fmt;

use profile_types::value::json_kind;
use serde_json::Value;

use crate::Error;

/// The grammar, for error messages and `--help`.
pub const GATE_GRAMMAR: &str = "PATH OP NUMBER, e.g. `corruptions.typo_10.agreement.lower < 0.9`; \
    PATH is dot-separated keys (quote keys with other characters: `corruptions.\"typo.1\".agreement.lower`) \
    or array positions; OP is one of < <= > >= == !=";

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl Op {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
            Op::Eq => a == b,
            Op::Ne => a != b,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
        })
    }
}

/// A parsed gate: `path op threshold`.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    path: Vec<String>,
    op: Op,
    threshold: f64,
}

/// What a gate found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateOutcome {
    /// The value at the gate's path.
    pub value: f64,
    /// Whether the gate's comparison holds, i.e. the gate fails.
    pub failed: bool,
    /// When the value belongs to a prediction-powered estimate (a sampled teacher): that
    /// figure's interval `(lower, upper)`, so a gate on an estimate is read with its
    /// uncertainty.
    pub estimated: Option<(f64, f64)>,
}

impl Gate {
    /// Parses a gate expression (see the module documentation for the grammar).
    pub fn parse(expression: &str) -> Result<Gate, Error> {
        let bad = |message: String| Error::GateSyntax {
            expression: expression.to_owned(),
            message: format!("{message}; expected {GATE_GRAMMAR}"),
        };
        let mut rest = expression.trim_start();
        let mut path = Vec::new();
        loop {
            let (segment, after) = segment(rest).map_err(bad)?;
            path.push(segment);
            match after.strip_prefix('.') {
                Some(after) => rest = after,
                None => {
                    rest = after;
                    break;
                }
            }
        }
        let rest = rest.trim_start();
        let (op, rest) = [
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<", Op::Lt),
            (">", Op::Gt),
        ]
        .into_iter()
        .find_map(|(s, op)| rest.strip_prefix(s).map(|r| (op, r)))
        .ok_or_else(|| bad(format!("no comparison operator at `{rest}`")))?;
        let number = rest.trim();
        let threshold: f64 = number
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite())
            .ok_or_else(|| bad(format!("`{number}` is not a number")))?;
        Ok(Gate {
            path,
            op,
            threshold,
        })
    }

    /// The path, written back in the gate syntax.
    pub fn path(&self) -> String {
        render(&self.path)
    }

    /// The operator.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The constant compared with.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Reads the gate's number in `report` and compares it.
    pub fn evaluate(&self, report: &Value) -> Result<GateOutcome, Error> {
        let mut current = report;
        let mut parent = report;
        for (i, segment) in self.path.iter().enumerate() {
            parent = current;
            let prefix = &self.path[..i];
            let next = match current {
                Value::Object(map) if prefix == ["students"] => map
                    .get(segment)
                    .or_else(|| student_by_alias(report, map, segment)),
                Value::Object(map) => map.get(segment),
                Value::Array(items) => segment.parse::<usize>().ok().and_then(|k| items.get(k)),
                _ => None,
            };
            current = next.ok_or_else(|| Error::UnknownPath {
                path: self.path(),
                detail: match (prefix.is_empty(), current) {
                    (true, _) => format!("the report has no `{segment}`"),
                    (false, Value::Object(_) | Value::Array(_)) => {
                        format!("`{}` has no `{segment}`", render(prefix))
                    }
                    (false, other) => format!("`{}` is {}", render(prefix), json_kind(other)),
                },
                valid: children(prefix, current),
            })?;
        }
        match current {
            Value::Number(n) => {
                let value = n.as_f64().unwrap_or(f64::NAN);
                let estimated = (parent.get("method").and_then(Value::as_str)
                    == Some(crate::PPI_METHOD))
                .then(|| {
                    let limit = |k: &str| parent.get(k).and_then(Value::as_f64);
                    limit("lower").zip(limit("upper"))
                })
                .flatten();
                Ok(GateOutcome {
                    value,
                    failed: self.op.holds(value, self.threshold),
                    estimated,
                })
            }
            other => Err(Error::NotANumber {
                path: self.path(),
                what: json_kind(other).into(),
                hint: match other {
                    Value::Null => " (an estimate without texts)".into(),
                    Value::Object(_) | Value::Array(_) => {
                        format!("; valid: {}", children(&self.path, other))
                    }
                    _ => String::new(),
                },
            }),
        }
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.path(), self.op, self.threshold)
    }
}

/// A comparison's student named by position (`0`) or alias (`A`): the document's `aliases`
/// (alias → student name) when it has them, else A, B, … Z, AA, AB… in order.
fn student_by_alias<'a>(
    report: &Value,
    students: &'a serde_json::Map<String, Value>,
    segment: &str,
) -> Option<&'a Value> {
    if let Ok(k) = segment.parse::<usize>() {
        return students.values().nth(k);
    }
    match report.get("aliases") {
        Some(Value::Object(aliases)) => aliases
            .get(segment)
            .and_then(Value::as_str)
            .and_then(|name| students.get(name)),
        _ => (0..students.len())
            .find(|&k| derived_alias(k) == segment)
            .and_then(|k| students.values().nth(k)),
    }
}

/// The `k`-th derived alias: A, B, … Z, AA, AB, … (bijective base 26).
pub fn derived_alias(mut k: usize) -> String {
    let mut letters = Vec::new();
    loop {
        letters.push(char::from(b'A' + (k % 26) as u8));
        if k < 26 {
            break;
        }
        k = k / 26 - 1;
    }
    letters.iter().rev().collect()
}

/// A gate's value as a reader wants it: six significant digits (`0.0572235`, `1.23457e-190`),
/// unless rounding would put it on the other side of the gate's threshold, then every digit.
pub fn readable(value: f64, op: Op, threshold: f64) -> String {
    if !value.is_finite() || value == 0.0 {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor();
    let short = if (-4.0..6.0).contains(&magnitude) {
        let decimals = (5.0 - magnitude).max(0.0) as usize;
        let s = format!("{value:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            s
        }
    } else {
        let s = format!("{value:.5e}");
        match s.split_once('e') {
            Some((mantissa, exponent)) if mantissa.contains('.') => format!(
                "{}e{exponent}",
                mantissa.trim_end_matches('0').trim_end_matches('.')
            ),
            _ => s,
        }
    };
    match short.parse::<f64>() {
        Ok(rounded) if op.holds(rounded, threshold) == op.holds(value, threshold) => short,
        _ => format!("{value}"),
    }
}

/// Every path in `report` whose value is a number, in document order (what gates can read).
pub fn numeric_paths(report: &Value) -> Vec<String> {
    fn walk(value: &Value, path: &mut Vec<String>, out: &mut Vec<String>) {
        match value {
            Value::Number(_) => out.push(render(path)),
            Value::Object(map) => {
                for (k, v) in map {
                    path.push(k.clone());
                    walk(v, path, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push(i.to_string());
                    walk(v, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(report, &mut Vec::new(), &mut out);
    out
}

/// One path segment at the start of `s`, and the rest.
fn segment(s: &str) -> Result<(String, &str), String> {
    if let Some(quoted) = s.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return Ok((out, &quoted[i + 1..])),
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => out.push(e),
                    _ => return Err("only \\\" and \\\\ may be escaped in a quoted key".into()),
                },
                c => out.push(c),
            }
        }
        return Err("unterminated quoted key".into());
    }
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(s.len());
    if end == 0 {
        let at: String = s.chars().take(12).collect();
        return Err(if at.is_empty() {
            "missing path".into()
        } else {
            format!("expected a path segment at `{at}`")
        });
    }
    Ok((s[..end].to_owned(), &s[end..]))
}

fn plain(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn render(path: &[String]) -> String {
    path.iter()
        .map(|s| {
            if plain(s) {
                s.clone()
            } else {
                format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The paths one step below `prefix` (at most 40, then how many more).
fn children(prefix: &[String], value: &Value) -> String {
    let mut path = prefix.to_vec();
    let mut out: Vec<String> = Vec::new();
    let mut push = |k: String| {
        path.push(k);
        out.push(render(&path));
        path.pop();
    };
    match value {
        Value::Object(map) => map.keys().cloned().for_each(&mut push),
        Value::Array(items) => (0..items.len()).map(|i| i.to_string()).for_each(&mut push),
        _ => {}
    }
    if out.is_empty() {
        return "(none: nothing below this point)".into();
    }
    let total = out.len();
    if total > 40 {
        out.truncate(40);
        out.push(format!("… ({} more)", total - 40));
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn students_by_position_and_alias() {
        let doc = json!({"students": {"cmd:python3 long spec a.py": {"p": 0.5}, "b": {"p": 0.01}}});
        for path in ["students.0.p", "students.A.p"] {
            let g = Gate::parse(&format!("{path} < 0.05")).unwrap();
            assert_eq!(g.evaluate(&doc).unwrap().value, 0.5, "{path}");
        }
        let g = Gate::parse("students.B.p < 0.05").unwrap();
        assert!(g.evaluate(&doc).unwrap().failed);
        assert!(
            Gate::parse("students.C.p < 1")
                .unwrap()
                .evaluate(&doc)
                .is_err()
        );
        assert!(
            Gate::parse("students.2.p < 1")
                .unwrap()
                .evaluate(&doc)
                .is_err()
        );
        // Aliases given by the document win over the derived ones.
        let mut named = doc.clone();
        named["aliases"] = json!({"fast": "b"});
        let g = Gate::parse("students.fast.p < 0.05").unwrap();
        assert!(g.evaluate(&named).unwrap().failed);
        assert!(
            Gate::parse("students.A.p < 1")
                .unwrap()
                .evaluate(&named)
                .is_err()
        );
        assert_eq!(
            [0, 1, 25, 26, 27, 701, 702].map(derived_alias),
            ["A", "B", "Z", "AA", "AB", "ZZ", "AAA"]
        );
    }

    #[test]
    fn readable_values() {
        let r = |v: f64| readable(v, Op::Lt, 0.05);
        assert_eq!(r(0.05722351374171941), "0.0572235");
        assert_eq!(r(0.39677814746114537), "0.396778");
        assert_eq!(r(1.0), "1");
        assert_eq!(r(0.0), "0");
        assert_eq!(r(1.2345678e-190), "1.23457e-190");
        assert_eq!(r(2.5e-5), "2.5e-5");
        assert_eq!(r(123456789.0), "1.23457e8");
        // Rounding never crosses the threshold: the full value is printed instead.
        assert_eq!(r(0.049999999), "0.049999999");
        assert_eq!(readable(0.0500000001, Op::Le, 0.05), "0.0500000001");
    }

    #[test]
    fn parses_the_grammar() {
        let g = Gate::parse("  corruptions.typo_10.agreement.lower<0.9 ").unwrap();
        assert_eq!(
            (g.path(), g.op(), g.threshold()),
            ("corruptions.typo_10.agreement.lower".into(), Op::Lt, 0.9)
        );
        let g = Gate::parse(r#"students."cmd:python3 a.py".clean.agreement.estimate >= -1e-3"#)
            .unwrap();
        assert_eq!(
            g.path,
            [
                "students",
                "cmd:python3 a.py",
                "clean",
                "agreement",
                "estimate"
            ]
        );
        assert_eq!(
            g.to_string(),
            r#"students."cmd:python3 a.py".clean.agreement.estimate >= -0.001"#
        );
        for bad in [
            "",
            "a.b",
            "a..b < 1",
            "a < x",
            "a < nan",
            "a ~ 1",
            r#""a < 1"#,
            ". < 1",
        ] {
            let err = Gate::parse(bad).unwrap_err().to_string();
            assert!(err.contains("expected PATH OP NUMBER"), "{bad}: {err}");
        }
    }

    #[test]
    fn evaluates_and_explains_bad_paths() {
        let r = json!({"a": {"b": 0.5, "n": null, "o": {"x": 1}}, "l": [{"p": 0.01}]});
        let out = Gate::parse("a.b < 0.9").unwrap().evaluate(&r).unwrap();
        assert_eq!((out.value, out.failed), (0.5, true));
        assert!(
            !Gate::parse("l.0.p > 0.05")
                .unwrap()
                .evaluate(&r)
                .unwrap()
                .failed
        );
        let err = |e: &str| {
            Gate::parse(e)
                .unwrap()
                .evaluate(&r)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("a.c < 1"),
            "unknown path `a.c`: `a` has no `c`; valid: a.b, a.n, a.o"
        );
        assert_eq!(
            err("z < 1"),
            "unknown path `z`: the report has no `z`; valid: a, l"
        );
        assert_eq!(
            err("a.b.c < 1"),
            "unknown path `a.b.c`: `a.b` is a number; valid: (none: nothing below this point)"
        );
        assert_eq!(
            err("a.n < 1"),
            "path `a.n` is null, not a number (an estimate without texts)"
        );
        assert_eq!(
            err("a.o < 1"),
            "path `a.o` is an object, not a number; valid: a.o.x"
        );
        assert_eq!(numeric_paths(&r), ["a.b", "a.o.x", "l.0.p"]);
    }
}
