//! A grammar's parse tables are expanded on its first use in a process. This
//! test has a process of its own, so that its threads are that first use:
//! all of them must find the tables whole, parse the file and see the line
//! an edit breaks, however their starts interleave.

#![cfg(all(
    feature = "c-sharp",
    feature = "cpp",
    feature = "ruby",
    feature = "typescript"
))]

use std::sync::{Arc, Barrier};
use std::thread;

use hashline::{apply_to_string, Document, OpKind, Operation, Ref, Request, SyntaxCheck};

/// Files in the grammars with the largest tables, and a line that breaks each.
const FILES: &[(&str, &str, &str)] = &[
    (
        "A.cs",
        "class A {\n  int M(int x) {\n    return x + 1;\n  }\n}\n",
        "    return (x + 1;",
    ),
    (
        "a.cpp",
        "namespace n {\nclass A {\n  int m(int x) { return x + 1; }\n};\n}\n",
        "  int m(int x) { return x + ; }",
    ),
    (
        "a.rb",
        "class A\n  def m(x)\n    x + 1\n  end\nend\n",
        "    x + (",
    ),
    (
        "a.ts",
        "export class A {\n  m(x: number): number {\n    return x + 1;\n  }\n}\n",
        "    return x + ;",
    ),
];

#[test]
fn threads_that_use_a_grammar_first_all_parse_with_its_whole_tables() {
    const THREADS: usize = 8;
    let barrier = Arc::new(Barrier::new(THREADS * FILES.len()));
    let threads: Vec<_> = FILES
        .iter()
        .flat_map(|&(name, text, broken)| {
            let barrier = &barrier;
            (0..THREADS).map(move |_| {
                let barrier = Arc::clone(barrier);
                thread::spawn(move || {
                    let doc = Document::from_text(text);
                    let request = Request::Operations {
                        operations: vec![Operation::new(
                            OpKind::Replace,
                            Some(&Ref::of_line(&doc, 2).to_string()),
                            None,
                            broken,
                        )],
                        rev: None,
                    };
                    barrier.wait();
                    let edited =
                        apply_to_string(text.to_string(), name, &request, false, SyntaxCheck::Warn)
                            .unwrap();
                    (name, edited.problems().to_vec())
                })
            })
        })
        .collect();
    for thread in threads {
        let (name, problems) = thread.join().unwrap();
        assert!(
            problems.iter().any(|p| p.syntax.is_some()),
            "{name}: the broken line was not reported: {problems:?}"
        );
    }
}
