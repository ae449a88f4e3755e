//! Undo and redo of the playground's edits, and the diff each whole-text edit shows.
//!
//! Every change of the state (Apply, a node table cell, an example, an option, a what-if
//! command) is a step; typing in an editor is one step per burst, so that Ctrl+Z outside the
//! editors undoes the burst while the textarea keeps its own undo for single keystrokes.

use crate::evaluation::Editor;
use crate::share::SharedState;

/// At most this many steps are kept, and at most this many bytes of text in them (a
/// 12,000-line file is about 400 KB: 100 copies would be too much for a phone's tab).
pub const MAX_STEPS: usize = 100;
pub const MAX_BYTES: usize = 32 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    state: SharedState,
    label: String,
    /// Typing in this editor: the next keystrokes there join this step.
    typing: Option<Editor>,
}

fn bytes(s: &SharedState) -> usize {
    s.workloads.len() + s.nodes.len() + s.gatekeeper.len()
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    undo: Vec<Step>,
    redo: Vec<Step>,
}

impl History {
    /// Records `before`, the state an edit (`label`) is about to change. Typing in the same
    /// editor as the step before joins it.
    pub fn record(&mut self, before: &SharedState, label: &str, typing: Option<Editor>) {
        let joins = typing.is_some() && self.redo.is_empty() && self.undo.last().is_some_and(|s| s.typing == typing);
        self.redo.clear();
        if joins {
            return;
        }
        self.undo.push(Step { state: before.clone(), label: label.to_string(), typing });
        let mut total: usize = self.undo.iter().map(|s| bytes(&s.state)).sum();
        while self.undo.len() > MAX_STEPS || (total > MAX_BYTES && self.undo.len() > 1) {
            let dropped = self.undo.remove(0);
            total -= bytes(&dropped.state);
        }
    }

    /// Ends a typing burst (the editor lost focus): the next keystroke starts a new step.
    pub fn seal(&mut self) {
        if let Some(last) = self.undo.last_mut() {
            last.typing = None;
        }
    }

    /// The state before the last step, and its label; `current` becomes redoable.
    pub fn undo(&mut self, current: SharedState) -> Option<(SharedState, String)> {
        let step = self.undo.pop()?;
        self.redo.push(Step { state: current, label: step.label.clone(), typing: None });
        Some((step.state, step.label))
    }

    /// The state the last undo left, and its label; `current` becomes undoable again.
    pub fn redo(&mut self, current: SharedState) -> Option<(SharedState, String)> {
        let step = self.redo.pop()?;
        self.undo.push(Step { state: current, label: step.label.clone(), typing: None });
        Some((step.state, step.label))
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

/// The lines an edit changed in one editor's text, as a unified diff (`@@`, ` `, `-`, `+`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextDiff {
    /// Which text: `Workloads` or `Nodes`.
    pub editor: &'static str,
    pub lines: Vec<String>,
    pub added: usize,
    pub removed: usize,
    /// Why the edited document was re-serialized rather than edited line by line.
    pub rewritten: Option<String>,
}

/// Lines of context around each change.
const CONTEXT: usize = 2;
/// The middle part (after the common start and end) is compared line by line up to this
/// many line pairs; past it, it is shown as removed and added whole.
const MAX_CELLS: usize = 2_000_000;

/// The unified diff of `old` and `new` (empty when they are equal).
pub fn diff_lines(old: &str, new: &str) -> (Vec<String>, usize, usize) {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (a_rest, b_rest) = (a.get(prefix..).unwrap_or(&[]), b.get(prefix..).unwrap_or(&[]));
    let suffix = a_rest.iter().rev().zip(b_rest.iter().rev()).take_while(|(x, y)| x == y).count();
    let am = a_rest.get(..a_rest.len() - suffix).unwrap_or(&[]);
    let bm = b_rest.get(..b_rest.len() - suffix).unwrap_or(&[]);
    // Each line of both texts: ' ', '-' or '+', with its 0-based numbers in old and new.
    let mut ops: Vec<(char, usize, usize)> = (0..prefix).map(|i| (' ', i, i)).collect();
    if am.len().saturating_mul(bm.len()) <= MAX_CELLS {
        // Longest common subsequence, from the end.
        let w = bm.len() + 1;
        let mut t = vec![0u32; (am.len() + 1) * w];
        for i in (0..am.len()).rev() {
            for j in (0..bm.len()).rev() {
                let v = if am.get(i) == bm.get(j) {
                    t.get((i + 1) * w + j + 1).copied().unwrap_or(0) + 1
                } else {
                    let down = t.get((i + 1) * w + j).copied().unwrap_or(0);
                    let right = t.get(i * w + j + 1).copied().unwrap_or(0);
                    down.max(right)
                };
                if let Some(cell) = t.get_mut(i * w + j) {
                    *cell = v;
                }
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < am.len() || j < bm.len() {
            let at = |i: usize, j: usize| t.get(i * w + j).copied().unwrap_or(0);
            if i < am.len() && j < bm.len() && am.get(i) == bm.get(j) {
                ops.push((' ', prefix + i, prefix + j));
                i += 1;
                j += 1;
            } else if i < am.len() && (j == bm.len() || at(i + 1, j) >= at(i, j + 1)) {
                ops.push(('-', prefix + i, prefix + j));
                i += 1;
            } else {
                ops.push(('+', prefix + i, prefix + j));
                j += 1;
            }
        }
    } else {
        ops.extend((0..am.len()).map(|i| ('-', prefix + i, prefix)));
        ops.extend((0..bm.len()).map(|j| ('+', prefix + am.len(), prefix + j)));
    }
    ops.extend((0..suffix).map(|k| (' ', a.len() - suffix + k, b.len() - suffix + k)));

    let changed: Vec<usize> = ops.iter().enumerate().filter(|(_, o)| o.0 != ' ').map(|(k, _)| k).collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < changed.len() {
        // A hunk: changes closer than twice the context join.
        let first = changed.get(k).copied().unwrap_or(0);
        let mut last = first;
        while let Some(&next) = changed.get(k + 1) {
            if next > last + 2 * CONTEXT + 1 {
                break;
            }
            last = next;
            k += 1;
        }
        k += 1;
        let (from, to) = (first.saturating_sub(CONTEXT), (last + CONTEXT + 1).min(ops.len()));
        let hunk = ops.get(from..to).unwrap_or(&[]);
        let count = |c: char| hunk.iter().filter(|o| o.0 == ' ' || o.0 == c).count();
        let start = hunk.first().map(|o| (o.1 + 1, o.2 + 1)).unwrap_or((1, 1));
        out.push(format!("@@ -{},{} +{},{} @@", start.0, count('-'), start.1, count('+')));
        for &(c, i, j) in hunk {
            let text = match c {
                '+' => b.get(j),
                _ => a.get(i),
            };
            out.push(format!("{c}{}", text.unwrap_or(&"")));
        }
    }
    let added = ops.iter().filter(|o| o.0 == '+').count();
    let removed = ops.iter().filter(|o| o.0 == '-').count();
    (out, added, removed)
}

/// The diffs of the editors' texts between two states (the texts that changed).
pub fn diff_states(old: &SharedState, new: &SharedState, rewritten: Option<String>) -> Vec<TextDiff> {
    let mut out = Vec::new();
    for (editor, a, b) in [("Workloads", &old.workloads, &new.workloads), ("Nodes", &old.nodes, &new.nodes)] {
        if a != b {
            let (lines, added, removed) = diff_lines(a, b);
            out.push(TextDiff { editor, lines, added, removed, rewritten: rewritten.clone() });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(workloads: &str) -> SharedState {
        SharedState { workloads: workloads.into(), ..Default::default() }
    }

    #[test]
    fn undo_and_redo_walk_the_steps_and_typing_joins_one_step() {
        let mut h = History::default();
        // (action, state after it, undo/redo answers)
        h.record(&state("a"), "Apply", None);
        h.record(&state("b"), "typing", Some(Editor::Workloads));
        h.record(&state("bc"), "typing", Some(Editor::Workloads)); // joins the burst
        assert_eq!(h.undo(state("bcd")), Some((state("b"), "typing".into())));
        assert_eq!(h.undo(state("b")), Some((state("a"), "Apply".into())));
        assert_eq!(h.undo(state("a")), None);
        assert_eq!(h.redo(state("a")), Some((state("b"), "Apply".into())));
        assert!(h.can_redo());
        // A new edit drops what could be redone.
        h.record(&state("b"), "example", None);
        assert!(!h.can_redo());
        assert_eq!(h.undo(state("x")), Some((state("b"), "example".into())));

        // Leaving the editor ends the burst.
        let mut h = History::default();
        h.record(&state("a"), "typing", Some(Editor::Nodes));
        h.seal();
        h.record(&state("ab"), "typing", Some(Editor::Nodes));
        assert_eq!(h.undo(state("abc")).map(|s| s.0), Some(state("ab")));

        let mut h = History::default();
        for i in 0..150 {
            h.record(&state(&i.to_string()), "edit", None);
        }
        let mut n = 0;
        while h.undo(state("")).is_some() {
            n += 1;
        }
        assert_eq!(n, MAX_STEPS, "bounded");
    }

    #[test]
    fn diffs_show_the_changed_lines_with_context() {
        // (name, old, new, diff lines)
        let rows: &[(&str, &str, &str, &[&str])] = &[
            (
                "one line changed",
                "a\nb\nc\nd\ne\nf\n",
                "a\nb\nc\nX\ne\nf\n",
                &["@@ -2,5 +2,5 @@", " b", " c", "-d", "+X", " e", " f"],
            ),
            ("lines added at the end", "a\nb\n", "a\nb\nc\n", &["@@ -1,2 +1,3 @@", " a", " b", "+c"]),
            (
                "two changes far apart are two hunks",
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
                "x\n2\n3\n4\n5\n6\n7\n8\ny\n",
                &["@@ -1,3 +1,3 @@", "-1", "+x", " 2", " 3", "@@ -7,3 +7,3 @@", " 7", " 8", "-9", "+y"],
            ),
            ("no change", "a\n", "a\n", &[]),
        ];
        for (name, old, new, want) in rows {
            assert_eq!(diff_lines(old, new).0, *want, "{name}");
        }
    }
}
