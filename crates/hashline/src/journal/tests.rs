//! The journal's tests: records written and read back, damage, the
//! folder's trust.

use super::*;

fn entry(kind: Kind, folder: Location) -> Entry {
    let digest = |b: u8| Base::Bytes {
        len: 3,
        digest: [b; 20],
    };
    let (base, new) = match kind {
        Kind::Replace => (digest(1), digest(2)),
        Kind::Create => (Base::Missing, digest(2)),
        Kind::Remove => (digest(1), Base::Missing),
    };
    Entry {
        kind,
        folder,
        folder_id: (7, 42),
        missing: if kind == Kind::Create {
            vec![OsString::from("new dir")]
        } else {
            Vec::new()
        },
        name: OsString::from("a file\nwith a line break"),
        staged: crate::file::transaction_name().unwrap(),
        kept: (kind == Kind::Replace).then(|| crate::file::transaction_name().unwrap()),
        base,
        new,
    }
}

#[test]
fn a_record_reads_back_as_written_and_anything_else_is_refused() {
    let record = Record {
        pid: 1234,
        entries: vec![
            entry(Kind::Replace, Location::Inside(PathBuf::from("src/deep"))),
            entry(Kind::Create, Location::Inside(PathBuf::new())),
            entry(Kind::Remove, Location::Outside(PathBuf::from("/elsewhere"))),
        ],
    };
    let text = record.to_text();
    assert_eq!(Record::parse(&text), Ok(record.clone()));
    // Names beside a file must be a transaction's, folders inside the
    // root may not climb out of it, every field must be there, and a
    // record cut short or altered does not match its checksum.
    let mut swapped = record.clone();
    swapped.entries[0].staged = OsString::from("victim.txt");
    let mut climbing = record.clone();
    climbing.entries[1].folder = Location::Inside(PathBuf::from("../up"));
    let mut outside_relative = record;
    outside_relative.entries[2].folder = Location::Outside(PathBuf::from("rel"));
    for bad in [
        swapped.to_text(),
        climbing.to_text(),
        outside_relative.to_text(),
        text.replace("replace", "rewrite"),
        text.lines()
            .take(3)
            .map(|l| format!("{l} extra\n"))
            .collect(),
        text.replacen(MAGIC, "hashline-journal 9", 1),
        format!("{MAGIC}\n1\n"),
        Record {
            pid: 1,
            entries: Vec::new(),
        }
        .to_text(),
        text[..text.len() - 1].to_owned(),
        text.replacen("1234", "1235", 1),
        text.lines()
            .filter(|l| !l.starts_with("remove"))
            .map(|l| format!("{l}\n"))
            .collect(),
    ] {
        assert!(Record::parse(&bad).is_err(), "{bad}");
    }
}
