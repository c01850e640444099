//! `cargo xtask package-check`: `cargo publish --dry-run` of every publishable package in
//! dependency order, then the packaged file lists: no test fixture (upstream goldens are
//! GPL-derived), a README and both licence files in each; prints each `.crate`'s size.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::{cargo, step};

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
pub(crate) fn package_check() -> Result<()> {
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
        // TARGET/package/tmp-crate; a single `cargo package` in TARGET/package.
        let package_dir = crate::target_dir()?.join("package");
        let crate_file = [package_dir.clone(), package_dir.join("tmp-crate")]
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

#[cfg(test)]
mod tests {
    use super::forbidden;

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
}
