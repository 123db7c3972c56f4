//! Whether a notebook is valid as nbformat judges it: the JSON schema of
//! its own minor version of nbformat 4 (`nbformat/v4/nbformat.v4.N.schema.json`,
//! 4.0 to 4.5), or, for a later minor version, the latest one with every
//! `additionalProperties` relaxed and unknown cell and output types allowed;
//! then the ids nbformat checks in code (present and unique from 4.5).
//!
//! Written out rather than run from the schema files: the schema is small,
//! fixed per version, and what a failure means must be said to the model in
//! words. The corpus test compares every verdict with nbformat's own.

use serde_json::{Map, Value};

/// The versions a notebook declares, once it is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Version {
    pub major: u64,
    pub minor: u64,
}

impl Version {
    /// Cells have ids from nbformat 4.5 on.
    pub(crate) fn has_ids(self) -> bool {
        self.minor >= 5
    }

    /// A version later than any schema known here: nbformat then checks
    /// what it knows and lets the rest pass.
    fn future(self) -> bool {
        self.minor > 5
    }
}

/// The first thing that makes `nb` invalid, with where it is, or its
/// version.
pub(crate) fn validate(nb: &Value) -> Result<Version, String> {
    let top = object(nb, "the notebook")?;
    let major = integer(top.get("nbformat"), "nbformat")?;
    if major != 4 {
        return Err(format!(
            "it is nbformat {major}; only nbformat 4 notebooks (Jupyter's since 2015) are read as cells here"
        ));
    }
    let minor = integer(top.get("nbformat_minor"), "nbformat_minor")?;
    let version = Version { major, minor };
    let check = Check { version };
    check.known_keys(
        top,
        &["metadata", "nbformat_minor", "nbformat", "cells"],
        "the notebook",
    )?;
    check.notebook_metadata(required(top, "metadata", "the notebook")?)?;
    let cells = required(top, "cells", "the notebook")?
        .as_array()
        .ok_or("`cells` is not an array")?;
    for (i, cell) in cells.iter().enumerate() {
        check.cell(cell, &format!("cell {}", i + 1))?;
    }
    if version.has_ids() {
        let mut seen = std::collections::HashSet::new();
        for (i, cell) in cells.iter().enumerate() {
            let id = cell.get("id").and_then(Value::as_str);
            if let Some(id) = id {
                if !seen.insert(id) {
                    return Err(format!(
                        "cell {} has the id {id:?}, which an earlier cell has: ids must be unique",
                        i + 1
                    ));
                }
            }
        }
    }
    Ok(version)
}

struct Check {
    version: Version,
}

fn object<'v>(value: &'v Value, what: &str) -> Result<&'v Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| format!("{what} is not an object"))
}

fn required<'v>(map: &'v Map<String, Value>, key: &str, what: &str) -> Result<&'v Value, String> {
    map.get(key)
        .ok_or_else(|| format!("{what} has no `{key}`, which it needs"))
}

/// A whole number, as JSON Schema's draft 4 has it: no fraction or
/// exponent in the text (`1.0` is not one).
fn integer(value: Option<&Value>, what: &str) -> Result<u64, String> {
    match value {
        Some(Value::Number(n)) if n.is_u64() => Ok(n.as_u64().unwrap_or(0)),
        Some(_) => Err(format!("`{what}` is not a whole number at least 0")),
        None => Err(format!("the notebook has no `{what}`")),
    }
}

fn string<'v>(value: &'v Value, what: &str) -> Result<&'v str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("{what} is not a string"))
}

/// A `multiline_string`: a string or an array of strings.
fn multiline(value: &Value, what: &str) -> Result<(), String> {
    match value {
        Value::String(_) => Ok(()),
        Value::Array(items) if items.iter().all(Value::is_string) => Ok(()),
        _ => Err(format!(
            "{what} is neither a string nor an array of strings"
        )),
    }
}

/// Python's `re.search` of `^X+$`, where `X` is a class every character of
/// the text but `\n` matches or not by `allowed`: `.` does not match a line
/// break, and `$` also matches before a final one.
fn whole(text: &str, allowed: impl Fn(char) -> bool) -> bool {
    let body = text.strip_suffix('\n').unwrap_or(text);
    !body.is_empty() && body.chars().all(allowed)
}

impl Check {
    fn known_keys(
        &self,
        map: &Map<String, Value>,
        known: &[&str],
        what: &str,
    ) -> Result<(), String> {
        if self.version.future() {
            return Ok(());
        }
        match map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(key) => Err(format!(
                "{what} has `{key}`, which nbformat 4.{} does not allow there",
                self.version.minor
            )),
            None => Ok(()),
        }
    }

    fn notebook_metadata(&self, value: &Value) -> Result<(), String> {
        let metadata = object(value, "the notebook's metadata")?;
        if let Some(kernelspec) = metadata.get("kernelspec") {
            let spec = object(kernelspec, "metadata.kernelspec")?;
            for key in ["name", "display_name"] {
                string(
                    required(spec, key, "metadata.kernelspec")?,
                    &format!("metadata.kernelspec.{key}"),
                )?;
            }
        }
        if let Some(info) = metadata.get("language_info") {
            let info = object(info, "metadata.language_info")?;
            string(
                required(info, "name", "metadata.language_info")?,
                "metadata.language_info.name",
            )?;
            if let Some(mode) = info.get("codemirror_mode") {
                if !(mode.is_string() || mode.is_object()) {
                    return Err(
                        "metadata.language_info.codemirror_mode is neither a string nor an object"
                            .into(),
                    );
                }
            }
            for key in ["file_extension", "mimetype", "pygments_lexer"] {
                if let Some(v) = info.get(key) {
                    string(v, &format!("metadata.language_info.{key}"))?;
                }
            }
        }
        if let Some(orig) = metadata.get("orig_nbformat") {
            if !matches!(orig, Value::Number(n) if n.as_u64().is_some_and(|n| n >= 1)) {
                return Err("metadata.orig_nbformat is not a whole number at least 1".into());
            }
        }
        if self.version.minor >= 2 {
            if let Some(title) = metadata.get("title") {
                string(title, "metadata.title")?;
            }
            if let Some(authors) = metadata.get("authors") {
                if !authors.is_array() {
                    return Err("metadata.authors is not an array".into());
                }
            }
        }
        Ok(())
    }

    fn cell(&self, value: &Value, what: &str) -> Result<(), String> {
        let cell = object(value, what)?;
        let kind = required(cell, "cell_type", what)?;
        let kind = kind.as_str().unwrap_or("");
        let mut keys = vec!["cell_type", "metadata", "source"];
        if self.version.has_ids() {
            keys.push("id");
            let id = required(cell, "id", what)?;
            let id = string(id, &format!("{what}'s id"))?;
            let length = id.chars().count();
            if !(1..=64).contains(&length)
                || !whole(id, |c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(format!(
                    "{what}'s id {id:?} is not 1 to 64 letters, digits, `-` or `_`"
                ));
            }
        }
        match kind {
            "code" => keys.extend(["outputs", "execution_count"]),
            "markdown" | "raw" => keys.push("attachments"),
            _ if self.version.future() => {
                return self.cell_metadata(required(cell, "metadata", what)?, kind, what);
            }
            other => {
                return Err(format!(
                    "{what} has the cell_type {other:?}, which is none of code, markdown and raw"
                ))
            }
        }
        self.known_keys(cell, &keys, what)?;
        for key in ["metadata", "source"] {
            required(cell, key, what)?;
        }
        multiline(&cell["source"], &format!("{what}'s source"))?;
        self.cell_metadata(&cell["metadata"], kind, what)?;
        if let Some(attachments) = cell.get("attachments") {
            let attachments = object(attachments, &format!("{what}'s attachments"))?;
            for (name, bundle) in attachments {
                self.mimebundle(bundle, &format!("{what}'s attachment {name:?}"))?;
            }
        }
        if kind == "code" {
            let outputs = required(cell, "outputs", what)?
                .as_array()
                .ok_or_else(|| format!("{what}'s outputs is not an array"))?;
            for (i, output) in outputs.iter().enumerate() {
                self.output(output, &format!("{what}'s output {}", i + 1))?;
            }
            execution_count(required(cell, "execution_count", what)?, what)?;
        }
        Ok(())
    }

    fn cell_metadata(&self, value: &Value, kind: &str, what: &str) -> Result<(), String> {
        let what = format!("{what}'s metadata");
        let metadata = object(value, &what)?;
        if let Some(name) = metadata.get("name") {
            let name = string(name, &format!("{what}.name"))?;
            if !whole(name, |c| c != '\n') {
                return Err(format!("{what}.name is empty or holds a line break"));
            }
        }
        if let Some(tags) = metadata.get("tags") {
            let tags = tags
                .as_array()
                .ok_or_else(|| format!("{what}.tags is not an array"))?;
            for (i, tag) in tags.iter().enumerate() {
                let tag = string(tag, &format!("{what}.tags[{i}]"))?;
                if tag.is_empty() || tag.contains(',') {
                    return Err(format!("{what}.tags[{i}] is empty or holds a comma"));
                }
                if tags[..i].iter().any(|t| t.as_str() == Some(tag)) {
                    return Err(format!("{what}.tags has {tag:?} twice"));
                }
            }
        }
        if self.version.minor >= 3 {
            if let Some(jupyter) = metadata.get("jupyter") {
                object(jupyter, &format!("{what}.jupyter"))?;
            }
        }
        match kind {
            "raw" => {
                if let Some(format) = metadata.get("format") {
                    string(format, &format!("{what}.format"))?;
                }
            }
            "code" => {
                if let Some(collapsed) = metadata.get("collapsed") {
                    if !collapsed.is_boolean() {
                        return Err(format!("{what}.collapsed is not true or false"));
                    }
                }
                if let Some(scrolled) = metadata.get("scrolled") {
                    if !(scrolled.is_boolean() || scrolled == "auto") {
                        return Err(format!(
                            "{what}.scrolled is none of true, false and \"auto\""
                        ));
                    }
                }
                if self.version.minor >= 4 {
                    if let Some(execution) = metadata.get("execution") {
                        let execution = object(execution, &format!("{what}.execution"))?;
                        if let Some((key, _)) = execution.iter().find(|(_, v)| !v.is_string()) {
                            return Err(format!("{what}.execution.{key} is not a string"));
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn output(&self, value: &Value, what: &str) -> Result<(), String> {
        let output = object(value, what)?;
        let kind = required(output, "output_type", what)?
            .as_str()
            .unwrap_or("");
        match kind {
            "execute_result" | "display_data" => {
                let mut keys = vec!["output_type", "data", "metadata"];
                if kind == "execute_result" {
                    keys.push("execution_count");
                    execution_count(required(output, "execution_count", what)?, what)?;
                }
                self.known_keys(output, &keys, what)?;
                self.mimebundle(required(output, "data", what)?, &format!("{what}'s data"))?;
                object(required(output, "metadata", what)?, &format!("{what}'s metadata"))?;
            }
            "stream" => {
                self.known_keys(output, &["output_type", "name", "text"], what)?;
                string(required(output, "name", what)?, &format!("{what}'s name"))?;
                multiline(required(output, "text", what)?, &format!("{what}'s text"))?;
            }
            "error" => {
                self.known_keys(output, &["output_type", "ename", "evalue", "traceback"], what)?;
                string(required(output, "ename", what)?, &format!("{what}'s ename"))?;
                string(required(output, "evalue", what)?, &format!("{what}'s evalue"))?;
                let traceback = required(output, "traceback", what)?;
                if !matches!(traceback, Value::Array(items) if items.iter().all(Value::is_string)) {
                    return Err(format!("{what}'s traceback is not an array of strings"));
                }
            }
            _ if self.version.future() => {}
            other => return Err(format!("{what} has the output_type {other:?}, which is none of execute_result, display_data, stream and error")),
        }
        Ok(())
    }

    fn mimebundle(&self, value: &Value, what: &str) -> Result<(), String> {
        let bundle = object(value, what)?;
        if self.version.future() {
            return Ok(());
        }
        for (mime, data) in bundle {
            if !json_mime(mime) {
                multiline(data, &format!("{what}[{mime:?}]"))?;
            }
        }
        Ok(())
    }
}

/// `^application/(.*\+)?json$`: a mime type whose data may be any JSON.
pub(crate) fn json_mime(mime: &str) -> bool {
    let mime = mime.strip_suffix('\n').unwrap_or(mime);
    mime.strip_prefix("application/")
        .and_then(|rest| rest.strip_suffix("json"))
        .is_some_and(|middle| {
            (middle.is_empty() || middle.ends_with('+')) && !middle.contains('\n')
        })
}

fn execution_count(value: &Value, what: &str) -> Result<(), String> {
    match value {
        Value::Null => Ok(()),
        Value::Number(n) if n.is_u64() => Ok(()),
        _ => Err(format!(
            "{what}'s execution_count is neither null nor a whole number at least 0"
        )),
    }
}
