//! Sentence-level transforms: the whole text's case, punctuation, layout, normalisation and
//! context.

use suite_core::{ResolveError, Transform};

use crate::descriptor::{Descriptor, Kind, Level};
use crate::param::Params;

fn uppercase(_: &Params<'_>) -> Result<Transform, ResolveError> {
    Ok(Transform::new(str::to_uppercase))
}

fn lowercase(_: &Params<'_>) -> Result<Transform, ResolveError> {
    Ok(Transform::new(str::to_lowercase))
}

/// The sentence-level transforms.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    Descriptor {
        name: "uppercase",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "every letter upper case (Unicode full case mapping: ß becomes SS)",
        params: &[],
        example: "The quick Brown fox",
        example_params: "{}",
        build: uppercase,
    },
    Descriptor {
        name: "lowercase",
        level: Level::Sentence,
        kind: Kind::MeaningPreserving,
        description: "every letter lower case (Unicode full case mapping)",
        params: &[],
        example: "The quick Brown fox",
        example_params: "{}",
        build: lowercase,
    },
];
