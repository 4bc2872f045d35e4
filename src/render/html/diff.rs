//! Edit diffs: `old_string`/`new_string` (or the `structuredPatch` Claude Code
//! recorded) → a unified-style `<pre class="diff">` with one classed span per
//! line (`d-add`, `d-del`, `d-ctx`, `d-hunk`; block-level, so no newlines between).
//! Line diffs are Myers' (the `similar` crate): minimal, in `O((N+M)·D)` for
//! `D` changed lines, which is quadratic when two long texts differ
//! throughout: past [`DIFF_LINES`] changed lines (after the common start and
//! end) the old text is shown removed and the new added, with a note saying so.

use std::fmt::Write;

use similar::{Algorithm, DiffTag, capture_diff_slices};

use super::{Html, push_esc};
use crate::limits::DIFF_LINES;
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
    for h in hunks {
        let _ = write!(
            out,
            "<span class=\"d-hunk\">@@ -{},{} +{},{} @@</span>",
            h.old_start, h.old_lines, h.new_start, h.new_lines
        );
        for l in &h.lines {
            let l: &str = l;
            let (op, rest) = match l.chars().next() {
                Some('+') => (Op::Add, &l[1..]),
                Some('-') => (Op::Del, &l[1..]),
                Some(' ') => (Op::Ctx, &l[1..]),
                _ => (Op::Ctx, l),
            };
            push_line(&mut out, op, rest);
        }
    }
    out.push_str("</pre>");
    Html::trusted(out)
}

fn push_line(out: &mut String, op: Op, line: &str) {
    let (class, sign) = match op {
        Op::Ctx => ("d-ctx", ' '),
        Op::Del => ("d-del", '-'),
        Op::Add => ("d-add", '+'),
    };
    out.push_str("<span class=\"");
    out.push_str(class);
    out.push_str("\">");
    out.push(sign);
    push_esc(out, line);
    out.push_str("</span>");
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
        for op in capture_diff_slices(Algorithm::Myers, am, bm) {
            let (tag, old, new) = op.as_tag_tuple();
            if tag == DiffTag::Equal {
                am[old].iter().for_each(|l| push_line(out, Op::Ctx, l));
            } else {
                am[old].iter().for_each(|l| push_line(out, Op::Del, l));
                bm[new].iter().for_each(|l| push_line(out, Op::Add, l));
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
             <span class=\"d-add\">+B</span><span class=\"d-ctx\"> c</span><span class=\"d-add\">+&lt;d&gt;</span></pre>"
        );
    }

    #[test]
    fn renders_structured_patches() {
        let lines = ["-x", "+y", " z"].map(std::borrow::Cow::Borrowed).to_vec();
        let p = [Hunk { old_start: 1, old_lines: 1, new_start: 1, new_lines: 1, lines }];
        let h = patch_html(&p).into_string();
        assert!(h.contains("@@ -1,1 +1,1 @@") && h.contains("d-del\">-x") && h.contains("d-ctx\"> z"));
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
