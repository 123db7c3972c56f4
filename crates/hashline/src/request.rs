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

/// Declares the ops once, in the order hosts document them: each op's
/// variant, its name in the request format, what it cites, what it does
/// with those lines, its doc (one line, as every host shows it) and an
/// example of one operation. Its shape (the fields it takes), its decoding,
/// the messages that name it and its placing in a plan all follow from
/// these; `docs/format.md` §5 lists them, tested equal.
macro_rules! ops {
    ($(
        $op:ident = $name:literal, $cites:ident, $action:ident $(($side:ident))?,
            $doc:literal,
            $example:literal;
    )+) => {
        /// What an operation does: one op of the request format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum OpKind {
            $(
                #[doc = $doc]
                $op,
            )+
        }

        impl OpKind {
            /// Every op, in the order hosts document them.
            pub const ALL: &'static [OpKind] = &[$(OpKind::$op),+];

            /// The op's name in the request format.
            pub fn name(self) -> &'static str {
                match self {
                    $(OpKind::$op => $name,)+
                }
            }

            /// The lines the op cites.
            pub fn cites(self) -> Cites {
                match self {
                    $(OpKind::$op => Cites::$cites,)+
                }
            }

            /// What the op does with the lines it cites.
            pub fn action(self) -> Action {
                match self {
                    $(OpKind::$op => Action::$action $((Side::$side))?,)+
                }
            }

            /// What the op does, one line.
            pub fn doc(self) -> &'static str {
                match self {
                    $(OpKind::$op => $doc,)+
                }
            }

            /// One operation of this op, as a model sends it.
            pub fn example(self) -> &'static str {
                match self {
                    $(OpKind::$op => $example,)+
                }
            }
        }
    };
}

ops! {
    Replace = "replace", Lines, Replace,
        "Lines `ref..=through` become `content`.",
        r#"{"op":"replace","ref":"12ab","through":"14cd","content":"  return total;"}"#;
    Delete = "delete", Lines, Delete,
        "Lines `ref..=through` are removed.",
        r#"{"op":"delete","ref":"12ab","through":"14cd"}"#;
    InsertBefore = "insert_before", Lines, Insert(Before),
        "`content` is inserted before line `ref`.",
        r#"{"op":"insert_before","ref":"12ab","content":"// the total, in cents"}"#;
    InsertAfter = "insert_after", Lines, Insert(After),
        "`content` is inserted after line `ref`.",
        r#"{"op":"insert_after","ref":"12ab","content":"  log(total);"}"#;
    Prepend = "prepend", Start, Insert(Before),
        "`content` is inserted at the start of the file (a missing file is created).",
        r##"{"op":"prepend","content":"#!/bin/sh"}"##;
    Append = "append", End, Insert(After),
        "`content` is added at the end of the file (a missing file is created).",
        r#"{"op":"append","content":"export default total;"}"#;
    Move = "move", Lines, Move,
        "Lines `ref..=through`, as the file has them, go `after` or `before` the line named, and leave where they were.",
        r#"{"op":"move","ref":"12ab","through":"20cd","after":"40ef"}"#;
    Copy = "copy", Lines, Copy,
        "A copy of lines `ref..=through`, as the file has them, goes `after` or `before` the line named.",
        r#"{"op":"copy","ref":"12ab","through":"20cd","before":"40ef"}"#;
    ReplaceBlock = "replace_block", Block, Replace,
        "The block that starts on line `ref` becomes `content`.",
        r#"{"op":"replace_block","ref":"12ab","content":"fn total() -> u32 {\n    0\n}"}"#;
    DeleteBlock = "delete_block", Block, Delete,
        "The block that starts on line `ref` is removed.",
        r#"{"op":"delete_block","ref":"12ab"}"#;
    InsertBeforeBlock = "insert_before_block", Block, Insert(Before),
        "`content` is inserted before the block that starts on line `ref`.",
        r#"{"op":"insert_before_block","ref":"12ab","content":"/// The sum of the items."}"#;
    InsertAfterBlock = "insert_after_block", Block, Insert(After),
        "`content` is inserted after the block that starts on line `ref`.",
        r#"{"op":"insert_after_block","ref":"12ab","content":"\nfn next() {}"}"#;
    ReplaceCell = "replace_cell", Cell, Replace,
        "The source of the notebook cell whose header line is `ref` becomes `content`.",
        r#"{"op":"replace_cell","ref":"7ab","content":"df = load()\ndf.head()"}"#;
    DeleteCell = "delete_cell", Cell, Delete,
        "The notebook cell whose header line is `ref` is removed.",
        r#"{"op":"delete_cell","ref":"7ab"}"#;
    InsertCellBefore = "insert_cell_before", Cell, Insert(Before),
        "A new cell of `cellType` holding `content` is inserted before the notebook cell whose header line is `ref`.",
        r###"{"op":"insert_cell_before","ref":"7ab","cellType":"markdown","content":"## Load the data"}"###;
    InsertCellAfter = "insert_cell_after", Cell, Insert(After),
        "A new cell of `cellType` holding `content` is inserted after the notebook cell whose header line is `ref`.",
        r#"{"op":"insert_cell_after","ref":"7ab","cellType":"code","content":"df.describe()"}"#;
    MoveCell = "move_cell", Cell, Move,
        "The notebook cell whose header line is `ref` goes `after` or `before` the cell whose header line is named.",
        r#"{"op":"move_cell","ref":"7ab","after":"12cd"}"#;
    SetCellType = "set_cell_type", Cell, SetType,
        "The notebook cell whose header line is `ref` becomes a cell of `cellType` (a code cell's outputs go with its type).",
        r#"{"op":"set_cell_type","ref":"7ab","cellType":"markdown"}"#;
    SetCellMetadata = "set_cell_metadata", Cell, SetMetadata,
        "Each key of `metadata` is set in the metadata of the notebook cell whose header line is `ref` (null removes the key).",
        r#"{"op":"set_cell_metadata","ref":"7ab","metadata":{"tags":["parameters"]}}"#;
}

/// The lines an op cites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cites {
    /// Lines `ref..=through` (`ref` alone for one line).
    Lines,
    /// The block that starts on line `ref` (a function, class, statement,
    /// element, object or section), its end found in the file's syntax
    /// tree.
    Block,
    /// The start of the file: no line.
    Start,
    /// The end of the file: no line.
    End,
    /// A cell of a notebook: the cell whose header line, in the notebook
    /// view, is `ref` (`docs/format.md` §10).
    Cell,
}

/// What an op does with the lines it cites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Puts `content` in their place.
    Replace,
    /// Removes them.
    Delete,
    /// Puts `content` on this side of them.
    Insert(Side),
    /// Takes them out and puts them at a place (`after` or `before` a
    /// line), as they are.
    Move,
    /// Puts a copy of them at a place, as they are.
    Copy,
    /// Gives the cell it cites another type (`cellType`).
    SetType,
    /// Sets keys of the metadata of the cell it cites (`metadata`).
    SetMetadata,
}

/// The fields an op takes, which follow from what it cites and does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// `ref`, the line it cites (the first of a range, or of a block): needed.
    pub reference: bool,
    /// `through`, the last line of a range: allowed.
    pub through: bool,
    /// `content`, the new lines: needed.
    pub content: bool,
    /// `after` or `before`, where its lines go: one of them needed.
    pub place: bool,
    /// `ref` is a block's first line, and the engine finds its last.
    pub block: bool,
    /// `cellType`, the type of a notebook cell: needed.
    pub cell_type: bool,
    /// `metadata`, keys of a notebook cell's metadata: needed.
    pub metadata: bool,
}

impl OpKind {
    /// The names of every op, for messages.
    pub(crate) fn names() -> String {
        OpKind::ALL
            .iter()
            .map(|op| op.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The op a name means: its name in any case, its words joined by `_`,
    /// `-`, spaces or nothing (`insert_after`, `insertAfter`,
    /// `INSERT-AFTER`).
    pub(crate) fn from_name(name: &str) -> Option<OpKind> {
        // Every name is short ASCII: a spelling folds into a small buffer,
        // with no allocation per operation, or it names no op.
        let mut folded = [0u8; 32];
        let mut len = 0;
        for c in name
            .trim()
            .chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
        {
            if !c.is_ascii() || len == folded.len() {
                return None;
            }
            folded[len] = c as u8;
            len += 1;
        }
        let folded = &folded[..len];
        OpKind::ALL.iter().copied().find(|op| {
            op.name()
                .bytes()
                .filter(|&b| b != b'_')
                .eq(folded.iter().copied())
        })
    }

    /// The fields the op takes.
    pub fn shape(self) -> Shape {
        // Whether it cites a line, and one that may end a range; whether
        // what it does takes a range, new lines, a place. Every `Cites` and
        // `Action` is named, so a new one cannot take a shape by default.
        let (reference, lines) = match self.cites() {
            Cites::Lines => (true, true),
            Cites::Block | Cites::Cell => (true, false),
            Cites::Start | Cites::End => (false, false),
        };
        let (range, content, place) = match self.action() {
            Action::Replace => (true, true, false),
            Action::Delete => (true, false, false),
            Action::Insert(_) => (false, true, false),
            Action::Move | Action::Copy => (true, false, true),
            Action::SetType | Action::SetMetadata => (false, false, false),
        };
        // A new cell needs its type as much as a retyped one does.
        let cell = self.cites() == Cites::Cell;
        Shape {
            reference,
            through: lines && range,
            content,
            place,
            block: self.cites() == Cites::Block,
            cell_type: matches!(self.action(), Action::SetType)
                || (cell && matches!(self.action(), Action::Insert(_))),
            metadata: self.action() == Action::SetMetadata,
        }
    }

    /// The ops that do what this one does to lines the model cites itself
    /// (`insert_before` and `insert_after` for `insert_after_block`).
    pub(crate) fn on_lines(self) -> Vec<OpKind> {
        let alike = |a: Action, b: Action| {
            a == b || matches!((a, b), (Action::Insert(_), Action::Insert(_)))
        };
        OpKind::ALL
            .iter()
            .copied()
            .filter(|op| op.cites() == Cites::Lines && alike(op.action(), self.action()))
            .collect()
    }

    /// The op that puts `content` in place of the lines this one cites
    /// (`replace_block` for `delete_block`).
    pub(crate) fn replacing(self) -> Option<OpKind> {
        OpKind::ALL
            .iter()
            .copied()
            .find(|op| op.cites() == self.cites() && op.action() == Action::Replace)
    }

    /// The names of `ops` as a message offers them: `a or b`.
    pub(crate) fn names_or(ops: &[OpKind]) -> String {
        ops.iter()
            .map(|op| op.name())
            .collect::<Vec<_>>()
            .join(" or ")
    }

    /// The names of the ops whose shape has `takes`, for messages: `a, b
    /// and c`.
    pub(crate) fn names_where(takes: impl Fn(Shape) -> bool) -> String {
        let names: Vec<&str> = OpKind::ALL
            .iter()
            .filter(|op| takes(op.shape()))
            .map(|op| op.name())
            .collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        }
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
    /// What an operation on a notebook also says: the type of a cell, its
    /// metadata, whether outputs stay, whether the refs are of the file's
    /// own text.
    pub cell: CellFields,
}

/// The fields of an operation that only a notebook reads
/// (`docs/format.md` §10).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellFields {
    /// The type of a new cell, or the type a cell becomes.
    pub cell_type: Option<CellType>,
    /// The keys to set in a cell's metadata, `Value::Null` to remove one.
    pub metadata: Option<Metadata>,
    /// A code cell whose source changes keeps its outputs and execution
    /// count (they are cleared otherwise).
    pub keep_outputs: bool,
    /// The refs are of the file's own text (a notebook's JSON), not of its
    /// notebook view.
    pub raw: bool,
}

/// The type of a notebook cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellType {
    /// Code, run by the kernel, with outputs.
    Code,
    /// Markdown text.
    Markdown,
    /// Text nbconvert passes through as it is.
    Raw,
}

impl CellType {
    /// Every type, as `cell_type` names them.
    pub const ALL: &'static [CellType] = &[CellType::Code, CellType::Markdown, CellType::Raw];

    /// The type's name in a notebook and in the request format.
    pub fn name(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
            CellType::Raw => "raw",
        }
    }

    /// The type a name means, in any case.
    pub fn from_name(name: &str) -> Option<CellType> {
        let name = name.trim();
        CellType::ALL
            .iter()
            .copied()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }
}

/// Keys to set in a cell's metadata, each with its value (`Value::Null`
/// removes the key), in the order sent. Numbers are told apart by their
/// bits, so that equality is an equivalence (`NaN` equals itself).
#[derive(Debug, Clone)]
pub struct Metadata(pub Vec<(String, Value)>);

impl PartialEq for Metadata {
    fn eq(&self, other: &Metadata) -> bool {
        fn same(a: &Value, b: &Value) -> bool {
            match (a, b) {
                (Value::Number(x), Value::Number(y)) => x.to_bits() == y.to_bits(),
                (Value::Array(x), Value::Array(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
                }
                (Value::Object(x), Value::Object(y)) => {
                    x.len() == y.len()
                        && x.iter().zip(y).all(|((k, a), (l, b))| k == l && same(a, b))
                }
                _ => a == b,
            }
        }
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&other.0)
                .all(|((k, a), (l, b))| k == l && same(a, b))
    }
}

impl Eq for Metadata {}

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
            cell: CellFields::default(),
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
            cell: CellFields::default(),
        }
    }

    /// The refs it cites, in the order a plan takes them: `ref`, `through`,
    /// then the place of a move or a copy.
    pub(crate) fn refs(&self) -> impl Iterator<Item = &String> {
        let place = self.place.as_ref().map(|p| &p.reference);
        [self.reference.as_ref(), self.through.as_ref(), place]
            .into_iter()
            .flatten()
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

/// A field of the request format: the name hosts document, the other
/// names models send for it, all accepted, and the value it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The documented name.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// The value it takes.
    pub value: FieldValue,
}

/// The value a field of the request format takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldValue {
    /// A ref of a line, as a view shows it (`12ab`, `12#A3F#9BC`).
    Ref,
    /// Text: a string (new lines split on any line ending; an operation's
    /// `content` may also be an array of lines).
    Text,
    /// A REV, as a view's header shows it.
    Rev,
    /// True or false (also as the strings `"true"` and `"false"`).
    Flag,
    /// The name of one op.
    Op,
    /// The operations of a batch: an array of objects of
    /// `OPERATION_FIELDS` (or that array as JSON text).
    Operations,
    /// The type of a notebook cell: one of `CellType::ALL`, by name.
    CellType,
    /// An object whose keys take values of any type (or that object as
    /// JSON text).
    Object,
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
    value: FieldValue::Rev,
};
/// The operations of a batch.
pub(crate) const OPERATIONS: Field = Field {
    name: "operations",
    aliases: &["ops", "edits"],
    value: FieldValue::Operations,
};
/// The fallback's text to find.
pub(crate) const OLD_STRING: Field = Field {
    name: "oldString",
    aliases: &["old_string"],
    value: FieldValue::Text,
};
/// The fallback's replacement.
pub(crate) const NEW_STRING: Field = Field {
    name: "newString",
    aliases: &["new_string"],
    value: FieldValue::Text,
};
/// Whether the fallback replaces every match.
pub(crate) const REPLACE_ALL: Field = Field {
    name: "replaceAll",
    aliases: &["replace_all"],
    value: FieldValue::Flag,
};
/// What an operation does.
pub(crate) const OP: Field = Field {
    name: "op",
    aliases: &["type"],
    value: FieldValue::Op,
};
/// The first line an operation cites.
pub(crate) const REF: Field = Field {
    name: "ref",
    aliases: &["start", "pos", "startRef", "start_ref"],
    value: FieldValue::Ref,
};
/// The last line of a range.
pub(crate) const THROUGH: Field = Field {
    name: "through",
    aliases: &["end", "endRef", "end_ref"],
    value: FieldValue::Ref,
};
/// The line a move or a copy puts its lines after.
pub(crate) const AFTER: Field = Field {
    name: "after",
    aliases: &[],
    value: FieldValue::Ref,
};
/// The line a move or a copy puts its lines before.
pub(crate) const BEFORE: Field = Field {
    name: "before",
    aliases: &[],
    value: FieldValue::Ref,
};
/// The new lines.
pub(crate) const CONTENT: Field = Field {
    name: "content",
    aliases: &["lines", "new_string", "newString", "replacement", "text"],
    value: FieldValue::Text,
};

/// Write content exactly as sent, with no clean-up: for one operation, or
/// for every operation of a request.
pub(crate) const LITERAL: Field = Field {
    name: "literal",
    aliases: &[],
    value: FieldValue::Flag,
};

/// The type of a new notebook cell, or the type a cell becomes.
pub(crate) const CELL_TYPE: Field = Field {
    name: "cellType",
    aliases: &["cell_type"],
    value: FieldValue::CellType,
};

/// Keys to set in a notebook cell's metadata.
pub(crate) const METADATA: Field = Field {
    name: "metadata",
    aliases: &[],
    value: FieldValue::Object,
};

/// The refs are of a notebook's own text (its JSON), as a read with `raw`
/// showed it, not of its notebook view.
pub(crate) const RAW: Field = Field {
    name: "raw",
    aliases: &[],
    value: FieldValue::Flag,
};

/// Code cells whose source changes keep their outputs and execution count.
pub(crate) const KEEP_OUTPUTS: Field = Field {
    name: "keepOutputs",
    aliases: &["keep_outputs"],
    value: FieldValue::Flag,
};

/// The fields of a request, in the order hosts document them.
pub const REQUEST_FIELDS: &[Field] = &[
    REV,
    OPERATIONS,
    LITERAL,
    RAW,
    KEEP_OUTPUTS,
    OLD_STRING,
    NEW_STRING,
    REPLACE_ALL,
];

/// The fields of one operation, in the order hosts document them.
pub const OPERATION_FIELDS: &[Field] = &[
    OP, REF, THROUGH, CONTENT, AFTER, BEFORE, CELL_TYPE, METADATA, LITERAL,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_has_one_name_and_is_known_by_every_spelling_of_it() {
        let mut names: Vec<&str> = OpKind::ALL.iter().map(|op| op.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OpKind::ALL.len());
        for &op in OpKind::ALL {
            let words: Vec<&str> = op.name().split('_').collect();
            let camel: String = words
                .iter()
                .enumerate()
                .map(|(i, w)| match i {
                    0 => (*w).to_owned(),
                    _ => w[..1].to_uppercase() + &w[1..],
                })
                .collect();
            for spelling in [
                op.name().to_owned(),
                camel,
                words.join("-").to_uppercase(),
                format!(" {} ", words.join(" ")),
                words.concat(),
            ] {
                assert_eq!(OpKind::from_name(&spelling), Some(op), "{spelling:?}");
            }
        }
        assert_eq!(OpKind::from_name("swap"), None);
        assert_eq!(OpKind::from_name("insert"), None);
        assert_eq!(OpKind::from_name("réplace"), None);
        assert_eq!(OpKind::from_name(&"replace".repeat(10)), None);
        assert_eq!(OpKind::from_name(""), None);
    }

    #[test]
    fn every_op_example_decodes_to_that_op_with_exactly_the_fields_of_its_shape() {
        for &op in OpKind::ALL {
            let request = Value::Object(vec![(
                "operations".into(),
                Value::String(format!("[{}]", op.example())),
            )]);
            let decoded = match Request::from_value(&request) {
                Ok(Request::Operations { operations, .. }) => operations,
                other => panic!("{op}: {other:?}"),
            };
            let example = &decoded[0];
            let shape = op.shape();
            assert_eq!(example.kind, op);
            assert_eq!(example.reference.is_some(), shape.reference, "{op}");
            assert_eq!(example.place.is_some(), shape.place, "{op}");
            assert_eq!(!example.content.is_empty(), shape.content, "{op}");
            assert!(example.through.is_none() || shape.through, "{op}");
            assert_eq!(example.cell.cell_type.is_some(), shape.cell_type, "{op}");
            assert_eq!(example.cell.metadata.is_some(), shape.metadata, "{op}");
            assert!(op.doc().ends_with('.') && !op.doc().contains('\n'), "{op}");
        }
    }

    #[test]
    fn a_shape_follows_from_what_an_op_cites_and_does() {
        let shape = |op: OpKind| {
            let s = op.shape();
            [s.reference, s.through, s.content, s.place, s.block]
        };
        assert_eq!(shape(OpKind::Replace), [true, true, true, false, false]);
        assert_eq!(
            shape(OpKind::InsertAfter),
            [true, false, true, false, false]
        );
        assert_eq!(shape(OpKind::Append), [false, false, true, false, false]);
        assert_eq!(shape(OpKind::Copy), [true, true, false, true, false]);
        assert_eq!(
            shape(OpKind::DeleteBlock),
            [true, false, false, false, true]
        );
        assert_eq!(
            OpKind::InsertAfterBlock.on_lines(),
            [OpKind::InsertBefore, OpKind::InsertAfter]
        );
        assert_eq!(OpKind::DeleteBlock.replacing(), Some(OpKind::ReplaceBlock));
        assert_eq!(
            OpKind::names_where(|s| s.through),
            "replace, delete, move and copy"
        );
        let cell = |op: OpKind| {
            let s = op.shape();
            [
                s.reference,
                s.through,
                s.content,
                s.place,
                s.cell_type,
                s.metadata,
            ]
        };
        assert_eq!(
            cell(OpKind::InsertCellAfter),
            [true, false, true, false, true, false]
        );
        assert_eq!(
            cell(OpKind::InsertAfter),
            [true, false, true, false, false, false]
        );
        assert_eq!(
            cell(OpKind::MoveCell),
            [true, false, false, true, false, false]
        );
        assert_eq!(
            cell(OpKind::SetCellType),
            [true, false, false, false, true, false]
        );
        assert_eq!(
            cell(OpKind::SetCellMetadata),
            [true, false, false, false, false, true]
        );
        assert_eq!(OpKind::DeleteCell.replacing(), Some(OpKind::ReplaceCell));
    }

    /// The fields an op takes, as `docs/format.md` lists them.
    fn fields_text(shape: Shape) -> String {
        let mut fields = Vec::new();
        if shape.reference {
            fields.push("`ref`");
        }
        if shape.through {
            fields.push("optional `through`");
        }
        if shape.place {
            fields.push("`after` or `before`");
        }
        if shape.cell_type {
            fields.push("`cellType`");
        }
        if shape.content {
            fields.push("`content`");
        }
        if shape.metadata {
            fields.push("`metadata`");
        }
        fields.join(", ")
    }

    #[test]
    fn the_specification_lists_every_op_with_its_fields_and_doc() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/format.md");
        let spec = std::fs::read_to_string(path).unwrap();
        let listed: Vec<&str> = spec
            .lines()
            .skip_while(|l| !l.starts_with("| op |"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .collect();
        let wanted: Vec<String> = OpKind::ALL
            .iter()
            .map(|op| {
                format!(
                    "| `{}` | {} | {} |",
                    op.name(),
                    fields_text(op.shape()),
                    op.doc()
                )
            })
            .collect();
        assert_eq!(
            listed,
            wanted,
            "docs/format.md §5 should list the ops as:\n{}",
            wanted.join("\n")
        );
    }
}
