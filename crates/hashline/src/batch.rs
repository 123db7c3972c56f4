//! Edits of several files in one request: every entry is read, its file
//! found through the sandbox (so that two names of one file are one file)
//! and its edit planned before anything is written; any failure rejects
//! the whole batch and lists every failing entry. The edits are then
//! written as one transaction, with one result.

use crate::cancel::Cancel;
use crate::error::{Error, Result};
use crate::file::Target;
use crate::request::{Request, Value};
use crate::session::{CallOptions, EditPlan, EditResult, Hashline, Plan};
use crate::transaction::Change;
use std::fmt::Write;

/// What a batch did, or will do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchResult {
    /// What the model reads: a line naming the files, then each file's
    /// part, with fresh refs.
    pub output: String,
    /// Each file's result, in the order of the batch.
    pub files: Vec<EditResult>,
}

/// A batch checked against every file it names, nothing written yet.
#[derive(Debug, Clone)]
pub struct BatchPlan {
    /// The session that made it: only that one may commit it.
    owner: u64,
    plans: Vec<EditPlan>,
    result: BatchResult,
}

impl BatchPlan {
    /// The result the batch will have once committed.
    pub fn result(&self) -> &BatchResult {
        &self.result
    }
}

impl Plan for BatchPlan {
    type Result = BatchResult;

    fn owner(&self) -> u64 {
        self.owner
    }

    fn foreign(&self) -> Error {
        Error::invalid_request(
            "This batch was planned by another Hashline instance; only that one can commit it. Plan the batch again with this one.",
        )
    }

    fn changes(&self) -> Vec<Change<'_>> {
        self.plans.iter().map(EditPlan::change).collect()
    }

    fn result(&self) -> &BatchResult {
        &self.result
    }

    fn edits(&self) -> impl Iterator<Item = &EditPlan> {
        self.plans.iter()
    }
}

/// One entry of a batch as the request gave it: its file and its edit.
struct Entry {
    path: String,
    request: Request,
}

/// The entries of a batch that read as entries, each its path as the batch
/// names it and its request, for a host that describes a batch (its
/// telemetry record) whether or not it could be planned; an entry that does
/// not read is left out.
pub fn batch_entries(batch: &Value) -> Vec<(String, Request)> {
    match batch {
        Value::Array(items) => items
            .iter()
            .filter_map(|item| entry(item).ok())
            .map(|e| (e.path, e.request))
            .collect(),
        _ => Vec::new(),
    }
}

/// The file an entry names, and its edit; errors say which entry.
fn entry(value: &Value) -> std::result::Result<Entry, (Option<String>, Error)> {
    let Value::Object(fields) = value else {
        return Err((
            None,
            Error::invalid_request(format!(
                "Each batch entry must be an object like {{\"path\":\"src/a.ts\",\"operations\":[...]}}, got {}.",
                value.type_name()
            )),
        ));
    };
    let named = |key: &str| {
        fields
            .iter()
            .find(|(k, v)| k == key && *v != Value::Null)
            .map(|(_, v)| v)
    };
    let path = match (named("path"), named("filePath")) {
        (Some(_), Some(_)) => {
            return Err((
                None,
                Error::invalid_request("Give the file as path or as filePath, not both."),
            ))
        }
        (Some(Value::String(p)), None) | (None, Some(Value::String(p))) if !p.trim().is_empty() => {
            p.clone()
        }
        (Some(other), None) | (None, Some(other)) => {
            return Err((
                None,
                Error::invalid_request(format!(
                    "path must be the path of the file to edit, got {}.",
                    match other {
                        Value::String(_) => "a blank string",
                        other => other.type_name(),
                    }
                )),
            ))
        }
        (None, None) => {
            return Err((
                None,
                Error::invalid_request(
                    "The entry names no file: give path (or filePath) beside its operations.",
                ),
            ))
        }
    };
    let rest: Vec<(String, Value)> = fields
        .iter()
        .filter(|(k, _)| k != "path" && k != "filePath")
        .cloned()
        .collect();
    let request = Request::from_value(&Value::Object(rest))
        .map_err(|e| (Some(path.clone()), e.with_path(&path)))?;
    Ok(Entry { path, request })
}

/// The rejection of a batch: each failing entry, by index.
fn rejected(failed: Vec<(usize, Option<String>, Error)>, total: usize) -> Error {
    let mut message = format!(
        "Batch rejected, nothing written: {} of {total} {} failed.\n",
        failed.len(),
        if total == 1 { "entry" } else { "entries" }
    );
    for (index, path, err) in &failed {
        let shown = err
            .path
            .as_deref()
            .or(path.as_deref())
            .unwrap_or("(no path)");
        let _ = write!(message, "\n[{index}] {shown}: {}\n", err.message);
    }
    let (_, first_path, first) = &failed[0];
    let mut err = Error::new(first.code, message.trim_end().to_owned());
    err.path = first.path.clone().or_else(|| first_path.clone());
    err.entries = failed
        .into_iter()
        .map(|(index, path, mut err)| {
            if err.path.is_none() {
                err.path = path;
            }
            (index, err)
        })
        .collect();
    err
}

impl Hashline {
    /// Checks a batch (`[{ path, operations | oldString/newString, rev? }, ...]`,
    /// `filePath` for `path` too) against every file it names and plans
    /// each edit; nothing is written. Any entry that fails rejects the
    /// whole batch, and every failing entry is listed, by index, in the
    /// error's `entries`. Two entries may not name one file, by whatever
    /// path.
    ///
    /// ```
    /// use hashline::{Hashline, Options, Value};
    ///
    /// let root = tempfile::tempdir().unwrap();
    /// std::fs::write(root.path().join("a.txt"), "a\n").unwrap();
    /// let session = Hashline::new(Options::new(root.path())).unwrap();
    /// let append = |path: &str, line: &str| Value::Object(vec![
    ///     ("path".into(), Value::String(path.into())),
    ///     ("operations".into(), Value::Array(vec![Value::Object(vec![
    ///         ("op".into(), Value::String("append".into())),
    ///         ("content".into(), Value::String(line.into())),
    ///     ])])),
    /// ]);
    /// let batch = Value::Array(vec![append("a.txt", "b"), append("new.txt", "c")]);
    /// let plan = session.plan_batch(&batch).unwrap();
    /// session.commit_batch(&plan).unwrap();
    /// assert_eq!(std::fs::read_to_string(root.path().join("a.txt")).unwrap(), "a\nb\n");
    /// assert_eq!(std::fs::read_to_string(root.path().join("new.txt")).unwrap(), "c\n");
    /// ```
    pub fn plan_batch(&self, batch: &Value) -> Result<BatchPlan> {
        self.plan_batch_with(batch, &CallOptions::default())
    }

    /// `plan_batch`, with the call's options.
    pub fn plan_batch_with(&self, batch: &Value, options: &CallOptions) -> Result<BatchPlan> {
        self.recover();
        let (targets, entries) = self.batch_targets(batch, options.allow_outside)?;
        self.plan_entries(targets, entries)
    }

    /// Writes a planned batch as one transaction: every file is checked
    /// before any is written, and either all take their new version or
    /// none does.
    pub fn commit_batch(&self, plan: &BatchPlan) -> Result<BatchResult> {
        self.commit_batch_then(plan, |result| Ok(result.clone()))
    }

    /// `commit_batch`, with a last step that runs once every file is
    /// checked and before any is written, as in `commit_then`.
    pub fn commit_batch_then<T>(
        &self,
        plan: &BatchPlan,
        last_step: impl FnOnce(&BatchResult) -> Result<T>,
    ) -> Result<T> {
        self.commit_with(plan, &Cancel::new(), last_step)
    }

    /// Plans and writes a batch in one step, holding the locks of its
    /// files across both, as `edit` does for one file.
    pub fn apply_batch(&self, batch: &Value) -> Result<BatchResult> {
        self.apply_batch_with(batch, &CallOptions::default())
    }

    /// `apply_batch`, with the call's options.
    pub fn apply_batch_with(&self, batch: &Value, options: &CallOptions) -> Result<BatchResult> {
        self.apply_batch_then(batch, options, |result| Ok(result.clone()))
    }

    /// `apply_batch_with`, with a last step as in `commit_then`.
    pub fn apply_batch_then<T>(
        &self,
        batch: &Value,
        options: &CallOptions,
        last_step: impl FnOnce(&BatchResult) -> Result<T>,
    ) -> Result<T> {
        self.recover();
        let (targets, entries) = self.batch_targets(batch, options.allow_outside)?;
        let held: Vec<&Target> = targets.iter().flatten().collect();
        let _guards = self.path_locks(&held, &options.cancel)?;
        let plan = self.plan_entries(targets, entries)?;
        self.write(&plan, &options.cancel, last_step)
    }

    /// Each entry read and its file found; the errors of entries that
    /// fail here are kept for the rejection, with the planning's.
    #[allow(clippy::type_complexity)]
    fn batch_targets(
        &self,
        batch: &Value,
        allow_outside: bool,
    ) -> Result<(
        Vec<Option<Target>>,
        Vec<std::result::Result<Entry, (Option<String>, Error)>>,
    )> {
        let items = match batch {
            Value::Array(items) if !items.is_empty() => items,
            other => {
                return Err(Error::invalid_request(format!(
                    "The batch must be a non-empty array like [{{\"path\":\"src/a.ts\",\"operations\":[...]}}], got {}.",
                    match other {
                        Value::Array(_) => "an empty array",
                        other => other.type_name(),
                    }
                )))
            }
        };
        let mut entries: Vec<_> = items.iter().map(entry).collect();
        let mut targets = Vec::with_capacity(entries.len());
        let mut first_of: Vec<(std::path::PathBuf, usize)> = Vec::new();
        for (index, item) in entries.iter_mut().enumerate() {
            let Ok(e) = item else {
                targets.push(None);
                continue;
            };
            let target = match self.target(&e.path, allow_outside) {
                Ok(target) => target,
                Err(err) => {
                    let path = e.path.clone();
                    *item = Err((Some(path.clone()), err.with_path(&path)));
                    targets.push(None);
                    continue;
                }
            };
            // Two entries for one file would both be planned on the same
            // version, and the second could never be written.
            if let Some((_, first)) = first_of.iter().find(|(real, _)| *real == target.real) {
                let path = e.path.clone();
                let err = Error::invalid_request(format!(
                    "{path} is the file of entry {first} too: put all operations on one file in one entry."
                ))
                .with_path(&path);
                *item = Err((Some(path), err));
                targets.push(None);
                continue;
            }
            first_of.push((target.real.clone(), index));
            targets.push(Some(target));
        }
        Ok((targets, entries))
    }

    fn plan_entries(
        &self,
        targets: Vec<Option<Target>>,
        entries: Vec<std::result::Result<Entry, (Option<String>, Error)>>,
    ) -> Result<BatchPlan> {
        let total = entries.len();
        let mut failed = Vec::new();
        let mut plans = Vec::with_capacity(total);
        for (index, (target, item)) in targets.into_iter().zip(entries).enumerate() {
            let (target, e) = match (target, item) {
                (Some(target), Ok(e)) => (target, e),
                (_, Err((path, err))) => {
                    failed.push((index, path, err));
                    continue;
                }
                (None, Ok(_)) => continue,
            };
            match self.plan_target(target, &e.request) {
                Ok(plan) => plans.push(plan),
                Err(err) => failed.push((index, Some(e.path), err)),
            }
        }
        if !failed.is_empty() {
            return Err(rejected(failed, total));
        }
        let files: Vec<EditResult> = plans.iter().map(|p| p.result().clone()).collect();
        let names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let mut output = format!(
            "Edited {} {} as one change: {}.\n",
            files.len(),
            if files.len() == 1 { "file" } else { "files" },
            names.join(", ")
        );
        for file in &files {
            output.push('\n');
            output.push_str(&file.output);
        }
        self.tell_recoveries(&mut output);
        Ok(BatchPlan {
            owner: self.id,
            plans,
            result: BatchResult { output, files },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::session::Options;
    use std::fs;

    fn entry(path: &str, line: &str) -> Value {
        Value::Object(vec![
            ("path".into(), Value::String(path.into())),
            (
                "operations".into(),
                Value::Array(vec![Value::Object(vec![
                    ("op".into(), Value::String("append".into())),
                    ("content".into(), Value::String(line.into())),
                ])]),
            ),
        ])
    }

    #[cfg(unix)]
    #[test]
    fn two_names_of_one_file_are_one_file_and_every_failing_entry_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        std::os::unix::fs::symlink("a.txt", dir.path().join("alias.txt")).unwrap();
        let hl = Hashline::new(Options::new(dir.path())).unwrap();
        let batch = Value::Array(vec![
            entry("a.txt", "x"),
            Value::String("not an entry".into()),
            entry("alias.txt", "y"),
            entry("../out.txt", "z"),
        ]);
        let err = hl.apply_batch(&batch).unwrap_err();
        let listed: Vec<(usize, ErrorCode)> =
            err.entries.iter().map(|(i, e)| (*i, e.code)).collect();
        assert_eq!(
            listed,
            [
                (1, ErrorCode::InvalidRequest),
                (2, ErrorCode::InvalidRequest),
                (3, ErrorCode::OutsideRoot)
            ]
        );
        assert!(err
            .message
            .starts_with("Batch rejected, nothing written: 3 of 4 entries failed."));
        assert!(err
            .message
            .contains("[2] alias.txt: alias.txt is the file of entry 0 too"));
        assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "a\n");
    }
}
