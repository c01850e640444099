//! `cargo xtask dist`: the portable release artefacts of this machine, in the target directory's `dist/`
//! (`target/dist/` unless `CARGO_TARGET_DIR` or `build.target-dir` says otherwise).
//!
//! * the Python wheel, `manylinux2014_x86_64` abi3 (glibc 2.17): maturin links with the Zig
//!   linker (`ziglang` from the test requirements), and `auditwheel show` must accept the tag;
//! * the source distribution (`maturin sdist`), installed with `pip` into a clean virtual
//!   environment (a from-source build, as a user with a Rust toolchain gets it) and imported;
//! * the `capkit` binary linked against glibc 2.17 (`cargo zigbuild`, target
//!   `x86_64-unknown-linux-gnu.2.17`), refused if any `GLIBC_` symbol version it needs is newer
//!   than 2.17, and checked to write the same `capkit typo emit` bytes as the native build;
//! * `SHA256SUMS` over the three.
//!
//! Other platforms (macOS, Windows, aarch64) are built by the hosted release workflow
//! (`.github/workflows/release.yml`), which this machine cannot run; see `docs/install.md`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::python::{self, run};

/// Zig's target name for x86_64 Linux with glibc 2.17 (cargo-zigbuild's suffix syntax).
const ZIG_TARGET: &str = "x86_64-unknown-linux-gnu.2.17";
/// The newest glibc symbol version the portable binary may need.
const MAX_GLIBC: (u32, u32) = (2, 17);

/// Builds and checks every artefact (see the module doc).
pub fn dist() -> Result<()> {
    // Where the artefacts go (emptied first).
    let dist = crate::target_dir()?.join("dist");
    if dist.exists() {
        std::fs::remove_dir_all(&dist).with_context(|| format!("removing {}", dist.display()))?;
    }
    std::fs::create_dir_all(&dist).with_context(|| format!("creating {}", dist.display()))?;
    let python = python::venv()?;

    let wheel = python::portable_wheel(&python, &dist)?;
    let sdist = sdist(&python, &dist)?;
    let binary = portable_binary(&dist)?;

    let names: Vec<String> = [&wheel, &sdist, &binary]
        .iter()
        .map(|p| file_name(p))
        .collect::<Result<_>>()?;
    let sums = Command::new("sha256sum")
        .args(&names)
        .current_dir(&dist)
        .output()
        .context("starting sha256sum")?;
    if !sums.status.success() {
        bail!("sha256sum failed in {}", dist.display());
    }
    std::fs::write(dist.join("SHA256SUMS"), &sums.stdout).context("writing SHA256SUMS")?;
    println!("xtask dist: {}/", dist.display());
    for name in names.iter().map(String::as_str).chain(["SHA256SUMS"]) {
        let len = std::fs::metadata(dist.join(name))?.len();
        println!("  {name}  ({:.1} MiB)", len as f64 / (1024.0 * 1024.0));
    }
    Ok(())
}

fn file_name(p: &Path) -> Result<String> {
    Ok(p.file_name()
        .with_context(|| format!("{} has no file name", p.display()))?
        .to_string_lossy()
        .into_owned())
}

/// `maturin sdist`, then `pip install` of it into a fresh venv and an import of the package.
fn sdist(python: &Path, dist: &Path) -> Result<PathBuf> {
    let bin = python.parent().context("venv layout")?;
    run(Command::new(bin.join("maturin"))
        .args([
            "sdist",
            "--manifest-path",
            "crates/capkit-py/Cargo.toml",
            "--out",
        ])
        .arg(dist))?;
    let sdist = python::only_file(dist, ".tar.gz")?;
    // A clean venv (no test requirements, nothing of ours installed), the way a user installs
    // the sdist: pip builds it in isolation with the maturin its pyproject asks for. The
    // cargo target directory is kept under ours so a second run is incremental.
    let target = crate::target_dir()?;
    let check = target.join("dist-check");
    if check.exists() {
        std::fs::remove_dir_all(&check).with_context(|| format!("removing {}", check.display()))?;
    }
    let venv = check.join("venv");
    run(Command::new(python::interpreter())
        .args(["-m", "venv"])
        .arg(&venv))?;
    let clean = venv.join("bin/python");
    let target_dir = target.join("sdist-build");
    run(Command::new(&clean)
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
            "--no-cache-dir",
        ])
        .arg(&sdist)
        .env("CARGO_TARGET_DIR", &target_dir))?;
    // The source build answers like the wheel: a profile of mixle's own shape.
    run(Command::new(&clean).args([
        "-c",
        "import capkit_rs as c\n\
         s = c.CapabilitySuite(corruptions={'typo': c.keyboard_typo_corruption(0.5, seed=1)})\n\
         p = c.capture_profile(lambda t: len(t) > 3, lambda t: len(t) > 2, ['good', 'bad'], s)\n\
         assert list(p) == ['clean_agreement', 'corruptions', 'invariances'], p\n\
         assert p['clean_agreement'] == 0.5 and list(p['corruptions']) == ['typo'], p\n\
         print('xtask dist: sdist build imports and profiles:', p['clean_agreement'])",
    ]))?;
    std::fs::remove_dir_all(&check).with_context(|| format!("removing {}", check.display()))?;
    Ok(sdist)
}

/// The glibc-2.17 `capkit` binary, checked and compared with the native build.
fn portable_binary(dist: &Path) -> Result<PathBuf> {
    let cargo = crate::cargo();
    let has_zigbuild = Command::new("cargo-zigbuild")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_zigbuild {
        bail!(
            "cargo-zigbuild is missing: `cargo install --locked cargo-zigbuild` (.ci/run installs it)"
        );
    }
    // cargo-zigbuild finds Zig through `python -m ziglang` of the test venv.
    run(Command::new(&cargo)
        .args([
            "zigbuild",
            "--release",
            "--locked",
            "-p",
            "capkit",
            "--target",
            ZIG_TARGET,
        ])
        .env("PATH", python::venv_path()?))?;
    // cargo-zigbuild drops the glibc suffix from the target directory's name.
    let built = crate::target_dir()?.join("x86_64-unknown-linux-gnu/release/capkit");
    let version = env!("CARGO_PKG_VERSION");
    let binary = dist.join(format!("capkit-{version}-x86_64-unknown-linux-gnu"));
    std::fs::copy(&built, &binary)
        .with_context(|| format!("copying {} to {}", built.display(), binary.display()))?;

    let needed = glibc_versions(&binary)?;
    let newest = needed.iter().max().copied().unwrap_or((0, 0));
    if newest > MAX_GLIBC {
        bail!(
            "{} needs GLIBC_{}.{} (at most GLIBC_{}.{} allowed)",
            binary.display(),
            newest.0,
            newest.1,
            MAX_GLIBC.0,
            MAX_GLIBC.1
        );
    }
    println!(
        "xtask dist: {} needs at most GLIBC_{}.{}",
        binary.display(),
        newest.0,
        newest.1
    );
    same_emit_as_native(&binary)?;
    Ok(binary)
}

/// The `GLIBC_x.y` symbol versions an ELF file needs, read with `objdump -T` (binutils).
fn glibc_versions(elf: &Path) -> Result<Vec<(u32, u32)>> {
    let out = Command::new("objdump")
        .arg("-T")
        .arg(elf)
        .output()
        .context("starting objdump (binutils)")?;
    if !out.status.success() {
        bail!("objdump -T {} failed", elf.display());
    }
    Ok(parse_glibc_versions(&String::from_utf8_lossy(&out.stdout)))
}

/// Every `GLIBC_major.minor` mentioned in `objdump -T` output.
fn parse_glibc_versions(text: &str) -> Vec<(u32, u32)> {
    let mut found = Vec::new();
    for (i, _) in text.match_indices("GLIBC_") {
        let rest = &text[i + "GLIBC_".len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let mut parts = rest[..end].split('.').map(str::parse::<u32>);
        if let (Some(Ok(major)), Some(Ok(minor))) = (parts.next(), parts.next()) {
            found.push((major, minor));
        }
    }
    found
}

/// The README's main job (`capkit typo emit`, embedded corpus, every task) from the portable
/// binary and from the native build must be the same bytes.
fn same_emit_as_native(portable: &Path) -> Result<()> {
    let native = crate::target_dir()?.join("debug/capkit");
    if !native.exists() {
        run(Command::new(crate::cargo()).args(["build", "--locked", "-p", "capkit"]))?;
    }
    let emit = |exe: &Path| -> Result<Vec<u8>> {
        let out = Command::new(exe)
            .args(["typo", "emit"])
            .output()
            .with_context(|| format!("starting {}", exe.display()))?;
        if !out.status.success() {
            bail!(
                "{} typo emit failed: {}",
                exe.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(out.stdout)
    };
    let (a, b) = (emit(portable)?, emit(&native)?);
    if a != b {
        bail!(
            "`capkit typo emit` differs: portable {} bytes, native {} bytes",
            a.len(),
            b.len()
        );
    }
    println!(
        "xtask dist: portable and native `capkit typo emit` write the same {} bytes",
        a.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glibc_versions_are_read_from_objdump_lines() {
        let text = "0000 DF *UND* 0000 (GLIBC_2.2.5) memcpy\n\
                    0000 DF *UND* 0000 (GLIBC_2.17) clock_gettime\n\
                    0000 DF *UND* 0000 GLIBC_2.34 __libc_start_main\n";
        let v = parse_glibc_versions(text);
        assert_eq!(v, [(2, 2), (2, 17), (2, 34)]);
        assert_eq!(v.iter().max(), Some(&(2, 34)));
        assert!((2, 34) > MAX_GLIBC && (2, 17) <= MAX_GLIBC);
    }
}
