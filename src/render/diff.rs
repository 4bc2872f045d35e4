//! Edit diffs: `old_string`/`new_string` (or the `structuredPatch` Claude Code
//! recorded) → a unified-style `<pre class="diff">` with one classed span per
//! line (`d-add`, `d-del`, `d-ctx`, `d-hunk`; block-level, so no newlines between).

use serde_json::Value;

use super::html::push_esc;

/// Largest `old lines × new lines` for which a real line diff is computed;
/// beyond it the old text is shown removed and the new text added.
const LCS_CAP: usize = 250_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Ctx,
    Del,
    Add,
}

/// A line diff of two texts.
pub fn diff_html(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut out = String::from("<pre class=\"diff\">");
    for (op, line) in line_diff(&a, &b) {
        push_line(&mut out, op, line);
    }
    out.push_str("</pre>");
    out
}

/// A `structuredPatch` (hunks of ` `/`-`/`+` prefixed lines), if well formed.
pub fn patch_html(patch: &Value) -> Option<String> {
    let hunks = patch.as_array().filter(|h| !h.is_empty())?;
    let mut out = String::from("<pre class=\"diff\">");
    for h in hunks {
        let n = |k: &str| h.get(k).and_then(Value::as_u64).unwrap_or(0);
        out.push_str(&format!(
            "<span class=\"d-hunk\">@@ -{},{} +{},{} @@</span>",
            n("oldStart"),
            n("oldLines"),
            n("newStart"),
            n("newLines")
        ));
        for l in h.get("lines")?.as_array()? {
            let l = l.as_str()?;
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
    Some(out)
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

fn line_diff<'s>(a: &[&'s str], b: &[&'s str]) -> Vec<(Op, &'s str)> {
    // Common prefix and suffix first: edits are usually small.
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops: Vec<(Op, &str)> = a[..pre].iter().map(|l| (Op::Ctx, *l)).collect();
    if am.len().saturating_mul(bm.len()) <= LCS_CAP {
        ops.extend(lcs(am, bm));
    } else {
        ops.extend(am.iter().map(|l| (Op::Del, *l)));
        ops.extend(bm.iter().map(|l| (Op::Add, *l)));
    }
    ops.extend(a[a.len() - suf..].iter().map(|l| (Op::Ctx, *l)));
    ops
}

fn lcs<'s>(a: &[&'s str], b: &[&'s str]) -> Vec<(Op, &'s str)> {
    let (n, m) = (a.len(), b.len());
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * (m + 1) + j] = if a[i] == b[j] {
                t[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(n + m);
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((Op::Ctx, a[i]));
            i += 1;
            j += 1;
        } else if t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1] {
            out.push((Op::Del, a[i]));
            i += 1;
        } else {
            out.push((Op::Add, b[j]));
            j += 1;
        }
    }
    out.extend(a[i..].iter().map(|l| (Op::Del, *l)));
    out.extend(b[j..].iter().map(|l| (Op::Add, *l)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_lines() {
        let h = diff_html("a\nb\nc", "a\nB\nc\n<d>");
        assert_eq!(
            h,
            "<pre class=\"diff\"><span class=\"d-ctx\"> a</span><span class=\"d-del\">-b</span>\
             <span class=\"d-add\">+B</span><span class=\"d-ctx\"> c</span><span class=\"d-add\">+&lt;d&gt;</span></pre>"
        );
    }

    #[test]
    fn renders_structured_patches() {
        let p = serde_json::json!([{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-x","+y"," z"]}]);
        let h = patch_html(&p).unwrap();
        assert!(h.contains("@@ -1,1 +1,1 @@") && h.contains("d-del\">-x") && h.contains("d-ctx\"> z"));
        assert!(patch_html(&serde_json::json!([])).is_none());
    }
}
