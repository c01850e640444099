//! Prediction-powered inference of a mean: PPI (Angelopoulos et al., Science 382:669-674, 2023)
//! and its power-tuned form PPI++ (Angelopoulos, Duchi, Zrnic, arXiv:2311.01453, 2023).
//!
//! A figure of a profile is a mean `θ = (1/N) Σᵢ Yᵢ` over the `N` texts. When `Yᵢ` is only
//! observed on a uniform random sample of `n` texts (the teacher was asked about those) but a
//! surrogate `Ŷᵢ` (its clean answer, the student's answer) is known for every text, the
//! estimate
//!
//! ```text
//! θ̂(λ) = (1/N) Σ_all λ·Ŷᵢ + (1/n) Σ_sample (Yᵢ − λ·Ŷᵢ)
//! ```
//!
//! is unbiased for any fixed `λ`, and its normal-approximation interval is
//! `θ̂ ± z·√(Var_pop(λŶ_all)/N + Var_pop(Y − λŶ)_sample/n)`. `λ = 0` is the plain sample mean,
//! `λ = 1` is PPI, and PPI++ picks `λ` from the data,
//!
//! ```text
//! λ̂ = Cov_pop(Y, Ŷ)_sample / ((1 + n/N) · Var_ddof1(Ŷ_sample ⧺ Ŷ_all)),  clipped to [0, 1],
//! ```
//!
//! the variance-minimising choice, so the interval is (asymptotically) never wider than the
//! plain sample's. These are the formulas of `ppi_py.ppi_mean_ci` 0.2.3 for one-dimensional
//! unweighted data (the differential test in `tests/references.rs` checks them to 1e-9 on its
//! own arrays; no code of it was copied). One deliberate difference: when the surrogate is
//! constant its variance is 0 and `ppi_py` divides by zero (λ = NaN); here `λ̂ = 0`, the plain
//! sample estimate, which is what a constant carries.
//!
//! **Finite population.** `ppi_py` treats the labelled and unlabelled data as independent draws
//! from a superpopulation. A profile's target is the full-profile value on *these* texts, and
//! the labelled texts are a uniform sample *of* them (their surrogates are among the `N`). For
//! a fixed `λ`, `(1/N)Σ λŶ` is then a constant and, when the texts are distinct, the sample
//! term is a simple random sample mean with variance `(1 − n/N)·S²/n`. The interval above uses
//! `S²/n` (no finite-population correction) plus the variance of the surrogate term: it is
//! wider than the design variance needs, so its coverage of the finite-population value is at
//! least nominal, asymptotically.
//!
//! **Repeated texts.** The sample is drawn per distinct text, so a text's `c` lines are in or
//! out together: a cluster sample of lines. Then the unit is the distinct text ([`RepeatSums`]:
//! every second moment is a sum over distinct texts of `c²` times the outcome's), the estimate
//! keeps its ratio form over lines, and its variance is the linearised variance of the sample's
//! ratio mean over units, `Σ_sample c²(r − r̄)²/n²` for `r = Y − λŶ`, floored at what every
//! text's `Σ c²` leads the design to expect, with Student's `t` on the effective number of
//! sampled texts less one as the critical value ([`PpiSums::critical`]) and without the
//! surrogate term (a constant of these texts, whose superpopulation variance would be that of a
//! few hundred texts under heavy-tailed repeats). With every text distinct the sums carry no
//! repeats and every figure is `ppi_py`'s. The coverage test (`tests/ppi_coverage.rs`) measures
//! both on simulated profiles, distinct and with heavy-tailed repeats.
//!
//! Every figure is a function of additive sums ([`PpiSums`]), so sampled reports merge exactly.

use serde::{Deserialize, Serialize};
use std::ops::AddAssign;

use crate::interval::{Level, t_of_z, wilson_formula, wilson_limits};
use crate::table::PairedTable;

/// Why a profile whose figures are ratios (an extractor's micro F1 under corruption and
/// rewriting) refuses a sampled teacher: the estimators here are for means, and a ratio's
/// prediction-powered interval needs PPI's M-estimator form, which is not implemented. Every
/// surface that refuses (CLI, Python, Ray) says this.
pub const RATIO_SAMPLE_REFUSED: &str = "an extract profile cannot sample its teacher: its \
     figures under corruption and rewriting are micro F1 scores, 2·TP / (2·TP + FP + FN) with \
     the counts summed over the texts, a ratio; capkit's prediction-powered intervals are for \
     means (PPI++ of a mean) and a ratio's needs PPI's M-estimator (linearised, delta-method) \
     form, which is not implemented, so a sampled F1 would have no valid interval; profile \
     extract in full";

/// The sufficient statistics of a prediction-powered mean: sums over the labelled sample and
/// over every text. Values are integers (0/1 outcomes, or their differences), so sums are exact
/// and add up across shards.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PpiSums {
    /// `n`: labelled texts (the sample).
    pub labelled: u64,
    /// `Σ_sample Yᵢ`.
    pub y: i64,
    /// `Σ_sample Ŷᵢ`.
    pub yhat: i64,
    /// `Σ_sample Yᵢ²`.
    pub y_y: i64,
    /// `Σ_sample Yᵢ·Ŷᵢ`.
    pub y_yhat: i64,
    /// `Σ_sample Ŷᵢ²`.
    pub yhat_yhat: i64,
    /// `N`: every text (the labelled ones included).
    pub all: u64,
    /// `Σ_all Ŷᵢ`.
    pub yhat_all: i64,
    /// `Σ_all Ŷᵢ²`.
    pub yhat_yhat_all: i64,
    /// When texts repeat: the further sums the distinct text as the sampling unit needs
    /// ([`RepeatSums`]). Absent when every text is distinct (each line its own unit, as in
    /// reports written before it existed); the second-moment sums above (`y_y`, `y_yhat`,
    /// `yhat_yhat`, `yhat_yhat_all`) are then over units, `Σ c²·…` (see the module doc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<RepeatSums>,
}

/// The sums a mean needs beyond [`PpiSums`]' when texts repeat. The sample is drawn per
/// distinct text `t` (its `c_t` lines are in or out together), so the unit of the design is the
/// distinct text and each line-sum's spread is that of its texts' totals: with `c` a distinct
/// text's number of lines, every second-moment sum of [`PpiSums`] is `Σ_units c²·(…)` and these
/// are the `Σ c²·(…)` of first and zeroth order. Without repeats (`c = 1` everywhere) each
/// equals its line sum ([`PpiSums::repeat_sums`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatSums {
    /// `Σ_sample c²` over the sampled distinct texts.
    pub w_w: u64,
    /// `Σ_sample c²·Y`.
    pub w_y: i64,
    /// `Σ_sample c²·Ŷ`.
    pub w_yhat: i64,
    /// `Σ_all c²` over every distinct text.
    pub w_w_all: u64,
    /// `Σ_all c²·Ŷ`.
    pub w_yhat_all: i64,
}

impl AddAssign for RepeatSums {
    fn add_assign(&mut self, o: RepeatSums) {
        self.w_w += o.w_w;
        self.w_y += o.w_y;
        self.w_yhat += o.w_yhat;
        self.w_w_all += o.w_w_all;
        self.w_yhat_all += o.w_yhat_all;
    }
}

impl PpiSums {
    /// Adds one text that was not labelled: only its surrogate is known.
    #[inline]
    pub fn record_unlabelled(&mut self, yhat: i64) {
        self.record_n(None, yhat, 1);
    }

    /// Adds one labelled text: its outcome and its surrogate.
    #[inline]
    pub fn record_labelled(&mut self, y: i64, yhat: i64) {
        self.record_n(Some(y), yhat, 1);
    }

    /// Adds `n` distinct texts with the same surrogate and (when labelled) the same outcome.
    #[inline]
    pub fn record_n(&mut self, y: Option<i64>, yhat: i64, n: u64) {
        self.record_texts(y, yhat, n, n);
    }

    /// Adds `lines` lines with the same surrogate and (when labelled) the same outcome, made of
    /// distinct texts whose squared line counts sum to `squares` (`Σ c²`; `lines` when each
    /// line is a distinct text). A text's repeats are in or out of the sample together, so a
    /// repeated text is recorded once with its count `c` (`record_texts(y, ŷ, c, c²)`), or
    /// line by line as its `k`-th line arrives (`record_texts(y, ŷ, 1, 2k − 1)`, which sums to
    /// `c²`): either way the sums are exact and additive.
    #[inline]
    pub fn record_texts(&mut self, y: Option<i64>, yhat: i64, lines: u64, squares: u64) {
        if squares != lines && self.repeats.is_none() {
            self.repeats = Some(self.repeat_sums());
        }
        let (k, q) = (lines as i64, squares as i64);
        self.all += lines;
        self.yhat_all += k * yhat;
        self.yhat_yhat_all += q * yhat * yhat;
        if let Some(r) = &mut self.repeats {
            r.w_w_all += squares;
            r.w_yhat_all += q * yhat;
        }
        if let Some(y) = y {
            self.labelled += lines;
            self.y += k * y;
            self.yhat += k * yhat;
            self.y_y += q * y * y;
            self.y_yhat += q * y * yhat;
            self.yhat_yhat += q * yhat * yhat;
            if let Some(r) = &mut self.repeats {
                r.w_w += squares;
                r.w_y += q * y;
                r.w_yhat += q * yhat;
            }
        }
        self.normalise();
    }

    /// The [`RepeatSums`], those of distinct texts (each equal to its line sum) when absent.
    pub fn repeat_sums(&self) -> RepeatSums {
        self.repeats.unwrap_or(RepeatSums {
            w_w: self.labelled,
            w_y: self.y,
            w_yhat: self.yhat,
            w_w_all: self.all,
            w_yhat_all: self.yhat_all,
        })
    }

    /// Drops [`RepeatSums`] equal to those of distinct texts, so that sums of distinct texts
    /// are written (and compare) the same however they were made.
    fn normalise(&mut self) {
        if let Some(r) = self.repeats {
            self.repeats = None;
            if r != self.repeat_sums() {
                self.repeats = Some(r);
            }
        }
    }

    /// The critical value the normal interval uses at the normal critical value `z`: `z`
    /// itself for distinct texts; with repeats, Student's `t` on `n_eff − 1` degrees of freedom
    /// ([`crate::t_critical`]; `n_eff`: [`PpiSums::effective_labelled`], floored), since the
    /// variance then rests on few effective units when a few texts hold many of the lines.
    pub fn critical(&self, z: f64) -> f64 {
        match self.repeats {
            None => z,
            Some(_) => t_of_z(
                z,
                (self.effective_labelled().floor() as u64).saturating_sub(1),
            ),
        }
    }

    /// The normal statistic equivalent to `t = estimate / se` ([`PpiSums::critical`]
    /// inverted): the `z` whose critical value is `|t|`, signed as `t`, so that the interval at
    /// the level of `z` just reaches the null. `t` itself for distinct texts.
    pub fn normal_equivalent(&self, t: f64) -> f64 {
        if self.repeats.is_none() || t == 0.0 || t.is_nan() {
            return t;
        }
        let target = t.abs();
        if target.is_infinite() || self.critical(target) == target {
            return t;
        }
        // critical(z) ≥ z and increases with z: the root lies in [0, |t|].
        let (mut lo, mut hi) = (0.0, target);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.critical(mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-13 * hi {
                break;
            }
        }
        t.signum() * 0.5 * (lo + hi)
    }

    /// The sample's effective number of units, `n² / Σ_sample c²` (Kish's): `n` when every
    /// text is distinct, fewer the more the sampled lines pile up on few texts.
    ///
    /// With repeats, the smaller of that and the number the design expects from every text's
    /// counts, `n·N / Σ_all c²` (the sample's own `Σ c²` is small whenever it missed the
    /// largest texts).
    pub fn effective_labelled(&self) -> f64 {
        let n = self.labelled as f64;
        match self.repeats {
            Some(r) if r.w_w > 0 && r.w_w_all > 0 => {
                (n * n / r.w_w as f64).min(n * self.all as f64 / r.w_w_all as f64)
            }
            Some(r) if r.w_w > 0 => n * n / r.w_w as f64,
            _ => n,
        }
    }

    /// The power-tuning parameter PPI++ picks from these sums (clipped to `[0, 1]`; 0 when the
    /// surrogate is constant or fewer than two texts are labelled).
    pub fn tuned_lambda(&self) -> f64 {
        let (n, big_n) = (self.labelled, self.all);
        if n < 2 || big_n == 0 {
            return 0.0;
        }
        if let Some(r) = self.repeats {
            return self.tuned_lambda_of_units(r);
        }
        // n² · Cov_pop(Y, Ŷ) over the sample.
        let cov_n2 = scaled_spread(n, self.y_yhat, self.y, self.yhat);
        // m(m − 1) · Var_ddof1 of the sample's surrogates followed by every text's.
        let m = n.saturating_add(big_n);
        let s = i128::from(self.yhat) + i128::from(self.yhat_all);
        let ss = i128::from(self.yhat_yhat) + i128::from(self.yhat_yhat_all);
        let var_mm1 = spread(i128::from(m), ss, s, s);
        if var_mm1 <= 0.0 {
            return 0.0;
        }
        let (n, big_n, m) = (n as f64, big_n as f64, m as f64);
        let cov = cov_n2 / (n * n);
        let var = var_mm1 / (m * (m - 1.0));
        let lambda = cov / ((1.0 + n / big_n) * var);
        if lambda.is_nan() {
            0.0
        } else {
            lambda.clamp(0.0, 1.0)
        }
    }

    /// The prediction-powered estimate and interval with the given tuning; `None` when no text
    /// is labelled (nothing was observed, so no interval can be valid).
    pub fn estimate(&self, tuning: Tuning, level: Level) -> Option<PpiEstimate> {
        let (estimate, se, lambda) = self.estimate_and_se(tuning)?;
        // A zero standard error is a point whatever the critical value (which is infinite
        // below two effective texts).
        let half = if se > 0.0 {
            self.critical(level.z()) * se
        } else {
            0.0
        };
        Some(PpiEstimate {
            estimate,
            lower: estimate - half,
            upper: estimate + half,
            lambda,
            labelled: self.labelled,
            all: self.all,
        })
    }

    /// The point estimate `θ̂(λ)`, its standard error (the interval's half-width is `z` times
    /// it) and `λ`; `None` when no text is labelled. Neither depends on the level, so a test
    /// of `θ = θ₀` built on them (`(θ̂ − θ₀)/se`, [`crate::SampledDifference`]) is the exact
    /// inversion of the interval.
    pub fn estimate_and_se(&self, tuning: Tuning) -> Option<(f64, f64, f64)> {
        if self.labelled == 0 || self.all == 0 {
            return None;
        }
        let lambda = match tuning {
            Tuning::Power => self.tuned_lambda(),
            Tuning::Fixed(l) => l,
        };
        let (n, big_n) = (self.labelled as f64, self.all as f64);
        let estimate = lambda * (self.yhat_all as f64 / big_n)
            + (self.y as f64 - lambda * self.yhat as f64) / n;
        if let Some(r) = self.repeats {
            return Some((estimate, self.se_of_units(r, lambda), lambda));
        }
        let ni = self.labelled;
        // n² · the population (co)variances of the sample, N² · that of every text.
        let a = scaled_spread(ni, self.y_y, self.y, self.y);
        let b = scaled_spread(ni, self.y_yhat, self.y, self.yhat);
        let c = scaled_spread(ni, self.yhat_yhat, self.yhat, self.yhat);
        let u = scaled_spread(self.all, self.yhat_yhat_all, self.yhat_all, self.yhat_all);
        let rectifier_var = ((a - 2.0 * lambda * b + lambda * lambda * c) / (n * n)).max(0.0);
        let imputed_var = lambda * lambda * (u / (big_n * big_n)).max(0.0);
        let se = (imputed_var / big_n + rectifier_var / n).sqrt();
        Some((estimate, se, lambda))
    }
}

impl PpiSums {
    /// The sample's `G(x, z)` ([`unit_spread`]) for `x, z ∈ {Y, Ŷ}`.
    fn sample_spread(&self, r: RepeatSums) -> [f64; 3] {
        let g = |sx, sz, sxz, qx, qz| unit_spread(self.labelled, sx, sz, sxz, qx, qz, r.w_w);
        [
            g(self.y, self.y, self.y_y, r.w_y, r.w_y),
            g(self.y, self.yhat, self.y_yhat, r.w_y, r.w_yhat),
            g(self.yhat, self.yhat, self.yhat_yhat, r.w_yhat, r.w_yhat),
        ]
    }

    /// PPI++'s `λ̂` with the distinct text as the unit: `ppi_py`'s formula with each
    /// (co)variance replaced by the ratio mean's, times the lines it is over —
    /// `Ĉov = G(Y, Ŷ)/n³`, `V̂ar = G_pool(Ŷ)/(m²(m − 1))` over the sample's and every text's
    /// surrogates pooled (`m = n + N` lines) — which are `ppi_py`'s own when `c = 1`.
    fn tuned_lambda_of_units(&self, r: RepeatSums) -> f64 {
        let (n, big_n) = (self.labelled, self.all);
        let [_, b, _] = self.sample_spread(r);
        let m = n.saturating_add(big_n);
        let s = self.yhat.saturating_add(self.yhat_all);
        let ss = self.yhat_yhat.saturating_add(self.yhat_yhat_all);
        let q = r.w_yhat.saturating_add(r.w_yhat_all);
        let pooled = unit_spread(m, s, s, ss, q, q, r.w_w.saturating_add(r.w_w_all));
        let (nf, mf) = (n as f64, m as f64);
        let var = pooled / (mf * mf * (mf - 1.0));
        if var.is_nan() || var <= 0.0 {
            return 0.0;
        }
        let cov = b / (nf * nf * nf);
        let lambda = cov / ((1.0 + nf / big_n as f64) * var);
        if lambda.is_nan() {
            0.0
        } else {
            lambda.clamp(0.0, 1.0)
        }
    }

    /// The standard error of `θ̂(λ)` with the distinct text as the unit: the linearised
    /// variance of the sample's ratio mean of `r = Y − λŶ` (`Σ_sample c²(r − r̄)²/n²`,
    /// `r̄ = Σ c·r / n`), or the variance every text's counts lead the design to expect when
    /// that is larger (below). `ppi_py`'s second term, `λ²` times the variance of the mean of
    /// every text's surrogates, is left out: that mean is a known constant of the texts (the
    /// target is the full-profile value on them, not a superpopulation's), and with heavy-tailed
    /// repeats the term (`Σ_all c²(Ŷ − Ŷ̄)²/N²`) would be the variance of a sample of a few
    /// hundred texts, not of `N`, and would cost the surrogate its gain.
    fn se_of_units(&self, r: RepeatSums, lambda: f64) -> f64 {
        let n = self.labelled as f64;
        let big_n = self.all as f64;
        let [a, b, c] = self.sample_spread(r);
        let n4 = (n * n) * (n * n);
        // Σ_sample c²(r − r̄)²/n², the design-based estimate. It depends on which large texts
        // the sample happened to draw (with a heavy-tailed count, the largest text is often out
        // of the sample, and then the estimate is far too small), while `Σ c²` over every text is
        // known: the same residual mean square per `c²`, `σ̂² = Σ_sample c²(r − r̄)² / Σ_sample c²`,
        // spread over every text's `Σ_all c²` gives the variance the design expects,
        // `σ̂²·Σ_all c² / (N·n)` (`E Σ_sample c² ≈ (n/N)·Σ_all c²`). The larger of the two is used.
        let design = ((a - 2.0 * lambda * b + lambda * lambda * c) / n4).max(0.0);
        let expected = if r.w_w > 0 {
            design * (n * n / r.w_w as f64) * (r.w_w_all as f64 / (big_n * n))
        } else {
            0.0
        };
        design.max(expected).sqrt()
    }
}

/// `G = n²·Σc²xz − n·Σcx·Σc²z − n·Σcz·Σc²x + Σcx·Σcz·Σc²`, which is `n²·Σ_units c²(x − x̄)(z − z̄)`
/// with `x̄ = Σcx / n` (`n = Σc` lines): `n⁴` times the linearised (co)variance of two ratio
/// means over units of `c` lines each. With `c = 1` it is `n·(n·Σxz − Σx·Σz)`. Exact in 128
/// bits while it fits, else in floating point.
fn unit_spread(n: u64, sx: i64, sz: i64, sxz: i64, qx: i64, qz: i64, q: u64) -> f64 {
    let (n, sx, sz, sxz, qx, qz, q) = (
        i128::from(n),
        i128::from(sx),
        i128::from(sz),
        i128::from(sxz),
        i128::from(qx),
        i128::from(qz),
        i128::from(q),
    );
    let exact = (|| {
        let a = n.checked_mul(n)?.checked_mul(sxz)?;
        let b = n.checked_mul(sx)?.checked_mul(qz)?;
        let c = n.checked_mul(sz)?.checked_mul(qx)?;
        let d = sx.checked_mul(sz)?.checked_mul(q)?;
        a.checked_sub(b)?.checked_sub(c)?.checked_add(d)
    })();
    match exact {
        Some(v) => v as f64,
        None => {
            let f = |v: i128| v as f64;
            f(n) * f(n) * f(sxz) - f(n) * f(sx) * f(qz) - f(n) * f(sz) * f(qx)
                + f(sx) * f(sz) * f(q)
        }
    }
}

/// `n·Σxy − Σx·Σy` (`n²` times a population covariance), exactly while it fits in 128 bits
/// (always, for sums of values in {-1, 0, 1}), else in floating point (a report read from a
/// file may hold any numbers).
fn scaled_spread(n: u64, sum_xy: i64, sum_x: i64, sum_y: i64) -> f64 {
    spread(
        i128::from(n),
        i128::from(sum_xy),
        i128::from(sum_x),
        i128::from(sum_y),
    )
}

fn spread(n: i128, sum_xy: i128, sum_x: i128, sum_y: i128) -> f64 {
    let exact = n
        .checked_mul(sum_xy)
        .zip(sum_x.checked_mul(sum_y))
        .and_then(|(a, b)| a.checked_sub(b));
    match exact {
        Some(v) => v as f64,
        None => n as f64 * sum_xy as f64 - sum_x as f64 * sum_y as f64,
    }
}

impl AddAssign for PpiSums {
    fn add_assign(&mut self, o: PpiSums) {
        let before = self.repeat_sums();
        self.labelled += o.labelled;
        self.y += o.y;
        self.yhat += o.yhat;
        self.y_y += o.y_y;
        self.y_yhat += o.y_yhat;
        self.yhat_yhat += o.yhat_yhat;
        self.all += o.all;
        self.yhat_all += o.yhat_all;
        self.yhat_yhat_all += o.yhat_yhat_all;
        // Distinct texts on one side and repeats on the other: the distinct side's unit sums
        // are its line sums (taken before the line sums are added).
        self.repeats = match (self.repeats, o.repeats) {
            (None, None) => None,
            (a, b) => {
                let mut r = a.unwrap_or(before);
                r += b.unwrap_or(o.repeat_sums());
                Some(r)
            }
        };
        self.normalise();
    }
}

/// How the PPI weight `λ` is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tuning {
    /// PPI++: `λ̂` from the data, clipped to `[0, 1]` ([`PpiSums::tuned_lambda`]).
    Power,
    /// A fixed `λ`: `1.0` is PPI, `0.0` the plain sample mean and its normal interval.
    Fixed(f64),
}

/// A prediction-powered estimate of a mean with its normal-approximation interval (not
/// clipped: `ppi_py`'s limits).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PpiEstimate {
    /// The point estimate `θ̂(λ)`.
    pub estimate: f64,
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
    /// The `λ` used.
    pub lambda: f64,
    /// Labelled texts it rests on.
    pub labelled: u64,
    /// Texts in all.
    pub all: u64,
}

/// Below this many sampled texts a sampled rate "rests on few events" and its normal interval
/// is widened ([`estimate_rate`]); the report marks it `few_events`. Chosen by the seeded
/// simulation `tests/ppi_coverage.rs::few_events_threshold` (teacher rates 1–10 %, students
/// that follow the teacher or not, 5 % and 10 % samples), which prints the coverage at
/// thresholds 0, 5, 10 and 20 and checks this one.
pub const FEW_EVENTS: u64 = 10;

/// Which score intervals widen a sampled rate's normal interval, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Widening {
    /// Few sampled events or non-events, observed or expected at the estimate: Wilson's
    /// interval of the plain sample rate is included.
    pub wilson: bool,
    /// Few sampled texts whose outcome differs from its surrogate (the rectifier `Y − Ŷ` is
    /// rare): the interval of the λ = 1 (difference) estimator with a bounded variance
    /// (`RareRectifier`) is included.
    pub rectifier: bool,
}

impl Widening {
    /// Either.
    pub fn any(self) -> bool {
        self.wilson || self.rectifier
    }
}

/// How a sampled mean of 0/1 outcomes and 0/1 surrogates is widened at the threshold `below`
/// ([`FEW_EVENTS`] in reports; other values for the simulation that chose it). Nothing is
/// widened without a labelled text, or for outcomes that are not 0/1.
pub fn widening(sums: &PpiSums, below: u64) -> Widening {
    let n = sums.labelled;
    let r = sums.repeat_sums();
    // Σ c²·(Y² − Y) = 0 exactly when every outcome is 0 or 1 (likewise Ŷ).
    let binary = sums.y_y == r.w_y && sums.yhat_yhat == r.w_yhat;
    if n == 0 || !binary {
        return Widening::default();
    }
    // Events are counted in effective units (`n_eff / n` of a line each; 1 without repeats):
    // a text repeated a hundred times is one event of the design, not a hundred.
    let n_eff = sums.effective_labelled();
    let per_line = n_eff / n as f64;
    let k = sums.y.clamp(0, n as i64).unsigned_abs();
    let observed = k.min(n - k) as f64 * per_line;
    let expected = match sums.estimate_and_se(Tuning::Power) {
        Some((e, _, _)) => n_eff * e.clamp(0.0, 1.0).min(1.0 - e.clamp(0.0, 1.0)),
        None => 0.0,
    };
    let t = rectifier_table(sums);
    let below = below as f64;
    Widening {
        wilson: observed < below || expected < below,
        rectifier: ((t.first_only + t.second_only) as f64 * per_line) < below,
    }
}

/// Wilson's limits of the plain sample rate `Σ_sample Y / n` of 0/1 outcomes, over the
/// sample's effective number of units ([`PpiSums::effective_labelled`]; `n` without repeats).
pub(crate) fn sample_wilson(sums: &PpiSums, level: Level) -> (f64, f64) {
    let n = sums.labelled;
    let k = sums.y.clamp(0, n as i64).unsigned_abs();
    if sums.repeats.is_none() || n == 0 {
        return wilson_limits(k, n, level);
    }
    let (lower, upper) = wilson_formula(k as f64 / n as f64, sums.effective_labelled(), level.z());
    (
        if k == 0 { 0.0 } else { lower },
        if k == n { 1.0 } else { upper },
    )
}

/// Whether a sampled rate rests on few events at [`FEW_EVENTS`] ([`widening`]).
pub fn few_events(sums: &PpiSums) -> bool {
    widening(sums, FEW_EVENTS).any()
}

/// The sample's paired table of (outcome, surrogate) of a mean of 0/1 outcomes: `first_only`
/// the texts with `Y = 1, Ŷ = 0`, `second_only` those with `Y = 0, Ŷ = 1`.
pub(crate) fn rectifier_table(sums: &PpiSums) -> PairedTable {
    let n = sums.labelled;
    let b = (sums.y - sums.y_yhat).clamp(0, n as i64).unsigned_abs();
    let c = (sums.yhat - sums.y_yhat).clamp(0, n as i64).unsigned_abs();
    PairedTable {
        both: n.saturating_sub(b + c),
        first_only: b,
        second_only: c,
        neither: 0,
    }
}

/// The difference (λ = 1) estimator of a mean whose rectifier `r = Y − Ŷ` is rare in the
/// sample: `centre = mean_all(Ŷ) + mean_sample(r)`, the design-unbiased estimator whose only
/// random term is the sample mean of `r`. With `|r| ≤ B` (1 for a rate, 2 for a difference of
/// two), `Var(r) ≤ E[r²] = B²·E[r²/B²]`, and `E[r²/B²]` (a mean of values in `[0, 1]`) is
/// bounded above by Wilson's formula at its sample mean `q̂` (conservative for such a mean: its
/// variance is at most `μ(1 − μ)`), so the interval is `centre ± z·√(B²·W⁺(q̂, n, z)/n)`, never
/// of zero width, and nested in `z`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RareRectifier {
    centre: f64,
    scaled_square_mean: f64,
    bound: f64,
    n: f64,
}

impl RareRectifier {
    /// The estimator of `sums` when fewer than `below` is `Σr²` (so fewer sampled texts than
    /// that have `r ≠ 0`), with `|r| ≤ bound`; `None` otherwise or without a labelled text.
    pub(crate) fn of(sums: &PpiSums, bound: f64, below: u64) -> Option<RareRectifier> {
        if sums.labelled == 0 || sums.all == 0 {
            return None;
        }
        // Σ c²·r² over the sampled units; over distinct texts, Σ r².
        let squares = sums.y_y as f64 - 2.0 * sums.y_yhat as f64 + sums.yhat_yhat as f64;
        let n = sums.labelled as f64;
        let (n_eff, w) = (sums.effective_labelled(), sums.repeat_sums().w_w as f64);
        if w <= 0.0 {
            return None;
        }
        // The texts with r ≠ 0, in effective units.
        if squares * (n_eff / w) >= below as f64 {
            return None;
        }
        // With units of c lines the ratio mean of r has variance Σc²(r − r̄)²/n² ≤ Σc²r²/n² =
        // (Σc²r²/Σc²)/n_eff: the bound below with the c²-weighted mean of r²/B² over n_eff.
        Some(RareRectifier {
            centre: sums.yhat_all as f64 / sums.all as f64 + (sums.y - sums.yhat) as f64 / n,
            scaled_square_mean: (squares / (bound * bound * w)).clamp(0.0, 1.0),
            bound,
            n: n_eff,
        })
    }

    /// The interval's centre.
    pub(crate) fn centre(&self) -> f64 {
        self.centre
    }

    /// The half-width at the critical value `z`.
    pub(crate) fn half_width(&self, z: f64) -> f64 {
        let (q, n) = (self.scaled_square_mean, self.n);
        let z2 = z * z;
        let upper = (q + z2 / (2.0 * n) + z * (q * (1.0 - q) / n + z2 / (4.0 * n * n)).sqrt())
            / (1.0 + z2 / n);
        z * self.bound * (upper.min(1.0) / n).sqrt()
    }

    /// The statistic `z` at which the interval's edge reaches `null` (signed as `centre − null`):
    /// the interval excludes `null` exactly for the levels whose `z` is below it. The half-width
    /// grows with `z`, so bisection finds it (to a relative 1e-13).
    pub(crate) fn inverted(&self, null: f64) -> f64 {
        let d = (self.centre - null).abs();
        if d == 0.0 {
            return 0.0;
        }
        let mut hi = 1.0;
        while self.half_width(hi) < d && hi < 1e300 {
            hi *= 2.0;
        }
        let mut lo = 0.0;
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.half_width(mid) < d {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-13 * hi {
                break;
            }
        }
        (self.centre - null).signum() * 0.5 * (lo + hi)
    }
}

/// The power-tuned estimate of a rate, limits clipped to `[0, 1]`.
///
/// Where the sample rests on few events ([`widening`] at [`FEW_EVENTS`]) the normal interval
/// is unreliable (and with every sampled outcome the same it has zero width however small the
/// sample); it is then widened to include Wilson's interval of the plain sample rate (few
/// sampled events) and the bounded-variance interval of the difference estimator
/// (`RareRectifier`: few sampled texts where outcome and surrogate differ); everywhere else it is the PPI++ interval as is.
pub fn estimate_rate(sums: &PpiSums, level: Level) -> Option<PpiEstimate> {
    estimate_rate_below(sums, level, FEW_EVENTS)
}

/// [`estimate_rate`] with another threshold than [`FEW_EVENTS`] (0: never widened), for the
/// simulation that chooses it.
pub fn estimate_rate_below(sums: &PpiSums, level: Level, below: u64) -> Option<PpiEstimate> {
    estimate_rate_unclipped(sums, level, below).map(|mut e| {
        e.lower = e.lower.clamp(0.0, 1.0);
        e.upper = e.upper.clamp(0.0, 1.0);
        e
    })
}

/// [`estimate_rate_below`] before its limits are clipped to `[0, 1]`: a difference `x − θ` is
/// taken from these so that clipping never moves 0 into or out of it.
pub(crate) fn estimate_rate_unclipped(
    sums: &PpiSums,
    level: Level,
    below: u64,
) -> Option<PpiEstimate> {
    sums.estimate(Tuning::Power, level).map(|mut e| {
        let widen = widening(sums, below);
        if widen.wilson {
            let (lower, upper) = sample_wilson(sums, level);
            e.lower = e.lower.min(lower);
            e.upper = e.upper.max(upper);
        }
        if widen.rectifier
            && let Some(r) = RareRectifier::of(sums, 1.0, u64::MAX)
        {
            let half = r.half_width(level.z());
            e.lower = e.lower.min(r.centre() - half);
            e.upper = e.upper.max(r.centre() + half);
        }
        e
    })
}

/// The sums of a mean of 0/1 outcomes: `y` observed events, `yhat` surrogate events and `both`
/// over the `labelled` sample; `yhat_all` surrogate events over `all` texts.
pub(crate) fn binary_sums(
    y: u64,
    yhat: u64,
    both: u64,
    labelled: u64,
    yhat_all: u64,
    all: u64,
) -> PpiSums {
    let i = |v: u64| v as i64;
    PpiSums {
        labelled,
        y: i(y),
        yhat: i(yhat),
        y_y: i(y),
        y_yhat: i(both),
        yhat_yhat: i(yhat),
        all,
        yhat_all: i(yhat_all),
        yhat_yhat_all: i(yhat_all),
        repeats: None,
    }
}

/// [`binary_sums`] with the same counts over units, each text weighted by its squared line
/// count `c²` (`y`, `yhat`, `both`, `labelled` over the sample, `yhat_all`, `all` over every
/// distinct text): the second-moment and [`RepeatSums`] of 0/1 outcomes.
pub(crate) fn with_binary_units(mut sums: PpiSums, units: [u64; 6]) -> PpiSums {
    let [y, yhat, both, labelled, yhat_all, all] = units.map(|v| v as i64);
    sums.y_y = y;
    sums.y_yhat = both;
    sums.yhat_yhat = yhat;
    sums.yhat_yhat_all = yhat_all;
    sums.repeats = Some(RepeatSums {
        w_w: labelled as u64,
        w_y: y,
        w_yhat: yhat,
        w_w_all: all as u64,
        w_yhat_all: yhat_all,
    });
    sums.normalise();
    sums
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::wilson;

    fn sums(labelled: &[(i64, i64)], unlabelled: &[i64]) -> PpiSums {
        let mut s = PpiSums::default();
        labelled.iter().for_each(|&(y, h)| s.record_labelled(y, h));
        unlabelled.iter().for_each(|&h| s.record_unlabelled(h));
        s
    }

    #[test]
    fn lambda_zero_is_the_plain_sample_mean_and_its_normal_interval() {
        let s = sums(&[(1, 0), (0, 0), (1, 1), (1, 1)], &[0, 1, 1]);
        let e = s.estimate(Tuning::Fixed(0.0), Level::DEFAULT).unwrap();
        assert_eq!(e.estimate, 0.75);
        let se = (0.75f64 * 0.25 / 4.0).sqrt();
        assert!((e.upper - 0.75 - Level::DEFAULT.z() * se).abs() < 1e-15);
    }

    #[test]
    fn a_perfect_surrogate_gives_the_full_mean() {
        let all = [1, 0, 1, 1, 0, 0, 1, 1, 1, 0];
        let s = sums(&[(1, 1), (0, 0), (1, 1)], &all[3..]);
        let e = s.estimate(Tuning::Fixed(1.0), Level::DEFAULT).unwrap();
        assert!((e.estimate - 0.6).abs() < 1e-15);
        assert!(e.lower < 0.6 && e.upper > 0.6);
    }

    #[test]
    fn sums_too_large_for_exact_arithmetic_give_numbers_not_a_panic() {
        let huge = PpiSums {
            labelled: u64::MAX,
            y: i64::MAX,
            yhat: i64::MIN,
            y_y: i64::MAX,
            y_yhat: i64::MIN,
            yhat_yhat: i64::MAX,
            all: u64::MAX,
            yhat_all: i64::MAX,
            yhat_yhat_all: i64::MAX,
            repeats: None,
        };
        let lambda = huge.tuned_lambda();
        assert!((0.0..=1.0).contains(&lambda));
        let _ = huge.estimate(Tuning::Power, Level::DEFAULT);
    }

    #[test]
    fn sums_add_and_nothing_labelled_gives_no_estimate() {
        let a = sums(&[(1, 0)], &[1, 1]);
        let b = sums(&[(0, 1), (1, 1)], &[0]);
        let mut ab = a;
        ab += b;
        assert_eq!(ab, sums(&[(1, 0), (0, 1), (1, 1)], &[1, 1, 0]));
        assert_eq!(
            sums(&[], &[1, 0]).estimate(Tuning::Power, Level::DEFAULT),
            None
        );
        // A constant surrogate carries nothing: λ̂ = 0.
        assert_eq!(sums(&[(1, 1), (0, 1)], &[1]).tuned_lambda(), 0.0);
    }

    #[test]
    fn repeats_are_exact_in_any_order_and_distinct_texts_keep_ppi_py() {
        // A text of 3 lines recorded whole (c, c²) or line by line (1, 2k − 1): the same sums.
        let mut whole = PpiSums::default();
        whole.record_texts(Some(1), 1, 3, 9);
        whole.record_texts(None, 0, 2, 4);
        whole.record_n(Some(0), 1, 4);
        let mut lines = PpiSums::default();
        for k in 1..=3 {
            lines.record_texts(Some(1), 1, 1, 2 * k - 1);
        }
        lines.record_n(Some(0), 1, 4);
        for k in 1..=2 {
            lines.record_texts(None, 0, 1, 2 * k - 1);
        }
        assert_eq!(whole, lines);
        assert!(whole.repeats.is_some());
        // Added to a sum without repeats, in either order.
        let mut a = sums(&[(1, 0), (0, 1)], &[1]);
        a += whole;
        let mut b = whole;
        b += sums(&[(1, 0), (0, 1)], &[1]);
        assert_eq!(a, b);
        // Distinct texts: no repeat sums, and the unit formulas (forced) give ppi_py's λ and
        // the rectifier's variance.
        let distinct = sums(
            &[(1, 0), (0, 0), (1, 1), (1, 1), (0, 1)],
            &[0, 1, 1, 0, 1, 1],
        );
        assert_eq!(distinct.repeats, None);
        let r = distinct.repeat_sums();
        assert!((distinct.tuned_lambda() - distinct.tuned_lambda_of_units(r)).abs() < 1e-12);
        let mut forced = distinct;
        forced.repeats = Some(r);
        assert_eq!(
            distinct.estimate_and_se(Tuning::Fixed(0.0)).map(|e| e.0),
            forced.estimate_and_se(Tuning::Fixed(0.0)).map(|e| e.0)
        );
        // λ = 0: ppi_py's se is the sample term alone.
        let (_, se, _) = distinct.estimate_and_se(Tuning::Fixed(0.0)).unwrap();
        let (_, se_units, _) = forced.estimate_and_se(Tuning::Fixed(0.0)).unwrap();
        assert!((se - se_units).abs() < 1e-12, "{se} {se_units}");
        // A text repeated 9 times among 10 sampled lines is about one draw: a wider interval
        // than 10 distinct lines with the same outcomes.
        let mut repeated = PpiSums::default();
        repeated.record_texts(Some(1), 0, 9, 81);
        repeated.record_texts(Some(0), 0, 1, 1);
        repeated.record_texts(None, 0, 90, 90);
        let mut flat = PpiSums::default();
        flat.record_texts(Some(1), 0, 9, 9);
        flat.record_texts(Some(0), 0, 1, 1);
        flat.record_texts(None, 0, 90, 90);
        let level = Level::DEFAULT;
        let (w, f) = (
            estimate_rate(&repeated, level).unwrap(),
            estimate_rate(&flat, level).unwrap(),
        );
        assert_eq!(w.estimate, f.estimate);
        assert!(w.upper - w.lower > f.upper - f.lower, "{w:?} {f:?}");
        assert!(repeated.effective_labelled() < 2.0);
    }

    #[test]
    fn one_effective_text_gives_numbers_not_nan() {
        // One sampled text of 50 lines: n_eff = 1, no degree of freedom.
        let mut s = PpiSums::default();
        s.record_texts(Some(1), 1, 50, 2500);
        s.record_texts(None, 0, 50, 50);
        assert_eq!(s.critical(1.96), f64::INFINITY);
        let e = s.estimate(Tuning::Power, Level::DEFAULT).unwrap();
        assert!(!e.lower.is_nan() && !e.upper.is_nan(), "{e:?}");
        let r = estimate_rate(&s, Level::DEFAULT).unwrap();
        assert!(r.lower <= r.estimate && r.estimate <= r.upper, "{r:?}");
        s.record_texts(Some(0), 1, 1, 1);
        let e = s.estimate(Tuning::Power, Level::DEFAULT).unwrap();
        assert_eq!((e.lower, e.upper), (f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn a_sample_without_an_event_gets_wilsons_interval_not_a_zero_width_one() {
        let level = Level::new(0.95).unwrap();
        // 143 sampled texts without a teacher or student change; 6 student changes in 3,027.
        let none = binary_sums(0, 0, 0, 143, 6, 3027);
        let normal = none.estimate(Tuning::Power, level).unwrap();
        assert_eq!((normal.lower, normal.upper), (0.0, 0.0));
        let e = estimate_rate(&none, level).unwrap();
        assert_eq!((e.estimate, e.lower), (0.0, 0.0));
        // Wilson's (few events) and the difference estimator's (no text where outcome and
        // surrogate differ) are both in it.
        // 6/3027 plus the bounded-variance half-width with no rectifier in 143 texts.
        let r = RareRectifier::of(&none, 1.0, u64::MAX).unwrap();
        let half = r.half_width(level.z());
        assert!((e.upper - (6.0 / 3027.0 + half)).abs() < 1e-12, "{e:?}");
        assert!(e.upper >= wilson(0, 143, level).upper, "{e:?}");
        assert_eq!(
            widening(&none, FEW_EVENTS),
            Widening {
                wilson: true,
                rectifier: true
            }
        );
        // Nothing but events: the mirror image.
        let all = binary_sums(143, 143, 143, 143, 3000, 3027);
        let e = estimate_rate(&all, level).unwrap();
        assert_eq!((e.estimate, e.upper), (1.0, 1.0));
        assert!(e.lower <= wilson(143, 143, level).lower);
        // A sample with many events, and many texts where outcome and surrogate differ (15 and
        // 10), keeps its PPI++ interval.
        let some = binary_sums(40, 35, 25, 143, 700, 3027);
        assert!(!few_events(&some));
        let ppi = some.estimate(Tuning::Power, level).unwrap();
        let e = estimate_rate(&some, level).unwrap();
        assert_eq!(
            (e.lower, e.upper),
            (ppi.lower.clamp(0.0, 1.0), ppi.upper.clamp(0.0, 1.0))
        );
    }
}
