//! `cargo xtask arch-check`: the crate table of `docs/architecture.md` against `cargo metadata`.
//!
//! The table's "never depends on" column is read as a list of crates, in a small fixed language
//! (see [`forbidden_terms`]); anything else in it is an error, so the column cannot drift into
//! prose nobody checks. A crate's dependencies are its normal and build dependencies as declared
//! (optional ones included, so every feature combination is covered), followed through the
//! workspace; dev-dependencies are allowed (a test may use any crate). Every workspace member
//! must have a row, and every row must name a workspace package.
//!
//! The table names crates by their workspace dependency key (`suite-core`), the package being
//! `capkit-suite-core`: the keys are read from the root `Cargo.toml`'s
//! `[workspace.dependencies]` (local entries, those with a `path`); a row whose name is no key is
//! taken as a package name (`capkit`, `xtask`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use anyhow::{Context, Result, bail};

/// The table's header line, as written in the doc.
const HEADER: &str = "| crate | owns | never depends on |";

/// The doc the check reads.
const DOC: &str = "docs/architecture.md";

/// One row of the crate table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number in the doc.
    pub line: usize,
    /// The crate's short name (first backticked word of the first cell).
    pub name: String,
    /// The package named by `(package `X`)` in the first cell, if any.
    pub package: Option<String>,
    /// What the third cell forbids.
    pub forbidden: Forbidden,
}

/// The crates a row forbids.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Forbidden {
    /// Every other workspace crate (`any other capkit crate`, `every capkit crate`).
    pub all: bool,
    /// With `all`: the crates named after `but`. Without: the crates forbidden.
    pub names: Vec<String>,
}

/// The workspace as `cargo metadata` declares it: package name → its normal and build
/// dependencies on other workspace packages, and where its manifest is.
#[derive(Debug, Default)]
pub struct Workspace {
    /// package → (dependency packages, manifest path).
    pub packages: BTreeMap<String, (BTreeSet<String>, String)>,
}

/// `cargo xtask arch-check`.
pub fn arch_check() -> Result<()> {
    println!("xtask ci: architecture: {DOC}'s crate table against cargo metadata");
    let doc = std::fs::read_to_string(DOC).with_context(|| format!("reading {DOC}"))?;
    let manifest = std::fs::read_to_string("Cargo.toml").context("reading Cargo.toml")?;
    let workspace = Workspace::from_metadata(&crate::metadata()?.to_string())?;
    let rows = parse_table(&doc)?;
    let keys = workspace_keys(&manifest);
    let mut problems = check(&rows, &keys, &workspace);
    problems.extend(front_end_problems()?);
    if !problems.is_empty() {
        bail!(
            "{DOC} does not match the workspace ({} problem(s)):\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
    println!(
        "xtask: {} crates, each within its \"never depends on\" column",
        rows.len()
    );
    Ok(())
}

/// The front ends: argument parsing, conversion, display — never a job of their own.
const FRONT_ENDS: [&str; 2] = ["crates/capkit/src", "crates/capkit-py/src"];

/// What only the runner (`crates/runner`) or the libraries below it may do: run the engine,
/// plan, build or merge report files. A front end naming one of these holds job logic.
const JOB_ONLY: [&str; 12] = [
    "PredictionCache",
    "CaptureRun",
    "ExtractRun",
    "compare_students_with",
    "compare_students_chunked",
    "compare_students_counted",
    "TeacherSample::for_budget",
    "with_suite_fingerprint",
    "with_suite_transforms",
    "with_probe_texts",
    "merge_field_breakdowns",
    ".merge(&",
];

/// Every use of a [`JOB_ONLY`] name in `text` (a front end's file `path`), one problem each.
pub fn job_logic_in(path: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for name in JOB_ONLY {
            if code.contains(name) {
                out.push(format!(
                    "{path}:{}: `{name}` in a front end: jobs live in crates/runner (docs/architecture.md, \"One runner\")",
                    n + 1
                ));
            }
        }
    }
    out
}

/// [`job_logic_in`] over every Rust file of the [`FRONT_ENDS`].
fn front_end_problems() -> Result<Vec<String>> {
    let mut out = Vec::new();
    for dir in FRONT_ENDS {
        let mut stack = vec![std::path::PathBuf::from(dir)];
        while let Some(d) = stack.pop() {
            for entry in
                std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))?
            {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("reading {}", path.display()))?;
                    out.extend(job_logic_in(&path.display().to_string(), &text));
                }
            }
        }
    }
    Ok(out)
}

/// The local `[workspace.dependencies]` of a root manifest: key → package name.
pub fn workspace_keys(manifest: &str) -> BTreeMap<String, String> {
    let mut keys = BTreeMap::new();
    let mut in_section = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_section = line == "[workspace.dependencies]";
            continue;
        }
        if !in_section || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !value.contains("path =") {
            continue;
        }
        let key = key.trim();
        let package = value
            .split_once("package = \"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map_or(key, |(package, _)| package);
        keys.insert(key.to_owned(), package.to_owned());
    }
    keys
}

impl Workspace {
    /// The workspace members of `cargo metadata --format-version 1 --no-deps` output.
    pub fn from_metadata(json: &str) -> Result<Workspace> {
        let value: serde_json::Value =
            serde_json::from_str(json).context("cargo metadata's output is not JSON")?;
        let packages = value["packages"]
            .as_array()
            .context("cargo metadata: no `packages` array")?;
        let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
        let root = value["workspace_root"].as_str().unwrap_or_default();
        let mut workspace = Workspace::default();
        for package in packages {
            let name = package["name"]
                .as_str()
                .context("cargo metadata: a package without a name")?;
            let manifest = package["manifest_path"].as_str().unwrap_or_default();
            // Relative to the workspace root, as a reader of the message sees the tree.
            let manifest = manifest
                .strip_prefix(root)
                .and_then(|m| m.strip_prefix('/'))
                .unwrap_or(manifest);
            let mut deps = BTreeSet::new();
            for dep in package["dependencies"].as_array().into_iter().flatten() {
                let Some(dep_name) = dep["name"].as_str() else {
                    continue;
                };
                // `kind` is null for normal dependencies, "build" or "dev" otherwise.
                if names.contains(dep_name) && dep["kind"].as_str() != Some("dev") {
                    deps.insert(dep_name.to_owned());
                }
            }
            workspace
                .packages
                .insert(name.to_owned(), (deps, manifest.to_owned()));
        }
        Ok(workspace)
    }

    /// The shortest chain of normal or build dependencies from `from` to `to`, both included.
    fn path(&self, from: &str, to: &str) -> Option<Vec<String>> {
        let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(at) = queue.pop_front() {
            for dep in self.packages.get(at).into_iter().flat_map(|(d, _)| d) {
                if dep == from || previous.contains_key(dep.as_str()) {
                    continue;
                }
                previous.insert(dep, at);
                if dep == to {
                    let mut path = vec![to.to_owned()];
                    let mut cur = to;
                    while let Some(&p) = previous.get(cur) {
                        path.push(p.to_owned());
                        cur = p;
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(dep);
            }
        }
        None
    }
}

/// The crate table of the architecture doc: the rows below [`HEADER`].
pub fn parse_table(doc: &str) -> Result<Vec<Row>> {
    let mut lines = doc.lines().enumerate();
    if !lines.any(|(_, l)| l.trim() == HEADER) {
        bail!("{DOC}: no crate table (a line `{HEADER}`)");
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        let line_no = i + 1;
        let line = line.trim();
        if !line.starts_with('|') {
            break;
        }
        if line.starts_with("|---") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [first, _owns, never] = cells[..] else {
            bail!(
                "{DOC}:{line_no}: a crate row has 3 cells, this one {}",
                cells.len()
            );
        };
        let name = backticked(first)
            .next()
            .with_context(|| format!("{DOC}:{line_no}: the first cell names no `crate`"))?;
        let package = first
            .split_once("(package ")
            .and_then(|(_, rest)| backticked(rest).next());
        let forbidden = forbidden_terms(never).with_context(|| {
            format!("{DOC}:{line_no}: crate `{name}`: the \"never depends on\" cell `{never}`")
        })?;
        rows.push(Row {
            line: line_no,
            name: name.to_owned(),
            package: package.map(str::to_owned),
            forbidden,
        });
    }
    if rows.is_empty() {
        bail!("{DOC}: the crate table has no rows");
    }
    Ok(rows)
}

/// The `code spans` of a text, in order.
fn backticked(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// The text without its parenthesised remarks (nested ones too).
fn without_remarks(text: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The "never depends on" cell, read as crates. Parenthesised remarks are ignored; `—` alone
/// forbids nothing; otherwise the cell is a list separated by `,` and `and` of:
/// `` `crate` ``, `the profile crates` (`capture` and `extractive`), `any other capkit crate`
/// or `every capkit crate`, and `every capkit crate but` followed by the crates it allows.
pub fn forbidden_terms(cell: &str) -> Result<Forbidden> {
    let text = without_remarks(cell);
    let text = text.trim();
    if text == "—" {
        return Ok(Forbidden::default());
    }
    let mut forbidden = Forbidden::default();
    let mut after_but = false;
    for item in text.split(',').flat_map(|i| i.split(" and ")) {
        let item = item.trim();
        let item = item.strip_prefix("and ").unwrap_or(item).trim();
        if item.is_empty() {
            bail!("an empty item");
        }
        if let Some(rest) = item.strip_prefix("every capkit crate but ") {
            if forbidden.all || !forbidden.names.is_empty() {
                bail!("`every capkit crate but …` must come alone");
            }
            forbidden.all = true;
            after_but = true;
            forbidden.names.push(single_crate(rest.trim())?);
        } else if matches!(item, "any other capkit crate" | "every capkit crate") {
            forbidden.all = true;
        } else if item == "the profile crates" && !after_but {
            forbidden
                .names
                .extend(["capture", "extractive"].map(str::to_owned));
        } else {
            forbidden.names.push(single_crate(item)?);
        }
    }
    if forbidden.all && !after_but && !forbidden.names.is_empty() {
        bail!("`every capkit crate` already forbids the crates named beside it");
    }
    Ok(forbidden)
}

/// `` `name` `` → `name`.
fn single_crate(item: &str) -> Result<String> {
    item.strip_prefix('`')
        .and_then(|i| i.strip_suffix('`'))
        .filter(|i| !i.contains('`') && !i.is_empty())
        .map(str::to_owned)
        .with_context(|| {
            format!(
                "`{item}` is not a crate: write `name`, `the profile crates`, `every capkit crate` (but `a` and `b`), or `—` (remarks in parentheses)"
            )
        })
}

/// Every way the table and the workspace disagree, one line each.
pub fn check(rows: &[Row], keys: &BTreeMap<String, String>, workspace: &Workspace) -> Vec<String> {
    let mut problems = Vec::new();
    let package_of = |name: &str| -> Option<String> {
        let package = keys.get(name).map_or(name, String::as_str);
        workspace
            .packages
            .contains_key(package)
            .then(|| package.to_owned())
    };
    // Short name of a package, for messages: its workspace key, else itself.
    let short = |package: &str| -> String {
        keys.iter()
            .find(|(_, p)| *p == package)
            .map_or(package, |(k, _)| k.as_str())
            .to_owned()
    };
    let mut covered = BTreeSet::new();
    for row in rows {
        let Some(package) = package_of(&row.name) else {
            problems.push(format!(
                "{DOC}:{}: `{}` is no workspace package (nor a [workspace.dependencies] key of one)",
                row.line, row.name
            ));
            continue;
        };
        if let Some(said) = &row.package
            && *said != package
        {
            problems.push(format!(
                "{DOC}:{}: `{}` says package `{said}`, but the package is `{package}`",
                row.line, row.name
            ));
        }
        covered.insert(package.clone());
        let mut named = Vec::new();
        for name in &row.forbidden.names {
            match package_of(name) {
                Some(p) => named.push(p),
                None => problems.push(format!(
                    "{DOC}:{}: `{}` never depends on `{name}`, which is no workspace package",
                    row.line, row.name
                )),
            }
        }
        let forbidden: Vec<String> = if row.forbidden.all {
            workspace
                .packages
                .keys()
                .filter(|p| **p != package && !named.contains(p))
                .cloned()
                .collect()
        } else {
            named
        };
        for target in forbidden {
            if let Some(path) = workspace.path(&package, &target) {
                let manifest = &workspace.packages[&package].1;
                problems.push(format!(
                    "`{}` never depends on `{}` ({DOC}:{}), but it does: {} (normal/build dependencies; see {manifest})",
                    row.name,
                    short(&target),
                    row.line,
                    path.iter()
                        .map(|p| short(p))
                        .collect::<Vec<_>>()
                        .join(" → ")
                ));
            }
        }
    }
    for (package, (_, manifest)) in &workspace.packages {
        if !covered.contains(package) {
            problems.push(format!(
                "{DOC}: workspace member `{}` ({manifest}) has no row in the crate table",
                short(package)
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_front_end_running_the_engine_is_refused() {
        let found = job_logic_in(
            "crates/capkit/src/x.rs",
            "let run = capture::CaptureRun::new(s, t, &suite)?; // CaptureRun in a comment is fine\n// PredictionCache\nlet m = a.merge(&b);",
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("crates/capkit/src/x.rs:1: `CaptureRun`"));
        assert!(found[1].starts_with("crates/capkit/src/x.rs:3: `.merge(&`"));
        assert!(job_logic_in("p.rs", "runner::merge(files, true)").is_empty());
    }

    use super::*;

    const MANIFEST: &str = r#"
[workspace.dependencies]
# Local crates
types = { package = "kit-types", path = "crates/types", version = "0.1.0" }
core = { package = "kit-core", path = "crates/core" }
report = { path = "crates/report" }
serde = { version = "1", features = ["derive"] }

[workspace.lints.rust]
unsafe_code = "forbid"
"#;

    /// kit-types ← kit-core ← report (normal); kit-types ← report (dev); cli → everything.
    const METADATA: &str = r#"{"workspace_root": "/w", "packages": [
  {"name": "kit-types", "manifest_path": "/w/crates/types/Cargo.toml", "dependencies": [
    {"name": "serde", "kind": null}]},
  {"name": "kit-core", "manifest_path": "/w/crates/core/Cargo.toml", "dependencies": [
    {"name": "kit-types", "rename": "types", "kind": null},
    {"name": "report", "kind": "dev"}]},
  {"name": "report", "manifest_path": "/w/crates/report/Cargo.toml", "dependencies": [
    {"name": "kit-core", "rename": "core", "kind": "build", "optional": true}]},
  {"name": "cli", "manifest_path": "/w/crates/cli/Cargo.toml", "dependencies": [
    {"name": "report", "kind": null}]}
]}"#;

    fn doc(rows: &str) -> String {
        format!("# Doc\n\ntext\n\n{HEADER}\n|---|---|---|\n{rows}\nafter the table | not a row\n")
    }

    /// Some problem contains every one of `needles`.
    fn assert_named(found: &[String], needles: &[&str]) {
        assert!(
            found.iter().any(|p| needles.iter().all(|n| p.contains(n))),
            "no problem names {needles:?}: {found:?}"
        );
    }

    fn problems(rows: &str) -> Vec<String> {
        let workspace = Workspace::from_metadata(METADATA).unwrap();
        let table = parse_table(&doc(rows)).unwrap();
        check(&table, &workspace_keys(MANIFEST), &workspace)
    }

    const GOOD: &str = "\
| `types` (package `kit-types`) | the types | any other capkit crate |
| `core` | the core | `report` (its user) |
| `report` | pages | every capkit crate but `core` and `types` |
| `cli` | the top | — (it is the top) |";

    #[test]
    fn workspace_keys_map_short_names_to_local_packages() {
        let keys = workspace_keys(MANIFEST);
        assert_eq!(
            keys.into_iter().collect::<Vec<_>>(),
            [
                ("core".to_owned(), "kit-core".to_owned()),
                ("report".to_owned(), "report".to_owned()),
                ("types".to_owned(), "kit-types".to_owned()),
            ]
        );
    }

    #[test]
    fn a_table_the_workspace_keeps_passes() {
        assert_eq!(problems(GOOD), Vec::<String>::new());
    }

    #[test]
    fn a_violation_fails_naming_the_crate_the_dependency_and_the_path() {
        // cli → report → core → types; a dev-dependency (core → report) never counts.
        let rows = GOOD.replace("| — (it is the top) |", "| `types`, the profile crates |");
        let rows = rows.replace("| `report` (its user) |", "| `report` |");
        let rows = rows + "\n| `capture` | p | — |\n| `extractive` | p | — |";
        let found = problems(&rows);
        assert_named(
            &found,
            &[
                "`cli` never depends on `types`",
                "cli → report → core → types",
                "see crates/cli/Cargo.toml",
            ],
        );
        // capture and extractive are no packages here: named, as every row must be.
        assert_named(&found, &["`capture` is no workspace package"]);
    }

    #[test]
    fn an_optional_build_dependency_counts() {
        let rows = GOOD.replace(
            "every capkit crate but `core` and `types`",
            "every capkit crate but `types`",
        );
        let found = problems(&rows);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_named(
            &found,
            &["`report` never depends on `core`", "report → core"],
        );
    }

    #[test]
    fn every_member_needs_a_row_and_every_row_a_package() {
        let rows = GOOD.replace(
            "| `cli` | the top | — (it is the top) |",
            "| `nope` | x | — |",
        );
        let found = problems(&rows);
        assert_named(&found, &["`nope` is no workspace package"]);
        assert_named(
            &found,
            &["workspace member `cli` (crates/cli/Cargo.toml) has no row"],
        );
    }

    #[test]
    fn a_wrong_package_annotation_is_named() {
        let rows = GOOD.replace("(package `kit-types`)", "(package `capkit-types`)");
        let found = problems(&rows);
        assert_named(
            &found,
            &["says package `capkit-types`, but the package is `kit-types`"],
        );
    }

    #[test]
    fn the_column_language() {
        let names = |cell: &str| forbidden_terms(cell).unwrap();
        assert_eq!(names("— (dev-only)"), Forbidden::default());
        assert_eq!(
            names("`suite-core`, the profile crates"),
            Forbidden {
                all: false,
                names: vec!["suite-core".into(), "capture".into(), "extractive".into()]
            }
        );
        assert_eq!(
            names("the profile crates (`capture`, `extractive`: its users choose one), `a`, `b`"),
            Forbidden {
                all: false,
                names: vec![
                    "capture".into(),
                    "extractive".into(),
                    "a".into(),
                    "b".into()
                ]
            }
        );
        assert_eq!(
            names("every capkit crate but `x`, `y` and `z`"),
            Forbidden {
                all: true,
                names: vec!["x".into(), "y".into(), "z".into()]
            }
        );
        assert!(names("any other capkit crate").all);
        // Prose is refused: the column stays checkable.
        for cell in [
            "any rule of its own: every truth lives in the Rust crates",
            "the profile crates; suite-core never depends on it",
            "every library crate",
            "`a`, ",
            "`a` `b`",
            "every capkit crate, `a`",
        ] {
            assert!(forbidden_terms(cell).is_err(), "{cell}");
        }
    }

    #[test]
    fn a_table_row_with_the_wrong_cell_count_is_refused() {
        let err = parse_table(&doc("| `a` | b |")).unwrap_err();
        assert!(
            format!("{err:#}").contains(":7: a crate row has 3 cells, this one 2"),
            "{err:#}"
        );
        assert!(parse_table("no table here").is_err());
    }
}
