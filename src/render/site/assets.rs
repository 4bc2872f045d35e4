//! The site's static files, embedded in the binary (from `static/`):
//! `assets/style.css`, `assets/app.js`, `assets/view.js` (the reader's view
//! settings, kept across pages), `assets/search.js` (the archive search,
//! find in page) and `assets/syntax.css` (the colours of the flat `<h-X>`
//! elements the highlighter emits, one per kind of token in
//! `render::html::highlight`'s `KINDS`, light and dark).

/// `(path under the site root, contents)`.
pub(crate) const ASSETS: &[(&str, &str)] = &[
    ("assets/style.css", include_str!("../../../static/style.css")),
    ("assets/app.js", include_str!("../../../static/app.js")),
    ("assets/view.js", include_str!("../../../static/view.js")),
    ("assets/search.js", include_str!("../../../static/search.js")),
    ("assets/syntax.css", include_str!("../../../static/syntax.css")),
];
