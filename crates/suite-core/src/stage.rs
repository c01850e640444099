//! Where a profile is: which model of the pair ([`Side`]) and which pass over the texts
//! ([`Stage`]). Domain types, used by the engine, the errors that name them and the callers that
//! report progress.

use std::fmt;

/// Which model of the pair a message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The distilled model under test.
    Student,
    /// The reference model.
    Teacher,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Student => "student",
            Side::Teacher => "teacher",
        })
    }
}

/// The pass of a profile during which a model was called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// The clean texts.
    Clean,
    /// The texts rewritten by the named corruption.
    Corruption(String),
    /// The texts rewritten by the named invariance.
    Invariance(String),
    /// The suite's probes.
    Probes,
    /// The decision API on the clean texts.
    Decisions,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Clean => f.write_str("clean texts"),
            Stage::Corruption(n) => write!(f, "corruption `{n}`"),
            Stage::Invariance(n) => write!(f, "invariance `{n}`"),
            Stage::Probes => f.write_str("probes"),
            Stage::Decisions => f.write_str("decisions on the clean texts"),
        }
    }
}
