//! A record's content: the entries of a transaction, written as text that
//! ends with its checksum, and read back only whole and in the shape a
//! transaction writes.

use super::*;

/// What a transaction does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A new version replaces the file.
    Replace,
    /// A new file takes a free name.
    Create,
    /// The file goes.
    Remove,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Replace => "replace",
            Kind::Create => "create",
            Kind::Remove => "remove",
        }
    }
}

/// A folder a transaction writes in, as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Location {
    /// Below the root, reached from the root's handle.
    Inside(PathBuf),
    /// Outside the root (the host allowed it), by its absolute path.
    Outside(PathBuf),
}

/// Tells one folder from every other on the machine, whatever path names
/// it: the order in which transactions take folder locks.
pub(crate) type FolderId = (u64, u64);

/// What the record says about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub kind: Kind,
    /// The deepest folder on the file's path that existed when the
    /// transaction began, and its identity then.
    pub folder: Location,
    pub folder_id: FolderId,
    /// Folders below it the transaction creates, outermost first.
    pub missing: Vec<OsString>,
    pub name: OsString,
    /// The name beside the file: the new version before it takes the file's
    /// name, and the old version after it (by trading names); or the old
    /// version of a removed file.
    pub staged: OsString,
    /// Where the old version is kept instead where the file system cannot
    /// trade names (a replaced file only).
    pub kept: Option<OsString>,
    pub base: Base,
    pub new: Base,
}

impl Entry {
    /// The file as the model knows it, for notes: relative to the root
    /// with `/` inside it, by its absolute path outside.
    pub fn display(&self) -> String {
        let mut path = match &self.folder {
            Location::Inside(rel) | Location::Outside(rel) => rel.clone(),
        };
        path.extend(&self.missing);
        path.push(&self.name);
        if let Location::Outside(_) = self.folder {
            return path.to_string_lossy().into_owned();
        }
        let names: Vec<String> = path
            .iter()
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        names.join("/")
    }
}

/// The record of one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    /// The process that wrote it, for the note of a recovery.
    pub pid: u32,
    pub entries: Vec<Entry>,
}

impl Record {
    pub(crate) fn to_text(&self) -> String {
        let mut text = format!("{MAGIC}\n{}\n", self.pid);
        for e in &self.entries {
            let (place, folder) = match &e.folder {
                Location::Inside(p) => ("in", p),
                Location::Outside(p) => ("out", p),
            };
            let missing = if e.missing.is_empty() {
                "-".to_owned()
            } else {
                e.missing
                    .iter()
                    .map(|n| hex::encode(bytes_of(n)))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let _ = writeln!(
                text,
                "{} {place} {} {} {} {missing} {} {} {} {} {}",
                e.kind.word(),
                hex::encode(bytes_of(folder.as_os_str())),
                e.folder_id.0,
                e.folder_id.1,
                hex::encode(bytes_of(&e.name)),
                e.staged.to_string_lossy(),
                e.kept.as_deref().map_or("-".into(), OsStr::to_string_lossy),
                base_text(&e.base),
                base_text(&e.new),
            );
        }
        let sum = hex::encode(Sha1::digest(text.as_bytes()));
        let _ = writeln!(text, "{CHECKSUM}{sum}");
        text
    }

    /// The record in `text`, or why it is not one: written by another
    /// version, cut short or altered, or saying what no transaction does.
    pub(crate) fn parse(text: &str) -> std::result::Result<Record, &'static str> {
        if !text.starts_with(&format!("{MAGIC}\n")) {
            return Err("it is not a record this version of hashline can read");
        }
        let body = text
            .strip_suffix('\n')
            .and_then(|t| t.rsplit_once('\n'))
            .and_then(|(body, last)| {
                let sum = last.strip_prefix(CHECKSUM)?;
                let body = &text[..=body.len()];
                (hex::encode(Sha1::digest(body.as_bytes())) == sum).then_some(body)
            })
            .ok_or(
                "it was cut short or altered since it was written (its checksum does not match)",
            )?;
        Record::parse_body(body).ok_or("it says what no change of files does")
    }

    fn parse_body(body: &str) -> Option<Record> {
        let mut lines = body.lines().skip(1);
        let pid = lines.next()?.parse().ok()?;
        let mut entries = Vec::new();
        for line in lines {
            let f: Vec<&str> = line.split(' ').collect();
            let [kind, place, folder, dev, ino, missing, name, staged, kept, base, new] = f[..]
            else {
                return None;
            };
            let kind = match kind {
                "replace" => Kind::Replace,
                "create" => Kind::Create,
                "remove" => Kind::Remove,
                _ => return None,
            };
            let folder = PathBuf::from(os_of(hex::decode(folder).ok()?)?);
            let folder = match place {
                "in" if folder.is_relative() && !has_parent(&folder) => Location::Inside(folder),
                "out" if folder.is_absolute() => Location::Outside(folder),
                _ => return None,
            };
            let missing = if missing == "-" {
                Vec::new()
            } else {
                missing
                    .split(',')
                    .map(|n| plain_name(os_of(hex::decode(n).ok()?)?))
                    .collect::<Option<Vec<_>>>()?
            };
            let name = plain_name(os_of(hex::decode(name).ok()?)?)?;
            let staged = OsString::from(staged);
            if !is_transaction_name(&staged) {
                return None;
            }
            let kept = match kept {
                "-" => None,
                k if is_transaction_name(OsStr::new(k)) && kind == Kind::Replace => {
                    Some(OsString::from(k))
                }
                _ => return None,
            };
            let (base, new) = (parse_base(base)?, parse_base(new)?);
            let fits = match kind {
                Kind::Replace => base != Base::Missing && new != Base::Missing,
                Kind::Create => base == Base::Missing && new != Base::Missing,
                Kind::Remove => base != Base::Missing && new == Base::Missing,
            };
            if !fits {
                return None;
            }
            entries.push(Entry {
                kind,
                folder,
                folder_id: (dev.parse().ok()?, ino.parse().ok()?),
                missing,
                name,
                staged,
                kept,
                base,
                new,
            });
        }
        (!entries.is_empty()).then_some(Record { pid, entries })
    }
}

pub(super) fn has_parent(path: &Path) -> bool {
    path.components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
}

/// A name of one component, as a folder's entry is.
pub(super) fn plain_name(name: OsString) -> Option<OsString> {
    let path = Path::new(&name);
    let mut components = path.components();
    match (components.next(), components.next()) {
        (Some(std::path::Component::Normal(n)), None) if n == name.as_os_str() => Some(name),
        _ => None,
    }
}

pub(super) fn base_text(base: &Base) -> String {
    match base {
        Base::Missing => "-".to_owned(),
        Base::Bytes { len, digest } => format!("{len}:{}", hex::encode(digest)),
    }
}

pub(super) fn parse_base(text: &str) -> Option<Base> {
    if text == "-" {
        return Some(Base::Missing);
    }
    let (len, digest) = text.split_once(':')?;
    Some(Base::Bytes {
        len: len.parse().ok()?,
        digest: hex::decode(digest).ok()?.try_into().ok()?,
    })
}

#[cfg(unix)]
pub(super) fn bytes_of(name: &OsStr) -> &[u8] {
    std::os::unix::ffi::OsStrExt::as_bytes(name)
}

#[cfg(unix)]
pub(super) fn os_of(bytes: Vec<u8>) -> Option<OsString> {
    Some(std::os::unix::ffi::OsStringExt::from_vec(bytes))
}

/// Elsewhere names are kept as UTF-8; a name that is not cannot be found
/// again, and its file counts as missing.
#[cfg(not(unix))]
pub(super) fn bytes_of(name: &OsStr) -> &[u8] {
    name.to_str().map_or(&[], str::as_bytes)
}

#[cfg(not(unix))]
pub(super) fn os_of(bytes: Vec<u8>) -> Option<OsString> {
    String::from_utf8(bytes).ok().map(OsString::from)
}
