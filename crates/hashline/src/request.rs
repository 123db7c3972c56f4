//! What a caller asks for: a batch of operations, or the `oldString` /
//! `newString` fallback; and the request format itself, the one list of
//! fields, aliases and ops that decoding (`decode`), error texts and every
//! host's schema are built from.
//!
//! Specified in `docs/format.md` §5.

use std::fmt;

/// A loosely typed value as a host received it. The engine reads no
/// serialisation format; hosts translate theirs into this.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An absent value, or JSON `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object's fields, in order.
    Object(Vec<(String, Value)>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// What an operation does.
pub enum OpKind {
    /// Replace lines `ref..=through` with the content.
    Replace,
    /// Delete lines `ref..=through`.
    Delete,
    /// Insert the content before line `ref`.
    InsertBefore,
    /// Insert the content after line `ref`.
    InsertAfter,
    /// Insert the content at the start of the file.
    Prepend,
    /// Insert the content at the end of the file.
    Append,
    /// Take lines `ref..=through` out and put them at the place, as they are.
    Move,
    /// Put a copy of lines `ref..=through` at the place, as they are.
    Copy,
    /// Replace the block that starts on line `ref` (a function, class,
    /// statement, element, object or section, its end found in the
    /// file's syntax tree) with the content.
    ReplaceBlock,
    /// Delete the block that starts on line `ref`.
    DeleteBlock,
    /// Insert the content before the block that starts on line `ref`.
    InsertBeforeBlock,
    /// Insert the content after the block that starts on line `ref`.
    InsertAfterBlock,
}

impl OpKind {
    /// Every op, in the order hosts document them.
    pub const ALL: [OpKind; 12] = [
        OpKind::Replace,
        OpKind::Delete,
        OpKind::InsertBefore,
        OpKind::InsertAfter,
        OpKind::Prepend,
        OpKind::Append,
        OpKind::Move,
        OpKind::Copy,
        OpKind::ReplaceBlock,
        OpKind::DeleteBlock,
        OpKind::InsertBeforeBlock,
        OpKind::InsertAfterBlock,
    ];

    /// The names of every op, for messages.
    pub(crate) fn names() -> String {
        OpKind::ALL.map(OpKind::name).join(", ")
    }

    /// The op's name in the request format.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Replace => "replace",
            OpKind::Delete => "delete",
            OpKind::InsertBefore => "insert_before",
            OpKind::InsertAfter => "insert_after",
            OpKind::Prepend => "prepend",
            OpKind::Append => "append",
            OpKind::Move => "move",
            OpKind::Copy => "copy",
            OpKind::ReplaceBlock => "replace_block",
            OpKind::DeleteBlock => "delete_block",
            OpKind::InsertBeforeBlock => "insert_before_block",
            OpKind::InsertAfterBlock => "insert_after_block",
        }
    }

    /// Accepts snake_case, camelCase and kebab-case spellings.
    pub(crate) fn from_name(name: &str) -> Option<OpKind> {
        let folded: String = name
            .trim()
            .chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect();
        Some(match folded.as_str() {
            "replace" => OpKind::Replace,
            "delete" => OpKind::Delete,
            "insertbefore" => OpKind::InsertBefore,
            "insertafter" => OpKind::InsertAfter,
            "prepend" => OpKind::Prepend,
            "append" => OpKind::Append,
            "move" => OpKind::Move,
            "copy" => OpKind::Copy,
            "replaceblock" => OpKind::ReplaceBlock,
            "deleteblock" => OpKind::DeleteBlock,
            "insertbeforeblock" => OpKind::InsertBeforeBlock,
            "insertafterblock" => OpKind::InsertAfterBlock,
            _ => return None,
        })
    }

    /// Whether the op cites a line (all but prepend and append).
    pub fn needs_ref(self) -> bool {
        !matches!(self, OpKind::Prepend | OpKind::Append)
    }

    pub(crate) fn takes_through(self) -> bool {
        matches!(
            self,
            OpKind::Replace | OpKind::Delete | OpKind::Move | OpKind::Copy
        )
    }

    pub(crate) fn takes_content(self) -> bool {
        !matches!(
            self,
            OpKind::Delete | OpKind::DeleteBlock | OpKind::Move | OpKind::Copy
        )
    }

    /// Whether the op cites a block by its first line.
    pub fn cites_block(self) -> bool {
        matches!(
            self,
            OpKind::ReplaceBlock
                | OpKind::DeleteBlock
                | OpKind::InsertBeforeBlock
                | OpKind::InsertAfterBlock
        )
    }

    /// Whether the op puts existing lines at a place (`after` or `before`).
    pub fn takes_place(self) -> bool {
        matches!(self, OpKind::Move | OpKind::Copy)
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One operation with its refs still as text: they are parsed against the
/// file, so that a bad one can be answered with the ref meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// What the operation does.
    pub kind: OpKind,
    /// The ref of the line it cites (the first of a range).
    pub reference: Option<String>,
    /// The ref of the last line of a range.
    pub through: Option<String>,
    /// The new lines, without terminators.
    pub content: Vec<String>,
    /// Where a move or a copy puts its lines.
    pub place: Option<Place>,
    /// Write the content exactly as sent: no clean-up of view prefixes or
    /// repeated neighbour lines.
    pub literal: bool,
}

/// Which side of the line it cites a place is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// Just before the line.
    Before,
    /// Just after the line.
    After,
}

impl Side {
    /// The field that names a place on this side.
    pub fn name(self) -> &'static str {
        match self {
            Side::Before => "before",
            Side::After => "after",
        }
    }
}

/// The place a move or a copy puts its lines: next to a cited line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// Before or after the line.
    pub side: Side,
    /// The ref of the line, as text.
    pub reference: String,
}

impl Operation {
    /// An operation; `content` is split into lines on any line ending.
    pub fn new(
        kind: OpKind,
        reference: Option<&str>,
        through: Option<&str>,
        content: &str,
    ) -> Self {
        Operation {
            kind,
            reference: reference.map(str::to_owned),
            through: through.map(str::to_owned),
            content: split_content(content),
            place: None,
            literal: false,
        }
    }

    /// A move or a copy of lines `reference..=through` to `side` of the
    /// line `place` cites.
    pub fn relocate(
        kind: OpKind,
        reference: &str,
        through: Option<&str>,
        side: Side,
        place: &str,
    ) -> Self {
        Operation {
            kind,
            reference: Some(reference.to_owned()),
            through: through.map(str::to_owned),
            content: Vec::new(),
            place: Some(Place {
                side,
                reference: place.to_owned(),
            }),
            literal: false,
        }
    }

    /// The same operation, its content to be written exactly as sent.
    pub fn literal(self) -> Self {
        Operation {
            literal: true,
            ..self
        }
    }
}

/// What a caller asks for.
///
/// ```
/// use hashline::{Request, Value};
///
/// let request = Request::from_value(&Value::Object(vec![
///     ("oldString".into(), Value::String("a".into())),
///     ("newString".into(), Value::String("b".into())),
/// ]))
/// .unwrap();
/// assert!(matches!(request, Request::Replace { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// A batch of operations, applied together or not at all.
    Operations {
        /// The operations, each citing lines of the same version.
        operations: Vec<Operation>,
        /// The REV of the view the refs were copied from.
        rev: Option<String>,
    },
    /// The fallback: replace a text, matched exactly or, failing that, by
    /// whole lines ignoring white space.
    Replace {
        /// The text to find; empty to create a file.
        old_string: String,
        /// The text to put in its place.
        new_string: String,
        /// Replace every exact match instead of requiring one.
        replace_all: bool,
    },
}

/// Splits content into lines: on LF, CRLF or a lone CR, with one final
/// terminator dropped, so `""` is no lines and `"\n"` one empty line.
pub fn split_content(content: &str) -> Vec<String> {
    if content.is_empty() {
        return Vec::new();
    }
    let normalized;
    let mut text = content;
    if text.contains('\r') {
        normalized = text.replace("\r\n", "\n").replace('\r', "\n");
        text = &normalized;
    }
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.split('\n').map(str::to_owned).collect()
}

/// A field of the request format: the name hosts document, and the other
/// names models send for it, all accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The documented name.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
}

impl Field {
    /// The documented name, then every alias.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
    }
}

/// The REV of the view the refs were copied from.
pub(crate) const REV: Field = Field {
    name: "rev",
    aliases: &[],
};
/// The operations of a batch.
pub(crate) const OPERATIONS: Field = Field {
    name: "operations",
    aliases: &["ops", "edits"],
};
/// The fallback's text to find.
pub(crate) const OLD_STRING: Field = Field {
    name: "oldString",
    aliases: &["old_string"],
};
/// The fallback's replacement.
pub(crate) const NEW_STRING: Field = Field {
    name: "newString",
    aliases: &["new_string"],
};
/// Whether the fallback replaces every match.
pub(crate) const REPLACE_ALL: Field = Field {
    name: "replaceAll",
    aliases: &["replace_all"],
};
/// What an operation does.
pub(crate) const OP: Field = Field {
    name: "op",
    aliases: &["type"],
};
/// The first line an operation cites.
pub(crate) const REF: Field = Field {
    name: "ref",
    aliases: &["start", "pos", "startRef", "start_ref"],
};
/// The last line of a range.
pub(crate) const THROUGH: Field = Field {
    name: "through",
    aliases: &["end", "endRef", "end_ref"],
};
/// The line a move or a copy puts its lines after.
pub(crate) const AFTER: Field = Field {
    name: "after",
    aliases: &[],
};
/// The line a move or a copy puts its lines before.
pub(crate) const BEFORE: Field = Field {
    name: "before",
    aliases: &[],
};
/// The new lines.
pub(crate) const CONTENT: Field = Field {
    name: "content",
    aliases: &["lines", "new_string", "newString", "replacement", "text"],
};

/// Write content exactly as sent, with no clean-up: for one operation, or
/// for every operation of a request.
pub(crate) const LITERAL: Field = Field {
    name: "literal",
    aliases: &[],
};

/// The fields of a request, in the order hosts document them.
pub const REQUEST_FIELDS: &[Field] = &[
    REV,
    OPERATIONS,
    LITERAL,
    OLD_STRING,
    NEW_STRING,
    REPLACE_ALL,
];

/// The fields of one operation, in the order hosts document them.
pub const OPERATION_FIELDS: &[Field] = &[OP, REF, THROUGH, CONTENT, AFTER, BEFORE, LITERAL];
