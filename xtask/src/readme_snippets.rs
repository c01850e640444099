//! `cargo xtask readme-snippets`: every Rust block of a crate README is a doc test using only its
//! crate, and every Rust block of the workspace README and of the guides (`docs/*.md`) is one of
//! them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

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
pub(crate) fn readme_snippets() -> Result<()> {
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
pub(crate) fn documentation_pages(root: &Path) -> Result<Vec<PathBuf>> {
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use anyhow::Result;

    use super::{documentation_pages, rust_blocks, untested_rust_block};

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
