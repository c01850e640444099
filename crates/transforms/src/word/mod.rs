//! Word-level transforms (helper 20b's modules plug in here).

use crate::descriptor::Descriptor;

/// The word-level transforms of the enabled features, in listing order.
pub(crate) fn descriptors() -> Vec<&'static Descriptor> {
    Vec::new()
}
