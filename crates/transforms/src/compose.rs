//! Composition: `chain` (apply in order) and `one_of` (a seeded choice per text).

use suite_core::{ResolveError, Transform};

use crate::descriptor::{Descriptor, Kind, Level};
use crate::param::{Param, ParamType, Params};
use crate::rng::{Domain, TextRng};

fn chain(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let steps = p.transforms("steps")?;
    let transforms: Vec<Transform> = steps.iter().map(|r| r.transform.clone()).collect();
    let chained = Transform::new(move |text| {
        let mut current = text.to_owned();
        for t in &transforms {
            current = t.apply(&current);
        }
        current
    });
    // No severity: the steps' measure different things (a rate, a count), so their sum is no
    // place on any curve. A suite entry may declare one (and a family, else its own name).
    Ok(chained)
}

fn one_of(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let choices = p.transforms("choices")?;
    let seed = p.u64("seed")?;
    let transforms: Vec<Transform> = choices.iter().map(|r| r.transform.clone()).collect();
    let domain = Domain::of("one_of");
    let chosen = Transform::with_text_hash(move |text, hash| {
        let i = TextRng::new(hash, &domain, seed).below(transforms.len());
        match transforms.get(i) {
            Some(t) => t.apply_with_hash(text, hash),
            None => text.to_owned(),
        }
    });
    // No severity, for the reason `chain` has none.
    Ok(chosen)
}

/// The compositions.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    Descriptor {
        name: "chain",
        level: Level::Composition,
        kind: Kind::Composite,
        description: "apply steps in order (a corruption when any step is; no severity unless the suite entry declares one)",
        params: &[Param {
            name: "steps",
            ty: ParamType::Transforms,
            default: None,
            doc: "the transforms, applied first to last",
        }],
        example: "The quick brown fox",
        example_params: r#"{"steps": [{"transform": "uppercase"}, {"transform": "repeat_char", "rate": 0.2}]}"#,
        build: chain,
    },
    Descriptor {
        name: "one_of",
        level: Level::Composition,
        kind: Kind::Composite,
        description: "apply one of choices, drawn per text (a corruption when any choice is; no severity unless the suite entry declares one)",
        params: &[
            Param {
                name: "choices",
                ty: ParamType::Transforms,
                default: None,
                doc: "the transforms to choose from, uniformly",
            },
            Param::seed(),
        ],
        example: "The quick brown fox",
        example_params: r#"{"choices": [{"transform": "uppercase"}, {"transform": "lowercase"}]}"#,
        build: one_of,
    },
];
