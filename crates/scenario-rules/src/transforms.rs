//! The scenarios' named transforms.

use serde_json::Value;
use suite_core::{
    CapabilitySuite, KeyboardTypo, Transform, TypoRng, case_jitter_invariance,
    whitespace_invariance,
};

use crate::RuleError;

/// The transform a scenario names: the vocabulary's deterministic transforms, mixle's two shipped
/// invariances, and `typo_r<rate>_s<seed>` = `keyboard_typo_corruption` in mixle-compatible mode.
pub fn transform_by_name(name: &str) -> Result<Transform, RuleError> {
    const VOWELS: &str = "aeiouAEIOU";
    Ok(match name {
        "identity" => Transform::new(str::to_owned),
        "drop_every_3rd" => Transform::new(|t| {
            t.chars()
                .enumerate()
                .filter(|(i, _)| i % 3 != 2)
                .map(|(_, c)| c)
                .collect()
        }),
        "ascii_upper" => Transform::new(str::to_ascii_uppercase),
        "ascii_lower" => Transform::new(str::to_ascii_lowercase),
        "vowels_to_star" => Transform::new(|t| {
            t.chars()
                .map(|c| if VOWELS.contains(c) { '*' } else { c })
                .collect()
        }),
        "append_bangs" => Transform::new(|t| format!("{t} !!!")),
        "double_spaces" => Transform::new(|t| t.replace(' ', "  ")),
        "pad_tabs" => Transform::new(|t| format!("\t{t} \n")),
        "o_to_zero" => Transform::new(|t| t.replace(['o', 'O'], "0")),
        "reverse" => Transform::new(|t| t.chars().rev().collect()),
        "truncate_8" => Transform::new(|t| t.chars().take(8).collect()),
        "strip_digits" => Transform::new(|t| t.chars().filter(|c| !c.is_ascii_digit()).collect()),
        "case_jitter" => case_jitter_invariance(),
        "whitespace" => whitespace_invariance(),
        other => {
            let parsed = other
                .strip_prefix("typo_r")
                .and_then(|rest| rest.split_once("_s"))
                .and_then(|(r, s)| Some((r.parse::<f64>().ok()?, s.parse::<u64>().ok()?)));
            let Some((rate, seed)) = parsed else {
                return Err(RuleError(format!("unknown transform `{other}`")));
            };
            KeyboardTypo::new(rate, seed)
                .and_then(|t| t.with_rng(TypoRng::Mixle))
                .map_err(|e| RuleError(e.to_string()))?
                .into_transform()
        }
    })
}

/// Builds a scenario's `suite` object (`{"corruptions": [{"name","transform"}…], …}`).
pub fn suite_from_scenario(suite: &Value) -> Result<CapabilitySuite, RuleError> {
    let mut out = CapabilitySuite::new();
    let entries = |key: &str| -> Result<Vec<(String, Transform)>, RuleError> {
        let list = suite
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        list.iter()
            .map(|e| {
                let name = e
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| RuleError(format!("{key}: name")))?;
                let t = e
                    .get("transform")
                    .and_then(Value::as_str)
                    .ok_or_else(|| RuleError(format!("{key}: transform")))?;
                Ok((name.to_owned(), transform_by_name(t)?))
            })
            .collect()
    };
    for (name, t) in entries("corruptions")? {
        out.add_corruption(name, t);
    }
    for (name, t) in entries("invariances")? {
        out.add_invariance(name, t);
    }
    for p in suite
        .get("probes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        let p = p
            .as_str()
            .ok_or_else(|| RuleError("probes must be strings".into()))?;
        out.add_probe(p);
    }
    Ok(out)
}
