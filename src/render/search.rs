//! The archive-wide search index: `search-index.js`, a script that sets
//! `window.CCTREE_SEARCH` to an array of entries (project names, conversation
//! titles and first prompts, branch titles and first words, fork points), each
//! with a URL relative to the site root. A script rather than JSON so that it
//! loads from `file://`, where `fetch()` of local files is refused.
//!
//! ```text
//! window.CCTREE_SEARCH = [{"kind":"conversation","project":"…","title":"…","text":"…","url":"p/c/<uuid>/index.html"}, …];
//! ```

use serde::Serialize;

use super::text::excerpt;
use crate::limits::{SEARCH_PROJECT_CHARS, SEARCH_TEXT_CHARS, SEARCH_TITLE_CHARS};

/// One searchable thing.
#[derive(Debug, Clone, Serialize)]
pub struct SearchEntry {
    /// `project`, `conversation`, `branch` or `fork`.
    pub kind: &'static str,
    /// Project name.
    pub project: String,
    pub title: String,
    /// First prompt, first words, excerpt.
    pub text: String,
    /// URL relative to the site root.
    pub url: String,
}

impl SearchEntry {
    pub fn new(kind: &'static str, project: &str, title: &str, text: &str, url: String) -> SearchEntry {
        SearchEntry {
            kind,
            project: excerpt(project, SEARCH_PROJECT_CHARS),
            title: excerpt(title, SEARCH_TITLE_CHARS),
            text: excerpt(text, SEARCH_TEXT_CHARS),
            url,
        }
    }
}

/// The `search-index.js` file.
pub fn script(entries: &[SearchEntry]) -> String {
    let json = serde_json::to_string(entries).unwrap_or_else(|_| "[]".into());
    // `</` cannot end a script element that is fetched by src, but keep the
    // file inert should anyone inline it.
    format!("window.CCTREE_SEARCH = {};\n", json.replace("</", "<\\/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_is_a_js_assignment() {
        let s = script(&[SearchEntry::new("conversation", "p", "</script><b>", "x", "p/c/1/index.html".into())]);
        assert!(s.starts_with("window.CCTREE_SEARCH = [{"));
        assert!(!s.contains("</script>"));
        // Fields are named (they were k, p, t, x, u).
        assert!(
            s.contains("\"kind\":\"conversation\",\"project\":\"p\",\"title\":")
                && s.contains("\"url\":\"p/c/1/index.html\"")
        );
    }
}
