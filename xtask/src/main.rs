//! Workspace automation for capkit (`cargo xtask <command>`).
//!
//! * `check-goldens`: run every golden test in the workspace and name each golden that changed.
//! * `bless-goldens`: accept the current output of every insta snapshot golden.
//! * `golden-selftest`: perturb one stored snapshot and prove `check-goldens` catches it.
//! * `test`: the README's test command: `cargo test --workspace`, then the Python package's tests
//!   (a portable release wheel built by maturin with the Zig linker, installed into `target/py/venv`, pytest; see `python.rs`).
//!   capkit-report's `#[ignore]`d browser tests run when Chromium is there; outside CI each group
//!   whose system data is missing (Chromium, WordNet, fortunes, Debian's torch) is skipped with one printed line.
//! * `arch-check`: `docs/architecture.md`'s crate table against `cargo metadata` (each crate's
//!   "never depends on" column, a row for every workspace member; see `arch.rs`).
//! * `module-cycles`: no import circle between the top-level modules of the crates in
//!   [`CIRCLE_FREE`] (`scripts/module_cycles.py`).
//! * `readme-snippets`: every Rust block of a crate README is a doc test using only its crate, and
//!   every Rust block of the workspace README and of the guides (`docs/*.md`) is one of them.
//! * `package-check`: `cargo publish --dry-run` of every publishable package in dependency order,
//!   then the packaged file lists: no test fixture (upstream goldens are GPL-derived), a README
//!   and both licence files in each; prints each `.crate`'s size.
//! * `fuzz-smoke`: 15 s of every fuzz target (`fuzz/`, cargo-fuzz on nightly), from the
//!   committed seeds; skipped with a printed line when nightly or cargo-fuzz is missing.
//! * `dist`: the portable artefacts in `target/dist/` (manylinux2014 abi3 wheel checked by
//!   auditwheel, sdist installed into a clean venv, glibc-2.17 `capkit` binary, `SHA256SUMS`;
//!   see `dist.rs`).
//! * `ci`: everything `.ci/run` runs, in the same order (fmt, clippy, the architecture check, capkit-chat-client with `tls` against a local https server, tests, docs, goldens, the
//!   golden self-test, cargo deny).
//!
//! A golden test is any test whose name contains `golden` (the libtest filter `golden` selects
//! exactly them). It either compares against an upstream conformance fixture copied into the
//! crate's `tests/` or asserts an insta snapshot stored under `tests/snapshots/`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context, Result, bail};

mod arch;
mod dist;
mod python;

const USAGE: &str = "usage: cargo xtask <test | check-goldens [-p PACKAGE]... | bless-goldens | golden-selftest | arch-check | module-cycles | readme-snippets | package-check | fuzz-smoke | dist | ci>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<()> {
    let root = workspace_root()?;
    std::env::set_current_dir(&root).context("entering the workspace root")?;
    match args.first().map(String::as_str) {
        Some("check-goldens") => check_goldens(&packages(&args[1..])?),
        Some("bless-goldens") => bless_goldens(),
        Some("golden-selftest") => golden_selftest(),
        Some("test") => test(),
        Some("arch-check") => arch::arch_check(),
        Some("module-cycles") => module_cycles(),
        Some("readme-snippets") => readme_snippets(),
        Some("package-check") => package_check(),
        Some("fuzz-smoke") => fuzz_smoke(),
        Some("dist") => dist::dist(),
        Some("ci") => ci(),
        _ => bail!("{USAGE}"),
    }
}

fn packages(args: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" | "--package" => out.push(it.next().context("-p needs a package name")?.clone()),
            other => bail!("unexpected argument `{other}`\n{USAGE}"),
        }
    }
    Ok(out)
}

fn workspace_root() -> Result<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(Path::to_path_buf)
        .context("xtask must live one level below the workspace root")
}

/// Every `*.snap.new` file below `crates/` (insta's pending snapshots).
fn pending_snapshots() -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![PathBuf::from("crates")];
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let path = entry?.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
            } else if path.to_string_lossy().ends_with(".snap.new") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The outcome of one run of the golden tests.
struct GoldenRun {
    failed_tests: Vec<String>,
    changed_snapshots: Vec<PathBuf>,
    success: bool,
}

fn run_goldens(pkgs: &[String], insta_update: &str) -> Result<GoldenRun> {
    for stale in pending_snapshots()? {
        std::fs::remove_file(&stale).with_context(|| format!("removing {}", stale.display()))?;
    }
    let mut cmd = Command::new(cargo());
    cmd.args(["test", "--no-fail-fast"]);
    if pkgs.is_empty() {
        cmd.arg("--workspace");
    }
    for p in pkgs {
        cmd.args(["-p", p]);
    }
    cmd.args(["--", "golden"])
        .env("INSTA_UPDATE", insta_update)
        .env_remove("INSTA_FORCE_PASS")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let output = cmd.output().context("running cargo test")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    print!("{stdout}");
    let mut failed_tests: Vec<String> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... FAILED"))
        .map(str::to_owned)
        .collect();
    failed_tests.sort();
    failed_tests.dedup();
    let ran_any = stdout
        .lines()
        .any(|l| l.starts_with("test ") && l.contains(" ... "));
    if !ran_any {
        bail!("no golden test ran: every golden test's name must contain `golden`");
    }
    Ok(GoldenRun {
        failed_tests,
        changed_snapshots: if insta_update == "new" {
            pending_snapshots()?
        } else {
            Vec::new()
        },
        success: output.status.success(),
    })
}

fn check_goldens(pkgs: &[String]) -> Result<()> {
    let run = run_goldens(pkgs, "new")?;
    if run.success && run.changed_snapshots.is_empty() {
        println!("xtask: every golden matches");
        return Ok(());
    }
    eprintln!("xtask: goldens that changed:");
    for t in &run.failed_tests {
        eprintln!("  test {t}");
    }
    for s in &run.changed_snapshots {
        eprintln!(
            "  snapshot {} (new output in {})",
            s.display().to_string().trim_end_matches(".new"),
            s.display()
        );
    }
    bail!(
        "{} golden test(s) failed, {} snapshot(s) changed; inspect the diff, then fix the code or run `cargo xtask bless-goldens`",
        run.failed_tests.len(),
        run.changed_snapshots.len()
    )
}

fn bless_goldens() -> Result<()> {
    let run = run_goldens(&[], "always")?;
    if !run.success {
        bail!(
            "tests still failing after blessing snapshots (conformance fixtures are upstream data and cannot be blessed): {}",
            run.failed_tests.join(", ")
        );
    }
    println!("xtask: snapshots accepted; review `git diff -- '*.snap'` before committing");
    Ok(())
}

/// The snapshot the self-test perturbs: a classifier golden.
const SELFTEST_SNAPSHOT: &str =
    "crates/capture/tests/snapshots/conformance__golden_scenario_01.snap";

fn golden_selftest() -> Result<()> {
    let path = PathBuf::from(SELFTEST_SNAPSHOT);
    let original =
        std::fs::read_to_string(&path).with_context(|| format!("reading {SELFTEST_SNAPSHOT}"))?;
    let perturbed = original.replacen("\"clean_agreement\": 0.7", "\"clean_agreement\": 0.71", 1);
    if perturbed == original {
        bail!(
            "{SELFTEST_SNAPSHOT} no longer holds `\"clean_agreement\": 0.7`; update the self-test"
        );
    }
    std::fs::write(&path, perturbed).with_context(|| format!("writing {SELFTEST_SNAPSHOT}"))?;
    let result = run_goldens(&["capkit-capture".to_owned()], "new");
    // Restore before looking at the result, whatever it is.
    std::fs::write(&path, &original).with_context(|| format!("restoring {SELFTEST_SNAPSHOT}"))?;
    for stale in pending_snapshots()? {
        std::fs::remove_file(&stale)?;
    }
    let run = result?;
    let named = run
        .failed_tests
        .iter()
        .any(|t| t.contains("golden_scenario_01"))
        && run
            .changed_snapshots
            .iter()
            .any(|s| s.to_string_lossy().contains("golden_scenario_01"));
    if run.success || !named {
        bail!("check-goldens did not catch a perturbed {SELFTEST_SNAPSHOT}");
    }
    println!("xtask: golden self-test ok: a perturbed snapshot fails check-goldens and is named");
    Ok(())
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

fn step(name: &str, args: &[&str]) -> Result<()> {
    println!("xtask ci: {name}: cargo {}", args.join(" "));
    let status = Command::new(cargo())
        .args(args)
        .status()
        .with_context(|| format!("starting `cargo {}`", args.join(" ")))?;
    if !status.success() {
        bail!("{name} failed: `cargo {}`", args.join(" "));
    }
    Ok(())
}

/// The crates whose top-level modules import one another one way only: every crate, and xtask.
const CIRCLE_FREE: &[&str] = &[
    "crates/capkit",
    "crates/capkit-py",
    "crates/capkit-report",
    "crates/capture",
    "crates/chat-client",
    "crates/extractive",
    "crates/model-adapters",
    "crates/mutator-eval",
    "crates/outfile",
    "crates/profile-stats",
    "crates/profile-types",
    "crates/scenario-rules",
    "crates/suite-core",
    "crates/transforms",
    "crates/typo-generators",
    "crates/typo-tasks",
    "xtask",
];

/// `scripts/module_cycles.py` over [`CIRCLE_FREE`]: fails, printing the circle, if one came back.
fn module_cycles() -> Result<()> {
    println!(
        "xtask ci: module circles: python3 scripts/module_cycles.py {}",
        CIRCLE_FREE.join(" ")
    );
    let output = Command::new("python3")
        .arg("scripts/module_cycles.py")
        .args(CIRCLE_FREE)
        .output()
        .context("starting python3 scripts/module_cycles.py")?;
    if !output.status.success() {
        print!("{}", String::from_utf8_lossy(&output.stdout));
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        bail!(
            "an import circle between top-level modules of {} (see CIRCLE above): move the shared piece down",
            CIRCLE_FREE.join(", ")
        );
    }
    Ok(())
}

/// The README's test command: every Rust test, then the Python package's. Test groups that
/// need something from the system the machine lacks are skipped outside CI, each with one line
/// (repeated at the end); under CI (`CI` set) they run and fail.
fn test() -> Result<()> {
    let system = SystemTestData {
        ci: std::env::var_os("CI").is_some(),
        chromium: std::env::var_os("CAPKIT_CHROMIUM").is_some()
            || std::env::var_os("PATH").is_some_and(|paths| {
                std::env::split_paths(&paths).any(|d| d.join("chromium").is_file())
            }),
        wordnet: Path::new(WORDNET_INDEX).is_file(),
        fortunes: Path::new(FORTUNES).is_dir(),
        torch: std::env::var_os("CAPKIT_TORCH_PYTHON").is_some()
            || Path::new(DEBIAN_TORCH).is_file(),
    };
    let plan = system.plan();
    for line in &plan.skipped {
        println!("xtask test: {line}");
    }
    rust_tests_leaving_no_temp_files(&plan)?;
    println!("xtask: python tests");
    python::python_tests()?;
    for line in &plan.skipped {
        println!("xtask test: {line}");
    }
    Ok(())
}

/// The WordNet file capkit-transforms' catalogue goldens read (Debian's `wordnet-base`).
const WORDNET_INDEX: &str = "/usr/share/wordnet/index.adj";
/// The corpus the distillation example's CI-sized pytest labels (Debian's `fortunes`).
const FORTUNES: &str = "/usr/share/games/fortunes";
/// Debian's CPU torch (`python3-torch`), which mixle's own capability test files train their
/// students with (`test_mixle_own_tests.py`; `CAPKIT_TORCH_PYTHON` names another interpreter).
const DEBIAN_TORCH: &str = "/usr/lib/python3/dist-packages/torch/__init__.py";

/// What the machine offers the tests that need more than Rust and Python.
struct SystemTestData {
    ci: bool,
    chromium: bool,
    wordnet: bool,
    fortunes: bool,
    torch: bool,
}

/// How `cargo xtask test` runs on a machine.
#[derive(Debug, PartialEq)]
struct TestPlan {
    /// Run capkit-report's `#[ignore]`d browser tests.
    browser: bool,
    /// Tests left out of `cargo test --workspace` (`--skip` filters).
    skip: Vec<&'static str>,
    /// One line per group skipped.
    skipped: Vec<String>,
}

impl SystemTestData {
    fn plan(&self) -> TestPlan {
        let mut plan = TestPlan {
            browser: self.chromium || self.ci,
            skip: Vec::new(),
            skipped: Vec::new(),
        };
        if !plan.browser {
            plan.skipped.push(
                "SKIPPED capkit-report's browser tests: no `chromium` on the PATH and no $CAPKIT_CHROMIUM (`apt-get install chromium fonts-dejavu-core`; CI fails instead)".to_owned(),
            );
        }
        if !self.wordnet && !self.ci {
            // Both goldens cover the whole catalogue, the WordNet transforms among them.
            plan.skip.extend([
                "golden_every_transform_on_fixed_inputs",
                "golden_word_transforms_on_word_rich_inputs",
            ]);
            plan.skipped.push(format!(
                "SKIPPED capkit-transforms' catalogue goldens (they read WordNet): no {WORDNET_INDEX} (`apt-get install wordnet-base`; CI fails instead)"
            ));
        }
        if !self.fortunes && !self.ci {
            // The pytest skips itself (and says so in pytest's summary); this says why up front.
            plan.skipped.push(format!(
                "SKIPPED the distillation example's CI-sized pytest (test_distill_example.py): no {FORTUNES} (`apt-get install fortunes`; CI fails instead)"
            ));
        }
        if !self.torch && !self.ci {
            plan.skipped.push(format!(
                "SKIPPED mixle's own capability test files (test_mixle_own_tests.py): no {DEBIAN_TORCH} (`apt-get install --no-install-recommends python3-torch`; CI fails instead)"
            ));
        }
        plan
    }
}

/// `cargo test --workspace` (and the browser tests if `plan` says so) with `TMPDIR` pointing at
/// a fresh, empty directory, which must be empty again afterwards: tests clean up after
/// themselves, pass or fail (issue 13 item 9).
fn rust_tests_leaving_no_temp_files(plan: &TestPlan) -> Result<()> {
    let tmp = std::env::current_dir()?.join("target/test-tmpdir");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let mut runs: Vec<Vec<&str>> = vec![vec!["test", "--workspace"]];
    if !plan.skip.is_empty() {
        runs[0].push("--");
        for name in &plan.skip {
            runs[0].extend(["--skip", name]);
        }
    }
    if plan.browser {
        runs.push(vec![
            "test",
            "-p",
            "capkit-report",
            "--test",
            "browser",
            "--",
            "--ignored",
        ]);
    }
    for args in runs {
        let line = format!("cargo {}", args.join(" "));
        println!("xtask ci: tests: {line} (TMPDIR={})", tmp.display());
        let status = Command::new(cargo())
            .args(&args)
            .env("TMPDIR", &tmp)
            .status()
            .with_context(|| format!("starting `{line}`"))?;
        if !status.success() {
            bail!("tests failed: `{line}`");
        }
    }
    let mut left: Vec<String> = std::fs::read_dir(&tmp)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()?;
    left.sort();
    if !left.is_empty() {
        bail!(
            "the tests left {} entries in TMPDIR ({}): {}; use the tempfile crate so they are removed",
            left.len(),
            tmp.display(),
            left.join(", ")
        );
    }
    std::fs::remove_dir(&tmp).ok();
    Ok(())
}

/// The fenced ```` ```rust ```` blocks of a Markdown text.
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_start()) {
            (None, l) if l.starts_with("```rust") => current = Some(String::new()),
            (Some(block), l) if l.starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// The crates a crate README's example may `use` besides its own and std: the model adapters
/// are models, and a profile of them needs a profile crate, which the adapters must not depend
/// on (it is a dev-dependency there, so the doc test compiles). A user adds both.
const README_COMPANIONS: &[(&str, &[&str])] = &[("model_adapters", &["capture", "extractive"])];

/// README snippets are tested: each crate README's Rust blocks are doc tests of that crate
/// (`#[doc = include_str!("../README.md")]`) and may `use` only that crate and std (and its
/// [`README_COMPANIONS`]), so they compile for a user who depends on that crate alone; each
/// Rust block of the workspace README and of its guides (`docs/*.md`) must be one of them,
/// verbatim, so a block moved from the README to a guide stays tested.
fn readme_snippets() -> Result<()> {
    println!("xtask ci: README snippets");
    let mut crate_blocks = Vec::new();
    for entry in std::fs::read_dir("crates")? {
        let dir = entry?.path();
        let Ok(readme) = std::fs::read_to_string(dir.join("README.md")) else {
            continue;
        };
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().replace('-', "_"))
            .unwrap_or_default();
        let companions = README_COMPANIONS
            .iter()
            .find(|(crate_name, _)| *crate_name == name)
            .map_or(&[][..], |(_, companions)| *companions);
        for block in rust_blocks(&readme) {
            for line in block.lines().map(str::trim_start) {
                if let Some(path) = line.strip_prefix("use ")
                    && !path.starts_with(&format!("{name}::"))
                    && !path.starts_with("std::")
                    && !companions
                        .iter()
                        .any(|c| path.starts_with(&format!("{c}::")))
                {
                    bail!(
                        "{}/README.md: `{line}`: a crate README's example may use only `{name}` and std (re-export what it needs)",
                        dir.display()
                    );
                }
            }
            crate_blocks.push(block);
        }
    }
    for page in documentation_pages(Path::new(""))? {
        let text = std::fs::read_to_string(&page)
            .with_context(|| format!("reading {}", page.display()))?;
        if let Some(first) = untested_rust_block(&text, &crate_blocks) {
            bail!(
                "{}: the Rust block starting `{first}` is in no crate README, so no doc test compiles it; copy it into the crate's README.md",
                page.display()
            );
        }
    }
    Ok(())
}

/// The pages whose Rust blocks [`readme_snippets`] checks: the workspace README and the guides
/// it links to (`docs/*.md`) under the workspace `root`, in a fixed order.
fn documentation_pages(root: &Path) -> Result<Vec<PathBuf>> {
    let mut pages = vec![root.join("README.md")];
    let mut guides = Vec::new();
    for entry in std::fs::read_dir(root.join("docs")).context("reading docs/")? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "md") {
            guides.push(path);
        }
    }
    guides.sort();
    pages.extend(guides);
    Ok(pages)
}

/// The first line of the first Rust block of `page` that is not one of `crate_blocks`
/// verbatim, if any.
fn untested_rust_block(page: &str, crate_blocks: &[String]) -> Option<String> {
    rust_blocks(page)
        .into_iter()
        .find(|block| !crate_blocks.contains(block))
        .map(|block| block.lines().next().unwrap_or_default().to_owned())
}

/// The publishable packages: every `crates/*` manifest without `publish = false`, as
/// (package name, directory).
fn publishable() -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("crates")? {
        let dir = entry?.path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        if manifest.lines().any(|l| l.trim() == "publish = false") {
            continue;
        }
        let name = manifest
            .lines()
            .find_map(|l| l.trim().strip_prefix("name = \""))
            .and_then(|rest| rest.strip_suffix('"'))
            .with_context(|| format!("{}/Cargo.toml: no package name", dir.display()))?;
        out.push((name.to_owned(), dir));
    }
    out.sort();
    Ok(out)
}

/// `cargo publish --dry-run` verifies each package against the others through a local registry
/// overlay, extracting them under `$CARGO_HOME/registry/src/-HASH/NAME-VERSION` (the hash is
/// the overlay's path, so the same for every run in one checkout). Cargo never re-extracts a
/// directory that exists, so a later dry run of the same version would verify the sources of
/// the earlier one (seen: capture built against a suite-core from before the chunked engine).
/// Our packages' extractions from local overlays (registry directories named `-HASH`; crates.io's
/// is `index.crates.io-…`) are removed first. (A fresh clone with the same path, as CI's, meets
/// the extractions of the previous run.)
fn clear_overlay_extractions(packages: &[(String, PathBuf)]) -> Result<()> {
    let cargo_home = match std::env::var_os("CARGO_HOME") {
        Some(home) => PathBuf::from(home),
        None => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(".cargo"),
            None => return Ok(()),
        },
    };
    let Ok(registries) = std::fs::read_dir(cargo_home.join("registry/src")) else {
        return Ok(());
    };
    for registry in registries {
        let registry = registry?.path();
        if !registry
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('-'))
        {
            continue;
        }
        for entry in std::fs::read_dir(&registry)? {
            let path = entry?.path();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let ours = packages.iter().any(|(package, _)| {
                name.strip_prefix(package.as_str())
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|version| version.starts_with(|c: char| c.is_ascii_digit()))
            });
            if ours {
                std::fs::remove_dir_all(&path)
                    .with_context(|| format!("removing the stale extraction {}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// Why a packaged file must not ship, if it must not: test data (the upstream goldens and
/// expectation files are GPL-derived), insta snapshots.
fn forbidden(file: &str) -> Option<&'static str> {
    let name = file.rsplit('/').next().unwrap_or(file);
    let parts: Vec<&str> = file.split('/').collect();
    if parts
        .iter()
        .any(|p| matches!(*p, "tests" | "fixtures" | "scenarios" | "snapshots"))
    {
        return Some("test data");
    }
    if matches!(name, "data.json" | "data_alt.json")
        || (name.starts_with("expect") && name.ends_with(".jsonl"))
    {
        return Some("an upstream (GPL-derived) fixture");
    }
    if name.ends_with(".snap") {
        return Some("a snapshot");
    }
    None
}

/// Every publishable package packages and verifies (in dependency order, local dependencies
/// resolved from the packages themselves), and ships no forbidden file.
fn package_check() -> Result<()> {
    let packages = publishable()?;
    clear_overlay_extractions(&packages)?;
    // The verification builds share the target directory, where cargo takes a registry
    // package's artefacts as fresh by name and version alone: an earlier dry run's build of the
    // same version would be linked instead of today's sources. Our packages are rebuilt.
    let mut clean: Vec<&str> = vec!["clean", "--quiet"];
    for (name, _) in &packages {
        clean.extend(["-p", name.as_str()]);
    }
    step("packages (stale verification builds removed)", &clean)?;
    let mut args: Vec<String> = ["publish", "--dry-run", "--allow-dirty", "--quiet"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    for (name, _) in &packages {
        args.push("-p".to_owned());
        args.push(name.clone());
    }
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    step("packages (publish dry run)", &args_ref)?;
    let mut problems = Vec::new();
    for (name, dir) in &packages {
        let output = Command::new(cargo())
            .args(["package", "--list", "--allow-dirty", "--quiet", "-p", name])
            .stderr(Stdio::null())
            .output()
            .with_context(|| format!("listing the files of {name}"))?;
        if !output.status.success() {
            bail!("`cargo package --list -p {name}` failed");
        }
        let files: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        for file in &files {
            if let Some(why) = forbidden(file) {
                problems.push(format!("{name}: {file} is {why}; add it to `exclude`"));
            }
        }
        for needed in ["README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
            if !files.iter().any(|f| f == needed) {
                problems.push(format!("{name} ({}): no {needed}", dir.display()));
            }
        }
        // `cargo publish --dry-run` of several packages leaves the .crate files in
        // target/package/tmp-crate; a single `cargo package` in target/package.
        let crate_file = ["target/package", "target/package/tmp-crate"]
            .iter()
            .filter_map(|dir| std::fs::read_dir(dir).ok())
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                p.file_name().is_some_and(|n| {
                    let n = n.to_string_lossy();
                    n.starts_with(&format!("{name}-"))
                        && n.ends_with(".crate")
                        && n[name.len() + 1..].starts_with(|c: char| c.is_ascii_digit())
                })
            });
        let size = crate_file
            .as_ref()
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or("?".to_owned(), |m| {
                format!("{:.1} KiB", m.len() as f64 / 1024.0)
            });
        println!("xtask: {name}: {} files, {size} .crate", files.len());
    }
    if !problems.is_empty() {
        bail!("packaging problems:\n  {}", problems.join("\n  "));
    }
    println!("xtask: every publishable package packages cleanly");
    Ok(())
}

/// Seconds each fuzz target runs in the smoke run.
const FUZZ_SMOKE_SECS: u32 = 15;

/// The fuzz targets: the `[[bin]]` names of `fuzz/Cargo.toml`.
fn fuzz_targets() -> Result<Vec<String>> {
    let manifest = std::fs::read_to_string("fuzz/Cargo.toml").context("reading fuzz/Cargo.toml")?;
    let mut targets = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin
            && let Some(name) = line
                .strip_prefix("name = \"")
                .and_then(|n| n.strip_suffix('"'))
        {
            targets.push(name.to_owned());
        }
    }
    Ok(targets)
}

/// A short run of every fuzz target from its committed seeds, with the limits of the long runs
/// (inputs up to 4 KiB, 2 GiB) but 10 s per input (see below). Needs the nightly toolchain and cargo-fuzz.
fn fuzz_smoke() -> Result<()> {
    let have = |args: &[&str]| {
        Command::new(cargo())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    // `cargo +nightly` needs rustup's cargo, not the toolchain binary CARGO may point at.
    let nightly = Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !nightly || !have(&["--version"]) {
        println!(
            "xtask ci: fuzz smoke run skipped: needs the nightly toolchain and cargo-fuzz (`rustup toolchain install nightly`, `cargo install cargo-fuzz`)"
        );
        return Ok(());
    }
    for target in fuzz_targets()? {
        let corpus = PathBuf::from("target/fuzz-smoke").join(&target);
        let _ = std::fs::remove_dir_all(&corpus);
        std::fs::create_dir_all(&corpus)?;
        let seeds = PathBuf::from("fuzz/seeds").join(&target);
        println!("xtask ci: fuzz smoke: {target} ({FUZZ_SMOKE_SECS} s)");
        let status = Command::new("cargo")
            .args(["+nightly", "fuzz", "run", "--sanitizer", "none", &target])
            .arg(&corpus)
            .arg(&seeds)
            .args([
                "--",
                &format!("-max_total_time={FUZZ_SMOKE_SECS}"),
                "-max_len=4096",
                // The long runs use -timeout=1; CI shares this 2-core machine with other
                // sessions, where an instrumented numeral walk (11-21 ms in release) has taken
                // over a second of wall time at load 15: a smoke run must not fail on the load.
                "-timeout=10",
                "-rss_limit_mb=2048",
                "-print_final_stats=1",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .with_context(|| format!("starting the fuzz target {target}"))?;
        let _ = std::fs::remove_dir_all(&corpus);
        let log = String::from_utf8_lossy(&status.stderr);
        if !status.status.success() {
            eprintln!("{log}");
            bail!(
                "fuzz target {target} failed (its crash input is under fuzz/artifacts/{target}/)"
            );
        }
        // libFuzzer's final stats: executions and peak memory.
        for line in log.lines().filter(|l| {
            l.starts_with("stat::number_of_executed_units") || l.starts_with("stat::peak_rss_mb")
        }) {
            println!("  {line}");
        }
    }
    Ok(())
}

fn ci() -> Result<()> {
    step("format", &["fmt", "--all", "--", "--check"])?;
    // fuzz/ is its own workspace (nightly-only to build, not to format): checked here too.
    step(
        "format (fuzz targets)",
        &[
            "fmt",
            "--manifest-path",
            "fuzz/Cargo.toml",
            "--all",
            "--",
            "--check",
        ],
    )?;
    step(
        "lint",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The binding crate's code only compiles with its `python` feature.
    step(
        "lint (python bindings)",
        &[
            "clippy",
            "-p",
            "capkit-py",
            "--features",
            "python",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The model adapters without their HTTP features (`cmd:` and `file:` only): the workspace
    // runs above and below unify them on.
    step(
        "lint (model adapters without HTTP)",
        &[
            "clippy",
            "-p",
            "capkit-model-adapters",
            "--no-default-features",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // capkit-chat-client's https path: its `tls` feature is opt-in (ring is a C build), so the
    // workspace lint and test runs above and below do not compile it.
    step(
        "lint (https client)",
        &[
            "clippy",
            "-p",
            "capkit-chat-client",
            "--features",
            "tls",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The crate graph the architecture doc promises (cargo metadata only: no build).
    arch::arch_check()?;
    module_cycles()?;
    step(
        "https client against a local TLS server",
        &[
            "test",
            "-p",
            "capkit-chat-client",
            "--features",
            "tls",
            "--test",
            "tls",
        ],
    )?;
    readme_snippets()?;
    // The README's test command.
    test()?;
    // The portable release artefacts build and pass their checks on this machine.
    dist::dist()?;
    // Docs build without broken or private intra-doc links.
    println!("xtask ci: docs: cargo doc --workspace --no-deps (RUSTDOCFLAGS=-D warnings)");
    let status = Command::new(cargo())
        .args(["doc", "--workspace", "--no-deps"])
        .env("RUSTDOCFLAGS", "-D warnings")
        .status()
        .context("starting `cargo doc`")?;
    if !status.success() {
        bail!("docs failed: `cargo doc --workspace --no-deps` with RUSTDOCFLAGS=-D warnings");
    }
    println!("xtask ci: goldens");
    check_goldens(&[])?;
    package_check()?;
    fuzz_smoke()?;
    golden_selftest()?;
    step(
        "dependency policy",
        &["deny", "check", "licenses", "bans", "sources"],
    )?;
    println!("xtask ci: all green");
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{
        Result, SystemTestData, TestPlan, documentation_pages, forbidden, rust_blocks,
        untested_rust_block,
    };

    #[test]
    fn a_fresh_machine_skips_each_missing_group_with_one_line_and_ci_skips_none() {
        let bare = SystemTestData {
            ci: false,
            chromium: false,
            wordnet: false,
            fortunes: false,
            torch: false,
        };
        let plan = bare.plan();
        assert!(!plan.browser);
        assert_eq!(plan.skip.len(), 2);
        assert_eq!(plan.skipped.len(), 4, "{:?}", plan.skipped);
        for (line, what) in plan
            .skipped
            .iter()
            .zip(["chromium", "wordnet", "fortunes", "torch"])
        {
            assert!(
                line.starts_with("SKIPPED ") && line.contains(what),
                "{line}"
            );
        }
        let ci = SystemTestData { ci: true, ..bare };
        assert_eq!(
            ci.plan(),
            TestPlan {
                browser: true,
                skip: vec![],
                skipped: vec![]
            }
        );
        let full = SystemTestData {
            ci: false,
            chromium: true,
            wordnet: true,
            fortunes: true,
            torch: true,
        };
        assert_eq!(full.plan(), ci.plan());
    }

    #[test]
    fn test_data_and_upstream_fixtures_are_forbidden_in_a_crate() {
        for file in [
            "tests/fixtures/data.json",
            "data.json",
            "data_alt.json",
            "tests/fixtures/expect_alt.jsonl",
            "expect.jsonl",
            "fixtures/wilson.json",
            "tests/snapshots/x.snap",
            "scenarios/scenario_01.json",
        ] {
            assert!(forbidden(file).is_some(), "{file}");
        }
        for file in [
            "src/lib.rs",
            "data/english/numerals.json",
            "README.md",
            "LICENSE-MIT",
        ] {
            assert!(forbidden(file).is_none(), "{file}");
        }
    }

    #[test]
    fn rust_blocks_are_found() {
        let md = "text\n```rust\nuse a::b;\n```\n```sh\nls\n```\n```rust\nfn f() {}\n```\n";
        assert_eq!(rust_blocks(md), ["use a::b;\n", "fn f() {}\n"]);
    }

    #[test]
    fn a_guide_block_missing_from_every_crate_readme_is_named() {
        let crate_blocks = vec!["use a::b;\n".to_owned()];
        let guide = "# guide\n```rust\nuse a::b;\n```\n```rust,no_run\nuse a::c;\nfn f() {}\n```\n";
        assert_eq!(
            untested_rust_block(guide, &crate_blocks).as_deref(),
            Some("use a::c;")
        );
        assert_eq!(
            untested_rust_block("```rust\nuse a::b;\n```\n", &crate_blocks),
            None
        );
    }

    #[test]
    fn the_guides_are_checked_besides_the_readme() -> Result<()> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let pages = documentation_pages(&root)?;
        assert_eq!(pages.first(), Some(&root.join("README.md")));
        assert!(pages.contains(&root.join("docs/library.md")), "{pages:?}");
        Ok(())
    }
}
