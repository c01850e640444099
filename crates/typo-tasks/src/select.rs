//! Choosing tasks by id, with upstream's rules and error texts.

use std::collections::BTreeSet;

use crate::{HarnessError, Registry, Task};

/// The tasks named by `args`, in id order.
///
/// No arguments select every task. Otherwise each argument is split on `,`, each piece trimmed,
/// empty pieces ignored; known ids are deduplicated. Unknown ids are an error naming them (this
/// check comes first); arguments that name nothing at all are an error too.
///
/// ```
/// use typo_tasks::{Data, Registry, select};
/// let reg = Registry::new(&Data::default());
/// let ids: Vec<&str> = select(&reg, &["cs", "co,co"]).unwrap().iter().map(|t| t.id).collect();
/// assert_eq!(ids, ["co", "cs"]);
/// assert!(select(&reg, &["nope"]).unwrap_err().to_string().starts_with("unknown task(s): nope;"));
/// ```
pub fn select<'r, S: AsRef<str>>(
    registry: &'r Registry,
    args: &[S],
) -> Result<Vec<&'r Task>, HarnessError> {
    if args.is_empty() {
        return Ok(registry.iter().collect());
    }
    let mut known = BTreeSet::new();
    let mut unknown = Vec::new();
    let mut named = false;
    for arg in args {
        for piece in arg.as_ref().split(',').map(str::trim) {
            if piece.is_empty() {
                continue;
            }
            named = true;
            match registry.get(piece) {
                Some(task) => {
                    known.insert(task.id);
                }
                None => unknown.push(piece.to_owned()),
            }
        }
    }
    let have = || registry.ids().into_iter().map(str::to_owned).collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(HarnessError::UnknownTasks {
            unknown,
            have: have(),
        });
    }
    if !named {
        return Err(HarnessError::BlankSelection {
            args: args.iter().map(|a| a.as_ref().to_owned()).collect(),
            have: have(),
        });
    }
    Ok(known
        .into_iter()
        .filter_map(|id| registry.get(id))
        .collect())
}
