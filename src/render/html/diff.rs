//! Edit diffs: `old_string`/`new_string` (or the `structuredPatch` Claude Code
//! recorded) → a unified-style `<pre class="diff">` with one classed span per
//! line (`d-add`, `d-del`, `d-ctx`, `d-hunk`; block-level, so no newlines between).
//! Line diffs are Myers' (the `similar` crate): minimal, in `O((N+M)·D)` for
//! `D` changed lines, which is quadratic when two long texts differ
//! throughout: past [`DIFF_LINES`] changed lines (after the common start and
//! end) the old text is shown removed and the new added, with a note saying so.
//! Within a changed run, the i-th line removed and the i-th added are
//! compared word by word (Myers again, on words, spaces and single
//! punctuation marks), the words that differ marked (`<span class="dw">`),
//! when the two lines have something in common and are at most
//! [`DIFF_LINE_TOKENS`] words long, up to [`DIFF_WORDS`] words per diff
//! (each line pair costs at most `O(N·D)` in its words: bounded).

use std::fmt::Write;

use similar::{Algorithm, DiffTag, capture_diff_slices};

use super::{Html, push_text};
use crate::limits::{DIFF_LINE_TOKENS, DIFF_LINES, DIFF_WORDS};
use crate::model::Hunk;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Ctx,
    Del,
    Add,
}

/// A line diff of two texts.
pub(crate) fn diff_html(old: &str, new: &str) -> Html {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut out = String::with_capacity(old.len() + new.len() + 64);
    out.push_str("<pre class=\"diff\">");
    let changed = line_diff(&a, &b, &mut out);
    out.push_str("</pre>");
    if let Some((del, add)) = changed {
        let _ = write!(
            out,
            "<p class=\"note\">Too long to compare line by line: {del} lines removed, {add} added, shown whole.</p>"
        );
    }
    Html::trusted(out)
}

/// A patch the client recorded (hunks of ` `/`-`/`+` prefixed lines).
pub(crate) fn patch_html(hunks: &[Hunk<'_>]) -> Html {
    let mut out = String::from("<pre class=\"diff\">");
    let mut left = DIFF_WORDS;
    for h in hunks {
        let _ = write!(
            out,
            "<span class=\"d-hunk\">@@ -{},{} +{},{} @@</span>",
            h.old_start, h.old_lines, h.new_start, h.new_lines
        );
        // A run of removed lines then added ones is compared word by word.
        let (mut del, mut add): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
        for l in &h.lines {
            let l: &str = l;
            let (op, rest) = match l.chars().next() {
                Some('+') => (Op::Add, &l[1..]),
                Some('-') => (Op::Del, &l[1..]),
                Some(' ') => (Op::Ctx, &l[1..]),
                _ => (Op::Ctx, l),
            };
            if op == Op::Ctx || (op == Op::Del && !add.is_empty()) {
                push_changed(&mut out, &del, &add, &mut left);
                del.clear();
                add.clear();
            }
            match op {
                Op::Del => del.push(rest),
                Op::Add => add.push(rest),
                Op::Ctx => push_line(&mut out, op, rest),
            }
        }
        push_changed(&mut out, &del, &add, &mut left);
    }
    out.push_str("</pre>");
    Html::trusted(out)
}

fn push_line(out: &mut String, op: Op, line: &str) {
    push_marked(out, op, line, &[]);
}

/// A line with the byte ranges `marks` (in order, not overlapping) marked
/// as changed words.
fn push_marked(out: &mut String, op: Op, line: &str, marks: &[std::ops::Range<usize>]) {
    let (class, sign) = match op {
        Op::Ctx => ("d-ctx", ' '),
        Op::Del => ("d-del", '-'),
        Op::Add => ("d-add", '+'),
    };
    out.push_str("<span class=\"");
    out.push_str(class);
    out.push_str("\">");
    out.push(sign);
    let mut at = 0;
    for r in marks {
        push_text(out, &line[at..r.start]);
        out.push_str("<span class=\"dw\">");
        push_text(out, &line[r.clone()]);
        out.push_str("</span>");
        at = r.end;
    }
    push_text(out, &line[at..]);
    out.push_str("</span>");
}

/// The words of a line: runs of letters, digits and `_`, runs of spaces,
/// and every other character alone; as byte ranges.
fn words(line: &str) -> Vec<(usize, usize)> {
    let kind = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut last = 3;
    for (i, c) in line.char_indices() {
        let k = kind(c);
        match out.last_mut() {
            Some(w) if k == last && k != 2 => w.1 = i + c.len_utf8(),
            _ => out.push((i, i + c.len_utf8())),
        }
        last = k;
    }
    out
}

/// The changed words of `old` and `new` (byte ranges in each, adjacent
/// ones joined), or none when the lines share no word but spaces or are
/// too long to compare.
type Marks = Vec<std::ops::Range<usize>>;
fn word_marks(old: &str, new: &str, left: &mut usize) -> Option<(Marks, Marks)> {
    let (a, b) = (words(old), words(new));
    let n = a.len() + b.len();
    if a.len() > DIFF_LINE_TOKENS || b.len() > DIFF_LINE_TOKENS || n > *left {
        return None;
    }
    *left -= n;
    let at: Vec<&str> = a.iter().map(|&(s, e)| &old[s..e]).collect();
    let bt: Vec<&str> = b.iter().map(|&(s, e)| &new[s..e]).collect();
    let (mut da, mut db) = (Marks::new(), Marks::new());
    let mut common = false;
    let push = |m: &mut Marks, r: std::ops::Range<usize>| match m.last_mut() {
        Some(l) if l.end == r.start => l.end = r.end,
        _ => m.push(r),
    };
    for op in capture_diff_slices(Algorithm::Myers, &at, &bt) {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            common |= at[o].iter().any(|w| !w.trim().is_empty());
            continue;
        }
        if !o.is_empty() {
            push(&mut da, a[o.start].0..a[o.end - 1].1);
        }
        if !n.is_empty() {
            push(&mut db, b[n.start].0..b[n.end - 1].1);
        }
    }
    common.then_some((da, db))
}

/// A changed run: its lines removed, then added, the i-th removed and the
/// i-th added compared word by word.
/// `left`: the words that may still be compared in this diff.
fn push_changed(out: &mut String, old: &[&str], new: &[&str], left: &mut usize) {
    let pairs: Vec<Option<(Marks, Marks)>> = old.iter().zip(new).map(|(o, n)| word_marks(o, n, left)).collect();
    for (i, l) in old.iter().enumerate() {
        let m = pairs.get(i).and_then(Option::as_ref).map_or(&[][..], |p| &p.0[..]);
        push_marked(out, Op::Del, l, m);
    }
    for (i, l) in new.iter().enumerate() {
        let m = pairs.get(i).and_then(Option::as_ref).map_or(&[][..], |p| &p.1[..]);
        push_marked(out, Op::Add, l, m);
    }
}

/// Writes the lines of `a` and `b` as context, deletions and additions, in
/// order (within a changed run, deletions first). Past [`DIFF_LINES`] changed
/// lines, the changed runs whole; returns their sizes then.
fn line_diff(a: &[&str], b: &[&str], out: &mut String) -> Option<(usize, usize)> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let whole = am.len() + bm.len() > DIFF_LINES;
    a[..pre].iter().for_each(|l| push_line(out, Op::Ctx, l));
    if whole {
        am.iter().for_each(|l| push_line(out, Op::Del, l));
        bm.iter().for_each(|l| push_line(out, Op::Add, l));
    } else {
        let mut left = DIFF_WORDS;
        for op in capture_diff_slices(Algorithm::Myers, am, bm) {
            let (tag, old, new) = op.as_tag_tuple();
            if tag == DiffTag::Equal {
                am[old].iter().for_each(|l| push_line(out, Op::Ctx, l));
            } else {
                push_changed(out, &am[old], &bm[new], &mut left);
            }
        }
    }
    a[a.len() - suf..].iter().for_each(|l| push_line(out, Op::Ctx, l));
    whole.then_some((am.len(), bm.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_lines() {
        let h = diff_html("a\nb\nc", "a\nB\nc\n<d>").into_string();
        assert_eq!(
            h,
            "<pre class=\"diff\"><span class=\"d-ctx\"> a</span><span class=\"d-del\">-b</span>\
             <span class=\"d-add\">+B</span><span class=\"d-ctx\"> c</span><span class=\"d-add\">+&lt;d></span></pre>"
        );
    }

    #[test]
    fn renders_structured_patches() {
        let lines = ["-x", "+y", " z"].map(std::borrow::Cow::Borrowed).to_vec();
        let p = [Hunk { old_start: 1, old_lines: 1, new_start: 1, new_lines: 1, lines }];
        let h = patch_html(&p).into_string();
        assert!(h.contains("@@ -1,1 +1,1 @@") && h.contains("d-del\">-x") && h.contains("d-ctx\"> z"));
    }

    /// The words that changed inside a changed line are
    /// marked, in the removed and the added line; a line replaced by one
    /// with nothing in common is not marked word by word.
    #[test]
    fn changed_words_are_marked_inside_changed_lines() {
        let h =
            diff_html("keep\nlet retries = 3; // <old>\nx\n", "keep\nlet attempts = 3; // <new>\nx\n").into_string();
        assert!(
            h.contains("<span class=\"d-del\">-let <span class=\"dw\">retries</span> = 3; // &lt;<span class=\"dw\">old</span>></span>"),
            "{h}"
        );
        assert!(h.contains("<span class=\"d-add\">+let <span class=\"dw\">attempts</span> = 3;"), "{h}");
        let h = diff_html("alpha beta\n", "gamma\n").into_string();
        assert!(!h.contains("dw"), "{h}");
        // Words joined when adjacent; a recorded patch too.
        let lines = ["-a b c", "+a x y c", " z"].map(std::borrow::Cow::Borrowed).to_vec();
        let p = [Hunk { old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines }];
        let h = patch_html(&p).into_string();
        assert!(h.contains("-a <span class=\"dw\">b</span> c</span>"), "{h}");
        assert!(h.contains("+a <span class=\"dw\">x y</span> c</span>"), "{h}");
    }

    /// The hand-written LCS this replaced gave up past 250,000 cells
    /// (`old lines × new lines`, e.g. two 501-line texts) and showed every
    /// line removed and added: one changed line in a 600-line edit is one
    /// line removed and one added.
    #[test]
    fn a_long_edit_diffs_line_by_line() {
        let old: String = (0..600).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 300\n", "line three hundred\n");
        let h = diff_html(&old, &new).into_string();
        assert_eq!(h.matches("d-del").count(), 1, "{h}");
        assert_eq!(h.matches("d-add").count(), 1);
        assert_eq!(h.matches("d-ctx").count(), 599);
        // Lines moved within a long text are found too.
        let lines: Vec<&str> = old.split_inclusive('\n').collect();
        let moved = lines[300..].concat() + &lines[..300].concat();
        let h = diff_html(&old, &moved).into_string();
        assert_eq!(h.matches("d-ctx").count(), 300, "half the lines stay in order");
    }

    /// Past the cap, the changed lines are shown whole, and the page says so.
    #[test]
    fn texts_too_long_to_compare_say_so() {
        let old: String = (0..DIFF_LINES).map(|i| format!("a {i}\n")).collect();
        let new: String = (0..DIFF_LINES).map(|i| format!("b {i}\n")).collect();
        let h = diff_html(&format!("same\n{old}end\n"), &format!("same\n{new}end\n")).into_string();
        assert_eq!(h.matches("d-ctx").count(), 2);
        assert_eq!(h.matches("d-del").count(), DIFF_LINES);
        assert!(
            h.ends_with(&format!("{DIFF_LINES} lines removed, {DIFF_LINES} added, shown whole.</p>")),
            "{}",
            &h[h.len() - 200..]
        );
    }
}
