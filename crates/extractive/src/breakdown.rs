//! Adding per-field breakdowns of text shards: the breakdown of all the texts.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use profile_types::{FieldBreakdown, FieldCounts, FieldReport};

/// The breakdown over both breakdowns' texts: TP, FP and FN added per field and stage, F1
/// recomputed. Stages keep `a`'s order, then `b`'s others; fields are in name order. For shards
/// of one suite the result is exactly the breakdown of the concatenated texts.
///
/// ```
/// use extractive::{FieldBreakdown, FieldCounts, merge_field_breakdowns};
///
/// let mut a = FieldBreakdown::default();
/// a.clean.insert("name".into(), FieldCounts::new(1, 0, 1));
/// let mut b = FieldBreakdown::default();
/// b.clean.insert("name".into(), FieldCounts::new(2, 1, 0));
/// assert_eq!(merge_field_breakdowns(&a, &b).clean["name"], FieldCounts::new(3, 1, 1));
/// ```
pub fn merge_field_breakdowns(a: &FieldBreakdown, b: &FieldBreakdown) -> FieldBreakdown {
    FieldBreakdown {
        clean: add_fields(&a.clean, &b.clean),
        corruptions: add_stages(&a.corruptions, &b.corruptions),
        invariances: add_stages(&a.invariances, &b.invariances),
    }
}

fn add_fields(
    a: &BTreeMap<String, FieldCounts>,
    b: &BTreeMap<String, FieldCounts>,
) -> BTreeMap<String, FieldCounts> {
    let mut out = a.clone();
    for (field, c) in b {
        let sum = match out.get(field) {
            Some(o) => FieldCounts::new(o.tp + c.tp, o.fp + c.fp, o.fn_ + c.fn_),
            None => *c,
        };
        out.insert(field.clone(), sum);
    }
    out
}

fn add_stages(
    a: &IndexMap<String, FieldReport>,
    b: &IndexMap<String, FieldReport>,
) -> IndexMap<String, FieldReport> {
    let mut out = a.clone();
    for (stage, r) in b {
        let sum = match out.get(stage) {
            Some(o) => FieldReport {
                student: add_fields(&o.student, &r.student),
                teacher: add_fields(&o.teacher, &r.teacher),
            },
            None => r.clone(),
        };
        out.insert(stage.clone(), sum);
    }
    out
}
