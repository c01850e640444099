//! `capkit profile transforms` (the catalogue: every transform with its kind, parameters,
//! description and an example) and `capkit profile transform NAME --text …` (try one).

use anyhow::bail;
use serde_json::{Map, Value};
use transforms::{Catalogue, Kind};

/// Arguments of `capkit profile transforms`.
#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    /// Print the catalogue as JSON (one array of objects) for tools.
    #[arg(long)]
    json: bool,
}

/// Arguments of `capkit profile transform`.
#[derive(Debug, clap::Args)]
pub(crate) struct TryArgs {
    /// The transform's name (`capkit profile transforms` lists them).
    name: String,
    /// A text to transform (repeatable; each output on its own line, JSON-quoted when it is
    /// empty or holds a control character such as a line break or tab). Without it, the
    /// transform's own example.
    #[arg(long, value_name = "TEXT")]
    text: Vec<String>,
    /// A parameter, `KEY=VALUE`; VALUE is read as JSON when it parses (`0.1`, `true`,
    /// `["a"]`), else as a string (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,
}

/// `capkit profile transforms`.
pub(crate) fn list(args: &ListArgs) -> anyhow::Result<()> {
    let catalogue = Catalogue::standard();
    let mut out = crate::stdout::Lines::default();
    if args.json {
        out.line(serde_json::to_string_pretty(&catalogue.describe_all()?)?);
        return out.print();
    }
    let width = catalogue
        .descriptors()
        .map(|d| d.name.len())
        .max()
        .unwrap_or(0);
    out.line(format!(
        "{:width$}  {:11}  {:18}  parameters (default)",
        "name", "level", "kind"
    ));
    for d in catalogue.descriptors() {
        let params: Vec<String> = d
            .params
            .iter()
            .map(|p| match p.default {
                Some(default) => format!("{}={default}", p.name),
                None => format!("{} (required)", p.name),
            })
            .collect();
        let kind = match d.kind {
            Kind::Corruption { severity } => format!("corruption ({severity})"),
            other => other.as_str().to_owned(),
        };
        let line = format!(
            "{:width$}  {:11}  {:18}  {}",
            d.name,
            d.level.as_str(),
            kind,
            params.join(" ")
        );
        out.line(line.trim_end());
        out.line(format!("{:width$}  {}", "", d.description));
        match (catalogue.example(d.name), d.needs()) {
            (Ok((input, example_params, output)), _) => {
                let shown = if example_params.is_empty() {
                    String::new()
                } else {
                    format!(" {}", Value::Object(example_params))
                };
                out.line(format!(
                    "{:width$}  e.g.{shown} {} -> {}",
                    "",
                    Value::from(input),
                    Value::from(output)
                ));
            }
            // Data the machine lacks (a WordNet directory): the row stays, its example marked
            // with what it needs rather than shown as an error.
            (Err(_), Some(needs)) => out.line(format!(
                "{:width$}  e.g. {} {} -> (needs {needs}, not found here)",
                "",
                serde_json::from_str::<Value>(d.example_params).unwrap_or_default(),
                Value::from(d.example)
            )),
            (Err(e), None) => out.line(format!("{:width$}  (example not run: {e})", "")),
        }
    }
    out.print()
}

/// `--param KEY=VALUE`s as a parameter map.
fn parse_params(params: &[String]) -> anyhow::Result<Map<String, Value>> {
    let mut map = Map::new();
    for p in params {
        let Some((key, value)) = p.split_once('=') else {
            bail!("--param {p}: expected KEY=VALUE");
        };
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
        if map.insert(key.to_owned(), value).is_some() {
            bail!("--param {key}: given twice");
        }
    }
    Ok(map)
}

/// `capkit profile transform NAME [--text T]... [--param K=V]...`.
pub(crate) fn try_one(args: &TryArgs) -> anyhow::Result<()> {
    let catalogue = Catalogue::standard();
    let built = catalogue.build(&args.name, &parse_params(&args.params)?)?;
    let texts = if args.text.is_empty() {
        match catalogue.get(&args.name) {
            Some(d) => vec![d.example.to_owned()],
            None => Vec::new(),
        }
    } else {
        args.text.clone()
    };
    let mut out = crate::stdout::Lines::default();
    for text in &texts {
        let result = built.transform.apply(text);
        if result.is_empty() || result.chars().any(char::is_control) {
            out.line(Value::from(result));
        } else {
            out.line(result);
        }
    }
    out.print()
}
