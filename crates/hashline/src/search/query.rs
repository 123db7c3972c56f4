//! The query: a pattern and its flags as a matcher, and the globs and
//! paths as overrides of the walk.

use super::*;

pub(super) fn matcher(options: &SearchOptions) -> Result<RegexMatcher> {
    RegexMatcherBuilder::new()
        .case_insensitive(options.ignore_case)
        .fixed_strings(options.fixed_strings)
        .word(options.word)
        // Lines are searched one at a time: a pattern may not span two.
        .line_terminator(Some(b'\n'))
        .build(&options.pattern)
        .map_err(|e| match e.kind() {
            grep_regex::ErrorKind::NotAllowed(_) => Error::invalid_request(format!(
                "The pattern cannot match across lines ({e}); each line is searched on its own."
            )),
            _ => Error::invalid_request(format!(
                "The pattern is not a valid regular expression (Rust regex syntax: no look-around or backreferences): {e}"
            )),
        })
}

pub(super) fn overrides(root: &Path, options: &SearchOptions) -> Result<Override> {
    let mut builder = OverrideBuilder::new(root);
    let globs = options
        .include
        .iter()
        .map(|g| ("include", g.clone(), g.clone()))
        .chain(
            options
                .exclude
                .iter()
                .map(|g| ("exclude", g.clone(), format!("!{g}"))),
        );
    for (kind, given, line) in globs {
        builder.add(&line).map_err(|e| {
            let why = match e {
                ignore::Error::Glob { err, .. } => err,
                other => other.to_string(),
            };
            Error::invalid_request(format!("The {kind} glob {given:?} is not valid: {why}."))
        })?;
    }
    builder
        .build()
        .map_err(|e| Error::invalid_request(format!("The globs are not valid: {e}.")))
}
