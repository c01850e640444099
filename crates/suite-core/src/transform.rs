//! Text transforms: the functions corruptions and invariances are made of.

use std::fmt;
use std::sync::Arc;

use crate::text::{py_swapcase, py_whitespace_collapse};
use profile_types::Reference;

/// The blake3 hash of a text, computed once per text and shared by every seeded transform applied
/// to it (a suite with four typo rates hashes each text once, not four times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextHash(pub [u8; 32]);

impl TextHash {
    /// The blake3 hash of `text`.
    pub fn of(text: &str) -> TextHash {
        TextHash(*blake3::hash(text.as_bytes()).as_bytes())
    }
}

type PlainFn = dyn Fn(&str) -> String + Send + Sync;
type HashedFn = dyn Fn(&str, &TextHash) -> String + Send + Sync;
type BatchFn = dyn Fn(&[&str]) -> Vec<String> + Send + Sync;
type HashedBatchFn = dyn Fn(&[&str], &[TextHash]) -> Vec<String> + Send + Sync;

/// A transform's bulk form.
#[derive(Clone)]
enum Batch {
    Plain(Arc<BatchFn>),
    /// Over the texts and their [`TextHash`]es.
    Hashed(Arc<HashedBatchFn>),
}

#[derive(Clone)]
enum Kind {
    Plain(Arc<PlainFn>),
    /// A transform whose randomness is seeded from the text's hash.
    Hashed(Arc<HashedFn>),
}

/// Where a corruption sits on a severity curve: its family (corruptions of one family with
/// different severities form a curve) and its severity, a finite number `>= 0` (0 is the clean
/// text).
#[derive(Debug, Clone, PartialEq)]
pub struct Severity {
    /// The family, e.g. `keyboard_typo`.
    pub family: String,
    /// The severity, e.g. a typo rate.
    pub value: f64,
}

/// A deterministic text-to-text function (a corruption or an invariance rewrite).
///
/// Cheap to clone (shared). Profiles assume a transform is pure: the same text always gives the
/// same output, which is what lets them transform and predict each distinct text once. A
/// corruption may carry a [`Severity`] (the keyboard typo carries its rate), which reports use
/// for severity curves; it does not change what the transform does.
#[derive(Clone)]
pub struct Transform {
    kind: Kind,
    severity: Option<Arc<Severity>>,
    /// Which teacher answer a corruption's headline compares the student with.
    reference: Reference,
    /// The same function over many texts at once, when that is faster.
    batch: Option<Batch>,
}

impl Transform {
    /// Wraps a function as a transform.
    pub fn new(f: impl Fn(&str) -> String + Send + Sync + 'static) -> Transform {
        Transform {
            kind: Kind::Plain(Arc::new(f)),
            severity: None,
            reference: Reference::TeacherTransformed,
            batch: None,
        }
    }

    /// Wraps a function that also reads the text's [`TextHash`] (for seeded randomness). Callers
    /// that transform the same text several times can compute the hash once
    /// ([`Transform::apply_with_hash`]).
    pub fn with_text_hash(
        f: impl Fn(&str, &TextHash) -> String + Send + Sync + 'static,
    ) -> Transform {
        Transform {
            kind: Kind::Hashed(Arc::new(f)),
            severity: None,
            reference: Reference::TeacherTransformed,
            batch: None,
        }
    }

    /// The transform with a place on a severity curve: `family` and `value` (finite, `>= 0`;
    /// anything else is an error).
    ///
    /// ```
    /// use suite_core::{Transform, keyboard_typo_corruption};
    ///
    /// let blur = Transform::new(|t| t.replace('e', "3")).with_severity("leet", 0.5)?;
    /// assert_eq!(blur.severity().map(|s| (s.family.as_str(), s.value)), Some(("leet", 0.5)));
    /// let typo = keyboard_typo_corruption(0.1, 0)?;
    /// assert_eq!(typo.severity().map(|s| (s.family.as_str(), s.value)), Some(("keyboard_typo", 0.1)));
    /// assert!(blur.with_severity("leet", -1.0).is_err());
    /// # Ok::<(), suite_core::Error>(())
    /// ```
    pub fn with_severity(
        mut self,
        family: impl Into<String>,
        value: f64,
    ) -> Result<Transform, crate::Error> {
        if !(value.is_finite() && value >= 0.0) {
            return Err(crate::Error::InvalidSeverity { value });
        }
        self.severity = Some(Arc::new(Severity {
            family: family.into(),
            value,
        }));
        Ok(self)
    }

    /// The transform without a place on a severity curve (a composition whose resolver gave
    /// it one that the suite entry does not declare).
    pub fn without_severity(mut self) -> Transform {
        self.severity = None;
        self
    }

    /// The transform with a function computing it over many texts at once (`f(texts)[i]` must be
    /// the transform of `texts[i]`), for transforms that are faster in bulk; profiles call it
    /// once per stage and chunk with the chunk's distinct texts ([`Transform::apply_batch`]).
    ///
    /// ```
    /// use suite_core::Transform;
    ///
    /// let upper = Transform::new(|t| t.to_uppercase())
    ///     .with_batch(|texts| texts.iter().map(|t| t.to_uppercase()).collect());
    /// assert_eq!(upper.apply_batch(&["a", "b"]), ["A", "B"]);
    /// ```
    pub fn with_batch(
        mut self,
        f: impl Fn(&[&str]) -> Vec<String> + Send + Sync + 'static,
    ) -> Transform {
        self.batch = Some(Batch::Plain(Arc::new(f)));
        self
    }

    /// [`Transform::with_batch`] for a bulk form that also reads each text's [`TextHash`]
    /// (`f(texts, hashes)`, `hashes[i]` the hash of `texts[i]`), which profiles share.
    pub fn with_hashed_batch(
        mut self,
        f: impl Fn(&[&str], &[TextHash]) -> Vec<String> + Send + Sync + 'static,
    ) -> Transform {
        self.batch = Some(Batch::Hashed(Arc::new(f)));
        self
    }

    /// Whether the transform has a bulk form ([`Transform::with_batch`]).
    pub fn has_batch(&self) -> bool {
        self.batch.is_some()
    }

    /// The transform of each text, in bulk when the transform has a bulk form.
    pub fn apply_batch(&self, texts: &[&str]) -> Vec<String> {
        match &self.batch {
            Some(Batch::Plain(f)) => f(texts),
            Some(Batch::Hashed(f)) => {
                let hashes: Vec<TextHash> = texts.iter().map(|t| TextHash::of(t)).collect();
                f(texts, &hashes)
            }
            None => texts.iter().map(|t| self.apply(t)).collect(),
        }
    }

    /// [`Transform::apply_batch`] with each text's hash already known (`hashes[i]` must be
    /// [`TextHash::of`]`(texts[i])`).
    pub fn apply_batch_with_hashes(&self, texts: &[&str], hashes: &[TextHash]) -> Vec<String> {
        match &self.batch {
            Some(Batch::Hashed(f)) if hashes.len() == texts.len() => f(texts, hashes),
            _ => self.apply_batch(texts),
        }
    }

    /// The transform's place on a severity curve, if it has one.
    pub fn severity(&self) -> Option<&Severity> {
        self.severity.as_deref()
    }

    /// `inner`'s severity (and reference) carried over to this transform (for wrappers that
    /// change how a transform runs, not what it does).
    pub fn with_severity_of(mut self, inner: &Transform) -> Transform {
        self.severity = inner.severity.clone();
        self.reference = inner.reference;
        self
    }

    /// The transform with the reference its corruption's headline compares the student with:
    /// [`Reference::TeacherClean`] for a label-preserving corruption, whose right label is the
    /// teacher's answer on the clean text. It changes no profile figure (the bare profile is
    /// mixle's, against the teacher's transformed answer); reports say which figure leads.
    ///
    /// ```
    /// use suite_core::{Reference, keyboard_typo_corruption};
    ///
    /// let typo = keyboard_typo_corruption(0.1, 0)?;
    /// assert_eq!(typo.reference(), Reference::TeacherTransformed);
    /// let typo = typo.with_reference(Reference::TeacherClean);
    /// assert_eq!(typo.reference(), Reference::TeacherClean);
    /// # Ok::<(), suite_core::Error>(())
    /// ```
    pub fn with_reference(mut self, reference: Reference) -> Transform {
        self.reference = reference;
        self
    }

    /// The reference of a corruption's headline ([`Transform::with_reference`]).
    pub fn reference(&self) -> Reference {
        self.reference
    }

    /// Applies the transform to one text.
    pub fn apply(&self, text: &str) -> String {
        match &self.kind {
            Kind::Plain(f) => f(text),
            Kind::Hashed(f) => f(text, &TextHash::of(text)),
        }
    }

    /// Applies the transform to `text` into `out` (replacing its content), with `hash` =
    /// [`TextHash::of`]`(text)` when the caller has it.
    pub fn apply_into(&self, text: &str, hash: Option<&TextHash>, out: &mut String) {
        *out = match (&self.kind, hash) {
            (Kind::Plain(f), _) => f(text),
            (Kind::Hashed(f), Some(hash)) => f(text, hash),
            (Kind::Hashed(f), None) => f(text, &TextHash::of(text)),
        };
    }

    /// Whether the transform reads the text's hash (see [`Transform::with_text_hash`]).
    pub fn uses_text_hash(&self) -> bool {
        matches!(self.kind, Kind::Hashed(_))
    }

    /// Applies the transform with a precomputed `hash`, which must be [`TextHash::of`]`(text)`.
    pub fn apply_with_hash(&self, text: &str, hash: &TextHash) -> String {
        match &self.kind {
            Kind::Plain(f) => f(text),
            Kind::Hashed(f) => f(text, hash),
        }
    }
}

impl fmt::Debug for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            Kind::Plain(_) => "Transform(..",
            Kind::Hashed(_) => "Transform(seeded ..",
        })?;
        if let Some(s) = &self.severity {
            write!(f, "; {} {}", s.family, s.value)?;
        }
        if !self.reference.is_default() {
            write!(f, "; against the {}", self.reference.name())?;
        }
        f.write_str(")")
    }
}

/// mixle's `case_jitter_invariance`: Python `str.swapcase` (see [`py_swapcase`]).
pub fn case_jitter_invariance() -> Transform {
    Transform::new(py_swapcase)
}

/// mixle's `whitespace_invariance`: Python `" ".join(text.split())` (see
/// [`py_whitespace_collapse`]).
pub fn whitespace_invariance() -> Transform {
    Transform::new(py_whitespace_collapse)
}
