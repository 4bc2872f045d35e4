//! The markdown renderer on arbitrary text: never panics, never emits a tag
//! the text did not come from us (`<script`, event handlers, `javascript:` links).
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Tags in the output, as lowercase strings from `<` to `>`.
fn tags(html: &str) -> impl Iterator<Item = String> + '_ {
    html.split('<').skip(1).filter_map(|t| {
        let end = t.find('>')?;
        let tag = &t[..end];
        tag.chars().next().filter(|c| c.is_ascii_alphabetic()).map(|_| tag.to_ascii_lowercase())
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let html = cctree::render::html::markdown::to_html(text, &mut cctree::render::html::highlight::Budget::default()).into_string();
    for tag in tags(&html) {
        assert!(!tag.starts_with("script") && !tag.starts_with("iframe") && !tag.starts_with("object"), "{tag}");
        for attr in tag.split_whitespace().skip(1) {
            assert!(!(attr.starts_with("on") && attr.contains('=')), "event handler in <{tag}>");
            // The value of href= / src=, unquoted: it must not be a script URL
            // (`https://javascript:` is an odd https link, not a script).
            if let Some(v) = attr.strip_prefix("href=").or_else(|| attr.strip_prefix("src=")) {
                let v = v.trim_matches(|c| c == '"' || c == '\'');
                let scheme: String = v.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect();
                assert!(
                    !scheme.starts_with("javascript:") && !scheme.starts_with("data:") && !scheme.starts_with("vbscript:"),
                    "script URL in <{tag}>"
                );
            }
        }
    }
});
