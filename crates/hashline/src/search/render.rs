//! The text of a search: each file's hits with their refs, and notes on
//! what was skipped or cut.

use super::*;

/// A path as the model sees it: relative to the root, `/` between folders.
pub(super) fn display(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let shown = relative.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        shown.into_owned()
    } else {
        shown.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

pub(super) fn render(
    found: &[FileHits],
    options: &SearchOptions,
    more: usize,
    skipped: &Skipped,
    max_bytes: u64,
    style: ViewStyle,
) -> String {
    let mut out = String::new();
    let shown: usize = found.iter().map(|f| f.lines.len()).sum();
    let (one, many) = if options.invert {
        ("line not matching", "lines not matching")
    } else {
        ("matching line", "matching lines")
    };
    if shown == 0 {
        out.push_str("No matches found.\n");
    } else {
        let _ = write!(
            out,
            "Found {} in {}",
            plural(shown, one, many),
            plural(found.len(), "file", "files")
        );
        if more > 0 {
            let _ = write!(
                out,
                " and stopped at the limit of {}: at least {} {} not shown",
                options.max_results,
                plural(more, "more", "more"),
                if more == 1 {
                    format!("{one} was")
                } else {
                    format!("{many} were")
                }
            );
        }
        if options.context > 0 {
            let _ = write!(
                out,
                ", with {} of context; {} are marked >>>",
                plural(options.context, "line", "lines"),
                many
            );
        }
        out.push_str(".\n");
    }
    for file in found {
        let _ = write!(out, "\n{} REV:{}\n", file.path, file.doc.rev());
        if options.context == 0 {
            for &index in &file.lines {
                out.push_str("  ");
                push_line(&mut out, &file.doc, index, style);
                out.push('\n');
            }
            continue;
        }
        let ranges = seen_ranges(&file.lines, options.context, file.doc.line_count());
        let mut hits = file.lines.iter().peekable();
        for (i, range) in ranges.into_iter().enumerate() {
            if i > 0 {
                out.push_str("--\n");
            }
            for index in range {
                let hit = hits.next_if(|&&h| h == index).is_some();
                out.push_str(if hit { ">>> " } else { "    " });
                push_line(&mut out, &file.doc, index, style);
                out.push('\n');
            }
        }
    }
    if more > 0 {
        out.push_str(
            "\nNarrow the pattern, path or globs, or raise the limit, to see the others.\n",
        );
    }
    let notes = skip_notes(skipped, max_bytes);
    if !notes.is_empty() {
        if shown > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "Not searched: {}.", notes.join("; "));
    }
    out
}

pub(super) fn skip_notes(skipped: &Skipped, max_bytes: u64) -> Vec<String> {
    let kinds = [
        (
            ErrorCode::Binary,
            skipped.binary,
            "binary file",
            "binary files".to_owned(),
        ),
        (
            ErrorCode::NotUtf8,
            skipped.not_utf8,
            "file not valid UTF-8",
            "files not valid UTF-8".to_owned(),
        ),
        (
            ErrorCode::TooLarge,
            skipped.too_large,
            "file over the size limit",
            "files over the size limit".to_owned(),
        ),
        (
            ErrorCode::Permission,
            skipped.unreadable,
            "file or folder that could not be read",
            "files or folders that could not be read".to_owned(),
        ),
    ];
    kinds
        .into_iter()
        .filter(|(_, count, _, _)| *count > 0)
        .map(|(code, count, one, many)| {
            let mut note = if count == 1 {
                format!("1 {one}")
            } else {
                format!("{count} {many}")
            };
            if code == ErrorCode::TooLarge {
                let _ = write!(note, " of {max_bytes} bytes");
            }
            let names: Vec<&str> = skipped
                .files
                .iter()
                .filter(|f| f.reason == code)
                .map(|f| f.path.as_str())
                .collect();
            if !names.is_empty() {
                let rest = count - names.len();
                let _ = write!(
                    note,
                    " ({}{})",
                    names.join(", "),
                    if rest > 0 {
                        format!(" and {rest} more")
                    } else {
                        String::new()
                    }
                );
            }
            note
        })
        .collect()
}
