//! Regression tests, each named after what found the bug (fuzz target and
//! finding), with the smallest input that showed it. See docs/reliability.md.

use cctree::parse::{LineProblem, parse_bytes};

/// fuzz `parse_lines` #1: a misspelt literal in a boolean field (`falsd`) was
/// swallowed by the lenient reader, the parser went on from the middle of the
/// value and produced an entry whose text was not JSON. It is a malformed line.
#[test]
fn fuzz_parse_lines_1_broken_literal_in_lenient_field() {
    for line in [
        r#"{"type":"user","uuid":"a","isSidechain":falsd,"message":{"content":"x"}}"#,
        r#"{"type":"assistant","uuid":"a","message":{"usage":{"output_tokens":1x}}}"#,
    ] {
        let p = parse_bytes(line.as_bytes(), cctree::discover::FileId::FIRST);
        assert!(p.entries.is_empty(), "{line}");
        assert_eq!(p.bad_lines, 1);
        assert!(matches!(p.warnings[0].problem, LineProblem::Malformed(_)));
    }
}
