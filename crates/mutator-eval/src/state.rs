//! The interpretive state: dotted paths → candidate values with confidence.

use indexmap::IndexMap;
use profile_types::{FieldState, Inference, StateSnapshot, ValueConfidence};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Paths mapped to field states, with implicit parent nodes.
///
/// Paths are flat keys; a dot implies a hierarchy. Writing `a.b.c` first makes sure `a` and
/// `a.b` exist as *parent nodes* (no field state). Parents are real nodes: they are listed by
/// [`paths`](Self::paths) and they take part in comparisons, as upstream's `get_all_fields()`
/// does. Paths are never validated (`""`, leading dots and spaces are ordinary keys); numeric
/// segments (`guests.0.name`) are ordinary segments.
///
/// Nodes keep their creation order. [`Clone`] is upstream's deep `copy()`, implicit parents
/// included. (Upstream's copy lists valued nodes before re-created parents and drops a parent
/// left without children; the first only changes the prompt text, the second cannot happen here
/// because this type has no way to remove a node.)
///
/// ```
/// use mutator_eval::InterpretiveState;
/// use profile_types::ValueConfidence;
/// use serde_json::json;
///
/// let mut state = InterpretiveState::new();
/// state.add_value("address.city", ValueConfidence::new(json!("Oslo"), 0.6)?);
/// state.add_value("address.city", ValueConfidence::new(json!("Bergen"), 0.9)?);
/// state.add_value("address.city", ValueConfidence::new(json!("Tromsø"), 0.9)?);
/// assert_eq!(state.paths().collect::<Vec<_>>(), ["address", "address.city"]);
/// // Highest confidence wins; on a tie the earliest candidate does.
/// assert_eq!(state.best_value("address.city").unwrap().value(), &json!("Bergen"));
/// assert!(state.best_value("address").is_none());
/// # Ok::<(), profile_types::ConfidenceError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InterpretiveState {
    nodes: IndexMap<String, Option<FieldState>>,
}

impl InterpretiveState {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of nodes, parents included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the state has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    fn ensure_parents(&mut self, path: &str) {
        for (dot, _) in path.match_indices('.') {
            let parent = &path[..dot];
            if !self.nodes.contains_key(parent) {
                self.nodes.insert(parent.to_owned(), None);
            }
        }
    }

    /// The field state at `path`, created empty (with its parents) when absent or a parent node.
    fn field_mut(&mut self, path: &str) -> &mut FieldState {
        if !self.nodes.contains_key(path) {
            self.ensure_parents(path);
        }
        self.nodes
            .entry(path.to_owned())
            .or_default()
            .get_or_insert_with(FieldState::default)
    }

    /// Appends a candidate to `path` (nothing is de-duplicated, replaced or sorted).
    pub fn add_value(&mut self, path: &str, candidate: ValueConfidence) {
        self.field_mut(path).values.push(candidate);
    }

    /// Sets the inference of `path`, replacing any earlier one. An inference alone does not fill
    /// a field.
    pub fn add_inference(&mut self, path: &str, inference: Inference) {
        self.field_mut(path).inference = Some(inference);
    }

    /// Replaces the field state at `path` (creating its parents).
    pub fn set_field(&mut self, path: &str, field: FieldState) {
        *self.field_mut(path) = field;
    }

    /// Makes sure a (parent) node exists at `path`, without giving it a field state.
    pub fn add_node(&mut self, path: &str) {
        if !self.nodes.contains_key(path) {
            self.ensure_parents(path);
            self.nodes.insert(path.to_owned(), None);
        }
    }

    /// The field state at `path`; `None` when absent or a parent node.
    pub fn field(&self, path: &str) -> Option<&FieldState> {
        self.nodes.get(path).and_then(Option::as_ref)
    }

    /// Whether a node (a field or a parent) exists at `path`.
    pub fn contains(&self, path: &str) -> bool {
        self.nodes.contains_key(path)
    }

    /// The candidate with the highest confidence; on a tie the earliest. `None` for an absent
    /// path, a parent node or a field without values.
    pub fn best_value(&self, path: &str) -> Option<&ValueConfidence> {
        let mut best: Option<&ValueConfidence> = None;
        for candidate in &self.field(path)?.values {
            if best.is_none_or(|b| candidate.confidence() > b.confidence()) {
                best = Some(candidate);
            }
        }
        best
    }

    /// Every path, parents included, in creation order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.nodes.keys().map(String::as_str)
    }

    /// Every node with its field state (`None` for parents), in creation order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&FieldState>)> {
        self.nodes.iter().map(|(k, v)| (k.as_str(), v.as_ref()))
    }

    /// Paths with at least one candidate.
    pub fn filled_paths(&self) -> impl Iterator<Item = &str> {
        self.iter()
            .filter(|(_, f)| f.is_some_and(|f| !f.values.is_empty()))
            .map(|(p, _)| p)
    }

    /// Paths without a candidate: parents, inference-only and empty fields.
    pub fn empty_paths(&self) -> impl Iterator<Item = &str> {
        self.iter()
            .filter(|(_, f)| f.is_none_or(|f| f.values.is_empty()))
            .map(|(p, _)| p)
    }

    /// With `Some(required)`: every required path holds a candidate. With `None`: every node that
    /// has a field state holds a candidate (parents are not checked).
    pub fn is_complete(&self, required: Option<&[&str]>) -> bool {
        let filled = |f: Option<&FieldState>| f.is_some_and(|f| !f.values.is_empty());
        match required {
            Some(paths) => paths.iter().all(|p| filled(self.field(p))),
            None => self.iter().all(|(_, f)| f.is_none() || filled(f)),
        }
    }

    /// The state as data, keys sorted by code point.
    pub fn to_snapshot(&self) -> StateSnapshot {
        self.nodes
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The state as data, without copying it.
    pub fn into_snapshot(self) -> StateSnapshot {
        self.nodes.into_iter().collect()
    }

    /// A state from data: each entry in order, `null` entries as parent nodes. Dotted paths
    /// create their parents, so a snapshot that omits them still gets them.
    pub fn from_entries<'a>(
        entries: impl IntoIterator<Item = (&'a str, Option<&'a FieldState>)>,
    ) -> Self {
        let mut state = InterpretiveState::new();
        for (path, field) in entries {
            match field {
                Some(field) => state.set_field(path, field.clone()),
                None => state.add_node(path),
            }
        }
        state
    }

    /// A state from a snapshot.
    pub fn from_snapshot(snapshot: &StateSnapshot) -> Self {
        Self::from_entries(snapshot.iter().map(|(k, v)| (k.as_str(), v.as_ref())))
    }
}

/// Serialises as a snapshot: `{path: {"inference", "values"} | null}`, keys sorted.
impl Serialize for InterpretiveState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut entries: Vec<(&String, &Option<FieldState>)> = self.nodes.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        serializer.collect_map(entries)
    }
}

/// Reads a snapshot, keeping the file's key order as the creation order.
impl<'de> Deserialize<'de> for InterpretiveState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let entries = IndexMap::<String, Option<FieldState>>::deserialize(deserializer)?;
        Ok(Self::from_entries(
            entries.iter().map(|(k, v)| (k.as_str(), v.as_ref())),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vc(v: serde_json::Value, c: f64) -> ValueConfidence {
        ValueConfidence::new(v, c).unwrap()
    }

    fn inf(content: &str) -> Inference {
        Inference {
            content: content.into(),
            mutator_id: Some("m".into()),
            message_id: None,
        }
    }

    #[test]
    fn parents_are_created_in_order() {
        let mut s = InterpretiveState::new();
        s.add_value("a.b.c", vc(json!("x"), 0.5));
        s.add_value("a.d", vc(json!("y"), 0.5));
        assert_eq!(s.paths().collect::<Vec<_>>(), ["a", "a.b", "a.b.c", "a.d"]);
        assert_eq!(s.field("a"), None);
        assert!(s.contains("a.b"));
        let mut odd = InterpretiveState::new();
        odd.add_value(".x..y", vc(json!(1), 0.0));
        assert_eq!(odd.paths().collect::<Vec<_>>(), ["", ".x", ".x.", ".x..y"]);
    }

    #[test]
    fn writing_a_parent_gives_it_a_value() {
        let mut s = InterpretiveState::new();
        s.add_value("a.b", vc(json!("x"), 0.5));
        s.add_value("a", vc(json!("p"), 0.1));
        assert_eq!(s.paths().collect::<Vec<_>>(), ["a", "a.b"]);
        assert_eq!(s.best_value("a").unwrap().value(), &json!("p"));
    }

    #[test]
    fn add_value_appends_and_inference_replaces() {
        let mut s = InterpretiveState::new();
        s.add_inference("name", inf("first"));
        s.add_value("name", vc(json!("A"), 0.6));
        s.add_inference("name", inf("second"));
        s.add_value("name", vc(json!("A"), 0.6));
        let f = s.field("name").unwrap();
        assert_eq!(f.values.len(), 2);
        assert_eq!(f.inference.as_ref().unwrap().content, "second");
    }

    #[test]
    fn best_value_rules() {
        let mut s = InterpretiveState::new();
        assert!(s.best_value("x").is_none());
        s.add_inference("x", inf("only"));
        assert!(s.best_value("x").is_none());
        for (v, c) in [("a", 0.6), ("b", 0.9), ("c", 0.3), ("d", 0.9)] {
            s.add_value("x", vc(json!(v), c));
        }
        assert_eq!(s.best_value("x").unwrap().value(), &json!("b"));
        s.add_value("n", vc(json!("neg"), -1.0));
        assert_eq!(s.best_value("n").unwrap().confidence(), -1.0);
    }

    #[test]
    fn filled_empty_complete() {
        let mut s = InterpretiveState::new();
        assert!(s.is_complete(None));
        s.add_value("a.b", vc(json!("x"), 0.5));
        s.add_inference("c", inf("i"));
        assert_eq!(s.filled_paths().collect::<Vec<_>>(), ["a.b"]);
        assert_eq!(s.empty_paths().collect::<Vec<_>>(), ["a", "c"]);
        assert!(!s.is_complete(None));
        assert!(s.is_complete(Some(&["a.b"])));
        assert!(!s.is_complete(Some(&["a.b", "c"])));
        assert!(!s.is_complete(Some(&["zzz"])));
    }

    #[test]
    fn clone_is_deep_and_keeps_parents() {
        let mut s = InterpretiveState::new();
        s.add_value("a.b.c", vc(json!("x"), 0.5));
        let mut copy = s.clone();
        copy.add_value("a.b.c", vc(json!("y"), 0.9));
        assert_eq!(s.field("a.b.c").unwrap().values.len(), 1);
        assert_eq!(copy.paths().collect::<Vec<_>>(), ["a", "a.b", "a.b.c"]);
    }

    #[test]
    fn snapshot_round_trip() {
        let mut s = InterpretiveState::new();
        s.add_value("z.y", vc(json!({"k": [1, 2.5]}), 0.25));
        s.add_inference("b", inf("why"));
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            r#"{"b":{"inference":{"content":"why","mutator_id":"m","message_id":null},"values":[]},"z":null,"z.y":{"inference":null,"values":[{"value":{"k":[1,2.5]},"confidence":0.25}]}}"#
        );
        let back: InterpretiveState = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_snapshot(), s.to_snapshot());
        // Parents are implied even when a file leaves them out.
        let implied: InterpretiveState =
            serde_json::from_str(r#"{"p.q": {"values": []}}"#).unwrap();
        assert_eq!(implied.paths().collect::<Vec<_>>(), ["p", "p.q"]);
        assert!(
            serde_json::from_str::<InterpretiveState>(
                r#"{"p": {"values": [{"value": 1, "confidence": 2}]}}"#
            )
            .is_err()
        );
    }
}
