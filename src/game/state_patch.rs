//! A turn game's step as journaled: the state after it, kept as the difference from the
//! state before it (an RFC 6902 JSON Patch, applied with `json_patch`), so an entry costs
//! what the step changed and not the whole game.
//!
//! The difference is made here, not with `json_patch::diff`, because that one compares
//! arrays place by place: a card drawn from the middle of a deck would rewrite every card
//! after it. Here an array keeps what it shares at both ends and changes only the middle.
//! A patch is kept only if applying it gives exactly the new state; otherwise the whole
//! state is journaled, as it always was (older journals hold only whole states).

use json_patch::Patch;
use serde_json::{json, Value};

/// How many elements an array may lose or gain in one change before the whole array is
/// written instead (each is an operation of its own).
const SPLICE_MAX: usize = 8;

/// The patch that turns `old` into `new`, if it does so exactly.
pub fn diff(old: &Value, new: &Value) -> Option<Patch> {
    let mut ops = Vec::new();
    diff_into(old, new, &mut String::new(), &mut ops);
    let patch: Patch = serde_json::from_value(Value::Array(ops)).ok()?;
    (apply(old, &patch).ok().as_ref() == Some(new)).then_some(patch)
}

/// `old` with `patch` applied.
pub fn apply(old: &Value, patch: &Patch) -> Result<Value, json_patch::PatchError> {
    let mut state = old.clone();
    json_patch::patch(&mut state, patch)?;
    Ok(state)
}

fn push_token(path: &mut String, token: &str) {
    path.push('/');
    path.push_str(&token.replace('~', "~0").replace('/', "~1"));
}

fn diff_into(old: &Value, new: &Value, path: &mut String, ops: &mut Vec<Value>) {
    if old == new {
        return;
    }
    let end = path.len();
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, vb) in b {
                push_token(path, key);
                match a.get(key) {
                    Some(va) => diff_into(va, vb, path, ops),
                    None => ops.push(json!({"op": "add", "path": path, "value": vb})),
                }
                path.truncate(end);
            }
            for key in a.keys().filter(|k| !b.contains_key(*k)) {
                push_token(path, key);
                ops.push(json!({"op": "remove", "path": path}));
                path.truncate(end);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
            let (gone, came) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
            let both = gone.len().min(came.len());
            if gone.len().max(came.len()) - both <= SPLICE_MAX {
                // What both hold changes in place; then the old ones left go, the new come.
                for (i, (x, y)) in gone.iter().zip(came).enumerate() {
                    push_token(path, &(head + i).to_string());
                    diff_into(x, y, path, ops);
                    path.truncate(end);
                }
                push_token(path, &(head + both).to_string());
                for _ in &gone[both..] {
                    ops.push(json!({"op": "remove", "path": path}));
                }
                path.truncate(end);
                for (i, y) in came[both..].iter().enumerate() {
                    push_token(path, &(head + both + i).to_string());
                    ops.push(json!({"op": "add", "path": path, "value": y}));
                    path.truncate(end);
                }
            } else {
                ops.push(json!({"op": "replace", "path": path, "value": new}));
            }
        }
        _ => ops.push(json!({"op": "replace", "path": path, "value": new})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_holds_only_what_changed_and_gives_the_new_state() {
        let old = json!({"deck": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "answers": [{"a": 1}], "k/~": 1, "gone": true});
        let new = json!({"deck": [1, 2, 3, 5, 6, 7, 8, 9, 10], "answers": [{"a": 2}, {"b": 3}], "k/~": 2, "new": null});
        let patch = diff(&old, &new).expect("a patch");
        assert_eq!(apply(&old, &patch).unwrap(), new);
        let ops = serde_json::to_value(&patch).unwrap();
        assert_eq!(
            ops,
            json!([
                {"op": "replace", "path": "/answers/0/a", "value": 2},
                {"op": "add", "path": "/answers/1", "value": {"b": 3}},
                {"op": "remove", "path": "/deck/3"},
                {"op": "replace", "path": "/k~1~0", "value": 2},
                {"op": "add", "path": "/new", "value": null},
                {"op": "remove", "path": "/gone"},
            ])
        );
        assert_eq!(diff(&old, &old).map(|p| p.0.len()), Some(0));
        let reordered = json!({"deck": [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]});
        assert_eq!(apply(&old, &diff(&old, &reordered).unwrap()).unwrap(), reordered);
    }
}
