//! The site's static files, embedded in the binary (from `static/`):
//! `assets/style.css`, `assets/app.js`, `assets/view.js` (the reader's view
//! settings, kept across pages), `assets/search.js` (the archive search,
//! find in page) and `assets/syntax.css` (the colours of the flat `<h-X>`
//! elements the highlighter emits, one per kind of token in
//! `render::html::highlight`'s `KINDS`, light and dark) and
//! `assets/highlight.js`: highlight.js 11.12.0, vendored in
//! `static/vendor/highlight.js/` (BSD-3-Clause: its licence leads the file),
//! which `app.js` loads when a reader opens a file read; `assets/icon.svg`,
//! the pages' icon (the fork glyph in the accent colour of each theme; without
//! it, a browser asks the server for `/favicon.ico`).

/// `(path under the site root, contents)`.
pub(crate) const ASSETS: &[(&str, &str)] = &[
    ("assets/style.css", include_str!("../../../static/style.css")),
    ("assets/app.js", include_str!("../../../static/app.js")),
    ("assets/view.js", include_str!("../../../static/view.js")),
    ("assets/search.js", include_str!("../../../static/search.js")),
    ("assets/syntax.css", include_str!("../../../static/syntax.css")),
    ("assets/highlight.js", HIGHLIGHT_JS),
    ("assets/icon.svg", include_str!("../../../static/icon.svg")),
];

/// The vendored highlighter as one script: its licence (as a comment), the
/// core with its common languages, then the grammars of the other languages
/// `render::html::highlight::hljs_language` names (each registers itself).
const HIGHLIGHT_JS: &str = concat!(
    "/*! highlight.js 11.12.0, from the npm package @highlightjs/cdn-assets (static/vendor/highlight.js/)\n",
    include_str!("../../../static/vendor/highlight.js/LICENSE"),
    "*/\n",
    include_str!("../../../static/vendor/highlight.js/highlight.min.js"),
    "\n",
    include_str!("../../../static/vendor/highlight.js/languages/actionscript.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/applescript.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/clojure.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/d.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/delphi.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/dos.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/erlang.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/groovy.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/haml.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/haskell.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/latex.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/lisp.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/matlab.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/ocaml.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/properties.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/scala.min.js"),
    include_str!("../../../static/vendor/highlight.js/languages/tcl.min.js"),
);
