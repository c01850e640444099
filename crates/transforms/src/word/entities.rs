//! Entity swaps from tables: first names (`swap_names`) and places (`swap_locations`).
//!
//! An entry of the table found in the text (as lexical words, longest entry first, written with
//! an upper-case first letter: `will` is a verb, `Will` may be a name) is replaced, with
//! probability `rate`, by another entry of the same table chosen uniformly, written as the table
//! writes it (all upper case if the text had it so).

use suite_core::{ResolveError, Transform};

use crate::descriptor::{BuildFn, Descriptor};
use crate::param::{Param, Params};
use crate::rng::seeded;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::Case;
use super::table::{PhraseMap, Rows};
use crate::rng::{Probability, TextRng};

/// Which table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    /// `swap_names`: first names.
    Name,
    /// `swap_locations`: cities, countries, regions.
    Location,
}

impl Entity {
    /// The transform name.
    const fn name(self) -> &'static str {
        match self {
            Entity::Name => "swap_names",
            Entity::Location => "swap_locations",
        }
    }

    /// The one-line description.
    pub const fn description(self) -> &'static str {
        match self {
            Entity::Name => "replaces first names by other names with probability `rate`",
            Entity::Location => "replaces place names by other places with probability `rate`",
        }
    }

    /// The compiled-in table: (file name under `data/`, text).
    pub fn builtin(self) -> (&'static str, &'static str) {
        match self {
            Entity::Name => (
                "first_names.txt",
                include_str!("../../data/first_names.txt"),
            ),
            Entity::Location => ("locations.txt", include_str!("../../data/locations.txt")),
        }
    }
}

/// An entity swap's table, ready to apply.
#[derive(Debug, Clone)]
pub struct EntitySwap {
    map: PhraseMap,
    pool: Vec<String>,
}

impl EntitySwap {
    /// `kind` with its compiled-in list (parsed once per process and shared).
    pub fn builtin(kind: Entity) -> Result<Arc<EntitySwap>, String> {
        static TABLES: [OnceLock<Result<Arc<EntitySwap>, String>>; 2] =
            [const { OnceLock::new() }; 2];
        TABLES[kind as usize]
            .get_or_init(|| EntitySwap::new(kind, None).map(Arc::new))
            .clone()
    }

    /// `kind` with its compiled-in list or the list at `table_path` (one entry per line, at
    /// least two entries).
    pub fn new(kind: Entity, table_path: Option<&Path>) -> Result<EntitySwap, String> {
        let (name, text) = kind.builtin();
        let rows = Rows::load(name, text, table_path)?;
        rows.check_fields(1, 1, "one entry per line")?;
        let mut map = PhraseMap::default();
        let mut pool = Vec::new();
        for (line, fields) in &rows.rows {
            if map
                .insert(&fields[0], pool.len())
                .map_err(|m| rows.error(*line, m))?
            {
                pool.push(fields[0].clone());
            }
        }
        if pool.len() < 2 {
            return Err(rows.error(0, "needs at least two distinct entries".into()));
        }
        Ok(EntitySwap { map, pool })
    }

    /// Applies it at `rate`: one decision per capitalised entry found, then one choice per
    /// replaced one.
    pub fn apply(&self, text: &str, rate: Probability, rng: &mut TextRng) -> String {
        if rate.is_zero() {
            return text.to_owned();
        }
        let mut edits = Vec::new();
        for (range, id) in self.map.matches(text) {
            let found = &text[range.clone()];
            if !found.chars().next().is_some_and(char::is_uppercase) {
                continue;
            }
            if !rng.chance(rate) {
                continue;
            }
            let mut other = rng.below(self.pool.len() - 1);
            if other >= id {
                other += 1;
            }
            let case = match Case::of(found) {
                Case::Upper => Case::Upper,
                _ => Case::Lower,
            };
            let mut with = String::new();
            case.write(&self.pool[other], &mut with);
            edits.push((range, with));
        }
        super::splice(text, &edits)
    }
}

fn build(kind: Entity, p: &Params<'_>) -> Result<Transform, ResolveError> {
    let swap = match super::table_path(p)? {
        None => EntitySwap::builtin(kind),
        Some(path) => EntitySwap::new(kind, Some(&path)).map(Arc::new),
    }
    .map_err(|e| ResolveError::Invalid(format!("table: {e}")))?;
    let rate = Probability::new(p.f64("rate")?);
    if rate.is_zero() {
        return Ok(Transform::new(str::to_owned));
    }
    Ok(seeded(kind.name(), p.u64("seed")?, move |text, rng| {
        swap.apply(text, rate, rng)
    }))
}

const RATE_SEED_TABLE: &[Param] = &[
    Param::rate("probability per entry found", "0.5"),
    Param::seed(),
    super::TABLE_PARAM,
];

const fn entity(kind: Entity, example: &'static str, build: BuildFn) -> Descriptor {
    super::table_corruption(
        kind.name(),
        kind.description(),
        RATE_SEED_TABLE,
        example,
        build,
    )
}

/// The entity swaps.
pub(crate) static DESCRIPTORS: &[Descriptor] = &[
    entity(Entity::Name, "Maria and John met Ahmed in the park.", |p| {
        build(Entity::Name, p)
    }),
    entity(
        Entity::Location,
        "We flew from New York to Paris via Dubai.",
        |p| build(Entity::Location, p),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::word::test_rng;

    #[test]
    fn names_and_places_swap_only_when_capitalised() {
        let all = Probability::new(1.0);
        let names = EntitySwap::builtin(Entity::Name).unwrap();
        assert!(names.pool.len() >= 200, "{}", names.pool.len());
        let out = names.apply("Maria met will and JOHN", all, &mut test_rng(4));
        assert!(!out.starts_with("Maria "), "{out}");
        assert!(out.contains(" met will and "), "{out}");
        let last = out.rsplit(' ').next().unwrap();
        assert_ne!(last, "JOHN");
        assert_eq!(last, last.to_uppercase());
        let places = EntitySwap::builtin(Entity::Location).unwrap();
        assert!(places.pool.len() >= 200, "{}", places.pool.len());
        let out = places.apply("from New York to Paris", all, &mut test_rng(4));
        assert!(!out.contains("New York") && !out.contains("Paris"), "{out}");
    }
}
