//! suite-core's four transforms, exactly as suite-core builds them (goldens and `rng: "mixle"`
//! included): the catalogue only describes them.

use suite_core::{ResolveError, Transform, TransformSpec, TypoRng};

use crate::descriptor::{Descriptor, Kind, Level};
use crate::param::{Param, ParamType, Params};

fn keyboard_typo(p: &Params<'_>) -> Result<Transform, ResolveError> {
    let rng = match p.str("rng")? {
        "mixle" => TypoRng::Mixle,
        _ => TypoRng::Chacha,
    };
    TransformSpec::KeyboardTypo {
        rate: p.f64("rate")?,
        seed: p.u64("seed")?,
        rng,
    }
    .build()
    .map_err(|e| ResolveError::Invalid(e.to_string()))
}

fn spec(spec: TransformSpec) -> Result<Transform, ResolveError> {
    spec.build()
        .map_err(|e| ResolveError::Invalid(e.to_string()))
}

/// suite-core's built-ins.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    Descriptor {
        name: "keyboard_typo",
        level: Level::Character,
        kind: Kind::Corruption { severity: "rate" },
        description: "each letter replaced by a random a-z with probability rate (mixle's keyboard_typo_corruption)",
        params: &[
            Param {
                name: "rate",
                ty: ParamType::Rate,
                default: None,
                doc: "replacement probability per letter",
            },
            Param::seed(),
            Param {
                name: "rng",
                ty: ParamType::Choice(&["chacha", "mixle"]),
                default: Some("\"chacha\""),
                doc: "generator: chacha, or mixle's MT19937 bit for bit",
            },
        ],
        example: "The quick brown fox",
        example_params: r#"{"rate": 0.3}"#,
        build: keyboard_typo,
    },
    Descriptor {
        name: "case_jitter",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "swap the case of every letter (Python str.swapcase, Unicode 14)",
        params: &[],
        example: "Hello World",
        example_params: "{}",
        build: |_| spec(TransformSpec::CaseJitter),
    },
    Descriptor {
        name: "whitespace",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "collapse whitespace runs to one space and trim (Python \" \".join(s.split()))",
        params: &[],
        example: "  Hello \t  World \n",
        example_params: "{}",
        build: |_| spec(TransformSpec::Whitespace),
    },
    Descriptor {
        name: "identity",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "the text unchanged (a control)",
        params: &[],
        example: "Hello World",
        example_params: "{}",
        build: |_| spec(TransformSpec::Identity),
    },
];
