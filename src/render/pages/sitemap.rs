//! What a published site tells crawlers (`render --base-url URL --sitemap`):
//! `sitemap.xml`, every page of the site by its absolute URL (no asset, no
//! search index), and `robots.txt`, which allows everything and names the
//! sitemap.

use anyhow::Result;
use askama::Template;

use crate::render::site::urls::{BaseUrl, Href};

/// `templates/sitemap.xml`.
#[derive(Template)]
#[template(path = "sitemap.xml")]
struct Sitemap {
    urls: Vec<Href>,
}

/// `sitemap.xml` listing `pages` (paths in the site), sorted.
pub(crate) fn sitemap_xml<'a>(base: &BaseUrl, pages: impl IntoIterator<Item = &'a str>) -> Result<String> {
    let mut urls: Vec<Href> = pages.into_iter().map(|p| base.page(p)).collect();
    urls.sort();
    urls.dedup();
    Ok(Sitemap { urls }.render()?)
}

/// `robots.txt`: everything may be crawled; where the sitemap is.
pub(crate) fn robots_txt(base: &BaseUrl) -> String {
    format!("User-agent: *\nAllow: /\nSitemap: {}\n", base.page("sitemap.xml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_lists_the_pages_escaped() {
        let base = BaseUrl::parse("https://a.example/x&y").unwrap();
        let xml = sitemap_xml(&base, ["p/index.html", "index.html"]).unwrap();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset"), "{xml}");
        let locs: Vec<&str> = xml.lines().filter(|l| l.contains("<loc>")).collect();
        assert_eq!(
            locs,
            [
                "<url><loc>https://a.example/x&#38;y/index.html</loc></url>",
                "<url><loc>https://a.example/x&#38;y/p/index.html</loc></url>"
            ]
        );
        assert_eq!(robots_txt(&base), "User-agent: *\nAllow: /\nSitemap: https://a.example/x&y/sitemap.xml\n");
    }
}
