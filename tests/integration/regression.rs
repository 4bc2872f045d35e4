//! Regression tests, each named after what found the bug (fuzz target and
//! finding), with the smallest input that showed it. See docs/reliability.md.

use cctree::parse::{LineProblem, parse_bytes};

/// fuzz `parse_lines` #1: a misspelt literal in a boolean field (`falsd`) was
/// swallowed by the lenient reader, the parser went on from the middle of the
/// value and produced an entry whose text was not JSON. It is a malformed line.
/// Fuzz finding 3 (`parse_lines`): `{}` followed by a vertical tab was an
/// entry (the parse trimmed Unicode whitespace) whose line render then could
/// not read (`JSON.parse` skips only space, tab, CR and LF). The client cannot
/// read such a line either: it is a warning with its file:line, as any
/// malformed line; JSON's own whitespace around an object still reads.
#[test]
fn fuzz_parse_lines_3_vertical_tab_after_an_object() {
    for line in ["{}  \u{b}", "\u{b}{}", "{}\u{a0}", "{}\u{2028}"] {
        let p = parse_bytes(line.as_bytes(), cctree::model::FileId::FIRST, cctree::agent::CLAUDE);
        assert!(p.entries.is_empty(), "{line:?}");
        assert_eq!((p.lines, p.bad_lines), (1, 1), "{line:?}");
        assert!(matches!(p.warnings[0].problem, LineProblem::Malformed(_) | LineProblem::NotAnObject), "{line:?}");
    }
    for line in [" {} ", "\t{}\t", "{}\r", " \t{\"type\":\"user\"}\r"] {
        let p = parse_bytes(line.as_bytes(), cctree::model::FileId::FIRST, cctree::agent::CLAUDE);
        assert_eq!(p.entries.len(), 1, "{line:?}");
        let e = &p.entries[0];
        let text = std::str::from_utf8(&line.as_bytes()[e.offset as usize..][..e.len as usize]).unwrap();
        assert!(cctree::json::parse(text).is_ok(), "{line:?}: render reads the line as the parse did");
    }
}

#[test]
fn fuzz_parse_lines_1_broken_literal_in_lenient_field() {
    for line in [
        r#"{"type":"user","uuid":"a","isSidechain":falsd,"message":{"content":"x"}}"#,
        r#"{"type":"assistant","uuid":"a","message":{"usage":{"output_tokens":1x}}}"#,
    ] {
        let p = parse_bytes(line.as_bytes(), cctree::model::FileId::FIRST, cctree::agent::CLAUDE);
        assert!(p.entries.is_empty(), "{line}");
        assert_eq!(p.bad_lines, 1);
        assert!(matches!(p.warnings[0].problem, LineProblem::Malformed(_)));
    }
}
