//! `cargo xtask docs-check`: the README and the guides (`docs/*.md`) name only commands the CLI
//! has and link only to files inside the repository.
//!
//! * Commands: every `capkit WORD WORD…` in code (inline code spans and fenced blocks, where
//!   commands are written; `cargo run -p capkit -- WORD…` too) is walked down the CLI's command
//!   tree as far as it names subcommands. The tree comes from the built binary's `--help`, one
//!   call per command, so it is clap's own (aliases and hidden commands aside) and cannot drift
//!   from the definitions the way a copy of them would.
//! * `cargo xtask WORD` in code must be one of the commands xtask's usage line lists.
//! * Links: every Markdown link and reference definition outside code must be a URL or a path
//!   that, resolved from its page, stays inside the repository and names a file or directory
//!   there; a code span that is a path to a Markdown file must name one in the repository too
//!   (an absolute path such as a private notes file is refused).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::readme_snippets::documentation_pages;

/// A command and its subcommands (none: a leaf, whose next words are its arguments).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CommandTree {
    subs: BTreeMap<String, CommandTree>,
}

/// `cargo xtask docs-check`.
pub(crate) fn docs_check() -> Result<()> {
    println!("xtask ci: docs check: commands and links of README.md and docs/*.md");
    crate::step(
        "docs check (the CLI binary)",
        &["build", "--quiet", "-p", "capkit"],
    )?;
    let binary = crate::target_dir()?.join("debug/capkit");
    let tree = command_tree(&binary, &mut Vec::new())?;
    let root = std::env::current_dir().context("the workspace root")?;
    let mut problems = Vec::new();
    for page in documentation_pages(Path::new(""))? {
        let text = std::fs::read_to_string(&page)
            .with_context(|| format!("reading {}", page.display()))?;
        let shown = page.display().to_string();
        for problem in unknown_xtask_commands(&text, &xtask_commands(crate::USAGE)) {
            problems.push(format!("{shown}: {problem}"));
        }
        for problem in unknown_commands(&text, &tree) {
            problems.push(format!("{shown}: {problem}"));
        }
        for problem in bad_links(&text, &page, &|p: &Path| root.join(p).exists()) {
            problems.push(format!("{shown}: {problem}"));
        }
    }
    if !problems.is_empty() {
        bail!(
            "the documentation has drifted ({} problem(s)):\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
    println!("xtask: every command the docs name exists and every link stays in the repository");
    Ok(())
}

/// The command tree below `path` (`capkit PATH… --help`, recursively).
fn command_tree(binary: &Path, path: &mut Vec<String>) -> Result<CommandTree> {
    let output = Command::new(binary)
        .args(path.iter())
        .arg("--help")
        .output()
        .with_context(|| format!("starting {}", binary.display()))?;
    if !output.status.success() {
        bail!(
            "`capkit {} --help` failed: {}",
            path.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let mut tree = CommandTree::default();
    for name in subcommands(&String::from_utf8_lossy(&output.stdout)) {
        // `help` lists the same tree again.
        if name == "help" {
            tree.subs.insert(name, CommandTree::default());
            continue;
        }
        path.push(name.clone());
        let sub = command_tree(binary, path)?;
        path.pop();
        tree.subs.insert(name, sub);
    }
    Ok(tree)
}

/// The subcommand names of one clap `--help` text: the lines of its `Commands:` section that
/// are indented by exactly two spaces (a wrapped description is indented further).
fn subcommands(help: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.trim_end() == "Commands:" {
            inside = true;
        } else if inside {
            if let Some(rest) = line.strip_prefix("  ") {
                if !rest.starts_with(' ')
                    && let Some(name) = rest.split_whitespace().next()
                {
                    names.push(name.to_owned());
                }
            } else {
                inside = false;
            }
        }
    }
    names
}

/// A word that can be a command name; anything else (a placeholder, a flag, `…`, `a|b`) ends
/// the walk down the tree.
fn is_command_word(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The code of a Markdown page, piece by piece: each inline code span (which may cross a line
/// break) and each line of a fenced block (lines ending in `\` joined to the next).
fn code_pieces(markdown: &str) -> Vec<String> {
    let (prose, fenced) = split_fences(markdown);
    let mut pieces = fenced;
    for paragraph in prose {
        pieces.extend(code_spans(&paragraph).into_iter().map(|(_, span)| span));
    }
    pieces
}

/// A page split into its prose paragraphs (outside fenced blocks) and its fenced code lines.
fn split_fences(markdown: &str) -> (Vec<String>, Vec<String>) {
    let mut prose = vec![String::new()];
    let mut code = Vec::new();
    let mut fence: Option<&str> = None;
    let mut pending = String::new();
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match fence {
            Some(open) if trimmed.starts_with(open) => fence = None,
            Some(_) => {
                if let Some(head) = line.strip_suffix('\\') {
                    pending.push_str(head);
                    pending.push(' ');
                } else {
                    pending.push_str(line);
                    code.push(std::mem::take(&mut pending));
                }
            }
            None if trimmed.starts_with("```") || trimmed.starts_with("~~~") => {
                fence = Some(&trimmed[..3]);
                prose.push(String::new());
            }
            None if trimmed.is_empty() => prose.push(String::new()),
            None => {
                if let Some(last) = prose.last_mut() {
                    last.push_str(line);
                    last.push('\n');
                }
            }
        }
    }
    (prose, code)
}

/// The inline code spans of a paragraph as (byte range, content): a run of N backticks opens
/// one and the next run of exactly N closes it.
fn code_spans(paragraph: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let bytes = paragraph.as_bytes();
    let run_at = |i: usize| bytes[i..].iter().take_while(|&&b| b == b'`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let open = run_at(i);
        let mut j = i + open;
        let mut closed = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let run = run_at(j);
                if run == open {
                    closed = Some(j);
                    break;
                }
                j += run;
            } else {
                j += 1;
            }
        }
        match closed {
            Some(end) => {
                let inner = paragraph[i + open..end].replace('\n', " ");
                spans.push((i..end + open, inner));
                i = end + open;
            }
            None => i += open,
        }
    }
    spans
}

/// Whether `words[at]` is `capkit` run as a command: the first word of a piece of code or of a
/// shell command in it (after `$`, `|`, `&&`, `;`, `time`, `VAR=value`), or the binary of
/// `cargo run -p capkit -- …`; not prose in code such as `every capkit crate`.
fn runs_capkit(words: &[&str], at: usize) -> bool {
    if words[at] != "capkit" {
        return false;
    }
    let Some(before) = at.checked_sub(1).map(|i| words[i]) else {
        return true;
    };
    let cargo_run =
        matches!(before, "-p" | "--package" | "--bin") && words.get(at + 1) == Some(&"--");
    cargo_run || matches!(before, "$" | "|" | "&&" | ";" | "time") || before.contains('=')
}

/// Every `capkit …` of the page's code that names a subcommand the CLI does not have.
pub(crate) fn unknown_commands(markdown: &str, tree: &CommandTree) -> Vec<String> {
    let mut problems = Vec::new();
    for piece in code_pieces(markdown) {
        let words: Vec<&str> = piece.split_whitespace().collect();
        for at in (0..words.len()).filter(|&at| runs_capkit(&words, at)) {
            let mut rest = &words[at + 1..];
            if rest.first() == Some(&"--") {
                rest = &rest[1..];
            }
            let mut node = tree;
            let mut path = vec!["capkit"];
            for word in rest {
                if node.subs.is_empty() || !is_command_word(word) {
                    break;
                }
                match node.subs.get(*word) {
                    Some(sub) => {
                        node = sub;
                        path.push(word);
                    }
                    None => {
                        let known: Vec<&str> = node.subs.keys().map(String::as_str).collect();
                        problems.push(format!(
                            "`{} {word}` is no command (`{}` has {})",
                            path.join(" "),
                            path.join(" "),
                            known.join(", ")
                        ));
                        break;
                    }
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// The commands of xtask's usage line (`usage: cargo xtask <a | b [-p P]... | c>`).
fn xtask_commands(usage: &str) -> Vec<&str> {
    let inner = usage
        .split_once('<')
        .and_then(|(_, rest)| rest.rsplit_once('>'))
        .map_or("", |(inner, _)| inner);
    inner
        .split('|')
        .filter_map(|alt| alt.split_whitespace().next())
        .collect()
}

/// Every `cargo xtask WORD` of the page's code whose WORD is not one of `commands`.
fn unknown_xtask_commands(markdown: &str, commands: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    for piece in code_pieces(markdown) {
        let words: Vec<&str> = piece.split_whitespace().collect();
        for pair in words.windows(3) {
            if pair[0] == "cargo"
                && pair[1] == "xtask"
                && is_command_word(pair[2])
                && !commands.contains(&pair[2])
            {
                problems.push(format!(
                    "`cargo xtask {}` is no xtask command (it has {})",
                    pair[2],
                    commands.join(", ")
                ));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// Every link of `page` (a path relative to the repository root) that leaves the repository or
/// names nothing there (`exists` answers for a root-relative path).
pub(crate) fn bad_links(
    markdown: &str,
    page: &Path,
    exists: &dyn Fn(&Path) -> bool,
) -> Vec<String> {
    let dir = page.parent().unwrap_or(Path::new(""));
    let (prose, _) = split_fences(markdown);
    let mut problems = Vec::new();
    for paragraph in &prose {
        let spans = code_spans(paragraph);
        for (_, span) in &spans {
            let span = span.trim();
            if span.ends_with(".md") && !span.contains(char::is_whitespace) && !span.contains('*') {
                let (from_page, from_root) = (resolve(dir, span), resolve(Path::new(""), span));
                let found = [&from_page, &from_root]
                    .into_iter()
                    .any(|p| p.as_ref().is_ok_and(|p| exists(p)));
                match (from_page, from_root) {
                    (Err(_), Err(why)) => problems.push(format!("`{span}` {why}")),
                    _ if !found => {
                        problems.push(format!("`{span}` names no file in the repository"));
                    }
                    _ => {}
                }
            }
        }
        let mut prose_only = paragraph.clone();
        for (range, _) in spans.iter().rev() {
            prose_only.replace_range(range.clone(), "");
        }
        for target in link_targets(&prose_only) {
            let path = target.split(['#', '?']).next().unwrap_or_default();
            if path.is_empty() || has_scheme(path) {
                continue;
            }
            match resolve(dir, path) {
                Err(why) => problems.push(format!("link `{target}` {why}")),
                Ok(resolved) if !exists(&resolved) => problems.push(format!(
                    "link `{target}`: {} does not exist",
                    resolved.display()
                )),
                Ok(_) => {}
            }
        }
    }
    problems
}

/// The targets of the inline links (`[text](target)`, images too) and reference definitions
/// (`[label]: target`) of prose.
fn link_targets(prose: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = prose;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let end = after.find([')', ' ', '\n']).unwrap_or(after.len());
        let target = after[..end].trim_start_matches('<').trim_end_matches('>');
        targets.push(target.to_owned());
        rest = &after[end..];
    }
    for line in prose.lines() {
        let line = line.trim_start();
        if line.starts_with('[')
            && let Some(i) = line.find("]:")
            && let Some(target) = line[i + 2..].split_whitespace().next()
        {
            targets.push(target.to_owned());
        }
    }
    targets
}

/// `https:`, `mailto:` and the like: a scheme before any `/`.
fn has_scheme(target: &str) -> bool {
    target
        .split_once(':')
        .is_some_and(|(scheme, _)| !scheme.is_empty() && !scheme.contains('/'))
}

/// `target` resolved from the directory `dir` (both relative to the repository root), or why it
/// leaves the repository.
fn resolve(dir: &Path, target: &str) -> Result<PathBuf, &'static str> {
    if target.starts_with('/') {
        return Err("is an absolute path, outside the repository");
    }
    let mut parts: Vec<&str> = dir
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("resolves outside the repository");
                }
            }
            name => parts.push(name),
        }
    }
    Ok(parts.iter().collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{
        CommandTree, bad_links, subcommands, unknown_commands, unknown_xtask_commands,
        xtask_commands,
    };

    const HELP: &str = "Capability profiles\n\nUsage: capkit <COMMAND>\n\nCommands:\n  typo     Typo tasks: emit a corpus,\n           score predictions\n  mutator  Evaluate LLM mutators\n  help     Print this message\n\nOptions:\n  -h, --help  Print help\n";

    fn tree() -> CommandTree {
        let leaf = CommandTree::default;
        let mut typo = CommandTree::default();
        typo.subs.insert("emit".into(), leaf());
        let mut mutator = CommandTree::default();
        mutator.subs.insert("eval".into(), leaf());
        let mut root = CommandTree::default();
        root.subs.insert("typo".into(), typo);
        root.subs.insert("mutator".into(), mutator);
        root.subs.insert("report".into(), leaf());
        root
    }

    #[test]
    fn subcommands_are_read_from_clap_help_without_wrapped_lines_or_options() {
        assert_eq!(subcommands(HELP), ["typo", "mutator", "help"]);
        assert!(subcommands("Usage: capkit report [OPTIONS] <INPUT>...\n").is_empty());
    }

    #[test]
    fn a_command_the_cli_lacks_is_named_wherever_code_names_it() {
        let page = "Run `capkit mutator run --out x`, or\n`capkit mutator\nrun` again.\n\n\
                    ```sh\ncargo run -p capkit -- typo emmit > a\nFOO=1 capkit mutator run\ncapkit report out.json \\\n  more\n```\n\
                    Prose: capkit mutator run is not code. `capkit typo emit|score`, `capkit typo …`.\n";
        assert_eq!(
            unknown_commands(page, &tree()),
            [
                "`capkit mutator run` is no command (`capkit mutator` has eval)",
                "`capkit typo emmit` is no command (`capkit typo` has emit)",
            ]
        );
        let fine = "`capkit mutator eval --x`, `capkit report a.json b`, `cargo install capkit`, `capkit_rs`, `capkit typo`\n\
                    `every capkit crate`, `CI=1 capkit report x`, `$ capkit typo emit`\n";
        assert!(unknown_commands(fine, &tree()).is_empty());
    }

    #[test]
    fn an_xtask_command_missing_from_the_usage_line_is_named() {
        let commands = xtask_commands(crate::USAGE);
        assert!(commands.contains(&"check-goldens") && commands.contains(&"docs-check"));
        assert_eq!(commands.first(), Some(&"test"));
        assert_eq!(commands.last(), Some(&"ci"));
        let page = "`cargo xtask docs-check`, `cargo xtask check-goldens -p x`\n\n```\ncargo xtask lint\n```\n";
        assert_eq!(
            unknown_xtask_commands(page, &commands),
            [format!(
                "`cargo xtask lint` is no xtask command (it has {})",
                commands.join(", ")
            )]
        );
    }

    #[test]
    fn a_link_leaving_the_repository_or_to_nothing_is_named() {
        let exists =
            |p: &Path| ["README.md", "docs/cli.md", "docs"].contains(&p.to_str().unwrap_or(""));
        let page = "See [cli](cli.md#flags), [home](../README.md), [web](https://example.com/x.md),\n\
                    [here](#top), [docs](../docs), [gone](missing.md), [out](../../x.md),\n\
                    ![img](/work/notes/a.png) and `/work/notes/transforms-api.md` and `docs/cli.md`\n\
                    and `docs/nope.md`; `[not](a-link.md)` is code.\n\n[ref]: ../../elsewhere.md\n\
                    ```\n[in](a-fence.md)\n```\n";
        assert_eq!(
            bad_links(page, Path::new("docs/guide.md"), &exists),
            [
                "`/work/notes/transforms-api.md` is an absolute path, outside the repository",
                "`docs/nope.md` names no file in the repository",
                "link `missing.md`: docs/missing.md does not exist",
                "link `../../x.md` resolves outside the repository",
                "link `/work/notes/a.png` is an absolute path, outside the repository",
                "link `../../elsewhere.md` resolves outside the repository",
            ]
        );
    }
}
