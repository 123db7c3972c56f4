use super::cells::Notebook;
use crate::{rev, ErrorCode, Hashline, Options, ReadOptions, Request, Value, ViewStyle};
use std::path::Path;

/// A notebook as nbformat 5.11 writes it: a markdown cell and two code
/// cells, one with a stream and an image output.
const NB45: &str = include_str!("testdata/nb45.ipynb");
/// The same notebook in nbformat 4.4, whose cells have no ids.
const NB44: &str = include_str!("testdata/nb44.ipynb");

fn value(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap()),
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(a) => Value::Array(a.iter().map(value).collect()),
        serde_json::Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), value(v))).collect())
        }
    }
}

fn request(json: &str) -> Request {
    Request::from_value(&value(&serde_json::from_str(json).unwrap())).unwrap()
}

/// A session over a folder holding `n.ipynb` with `text`.
fn open(text: &str) -> (tempfile::TempDir, Hashline) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("n.ipynb"), text).unwrap();
    let session = Hashline::new(Options::new(dir.path())).unwrap();
    (dir, session)
}

fn file(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("n.ipynb")).unwrap()
}

/// `n.ipynb` read as its own text, its JSON.
fn read_raw(session: &Hashline) -> crate::ReadResult {
    session
        .read_with(
            "n.ipynb",
            &ReadOptions {
                raw: true,
                ..Default::default()
            },
        )
        .unwrap()
}

fn read(session: &Hashline) -> String {
    session.read("n.ipynb").unwrap().view.text
}

/// The ref the lean view, or a result (its line after `+` or a space),
/// gives the line whose text is `text`.
fn line_ref(view: &str, text: &str) -> String {
    view.lines()
        .skip(1)
        .find_map(|l| {
            let l = l.strip_prefix(['+', ' ']).unwrap_or(l);
            let (r, rest) = l.split_once(' ')?;
            (rest == text && r.starts_with(|c: char| c.is_ascii_digit())).then(|| r.to_owned())
        })
        .unwrap_or_else(|| panic!("no line {text:?} in\n{view}"))
}

fn edit(session: &Hashline, json: &str) -> crate::Result<crate::EditResult> {
    session.edit("n.ipynb", &request(json))
}

/// An edit of `n.ipynb` with the request's `fields` (e.g.
/// `"keepOutputs":true,`) and `ops`, each `(op, the text of the line of
/// `view` it cites, the rest of the op's JSON)`.
fn edit_lines(
    session: &Hashline,
    view: &str,
    fields: &str,
    ops: &[(&str, &str, &str)],
) -> crate::Result<crate::EditResult> {
    let ops: Vec<String> = ops
        .iter()
        .map(|(op, text, rest)| {
            format!(r#"{{"op":"{op}","ref":"{}"{rest}}}"#, line_ref(view, text))
        })
        .collect();
    edit(
        session,
        &format!(r#"{{{fields}"operations":[{}]}}"#, ops.join(",")),
    )
}

/// Each cell's id and its bytes in the file.
fn cell_texts(text: &str) -> Vec<(String, String)> {
    let nb = Notebook::parse(text).unwrap();
    nb.cells
        .iter()
        .map(|c| {
            (
                c.id.clone().unwrap_or_default(),
                text[c.object.span.clone()].to_owned(),
            )
        })
        .collect()
}

/// The file is a notebook nbformat 4 accepts, as this engine judges it.
fn valid(text: &str) {
    if let Err(why) = Notebook::parse(text) {
        panic!("invalid: {why}\n{text}");
    }
}

#[test]
fn a_notebook_reads_as_cells_with_refs_and_outputs_summarised_under_the_files_rev() {
    let (_dir, session) = open(NB45);
    let read = session.read("n.ipynb").unwrap();
    let text = &read.view.text;
    assert_eq!(read.view.rev, rev(NB45));
    assert!(
        text.starts_with(&format!("n.ipynb REV:{} lines 1-9 of 9\n", rev(NB45))),
        "{text}"
    );
    let body: Vec<&str> = text.lines().skip(2).collect();
    let lines: Vec<&str> = body
        .iter()
        .filter(|l| !l.starts_with("  »"))
        .map(|l| l.split_once(' ').unwrap().1)
        .collect();
    assert_eq!(
        lines,
        [
            "# %% [markdown] id=m1",
            "# Title",
            "Some text é",
            "# %% [code] id=c1",
            "import math",
            "print(math.pi)",
            "# %% [code] id=c2",
            "x = 1",
            "y = 2",
        ][..]
    );
    assert!(
        text.contains("  » stdout: 1 line\n  » 3.141592653589793\n"),
        "{text}"
    );
    assert!(
        text.contains("  » display: image/png 8 B, text/plain 1 line\n  » <Figure>\n"),
        "{text}"
    );
    assert!(!text.contains("iVBOR"), "no base64 in a view");
    let full = session
        .read_with(
            "n.ipynb",
            &ReadOptions {
                view: Some(ViewStyle::Full),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(full.view.text.contains("|# %% [code] id=c1\n"));
    let raw = read_raw(&session);
    assert_eq!(raw.view.rev, rev(NB45));
    assert!(raw.view.text.contains(" \"cell_type\": \"markdown\","));
}

#[test]
fn a_changed_code_cell_is_written_as_nbformat_writes_it_and_loses_its_outputs() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    let done = edit_lines(
        &session,
        &view,
        "",
        &[(
            "replace",
            "print(math.pi)",
            r#","content":"print(math.e)\nprint(math.tau)""#,
        )],
    )
    .unwrap();
    let start = NB45.find("   \"execution_count\": 1,").unwrap();
    let end = NB45.find("   \"source\": [\n    \"import math").unwrap();
    let expected = format!(
        "{}   \"execution_count\": null,\n   \"id\": \"c1\",\n   \"metadata\": {{}},\n   \"outputs\": [],\n{}",
        &NB45[..start],
        &NB45[end..]
    )
    .replace(
        "    \"print(math.pi)\"",
        "    \"print(math.e)\\n\",\n    \"print(math.tau)\"",
    );
    assert_eq!(file(dir.path()), expected);
    assert_eq!(done.rev, rev(&expected));
    assert_eq!(done.previous_rev, rev(NB45));
    assert!(done
        .output
        .contains("were cleared, since its source changed"));
    assert!(done.output.contains("+6xx print(math.e)") || done.output.contains("print(math.tau)"));
}

#[test]
fn keep_outputs_keeps_a_code_cells_outputs_and_count() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    edit_lines(
        &session,
        &view,
        r#""keepOutputs":true,"#,
        &[("replace", "print(math.pi)", r#","content":"print(math.e)""#)],
    )
    .unwrap();
    assert_eq!(
        file(dir.path()),
        NB45.replace("\"print(math.pi)\"", "\"print(math.e)\"")
    );
}

#[test]
fn an_edit_and_its_reverse_give_the_bytes_back() {
    let (dir, session) = open(NB44);
    let view = read(&session);
    let keep = r#""keepOutputs":true,"#;
    let done = edit_lines(
        &session,
        &view,
        keep,
        &[
            ("replace", "Some text é", r#","content":"Other text""#),
            ("insert_after", "y = 2", r#","content":"z = 3""#),
        ],
    )
    .unwrap();
    assert_ne!(file(dir.path()), NB44);
    edit_lines(
        &session,
        &done.output,
        keep,
        &[
            ("replace", "Other text", r#","content":"Some text é""#),
            ("delete", "z = 3", ""),
        ],
    )
    .unwrap();
    assert_eq!(file(dir.path()), NB44);
}

#[test]
fn a_new_cell_gets_a_fresh_id_where_the_notebook_has_ids_and_none_where_it_has_not() {
    for (text, ids) in [(NB45, true), (NB44, false)] {
        let (dir, session) = open(text);
        let view = read(&session);
        let header = view
            .lines()
            .find(|l| l.contains("# %% [markdown]") && !l.starts_with("  »"))
            .unwrap()
            .split_once(' ')
            .unwrap()
            .0
            .to_owned();
        let done = edit(
            &session,
            &format!(
                r#"{{"operations":[{{"op":"insert_cell_after","ref":"{header}","cellType":"code","content":"a = 1\nb = 2"}}]}}"#
            ),
        )
        .unwrap();
        let written = file(dir.path());
        valid(&written);
        let nb: serde_json::Value = serde_json::from_str(&written).unwrap();
        let new = &nb["cells"][1];
        assert_eq!(new["source"], serde_json::json!(["a = 1\n", "b = 2"]));
        assert_eq!(new["outputs"], serde_json::json!([]));
        assert!(new["execution_count"].is_null());
        match ids {
            true => {
                let id = new["id"].as_str().unwrap();
                assert_eq!(id.len(), 8);
                assert!(id
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
                assert!(done.output.contains(&format!("# %% [code] id={id}")));
                let keys: Vec<&String> = new.as_object().unwrap().keys().collect();
                assert_eq!(
                    keys,
                    [
                        "cell_type",
                        "execution_count",
                        "id",
                        "metadata",
                        "outputs",
                        "source"
                    ]
                );
                assert!(written.contains(&format!(
                    "  {{\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"{id}\",\n   \"metadata\": {{}},\n   \"outputs\": [],\n   \"source\": [\n    \"a = 1\\n\",\n    \"b = 2\"\n   ]\n  }},\n"
                )));
            }
            false => assert!(new.get("id").is_none()),
        }
        // Untouched cells keep their bytes: the file is the old one with
        // the new cell's text in it.
        let start = written
            .find("  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null")
            .unwrap();
        let end = written[start..].find("  },\n").unwrap() + start + "  },\n".len();
        assert_eq!(format!("{}{}", &written[..start], &written[end..]), text);
    }
}

#[test]
fn cells_move_change_type_and_take_metadata_in_one_batch() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    let cell = |id: &str| line_ref(&view, &view_header(&view, id));
    edit(
        &session,
        &format!(
            r#"{{"operations":[
                {{"op":"move_cell","ref":"{}","before":"{}"}},
                {{"op":"set_cell_type","ref":"{}","cellType":"markdown"}},
                {{"op":"set_cell_metadata","ref":"{}","metadata":{{"tags":["setup"],"collapsed":true}}}}
            ]}}"#,
            cell("c2"),
            cell("m1"),
            cell("c1"),
            cell("c2")
        ),
    )
    .unwrap();
    let written = file(dir.path());
    valid(&written);
    let nb: serde_json::Value = serde_json::from_str(&written).unwrap();
    let ids: Vec<&str> = nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["c2", "m1", "c1"]);
    assert_eq!(nb["cells"][2]["cell_type"], "markdown");
    assert!(nb["cells"][2].get("outputs").is_none());
    assert!(nb["cells"][2].get("execution_count").is_none());
    assert_eq!(
        nb["cells"][0]["metadata"],
        serde_json::json!({"collapsed": true, "tags": ["setup"]})
    );
    assert!(written.contains("   \"metadata\": {\n    \"collapsed\": true,\n    \"tags\": [\n     \"setup\"\n    ]\n   },\n"));
    // Back to code: the cell gets an empty output list and no count.
    let view = read(&session);
    edit(
        &session,
        &format!(
            r#"{{"operations":[{{"op":"set_cell_type","ref":"{}","cellType":"code"}},{{"op":"set_cell_metadata","ref":"{}","metadata":{{"tags":null}}}}]}}"#,
            line_ref(&view, "# %% [markdown] id=c1"),
            line_ref(&view, "# %% [code] id=c2")
        ),
    )
    .unwrap();
    let nb: serde_json::Value = serde_json::from_str(&file(dir.path())).unwrap();
    assert_eq!(nb["cells"][2]["outputs"], serde_json::json!([]));
    assert!(nb["cells"][2]["execution_count"].is_null());
    assert_eq!(
        nb["cells"][0]["metadata"],
        serde_json::json!({"collapsed": true})
    );
    valid(&file(dir.path()));
}

fn view_header(view: &str, id: &str) -> String {
    view.lines()
        .filter_map(|l| l.split_once(' ').map(|(_, t)| t))
        .find(|t| t.starts_with("# %% [") && t.ends_with(&format!("id={id}")))
        .unwrap()
        .to_owned()
}

#[test]
fn header_lines_are_never_edited_as_source() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    let header = line_ref(&view, "# %% [code] id=c1");
    let before = line_ref(&view, "Some text é");
    let first = line_ref(&view, "# %% [markdown] id=m1");
    let refused = [
        format!(r#"{{"op":"replace","ref":"{before}","through":"{header}","content":"x"}}"#),
        format!(r#"{{"op":"delete","ref":"{header}"}}"#),
        format!(r#"{{"op":"insert_before","ref":"{first}","content":"x"}}"#),
        format!(r#"{{"op":"delete_cell","ref":"{before}"}}"#),
        r#"{"op":"append","content":"x"}"#.to_owned(),
    ];
    for op in refused {
        let err = edit(&session, &format!(r#"{{"operations":[{op}]}}"#)).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest, "{op}: {}", err.message);
        assert_eq!(file(dir.path()), NB45);
    }
    // After a header is the start of its cell; before one, the end of the
    // cell above.
    edit(
        &session,
        &format!(
            r#"{{"operations":[{{"op":"insert_after","ref":"{header}","content":"import os"}},{{"op":"insert_before","ref":"{header}","content":"More text"}}]}}"#
        ),
    )
    .unwrap();
    let nb: serde_json::Value = serde_json::from_str(&file(dir.path())).unwrap();
    assert_eq!(
        nb["cells"][0]["source"],
        serde_json::json!(["# Title\n", "Some text é\n", "More text"])
    );
    assert_eq!(
        nb["cells"][1]["source"],
        serde_json::json!(["import os\n", "import math\n", "print(math.pi)"])
    );
}

#[test]
fn view_text_that_is_no_source_is_refused_unless_literal() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    let target = line_ref(&view, "x = 1");
    let header = line_ref(&view, "# %% [code] id=c1");
    for content in [
        "# %% [code] id=c1".to_owned(),
        format!("{header} # %% [code] id=c1"),
        "  » 3.141592653589793".to_owned(),
    ] {
        let op = format!(
            r#"{{"op":"replace","ref":"{target}","content":{}}}"#,
            serde_json::to_string(&format!("x = 0\n{content}")).unwrap()
        );
        let err = edit(&session, &format!(r#"{{"operations":[{op}]}}"#)).unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::AmbiguousEcho,
            "{content}: {}",
            err.message
        );
        assert_eq!(file(dir.path()), NB45);
    }
    edit(
        &session,
        &format!(
            r##"{{"literal":true,"operations":[{{"op":"replace","ref":"{target}","content":"# %% [code] id=c1"}}]}}"##
        ),
    )
    .unwrap();
    assert!(file(dir.path()).contains("\"# %% [code] id=c1\\n\""));
}

#[test]
fn a_stale_ref_is_refused_with_the_cell_its_line_is_in_now() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    let target = line_ref(&view, "x = 1");
    std::fs::write(
        dir.path().join("n.ipynb"),
        NB45.replace("\"x = 1\\n\"", "\"x = 10\\n\""),
    )
    .unwrap();
    let err = edit(
        &session,
        &format!(r#"{{"operations":[{{"op":"replace","ref":"{target}","content":"x = 3"}}]}}"#),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message);
    assert!(
        err.message
            .contains("In the notebook now, line 8 is in cell c2 (line 7)."),
        "{}",
        err.message
    );
    assert!(err.message.contains("x = 10"));
}

#[test]
fn refs_of_a_read_still_hold_after_edits_moved_their_lines() {
    for store in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("n.ipynb"), NB45).unwrap();
        let options = || {
            let mut o = Options::new(dir.path());
            if store {
                o.store_dir = Some(dir.path().join(".store"));
            }
            o
        };
        let first = Hashline::new(options()).unwrap();
        let view = read(&first);
        let markdown = line_ref(&view, "# %% [markdown] id=m1");
        let x = line_ref(&view, "x = 1");
        edit(
            &first,
            &format!(
                r#"{{"operations":[{{"op":"insert_cell_before","ref":"{markdown}","cellType":"markdown","content":"Intro\n\nMore"}}]}}"#
            ),
        )
        .unwrap();
        // A second process, when the store is on disk.
        let second = if store {
            Hashline::new(options()).unwrap()
        } else {
            first
        };
        let done = second
            .edit(
                "n.ipynb",
                &request(&format!(
                    r#"{{"rev":"{}","operations":[{{"op":"replace","ref":"{x}","content":"x = 100"}}]}}"#,
                    rev(NB45)
                )),
            )
            .unwrap();
        assert!(
            done.output.contains("the refs were from REV"),
            "{}",
            done.output
        );
        let nb: serde_json::Value = serde_json::from_str(&file(dir.path())).unwrap();
        assert_eq!(
            nb["cells"][3]["source"],
            serde_json::json!(["x = 100\n", "y = 2"])
        );
    }
}

#[test]
fn a_notebook_that_does_not_validate_is_refused_and_stays_editable_as_text() {
    let broken = NB45.replace("\"id\": \"c2\"", "\"id\": \"c1\"");
    let (dir, session) = open(&broken);
    let err = session.read("n.ipynb").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidNotebook);
    assert!(
        err.message.contains("ids must be unique"),
        "{}",
        err.message
    );
    let raw = read_raw(&session).view.text;
    let err = edit(
        &session,
        r#"{"operations":[{"op":"delete_cell","ref":"1ab"}]}"#,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidNotebook);
    let second = raw
        .lines()
        .skip(1)
        .filter(|l| l.ends_with(" \"id\": \"c1\","))
        .nth(1)
        .unwrap()
        .split_once(' ')
        .unwrap()
        .0
        .to_owned();
    edit(
        &session,
        &format!(r#"{{"raw":true,"operations":[{{"op":"replace","ref":"{second}","content":"   \"id\": \"c3\","}}]}}"#),
    )
    .unwrap();
    assert_eq!(
        file(dir.path()),
        NB45.replace("\"id\": \"c2\"", "\"id\": \"c3\"")
    );
    for not_a_notebook in [
        "{\"cells\": []}",
        "not json",
        "\u{feff}{}",
        "{\"cells\":[],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":4.0}",
    ] {
        let (_dir, session) = open(not_a_notebook);
        assert_eq!(
            session.read("n.ipynb").unwrap_err().code,
            ErrorCode::InvalidNotebook,
            "{not_a_notebook}"
        );
    }
}

#[test]
fn a_notebook_with_crlf_between_its_tokens_keeps_them() {
    let crlf = NB45.replace('\n', "\r\n");
    let (dir, session) = open(&crlf);
    let view = read(&session);
    assert_eq!(session.read("n.ipynb").unwrap().view.rev, rev(NB45));
    edit_lines(
        &session,
        &view,
        "",
        &[
            (
                "insert_cell_after",
                "# %% [code] id=c2",
                r#","cellType":"raw","content":"raw text""#,
            ),
            ("replace", "x = 1", r#","content":"x = 5""#),
        ],
    )
    .unwrap();
    let written = file(dir.path());
    valid(&written);
    assert!(!written.replace("\r\n", "").contains('\n'), "{written:?}");
    assert!(written.contains("\"raw text\"\r\n   ]\r\n  }\r\n ],"));
}

#[test]
fn a_batch_lands_whole_or_not_at_all() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    let err = edit_lines(
        &session,
        &view,
        "",
        &[
            ("replace", "x = 1", r#","content":"x = 2""#),
            ("delete_cell", "# %% [markdown] id=m1", ""),
            (
                "set_cell_metadata",
                "# %% [code] id=c1",
                r#","metadata":{"tags":"not a list"}"#,
            ),
        ],
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(
        err.message.contains("would no longer be valid"),
        "{}",
        err.message
    );
    assert_eq!(file(dir.path()), NB45);
}

#[test]
fn operations_that_contradict_each_other_are_refused() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    let c2 = line_ref(&view, "# %% [code] id=c2");
    let m1 = line_ref(&view, "# %% [markdown] id=m1");
    let x = line_ref(&view, "x = 1");
    for ops in [
        format!(
            r#"{{"op":"delete_cell","ref":"{c2}"}},{{"op":"replace","ref":"{x}","content":"x = 2"}}"#
        ),
        format!(
            r#"{{"op":"insert_cell_after","ref":"{m1}","cellType":"code","content":"a"}},{{"op":"insert_cell_after","ref":"{m1}","cellType":"code","content":"b"}}"#
        ),
        format!(
            r#"{{"op":"replace_cell","ref":"{c2}","content":"a"}},{{"op":"replace","ref":"{x}","content":"x = 2"}}"#
        ),
        format!(
            r#"{{"op":"delete_cell","ref":"{c2}"}},{{"op":"move_cell","ref":"{m1}","after":"{c2}"}}"#
        ),
    ] {
        let err = edit(&session, &format!(r#"{{"operations":[{ops}]}}"#)).unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict, "{ops}: {}", err.message);
    }
    assert_eq!(file(dir.path()), NB45);
}

#[test]
fn cell_ops_on_a_text_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    let session = Hashline::new(Options::new(dir.path())).unwrap();
    let view = session.read("a.py").unwrap().view.text;
    let err = session
        .edit(
            "a.py",
            &request(&format!(
                r#"{{"operations":[{{"op":"delete_cell","ref":"{}"}}]}}"#,
                line_ref(&view, "x = 1")
            )),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("cell ops apply to Jupyter notebooks"));
}

#[test]
fn the_fallback_replaces_text_inside_a_cell() {
    let (dir, session) = open(NB45);
    read(&session);
    session
        .edit(
            "n.ipynb",
            &Request::Replace {
                old_string: "print(math.pi)".into(),
                new_string: "print(math.pi / 2)".into(),
                replace_all: false,
            },
        )
        .unwrap();
    assert!(file(dir.path()).contains("\"print(math.pi / 2)\""));
    let err = session
        .edit(
            "n.ipynb",
            &Request::Replace {
                old_string: "é\n# %% [code] id=c1".into(),
                new_string: "e".into(),
                replace_all: false,
            },
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{}", err.message);
}

mod random_edits {
    use super::*;
    use proptest::prelude::*;

    /// One edit a model might send, by what it picks: the kind, and lines or
    /// cells by their place in the current view.
    #[derive(Debug, Clone)]
    enum Step {
        Replace(usize, String),
        Insert(usize, String),
        Delete(usize),
        NewCell(usize, bool, String),
        DeleteCell(usize),
        MoveCell(usize, usize),
        Retype(usize, u8),
    }

    fn step() -> impl Strategy<Value = Step> {
        let text = "[a-z =#é😀\\t]{0,12}";
        prop_oneof![
            (any::<usize>(), text).prop_map(|(l, t)| Step::Replace(l, t)),
            (any::<usize>(), text).prop_map(|(l, t)| Step::Insert(l, t)),
            any::<usize>().prop_map(Step::Delete),
            (any::<usize>(), any::<bool>(), "[a-z\\n]{0,12}")
                .prop_map(|(c, b, t)| Step::NewCell(c, b, t)),
            any::<usize>().prop_map(Step::DeleteCell),
            (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Step::MoveCell(a, b)),
            (any::<usize>(), 0u8..3).prop_map(|(c, t)| Step::Retype(c, t)),
        ]
    }

    /// The refs of the current view: every line, and the headers.
    fn lines(view: &str) -> (Vec<(String, String)>, Vec<String>) {
        let all: Vec<(String, String)> = view
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with("  »"))
            .filter_map(|l| l.split_once(' ').map(|(r, t)| (r.to_owned(), t.to_owned())))
            .collect();
        let headers = all
            .iter()
            .filter(|(_, t)| t.starts_with("# %% ["))
            .map(|(r, _)| r.clone())
            .collect();
        (all, headers)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn every_edit_leaves_a_valid_notebook_and_untouched_cells_as_they_were(
            ids in any::<bool>(),
            steps in proptest::collection::vec(step(), 1..8),
        ) {
            let (dir, session) = open(if ids { NB45 } else { NB44 });
            for step in steps {
                let before = file(dir.path());
                let view = read(&session);
                let (all, headers) = lines(&view);
                let source: Vec<&(String, String)> = all.iter().filter(|(_, t)| !t.starts_with("# %% [")).collect();
                let pick = |i: usize, of: usize| i % of.max(1);
                let types = ["code", "markdown", "raw"];
                let op = match &step {
                    Step::Replace(l, t) | Step::Insert(l, t) if !source.is_empty() => {
                        let (r, _) = source[pick(*l, source.len())];
                        let kind = if matches!(step, Step::Replace(..)) { "replace" } else { "insert_after" };
                        format!(r#"{{"op":"{kind}","ref":"{r}","content":{}}}"#, serde_json::to_string(t).unwrap())
                    }
                    Step::Delete(l) if !source.is_empty() => format!(r#"{{"op":"delete","ref":"{}"}}"#, source[pick(*l, source.len())].0),
                    Step::NewCell(c, after, t) if !headers.is_empty() => format!(
                        r#"{{"op":"insert_cell_{}","ref":"{}","cell_type":"markdown","content":{}}}"#,
                        if *after { "after" } else { "before" },
                        headers[pick(*c, headers.len())],
                        serde_json::to_string(t).unwrap()
                    ),
                    Step::DeleteCell(c) if headers.len() > 1 => format!(r#"{{"op":"delete_cell","ref":"{}"}}"#, headers[pick(*c, headers.len())]),
                    Step::MoveCell(a, b) if !headers.is_empty() => format!(
                        r#"{{"op":"move_cell","ref":"{}","after":"{}"}}"#,
                        headers[pick(*a, headers.len())],
                        headers[pick(*b, headers.len())]
                    ),
                    Step::Retype(c, t) if !headers.is_empty() => format!(
                        r#"{{"op":"set_cell_type","ref":"{}","cellType":"{}"}}"#,
                        headers[pick(*c, headers.len())],
                        types[*t as usize]
                    ),
                    _ => continue,
                };
                let rev = view.split_once("REV:").unwrap().1.get(..8).unwrap();
                match edit(&session, &format!(r#"{{"rev":"{rev}","literal":true,"operations":[{op}]}}"#)) {
                    Ok(_) => {
                        let after = file(dir.path());
                        valid(&after);
                        if ids {
                            // A cell the edit names no line or header of keeps its bytes.
                            let touched: Vec<String> = all
                                .iter()
                                .enumerate()
                                .filter(|(_, (r, _))| op.contains(&format!("\"{r}\"")))
                                .filter_map(|(i, _)| all[..=i].iter().rev().find_map(|(_, t)| t.split_once("id=").map(|(_, id)| id.to_owned())))
                                .collect();
                            let now = cell_texts(&after);
                            for (id, text) in cell_texts(&before) {
                                if !touched.contains(&id) {
                                    prop_assert_eq!(now.iter().find(|(i, _)| *i == id).map(|(_, t)| t.as_str()), Some(text.as_str()));
                                }
                            }
                        }
                    }
                    Err(e) => {
                        prop_assert!(matches!(e.code, ErrorCode::NoChange | ErrorCode::InvalidRequest | ErrorCode::AmbiguousEcho), "{:?}: {}", e.code, e.message);
                        prop_assert_eq!(file(dir.path()), before);
                    }
                }
            }
        }
    }
}

/// A notebook whose top keys are indented by four spaces and everything
/// below them by one more space a level, as an early nbformat wrote them
/// (nbclient's `Interrupt.ipynb`).
const MIXED_INDENT: &str = "{\n    \"cells\": [\n     {\n      \"cell_type\": \"code\",\n      \"execution_count\": null,\n      \"metadata\": {},\n      \"outputs\": [],\n      \"source\": [\n       \"x = 1\"\n      ]\n     }\n    ],\n    \"metadata\": {},\n    \"nbformat\": 4,\n    \"nbformat_minor\": 0\n}\n";

#[test]
fn changed_and_new_cells_take_the_indent_the_cells_have_not_the_top_keys() {
    let (dir, session) = open(MIXED_INDENT);
    let view = read(&session);
    let header = "# %% [code] cell 1";
    edit_lines(
        &session,
        &view,
        "",
        &[
            ("replace", "x = 1", r#","content":"x = 2\ny = 3""#),
            (
                "insert_cell_after",
                header,
                r#","cellType":"markdown","content":"Note""#,
            ),
            ("set_cell_metadata", header, r#","metadata":{"tags":["a"]}"#),
        ],
    )
    .unwrap();
    assert_eq!(
        file(dir.path()),
        "{\n    \"cells\": [\n     {\n      \"cell_type\": \"code\",\n      \"execution_count\": null,\n      \"metadata\": {\n       \"tags\": [\n        \"a\"\n       ]\n      },\n      \"outputs\": [],\n      \"source\": [\n       \"x = 2\\n\",\n       \"y = 3\"\n      ]\n     },\n     {\n      \"cell_type\": \"markdown\",\n      \"metadata\": {},\n      \"source\": [\n       \"Note\"\n      ]\n     }\n    ],\n    \"metadata\": {},\n    \"nbformat\": 4,\n    \"nbformat_minor\": 0\n}\n"
    );
}

#[test]
fn a_changed_source_keeps_the_indent_its_lines_had() {
    // The last cell was indented by hand, two spaces a level.
    let text = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": []\n  },\n  {\n    \"cell_type\": \"markdown\",\n    \"metadata\": {},\n    \"source\": [\n      \"# Header\\n\",\n      \"Text\"\n    ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 4\n}\n";
    let (dir, session) = open(text);
    let view = read(&session);
    edit_lines(
        &session,
        &view,
        "",
        &[("replace", "# Header", r##","content":"# Title""##)],
    )
    .unwrap();
    assert_eq!(file(dir.path()), text.replace("# Header", "# Title"));
}

#[test]
fn a_missing_notebook_is_never_created_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let session = Hashline::new(Options::new(dir.path())).unwrap();
    for json in [
        r#"{"operations":[{"op":"append","content":"x = 1"}]}"#,
        r#"{"operations":[{"op":"prepend","content":"x = 1"}]}"#,
    ] {
        let err = session.edit("new.ipynb", &request(json)).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound, "{}", err.message);
        assert!(err.message.contains("\"raw\": true"), "{}", err.message);
        assert!(!dir.path().join("new.ipynb").exists());
    }
    // Its JSON, sent as the file's text, makes one.
    let json =
        "{\n \"cells\": [],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}";
    session
        .edit(
            "new.ipynb",
            &request(&format!(
                r#"{{"raw":true,"operations":[{{"op":"append","content":{}}}]}}"#,
                serde_json::to_string(json).unwrap()
            )),
        )
        .unwrap();
    valid(&std::fs::read_to_string(dir.path().join("new.ipynb")).unwrap());
}

#[test]
fn a_notebook_without_cells_says_how_its_first_cell_is_added() {
    let empty =
        "{\n \"cells\": [],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
    let (dir, session) = open(empty);
    read(&session);
    let err = edit(
        &session,
        r#"{"operations":[{"op":"append","content":"x = 1"}]}"#,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("has no cells"), "{}", err.message);
    assert_eq!(file(dir.path()), empty);
    // As the refusal says: its `cells` line replaced in its JSON.
    let raw = read_raw(&session).view.text;
    let cells = r#" "cells": [{"cell_type": "code", "execution_count": null, "id": "a1", "metadata": {}, "outputs": [], "source": ["x = 1"]}],"#;
    edit(
        &session,
        &format!(
            r#"{{"raw":true,"operations":[{{"op":"replace","ref":"{}","content":{}}}]}}"#,
            line_ref(&raw, r#" "cells": [],"#),
            serde_json::to_string(cells).unwrap()
        ),
    )
    .unwrap();
    assert!(read(&session).contains(" # %% [code] id=a1\n"));
}

/// A notebook of code cells with `sources`, each with its id (nbformat
/// 4.5) or none (4.4, when `ids` is false).
fn code_cells(ids: bool, sources: &[(&str, &str)]) -> String {
    let cells: Vec<serde_json::Value> = sources
        .iter()
        .map(|(id, source)| {
            let mut cell = serde_json::json!({
                "cell_type": "code", "execution_count": null, "metadata": {},
                "outputs": [], "source": source,
            });
            if ids {
                cell["id"] = serde_json::json!(id);
            }
            cell
        })
        .collect();
    let nb = serde_json::json!({
        "cells": cells, "metadata": {}, "nbformat": 4,
        "nbformat_minor": if ids { 5 } else { 4 },
    });
    serde_json::to_string_pretty(&nb).unwrap() + "\n"
}

/// The sources of the cells of `n.ipynb`.
fn sources(dir: &Path) -> Vec<String> {
    let nb = Notebook::parse(&file(dir)).map(|nb| {
        nb.cells
            .iter()
            .map(|c| c.source.clone())
            .collect::<Vec<_>>()
    });
    nb.unwrap()
}

#[test]
fn without_ids_a_ref_read_before_another_writer_changed_the_cells_is_refused() {
    // Each: the cells read, the cells another writer leaves, the header the
    // ref is read from, and the op.
    type Cells<'a> = &'a [(&'a str, &'a str)];
    let cases: [(Cells, Cells, &str, &str); 4] = [
        (
            &[("", "x = 1"), ("", "x = 1"), ("", "important = 42")],
            &[("", "x = 1"), ("", "important = 42")],
            "# %% [code] cell 2",
            r#""op":"delete_cell""#,
        ),
        (
            &[("", "import os"), ("", "train()")],
            &[("", "SECRET = 1"), ("", "import os"), ("", "train()")],
            "# %% [code] cell 1",
            r#""op":"delete_cell""#,
        ),
        (
            &[("", "import os"), ("", "train()")],
            &[("", "SECRET = 1"), ("", "import os"), ("", "train()")],
            "# %% [code] cell 1",
            r#""op":"insert_cell_after","cellType":"code","content":"z = 0""#,
        ),
        (
            &[("", "a = 1"), ("", "a = 1\nb = 2")],
            &[("", "a = 1\nb = 2"), ("", "a = 1")],
            "a = 1",
            r#""op":"replace","content":"a = 3""#,
        ),
    ];
    for (before, after, cited, op) in cases {
        let (dir, session) = open(&code_cells(false, before));
        let view = read(&session);
        let target = line_ref(&view, cited);
        let err = refused_after(&dir, &session, &code_cells(false, after), &target, op);
        assert!(err.message.contains("no ids"), "{}", err.message);
    }
}

/// The refusal of `op` citing `target` once another writer left `changed`
/// in `n.ipynb`, which it leaves as it is.
fn refused_after(
    dir: &tempfile::TempDir,
    session: &Hashline,
    changed: &str,
    target: &str,
    op: &str,
) -> crate::Error {
    std::fs::write(dir.path().join("n.ipynb"), changed).unwrap();
    let err = edit(
        session,
        &format!(r#"{{"operations":[{{"ref":"{target}",{op}}}]}}"#),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch, "{op}: {}", err.message);
    assert_eq!(file(dir.path()), changed);
    err
}

#[test]
fn without_ids_refs_still_hold_across_the_engines_own_edits() {
    let (dir, session) = open(&code_cells(false, &[("", "a = 1"), ("", "b = 2")]));
    let view = read(&session);
    let first = line_ref(&view, "# %% [code] cell 1");
    let b = line_ref(&view, "b = 2");
    edit(
        &session,
        &format!(r#"{{"operations":[{{"op":"insert_cell_before","ref":"{first}","cellType":"code","content":"z = 0"}}]}}"#),
    )
    .unwrap();
    edit(
        &session,
        &format!(r#"{{"operations":[{{"op":"replace","ref":"{b}","content":"b = 3"}}]}}"#),
    )
    .unwrap();
    assert_eq!(sources(dir.path()), ["z = 0", "a = 1", "b = 3"]);
}

#[test]
fn a_stale_line_ref_is_never_carried_into_another_cell() {
    let before = code_cells(
        true,
        &[
            ("aaa", "df = load()\ndf.plot()"),
            ("bbb", "df = load()\ndf.plot()"),
            ("ccc", "done()"),
        ],
    );
    let after = code_cells(
        true,
        &[
            ("bbb", "df = load()\ndf.plot()"),
            ("aaa", "df = load()\ndf.plot()"),
            ("ccc", "done()"),
        ],
    );
    let (dir, session) = open(&before);
    let view = read(&session);
    let line = view
        .lines()
        .find(|l| l.starts_with('5'))
        .and_then(|l| l.split_once(' '))
        .unwrap()
        .0
        .to_owned();
    let op = r#""op":"replace","content":"df = load(fast=True)""#;
    let err = refused_after(&dir, &session, &after, &line, op);
    assert!(err.message.contains("cell bbb"), "{}", err.message);
}

#[test]
fn a_cell_op_after_the_sessions_own_edit_of_the_cell_is_made() {
    let (dir, session) = open(&code_cells(
        true,
        &[("c1", "a = 1\nb = 2"), ("c2", "y = 2")],
    ));
    let view = read(&session);
    edit_lines(
        &session,
        &view,
        "",
        &[("replace", "b = 2", r#","content":"b = 3\nc = 4""#)],
    )
    .unwrap();
    edit_lines(
        &session,
        &view,
        "",
        &[("delete_cell", "# %% [code] id=c1", "")],
    )
    .unwrap();
    assert_eq!(sources(dir.path()), ["y = 2"]);
}

#[test]
fn replace_cell_delete_cell_and_set_cell_type_are_refused_unless_every_line_of_the_cell_was_seen_as_it_is(
) {
    for op in [
        r#""op":"delete_cell""#,
        r#""op":"replace_cell","content":"x = 10""#,
        // A code cell made markdown loses its outputs, and its source is read
        // as another language.
        r#""op":"set_cell_type","cellType":"markdown""#,
    ] {
        // Another writer adds lines to the cell after the read.
        let (dir, session) = open(&code_cells(true, &[("c1", "x = 1"), ("c2", "y = 2")]));
        let view = read(&session);
        let header = line_ref(&view, "# %% [code] id=c1");
        let changed = code_cells(
            true,
            &[("c1", "x = 1\n# hours of work\nfit()"), ("c2", "y = 2")],
        );
        let err = refused_after(&dir, &session, &changed, &header, op);
        assert!(err.message.contains("# hours of work"), "{}", err.message);
        // The refusal showed the cell as it is: sent again, the op is made.
        edit(
            &session,
            &format!(r#"{{"operations":[{{"ref":"{header}",{op}}}]}}"#),
        )
        .unwrap();

        // A read that showed the header and not the lines after it.
        let text = code_cells(true, &[("c1", "a = 1\nb = 2\nc = 3"), ("c2", "y = 2")]);
        let (dir, session) = open(&text);
        let view = session
            .read_with(
                "n.ipynb",
                &ReadOptions {
                    limit: Some(1),
                    ..Default::default()
                },
            )
            .unwrap()
            .view
            .text;
        let header = line_ref(&view, "# %% [code] id=c1");
        let err = edit(
            &session,
            &format!(r#"{{"operations":[{{"ref":"{header}",{op}}}]}}"#),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::UnseenLines, "{op}: {}", err.message);
        assert!(err.message.contains("c = 3"), "{}", err.message);
        assert_eq!(file(dir.path()), text);
        // Once the whole cell is shown, the op is made.
        read(&session);
        edit(
            &session,
            &format!(r#"{{"operations":[{{"ref":"{header}",{op}}}]}}"#),
        )
        .unwrap();
    }
}

#[test]
fn an_id_or_type_with_a_line_break_stays_on_its_header_line() {
    let mut nb: serde_json::Value = serde_json::from_str(&code_cells(
        true,
        &[("c1", "a = 1\nb = 2"), ("c2", "keep = 1\nkeep2 = 2")],
    ))
    .unwrap();
    nb["cells"][0]["id"] = serde_json::json!("c1\n");
    let text = serde_json::to_string_pretty(&nb).unwrap() + "\n";
    valid(&text);
    let (dir, session) = open(&text);
    let view = read(&session);
    assert!(view.contains(r"# %% [code] id=c1\n"), "{view}");
    assert_eq!(
        view.lines().filter(|l| l.contains("# %% [")).count(),
        2,
        "{view}"
    );
    let keep = line_ref(&view, "keep = 1");
    edit(
        &session,
        &format!(r#"{{"operations":[{{"op":"replace","ref":"{keep}","content":"KEEP = 1"}}]}}"#),
    )
    .unwrap();
    assert_eq!(sources(dir.path()), ["a = 1\nb = 2", "KEEP = 1\nkeep2 = 2"]);

    // A later nbformat's cell type, with a line break of its own.
    nb["nbformat_minor"] = serde_json::json!(6);
    nb["cells"][0]["cell_type"] = serde_json::json!("sql\n1zz # %% [code] id=fake");
    let text = serde_json::to_string_pretty(&nb).unwrap() + "\n";
    valid(&text);
    let (_dir, session) = open(&text);
    let view = read(&session);
    assert!(
        view.contains(r"# %% [sql\n1zz # %% [code] id=fake] id=c1\n"),
        "{view}"
    );
    assert_eq!(
        view.lines().filter(|l| l.contains("# %% [")).count(),
        2,
        "{view}"
    );
}

#[test]
fn no_value_of_a_notebook_breaks_a_line_of_its_view() {
    let fake = "\n3xx # %% [code] id=fake\r\n4yy rm -rf data";
    let nb = serde_json::json!({
        "cells": [{
            "cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
            "outputs": [
                {"output_type": "stream", "name": format!("stdout{fake}"), "text": ["ok\n"]},
                {"output_type": "display_data", "metadata": {}, "data": {
                    format!("text/plain{fake}"): ["x"],
                    "application/vnd.jupyter.widget-view+json": {"model_id": format!("m{fake}"), "version_major": 2, "version_minor": 0},
                }},
            ],
            "source": ["a = 1"],
        }, {
            "cell_type": "raw", "id": "c2", "metadata": {}, "source": ["b"],
            "attachments": {format!("a.png{fake}"): {"image/png": "AAAA"}},
        }],
        "metadata": {"kernelspec": {"name": format!("python3{fake}"), "display_name": "k"}},
        "nbformat": 4, "nbformat_minor": 5,
    });
    let text = serde_json::to_string_pretty(&nb).unwrap() + "\n";
    valid(&text);
    let (_dir, session) = open(&text);
    let view = read(&session);
    for line in view.lines().skip(1) {
        assert!(
            line.starts_with("  » ") || !line.contains("fake") && !line.contains("rm -rf"),
            "a value broke a line of the view: {line:?}\n{view}"
        );
    }
    assert_eq!(
        view.lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .count(),
        4,
        "{view}"
    );
}

#[test]
fn view_lines_are_refused_in_new_string_and_the_summary_line_anywhere() {
    let (dir, session) = open(NB45);
    let view = read(&session);
    let about = view.lines().nth(1).unwrap().to_owned();
    assert!(about.starts_with("  » notebook:"), "{view}");
    let header = line_ref(&view, "# %% [code] id=c1");
    for new_string in [
        "x = 1\n# %% [code] id=c1\nprint(math.pi)".to_owned(),
        format!("x = 1\n{header} # %% [code] id=c1"),
        "x = 1\n  » 3.141592653589793".to_owned(),
        format!("x = 1\n{about}"),
    ] {
        let err = session
            .edit(
                "n.ipynb",
                &Request::Replace {
                    old_string: "x = 1".into(),
                    new_string: new_string.clone(),
                    replace_all: false,
                },
            )
            .unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::AmbiguousEcho,
            "{new_string}: {}",
            err.message
        );
        assert_eq!(file(dir.path()), NB45);
    }
    let target = line_ref(&view, "x = 1");
    let op = format!(
        r#"{{"op":"replace","ref":"{target}","content":{}}}"#,
        serde_json::to_string(&format!("{about}\nx = 2")).unwrap()
    );
    let err = edit(&session, &format!(r#"{{"operations":[{op}]}}"#)).unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message);
    assert_eq!(file(dir.path()), NB45);
}

#[test]
fn metadata_set_where_a_key_appears_twice_is_refused_not_dropped() {
    let text = code_cells(true, &[("c2", "x = 1\ny = 2")]).replace(
        "\"metadata\": {},\n      \"outputs\"",
        "\"metadata\": {\n        \"tags\": [\"a\"],\n        \"tags\": [\"b\"]\n      },\n      \"outputs\"",
    );
    assert!(text.contains("\"tags\": [\"b\"]"), "{text}");
    let (dir, session) = open(&text);
    let view = read(&session);
    let err = edit_lines(
        &session,
        &view,
        "",
        &[
            (
                "set_cell_metadata",
                "# %% [code] id=c2",
                r#","metadata":{"tags":["c"]}"#,
            ),
            ("replace", "x = 1", r#","content":"x = 3""#),
        ],
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest, "{}", err.message);
    assert!(
        err.message.contains("\"tags\" appears twice"),
        "{}",
        err.message
    );
    assert_eq!(file(dir.path()), text);
}
