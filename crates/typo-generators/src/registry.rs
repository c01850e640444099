//! [`Registry`]: the tasks a given [`Data`] supports, by id.

use std::fmt;
use std::sync::Arc;

use crate::generate::{keys, tables};
use crate::task::{CATALOG, Generator, Table, Task, TaskInfo};
use crate::{Data, Needs};

/// The tasks available for one [`Data`], in id order.
///
/// The eleven tasks that need no table (`bf co cr cs dhs di do hi ho sp tos`) are always present;
/// every other task is present only when its table is non-empty. A missing table *deregisters*
/// its tasks, so a registry never holds a task that answers nothing for lack of data;
/// [`unregistered`](Self::unregistered) says which were left out and why.
///
/// ```
/// use typo_generators::{Data, Registry};
/// let empty = Registry::new(&Data::default());
/// assert_eq!(empty.ids(), ["bf", "co", "cr", "cs", "dhs", "di", "do", "hi", "ho", "sp", "tos"]);
/// assert_eq!(empty.why_unregistered("hr").unwrap().to_string(),
///            "hr (Homoglyph Replacement): the `homoglyphs` table is empty");
/// assert_eq!(Registry::new(&Data::english()).len(), 22);
/// ```
#[derive(Debug, Clone)]
pub struct Registry {
    tasks: Vec<Task>,
    unregistered: Vec<Unregistered>,
}

/// A task that a registry does not have, and the empty table that is why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unregistered {
    /// The task id.
    pub id: &'static str,
    /// The task title.
    pub title: &'static str,
    /// What it needs.
    pub needs: Needs,
    /// The table that was missing or empty.
    pub table: Table,
}

impl fmt::Display for Unregistered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): the `{}` table is empty",
            self.id, self.title, self.table
        )
    }
}

impl Registry {
    /// Registers every task whose table `data` has; tables are indexed once here and shared.
    pub fn new(data: &Data) -> Registry {
        let graphemes = Arc::new(tables::Symbols::new(&data.graphemes));
        let vowels = Arc::new(tables::Symbols::new(&data.vowels));
        let homoglyphs = Arc::new(tables::Homoglyphs::new(&data.homoglyphs));
        let homophones = Arc::new(tables::WordSets::new(&data.homophones));
        let misspellings = Arc::new(tables::WordSets::new(&data.misspellings));
        let cardinals = Arc::new(tables::Numerals::new(&data.numerals, 0));
        let ordinals = Arc::new(tables::Numerals::new(&data.numerals, 1));
        let neighbours = Arc::new(keys::Neighbours::new(&data.keyboard));

        let mut tasks = Vec::with_capacity(CATALOG.len());
        let mut unregistered = Vec::new();
        for info in &CATALOG {
            if let Some(table) = info.table
                && table_is_empty(data, table)
            {
                unregistered.push(Unregistered {
                    id: info.id,
                    title: info.title,
                    needs: info.needs,
                    table,
                });
                continue;
            }
            let generator = match info.id {
                "co" => Generator::Co,
                "cs" => Generator::Cs,
                "cr" => Generator::Cr,
                "hi" => Generator::Hi,
                "ho" => Generator::Ho,
                "di" => Generator::Di,
                "do" => Generator::Do,
                "dhs" => Generator::Dhs,
                "tos" => Generator::Tos,
                "bf" => Generator::Bf,
                "sp" => Generator::Sp,
                "gi" => Generator::Gi(graphemes.clone()),
                "gr" => Generator::Gr(graphemes.clone()),
                "vs" => Generator::Vs(vowels.clone()),
                "hr" => Generator::Hr(homoglyphs.clone()),
                "hs" => Generator::Hs(homophones.clone()),
                "cm" => Generator::Cm(misspellings.clone()),
                "cns" => Generator::Cns(cardinals.clone()),
                "ons" => Generator::Ons(ordinals.clone()),
                "acs" => Generator::Acs(neighbours.clone()),
                "aci" => Generator::Aci(neighbours.clone()),
                "rar" => Generator::Rar(neighbours.clone()),
                _ => continue,
            };
            tasks.push(Task::new(info, generator));
        }
        Registry {
            tasks,
            unregistered,
        }
    }

    /// The task with this id, if registered.
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks
            .binary_search_by(|t| t.id.cmp(id))
            .ok()
            .and_then(|i| self.tasks.get(i))
    }

    /// The registered ids, sorted.
    pub fn ids(&self) -> Vec<&'static str> {
        self.tasks.iter().map(|t| t.id).collect()
    }

    /// The registered tasks, in id order.
    pub fn iter(&self) -> std::slice::Iter<'_, Task> {
        self.tasks.iter()
    }

    /// The registered tasks as a slice, in id order.
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// How many tasks are registered.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether no task is registered (never true: the rule tasks are always present).
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The catalogue tasks this registry left out, in id order, each with its reason.
    pub fn unregistered(&self) -> &[Unregistered] {
        &self.unregistered
    }

    /// Why `id` is not registered, if it is a known task that was left out.
    pub fn why_unregistered(&self, id: &str) -> Option<&Unregistered> {
        self.unregistered.iter().find(|u| u.id == id)
    }

    /// The catalogue entry of every task, registered or not, in id order.
    pub fn catalog() -> &'static [TaskInfo] {
        &CATALOG
    }
}

impl<'a> IntoIterator for &'a Registry {
    type Item = &'a Task;
    type IntoIter = std::slice::Iter<'a, Task>;

    fn into_iter(self) -> Self::IntoIter {
        self.tasks.iter()
    }
}

fn table_is_empty(data: &Data, table: Table) -> bool {
    match table {
        Table::Graphemes => data.graphemes.is_empty(),
        Table::Vowels => data.vowels.is_empty(),
        Table::Homoglyphs => data.homoglyphs.is_empty(),
        Table::Homophones => data.homophones.is_empty(),
        Table::Misspellings => data.misspellings.is_empty(),
        Table::Numerals => data.numerals.is_empty(),
        // A layout whose rows hold only padding has no keys, so nothing could ever be adjacent.
        Table::Keyboard => !data
            .keyboard
            .iter()
            .any(|row| row.chars().any(|c| c != ' ')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_data_keeps_the_eleven_rules() {
        let reg = Registry::new(&Data::default());
        assert_eq!(reg.len(), 11);
        assert_eq!(reg.unregistered().len(), 11);
        let sp = reg.get("sp").unwrap();
        assert_eq!(sp.needs, Needs::Language);
        assert!(reg.get("hr").is_none());
        assert!(reg.get("zz").is_none());
        assert!(reg.why_unregistered("co").is_none());
    }

    #[test]
    fn tables_register_only_their_own_tasks() {
        let data = Data {
            vowels: vec!["a".into()],
            ..Data::default()
        };
        let reg = Registry::new(&data);
        assert_eq!(reg.len(), 12);
        assert!(reg.get("vs").is_some());
        assert_eq!(reg.why_unregistered("gi").unwrap().table, Table::Graphemes);
        // A hand-built layout of padding only has no keys: deregistered like an empty one.
        let padded = Data {
            keyboard: vec!["   ".into(), String::new()],
            ..Data::default()
        };
        let reg = Registry::new(&padded);
        for id in ["acs", "aci", "rar"] {
            assert_eq!(
                reg.why_unregistered(id).unwrap().table,
                Table::Keyboard,
                "{id}"
            );
        }
    }

    #[test]
    fn tasks_can_be_shared_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Registry>();
        assert_send_sync::<Task>();
        assert_send_sync::<crate::Variant>();
    }

    #[test]
    fn iteration_is_in_id_order() {
        let reg = Registry::new(&Data::english());
        let ids: Vec<&str> = reg.iter().map(|t| t.id).collect();
        assert_eq!(ids, CATALOG.iter().map(|t| t.id).collect::<Vec<_>>());
        for id in ids {
            assert_eq!(reg.get(id).unwrap().id, id);
        }
    }
}
