//! Functions over text the caller holds: views, edits, refs and hashes, with
//! no file and no session.

use crate::args;
use crate::check::{problems, BindingProblem};
use crate::error::guard;
use crate::js_string::Text;
use crate::options::{self, ApplyEditsOptions, FormatViewOptions};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

/// A tagged view of text the caller holds.
#[napi(ts_return_type = "string")]
pub fn format_view(
    env: Env,
    #[napi(ts_arg_type = "string")] text: Unknown,
    #[napi(ts_arg_type = "FormatViewOptions | undefined | null")] options: Option<Unknown>,
) -> Result<Text> {
    guard(&env, || {
        let text =
            args::required_string(&env, Some(text), "text", "the text to show, as a string")?;
        let o = FormatViewOptions::read(&env, options)?;
        let view_options = hashline::FormatViewOptions {
            offset: args::count(o.offset, "options.offset", 1.0)?,
            limit: args::count(o.limit, "options.limit", 1.0)?,
            view: options::view(o.view.as_deref(), "options.view")?.unwrap_or_default(),
        };
        let path = o.path.as_deref().unwrap_or("text");
        Ok(hashline::format_view_with(text, path, &view_options)?
            .text
            .into())
    })
}

/// What `applyEdits` did. The new text, the REVs, the result and the diff
/// are each made the first time they are read: a host that only takes the
/// text pays for none of the others.
#[napi]
pub struct TextEditResult {
    edit: hashline::TextEdit,
}

#[napi]
impl TextEditResult {
    /// The new text.
    #[napi(getter, ts_return_type = "string")]
    pub fn text(&self, env: Env) -> Result<Text> {
        guard(&env, || {
            let doc = self.edit.document();
            Ok(if doc.bytes_are_canonical() {
                Text::of_document(Arc::clone(doc))
            } else {
                self.edit.text().into_owned().into()
            })
        })
    }

    /// What the model should read: fresh refs around each change, shift
    /// hints, notes.
    #[napi(getter)]
    pub fn output(&self, env: Env) -> Result<String> {
        guard(&env, || Ok(self.edit.summary().output.clone()))
    }

    /// The first sentence of `output`, naming what was done.
    #[napi(getter)]
    pub fn headline(&self) -> String {
        self.edit.headline().to_owned()
    }

    /// The REV of the new text.
    #[napi(getter)]
    pub fn rev(&self, env: Env) -> Result<String> {
        guard(&env, || Ok(self.edit.rev().to_owned()))
    }

    /// The REV of the text edited.
    #[napi(getter)]
    pub fn previous_rev(&self, env: Env) -> Result<String> {
        guard(&env, || Ok(self.edit.previous_rev().to_owned()))
    }

    /// A unified diff for UIs.
    #[napi(getter)]
    pub fn diff(&self, env: Env) -> Result<String> {
        guard(&env, || Ok(self.edit.summary().diff.clone()))
    }

    #[napi(getter)]
    pub fn additions(&self, env: Env) -> Result<u32> {
        guard(&env, || Ok(self.edit.summary().additions as u32))
    }

    #[napi(getter)]
    pub fn deletions(&self, env: Env) -> Result<u32> {
        guard(&env, || Ok(self.edit.summary().deletions as u32))
    }

    /// What the edit broke that was not broken before.
    // Named here: this module's types are made before `check`'s.
    #[napi(getter, ts_return_type = "Array<Problem>")]
    pub fn problems(&self) -> Vec<BindingProblem> {
        problems(self.edit.problems())
    }
}

/// Applies an edit request to text the caller holds; no file, no store.
#[napi]
pub fn apply_edits(
    env: Env,
    #[napi(ts_arg_type = "string")] text: Unknown,
    #[napi(ts_arg_type = "EditRequest")] request: Option<Unknown>,
    #[napi(ts_arg_type = "ApplyEditsOptions | undefined | null")] options: Option<Unknown>,
) -> Result<TextEditResult> {
    guard(&env, || {
        let text =
            args::required_string(&env, Some(text), "text", "the text to edit, as a string")?;
        let request = args::request(&env, request)?;
        let o = ApplyEditsOptions::read(&env, options)?;
        let syntax = options::syntax(o.syntax.as_deref(), "options.syntax")?.unwrap_or_default();
        let path = o.path.as_deref().unwrap_or("text");
        Ok(TextEditResult {
            edit: hashline::apply_to_string(text, path, &request, true, syntax)?,
        })
    })
}

#[napi(object)]
pub struct ParsedRef {
    pub line: u32,
    /// The HASH of a full ref.
    pub hash: Option<String>,
    pub anchor: Option<String>,
    /// The two letters of a lean ref.
    pub pair: Option<String>,
}

/// Parses a ref as models write it (tolerant); throws `INVALID_REF` otherwise.
#[napi]
pub fn parse_ref(
    env: Env,
    #[napi(ts_arg_type = "string")] reference: Unknown,
) -> Result<ParsedRef> {
    guard(&env, || {
        let reference = args::required_string(
            &env,
            Some(reference),
            "reference",
            "a ref such as 12#A3F#9BC",
        )?;
        let parsed = hashline::Ref::parse(&reference)?;
        Ok(ParsedRef {
            line: u32::try_from(parsed.line).unwrap_or(u32::MAX),
            hash: parsed.hash().map(|h| h.to_string()),
            anchor: parsed.anchor().map(|a| a.to_string()),
            pair: match parsed.tag {
                hashline::RefTag::Pair(tag) => Some(String::from_utf8_lossy(&tag).into_owned()),
                hashline::RefTag::Full { .. } => None,
            },
        })
    })
}

/// HASH: 3 hex digits of SHA-1 of the line (trailing spaces and tabs ignored).
#[napi]
pub fn line_hash(env: Env, #[napi(ts_arg_type = "string")] line: Unknown) -> Result<String> {
    guard(&env, || {
        let line = args::required_string(&env, Some(line), "line", "the text of a line")?;
        Ok(hashline::line_hash(&line).to_string())
    })
}

/// ANCHOR: 3 hex digits of SHA-1 of `prev ␞ line ␞ next` (a missing neighbour is empty).
#[napi]
pub fn anchor_hash(
    env: Env,
    #[napi(ts_arg_type = "string | undefined | null")] prev: Unknown,
    #[napi(ts_arg_type = "string")] line: Unknown,
    #[napi(ts_arg_type = "string | undefined | null")] next: Option<Unknown>,
) -> Result<String> {
    guard(&env, || {
        let prev = args::string(&env, Some(prev), "prev")?;
        let line = args::required_string(&env, Some(line), "line", "the text of a line")?;
        let next = args::string(&env, next, "next")?;
        Ok(hashline::anchor_hash(prev.as_deref(), &line, next.as_deref()).to_string())
    })
}

/// REV: 8 hex digits of SHA-1 of the canonical text (BOM removed, line endings as LF).
#[napi]
pub fn rev(env: Env, #[napi(ts_arg_type = "string")] text: Unknown) -> Result<String> {
    guard(&env, || {
        let text = args::required_string(&env, Some(text), "text", "the text, as a string")?;
        Ok(hashline::Document::from_text(&text).rev().to_owned())
    })
}
