//! The options objects of the binding's functions, each declared once:
//! the struct napi turns into a TypeScript type and the reader that takes
//! it from the caller's object (as plain data, by `args`) are made from the
//! same declaration, so a field cannot be typed in one and misspelt in the
//! other. The JS name of a field is its Rust name in camelCase, as napi
//! gives it.

use crate::args::Fields;
use crate::recorder::CallMeta;
use hashline::Error;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// A type an options field can have, and how it is read.
pub trait Field: Sized {
    /// The field `key` of `fields`; `None` when absent.
    fn read(fields: &Fields, key: &str) -> hashline::Result<Option<Self>>;
}

impl Field for String {
    fn read(fields: &Fields, key: &str) -> hashline::Result<Option<Self>> {
        fields.string(key)
    }
}

impl Field for bool {
    fn read(fields: &Fields, key: &str) -> hashline::Result<Option<Self>> {
        fields.bool(key)
    }
}

impl Field for f64 {
    fn read(fields: &Fields, key: &str) -> hashline::Result<Option<Self>> {
        fields.number(key)
    }
}

/// A string or a list of strings, read as the list (blank ones dropped).
impl Field for Either<String, Vec<String>> {
    fn read(fields: &Fields, key: &str) -> hashline::Result<Option<Self>> {
        Ok(Some(Either::B(fields.strings(key)?)))
    }
}

/// `allow_outside_root` → `allowOutsideRoot`, as napi names the field in JS.
fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Declares options structs, each with a `read` that takes it from the
/// caller's `options` object.
macro_rules! options {
    // Attributes pass as token trees, not `meta`: napi reads doc comments
    // from their tokens, which a `meta` fragment would hide.
    ($(
        $(#[$($meta:tt)*])*
        pub struct $name:ident {
            $($(#[$($field_meta:tt)*])* pub $field:ident: Option<$ty:ty>,)*
        }
    )*) => {$(
        $(#[$($meta)*])*
        #[derive(Default)]
        pub struct $name {
            $($(#[$($field_meta)*])* pub $field: Option<$ty>,)*
        }

        impl $name {
            /// The options as the caller passed them.
            pub fn read(env: &Env, value: Option<Unknown>) -> hashline::Result<Self> {
                let fields = Fields::read(env, value, "options")?;
                Ok($name {
                    $($field: Field::read(&fields, &camel_case(stringify!($field)))?,)*
                })
            }
        }
    )*};
}

// The doc comments are written as attributes with plain string literals:
// napi reads a field's TypeScript doc from the literal as written, and a
// `///` comment passed through a macro reaches it as a raw string.
options! {
    #[napi(object)]
    pub struct HashlineOptions {
        #[doc = " Folder that relative paths resolve against and edits stay inside"]
        #[doc = " (default: the current working directory)."]
        pub root: Option<String>,
        #[doc = " Files larger than this are refused with `TOO_LARGE` (default 16 MiB)."]
        pub max_file_bytes: Option<f64>,
        #[doc = " Allow paths that resolve outside `root` (default false)."]
        pub allow_outside_root: Option<bool>,
        #[doc = " Strip echoed view prefixes and boundary echoes from content (default true)."]
        pub cleanup: Option<bool>,
        #[doc = " Reject edits anchored on lines no view displayed (default true)."]
        pub seen_guard: Option<bool>,
        #[doc = " Also keep the recent versions of files in this folder, so that a later"]
        #[doc = " process can remap refs from an earlier one's view (for command lines)."]
        pub store_dir: Option<String>,
        #[doc = " The most bytes `storeDir` may hold; the versions used longest ago go"]
        #[doc = " first (default 256 MiB)."]
        pub store_max_bytes: Option<f64>,
        #[doc = " How long a write waits for another write of the same folder or file"]
        #[doc = " before it fails with `LOCKED` (default 10000)."]
        pub lock_timeout_ms: Option<f64>,
        #[doc = " How views, results and rejections show refs: \"lean\" (`12ab content`,"]
        #[doc = " the default) or \"full\" (`12#A3F#9BC|content`). Both kinds of refs"]
        #[doc = " are accepted whichever is chosen."]
        #[napi(ts_type = "'lean' | 'full'")]
        pub view: Option<String>,
        #[doc = " What an edit that breaks the parse of a file in a known language"]
        #[doc = " gets: \"warn\" (the default) writes it and reports the broken lines"]
        #[doc = " in `problems` and the output, \"reject\" writes nothing and fails with"]
        #[doc = " `SYNTAX_ERROR`, \"off\" does not parse."]
        #[napi(ts_type = "'warn' | 'reject' | 'off'")]
        pub syntax: Option<String>,
        #[doc = " The host the session serves, as the telemetry record names it"]
        #[doc = " (`opencode`, `mcp`, `cli`…)."]
        pub host: Option<String>,
        #[doc = " The model that makes the session's calls, where the host knows it;"]
        #[doc = " a call's own `model` option names the model of that call."]
        pub model: Option<String>,
        #[doc = " Keep the local telemetry record of this session's calls (default"]
        #[doc = " true, unless the environment variable HASHLINE_TELEMETRY is other than"]
        #[doc = " 1, true, on or yes, or DO_NOT_TRACK is set). Nothing is sent anywhere:"]
        #[doc = " see docs/telemetry.md."]
        pub telemetry: Option<bool>,
        #[doc = " The record's folder (default: HASHLINE_TELEMETRY_DIR, else"]
        #[doc = " $XDG_STATE_HOME/hashline/telemetry or the platform's place for local state)."]
        pub telemetry_dir: Option<String>,
    }


    #[napi(object)]
    pub struct ReadOptions {
        #[doc = " First line to show, 1-based (default 1)."]
        pub offset: Option<f64>,
        #[doc = " Number of lines to show (default 2000)."]
        pub limit: Option<f64>,
        pub allow_outside_root: Option<bool>,
        #[doc = " \"lean\" or \"full\" (default: the session's)."]
        #[napi(ts_type = "'lean' | 'full'")]
        pub view: Option<String>,
        #[doc = " The model that made the call, for the telemetry record."]
        pub model: Option<String>,
        #[doc = " The host's id of the tool call, for the telemetry record."]
        pub call_id: Option<String>,
        #[doc = " The host that made the call, for the telemetry record, where it"]
        #[doc = " differs from the session's (an MCP server's client)."]
        pub host: Option<String>,
        #[doc = " Show the file's own text even for a notebook (`.ipynb`), whose"]
        #[doc = " view is its cells otherwise (default false)."]
        pub raw: Option<bool>,
    }


    #[napi(object)]
    pub struct CallOptions {
        pub allow_outside_root: Option<bool>,
        #[doc = " The model that made the call, for the telemetry record."]
        pub model: Option<String>,
        #[doc = " The host's id of the tool call, for the telemetry record."]
        pub call_id: Option<String>,
        #[doc = " The host that made the call, for the telemetry record, where it"]
        #[doc = " differs from the session's (an MCP server's client)."]
        pub host: Option<String>,
    }


    #[napi(object)]
    pub struct FormatViewOptions {
        #[doc = " The name shown in the header (default \"text\")."]
        pub path: Option<String>,
        pub offset: Option<f64>,
        pub limit: Option<f64>,
        #[doc = " \"lean\" (default) or \"full\"."]
        #[napi(ts_type = "'lean' | 'full'")]
        pub view: Option<String>,
    }


    #[napi(object)]
    pub struct ApplyEditsOptions {
        #[doc = " The file's name: its extension picks the language that block"]
        #[doc = " operations, the echo clean-up and the parse check parse it in"]
        #[doc = " (default: none, plain text)."]
        pub path: Option<String>,
        #[doc = " \"warn\" (the default), \"reject\" or \"off\", as the session option."]
        #[napi(ts_type = "'warn' | 'reject' | 'off'")]
        pub syntax: Option<String>,
    }

    #[napi(object)]
    pub struct PatchOptions {
        #[doc = " Folder that relative paths in the patch resolve against (default: the root)."]
        pub directory: Option<String>,
        pub allow_outside_root: Option<bool>,
        #[doc = " Write the hunks' lines exactly as sent: no view prefix is removed."]
        pub literal: Option<bool>,
        #[doc = " The model that made the call, for the telemetry record."]
        pub model: Option<String>,
        #[doc = " The host's id of the tool call, for the telemetry record."]
        pub call_id: Option<String>,
        #[doc = " The host that made the call, for the telemetry record, where it"]
        #[doc = " differs from the session's (an MCP server's client)."]
        pub host: Option<String>,
    }

    #[napi(object)]
    pub struct ReformattedOptions {
        #[doc = " The REV before the edit: the result shows every change since then."]
        pub since: Option<String>,
        #[doc = " The result's first sentence (default: \"PATH changed after it was written\")."]
        pub headline: Option<String>,
        pub allow_outside_root: Option<bool>,
    }

    #[napi(object, js_name = "SearchOptions")]
    pub struct BindingSearchOptions {
        #[doc = " File or folder to search (or several), relative to the root or absolute inside it (default: the root)."]
        pub path: Option<Either<String, Vec<String>>>,
        #[doc = " Globs a file must match to be searched, gitignore syntax relative to the root (`*.ts`, `src/**/*.rs`); a leading `!` excludes."]
        pub include: Option<Either<String, Vec<String>>>,
        #[doc = " Globs of files and folders not to search."]
        pub exclude: Option<Either<String, Vec<String>>>,
        pub ignore_case: Option<bool>,
        #[doc = " Take the pattern literally, not as a regular expression."]
        pub fixed_strings: Option<bool>,
        #[doc = " Match whole words only."]
        pub word: Option<bool>,
        #[doc = " Show the lines that do not match."]
        pub invert: Option<bool>,
        #[doc = " Also search hidden files and folders (default false; `.git` only when named)."]
        pub hidden: Option<bool>,
        #[doc = " Hits shown at most (default 100); the search stops once more are found."]
        pub max_results: Option<f64>,
        #[doc = " Lines shown before and after each hit (default 0)."]
        pub context: Option<f64>,
        #[doc = " The model that made the call, for the telemetry record."]
        pub model: Option<String>,
        #[doc = " The host's id of the tool call, for the telemetry record."]
        pub call_id: Option<String>,
        #[doc = " The host that made the call, for the telemetry record, where it"]
        #[doc = " differs from the session's (an MCP server's client)."]
        pub host: Option<String>,
    }

    #[napi(object, js_name = "TelemetryStatsOptions")]
    pub struct StatsOptions {
        #[doc = " The record's folder (default: as a session finds it)."]
        pub dir: Option<String>,
        #[doc = " Calls from this time on, in milliseconds since the epoch."]
        pub since: Option<f64>,
        #[doc = " Calls before this time."]
        pub until: Option<f64>,
        #[doc = " Models whose name holds this, in any case."]
        pub model: Option<String>,
        #[doc = " This host only."]
        pub host: Option<String>,
        #[doc = " This tool only."]
        #[napi(ts_type = "'read' | 'edit' | 'grep' | 'apply' | 'patch' | 'write'")]
        pub tool: Option<String>,
    }
}

impl CallOptions {
    /// Whether the call may reach outside the root, and who made it.
    pub(crate) fn of(env: &Env, value: Option<Unknown>) -> hashline::Result<(bool, CallMeta)> {
        let o = CallOptions::read(env, value)?;
        Ok((
            o.allow_outside_root.unwrap_or(false),
            CallMeta {
                model: o.model,
                call_id: o.call_id,
                host: o.host,
            },
        ))
    }
}

/// A syntax check mode named by a host.
pub fn syntax(name: Option<&str>, what: &str) -> hashline::Result<Option<hashline::SyntaxCheck>> {
    name.map(|n| {
        hashline::SyntaxCheck::from_name(n).ok_or_else(|| {
            Error::invalid_request(format!(
                "`{what}` must be \"warn\", \"reject\" or \"off\", not {}.",
                hashline::excerpt(n)
            ))
        })
    })
    .transpose()
}

/// A view style named by a host: "lean" or "full".
pub fn view(name: Option<&str>, what: &str) -> hashline::Result<Option<hashline::ViewStyle>> {
    name.map(|n| {
        hashline::ViewStyle::parse(n).ok_or_else(|| {
            Error::invalid_request(format!(
                "`{what}` must be \"lean\" or \"full\", not {}.",
                hashline::excerpt(n)
            ))
        })
    })
    .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_are_read_in_camel_case_as_napi_names_them() {
        assert_eq!(camel_case("allow_outside_root"), "allowOutsideRoot");
        assert_eq!(camel_case("view"), "view");
        assert_eq!(camel_case("max_results"), "maxResults");
    }
}
