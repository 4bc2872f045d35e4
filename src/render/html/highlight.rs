//! Syntax highlighting of code blocks with syntect: one shared [`SyntaxSet`],
//! classed spans (`hl-` prefix, styled by `assets/syntax.css`), and caps so
//! that one huge file cannot make a page slow or heavy.

use std::sync::LazyLock;

use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

use super::{Html, controls_shown, push_esc};
use crate::limits::{HIGHLIGHT_BLOCK, HIGHLIGHT_FILE, HIGHLIGHT_LINE, HIGHLIGHT_PAGE};

static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

// syntect runs near 1 MB/s per core, the rest of the renderer near 100 MB/s:
// highlighting is spent where a reader looks, and capped (`crate::limits`).

/// What is left of a page's highlighting allowance.
#[derive(Debug, Clone)]
pub struct Budget {
    left: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { left: HIGHLIGHT_PAGE }
    }
}

/// The language token of a file path (its extension, or a known file name).
pub fn lang_of_path(path: &str) -> Option<&str> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match name {
        "Makefile" | "makefile" | "GNUmakefile" => return Some("make"),
        "Dockerfile" => return Some("bash"),
        _ => {}
    }
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty()).then_some(ext)
}

fn syntax_for(token: &str) -> Option<&'static SyntaxReference> {
    let t = token.trim().to_ascii_lowercase();
    let t = match t.as_str() {
        "ts" | "tsx" | "typescript" | "jsx" | "mjs" | "cjs" => "js",
        "shell" | "zsh" | "console" | "shellscript" => "bash",
        "jsonc" | "json5" => "json",
        "yml" => "yaml",
        "py3" | "python3" => "python",
        "text" | "txt" | "plain" | "plaintext" | "" => return None,
        other => other,
    };
    let ss = &*SYNTAXES;
    ss.find_syntax_by_token(t).filter(|s| s.name != "Plain Text")
}

/// A `<pre>` block for prose `code`, highlighted when the language is known
/// and the block fits the caps, else plain escaped text.
pub fn code_block(code: &str, lang: Option<&str>, budget: &mut Budget) -> Html {
    block(code, lang, budget, HIGHLIGHT_BLOCK)
}

/// A `<pre>` block for the contents of a file (Read, Write): highlighted only
/// when small ([`HIGHLIGHT_FILE`]).
pub fn file_block(code: &str, lang: Option<&str>, budget: &mut Budget) -> Html {
    block(code, lang, budget, HIGHLIGHT_FILE)
}

fn block(code: &str, lang: Option<&str>, budget: &mut Budget, cap: usize) -> Html {
    let mut out = String::with_capacity(code.len() + 64);
    let syntax = lang.and_then(syntax_for);
    let fits = code.len() <= cap && code.len() <= budget.left && code.split('\n').all(|l| l.len() <= HIGHLIGHT_LINE);
    if let (Some(syntax), true) = (syntax, fits) {
        // syntect escapes markup but writes control characters as they are.
        if let Some(html) = classed(&controls_shown(code), syntax) {
            budget.left -= code.len();
            out.push_str("<pre class=\"code hl\"><code>");
            out.push_str(&html);
            out.push_str("</code></pre>");
            return Html::trusted(out);
        }
    }
    out.push_str("<pre class=\"code\"><code>");
    push_esc(&mut out, code);
    out.push_str("</code></pre>");
    Html::trusted(out)
}

fn classed(code: &str, syntax: &SyntaxReference) -> Option<String> {
    let mut html_gen =
        ClassedHTMLGenerator::new_with_class_style(syntax, &SYNTAXES, ClassStyle::SpacedPrefixed { prefix: "hl-" });
    for line in LinesWithEndings::from(code) {
        html_gen.parse_html_for_line_which_includes_newline(line).ok()?;
    }
    Some(html_gen.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_known_languages_with_classes() {
        let mut b = Budget::default();
        let html = code_block("fn main() { let x = \"<b>\"; }\n", Some("rust"), &mut b).into_string();
        assert!(html.contains("class=\"hl-"), "{html}");
        assert!(html.contains("&lt;b&gt;"));
        assert!(!html.contains("style="));
    }

    #[test]
    fn unknown_language_and_caps_fall_back_to_plain() {
        let mut b = Budget::default();
        let plain = code_block("<x>", Some("no-such-lang"), &mut b);
        assert_eq!(plain.as_str(), "<pre class=\"code\"><code>&lt;x&gt;</code></pre>");
        let long = "a".repeat(HIGHLIGHT_LINE + 1);
        assert!(!code_block(&long, Some("rust"), &mut b).as_str().contains("hl-"));
        assert_eq!(lang_of_path("/a/b/main.rs"), Some("rs"));
        assert_eq!(lang_of_path("/a/.bashrc"), None);
    }
}
