//! Problems an edit introduced, as JS sees them.

use napi_derive::napi;

/// How bad a problem is.
// Named as the engine's type, not `BindingSeverity` with a `js_name`: napi's
// loader would export the Rust name too, as undefined.
#[napi(string_enum = "lowercase")]
pub enum Severity {
    /// The file no longer compiles or parses.
    Error,
    /// Worth a look; the file still works.
    Warning,
}

impl From<hashline::Severity> for Severity {
    fn from(severity: hashline::Severity) -> Self {
        match severity {
            hashline::Severity::Error => Severity::Error,
            hashline::Severity::Warning => Severity::Warning,
        }
    }
}

#[napi(object, js_name = "Problem")]
pub struct BindingProblem {
    /// 1-based line of the new version.
    pub line: u32,
    /// 1-based character columns of the span, end exclusive.
    pub column: u32,
    pub end_column: u32,
    pub severity: Severity,
    pub message: String,
    /// The line's ref, to fix it with an edit.
    pub r#ref: String,
    /// For a parse the edit broke, the language the file was parsed as.
    pub language: Option<String>,
}

impl From<&hashline::Problem> for BindingProblem {
    fn from(p: &hashline::Problem) -> Self {
        BindingProblem {
            line: u32::try_from(p.line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(p.column + 1).unwrap_or(u32::MAX),
            end_column: u32::try_from(p.end_column + 1).unwrap_or(u32::MAX),
            severity: p.severity.into(),
            message: p.message.clone(),
            r#ref: p.reference.clone(),
            language: p.syntax.map(|l| l.name().to_owned()),
        }
    }
}

/// The problems of a result, converted.
pub fn problems(list: &[hashline::Problem]) -> Vec<BindingProblem> {
    list.iter().map(BindingProblem::from).collect()
}
