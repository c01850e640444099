//! How a report's figures are computed from its counts: the confidence level and the
//! break-even threshold. A leaf: the figures (`analysis`) and the report both read it.

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::interval::Level;

/// How the figures are computed from the counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The confidence level of every interval.
    pub level: Level,
    /// The threshold of the curves' break-even severity, in `[0, 1]`.
    pub break_even: f64,
}

impl Settings {
    /// The default break-even threshold.
    pub const DEFAULT_BREAK_EVEN: f64 = 0.9;

    /// Settings with a validated level and threshold.
    pub fn new(level: f64, break_even: f64) -> Result<Settings, Error> {
        let settings = Settings {
            level: Level::new(level)?,
            break_even,
        };
        settings.validate()?;
        Ok(settings)
    }

    pub(crate) fn validate(&self) -> Result<(), Error> {
        if (0.0..=1.0).contains(&self.break_even) {
            Ok(())
        } else {
            Err(Error::Threshold(self.break_even))
        }
    }
}

impl Default for Settings {
    /// 95 % intervals, break-even at 0.9.
    fn default() -> Settings {
        Settings {
            level: Level::DEFAULT,
            break_even: Settings::DEFAULT_BREAK_EVEN,
        }
    }
}
