//! The line parser on arbitrary bytes: never panics, every non-blank line is
//! either an entry or a warning, offsets point inside the input, every
//! entry's line reads as a tree (`cctree::json::parse`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = cctree::parse::parse_bytes(data, cctree::model::FileId::FIRST, cctree::agent::CLAUDE);
    let bad_or_read = p.entries.len() as u64 + p.bad_lines;
    assert_eq!(bad_or_read, p.lines);
    for e in &p.entries {
        assert!(e.offset as usize + e.len as usize <= data.len());
        let text = match &e.repaired {
            Some(t) => t.to_string(),
            None => String::from_utf8(data[e.offset as usize..][..e.len as usize].to_vec()).expect("unrepaired lines are UTF-8"),
        };
        // The renderer reads every entry's line as a tree, as the parse stage read it.
        assert!(cctree::json::parse(&text).is_ok(), "an entry's text must read as JSON");
    }
});
