//! The sums behind a micro F1 over texts: what an extractor's counts keep per comparison, and
//! what the F1 intervals ([`crate::f1_interval`], [`crate::f1_delta_interval`]) are computed
//! from. A leaf: the counts and the intervals both build on it.

use std::ops::AddAssign;

use profile_types::FieldCounts;
use serde::{Deserialize, Serialize};

/// The sums behind one micro F1 and its delta-method variance, over texts.
///
/// Per text `i`, `tpᵢ`, `fpᵢ` and `fnᵢ` are the field-level true positives, false positives and
/// false negatives of one predicted record against its reference, and `errᵢ = fpᵢ + fnᵢ`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSums {
    /// `Σ tpᵢ`.
    pub tp: u64,
    /// `Σ fpᵢ`.
    pub fp: u64,
    /// `Σ fnᵢ`.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// `Σ tpᵢ²`.
    pub tp_sq: u64,
    /// `Σ tpᵢ·errᵢ`.
    pub tp_err: u64,
    /// `Σ errᵢ²`.
    pub err_sq: u64,
}

impl FieldSums {
    /// Adds one text's counts.
    #[inline]
    pub fn record(&mut self, tp: u64, fp: u64, fn_: u64) {
        self.record_n(tp, fp, fn_, 1);
    }

    /// Adds `n` texts with the same counts.
    #[inline]
    pub fn record_n(&mut self, tp: u64, fp: u64, fn_: u64, n: u64) {
        let err = fp + fn_;
        self.tp += n * tp;
        self.fp += n * fp;
        self.fn_ += n * fn_;
        self.tp_sq += n * tp * tp;
        self.tp_err += n * tp * err;
        self.err_sq += n * err * err;
    }

    /// Micro F1, `2·tp / (2·tp + fp + fn)`, `1.0` when that denominator is 0 (upstream's rule,
    /// bit for bit the profile's value).
    pub fn f1(&self) -> f64 {
        FieldCounts::new(self.tp, self.fp, self.fn_).f1
    }

    /// `2·tp + fp + fn`.
    pub(crate) fn denominator(&self) -> u64 {
        2 * self.tp + self.fp + self.fn_
    }

    /// `Σᵢ (tpᵢ·E − T·errᵢ)²` with `T = Σ tpᵢ` and `E = Σ errᵢ`: the residual sum of squares of
    /// the ratio, up to the factor `4 / (2T + E)²`. Exact while it fits in 128 bits.
    pub(crate) fn residual_square_sum(&self) -> f64 {
        let (t, e) = (i128::from(self.tp), i128::from(self.fp + self.fn_));
        let (stt, ste, see) = (
            i128::from(self.tp_sq),
            i128::from(self.tp_err),
            i128::from(self.err_sq),
        );
        let exact = (|| {
            let a = e.checked_mul(e)?.checked_mul(stt)?;
            let b = e.checked_mul(t)?.checked_mul(ste)?.checked_mul(2)?;
            let c = t.checked_mul(t)?.checked_mul(see)?;
            a.checked_sub(b)?.checked_add(c)
        })();
        match exact {
            Some(v) => v.max(0) as f64,
            None => {
                let (t, e) = (t as f64, e as f64);
                (e * e * stt as f64 - 2.0 * e * t * ste as f64 + t * t * see as f64).max(0.0)
            }
        }
    }
}

impl AddAssign for FieldSums {
    fn add_assign(&mut self, o: FieldSums) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
        self.tp_sq += o.tp_sq;
        self.tp_err += o.tp_err;
        self.err_sq += o.err_sq;
    }
}
