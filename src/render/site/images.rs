//! Images from transcripts (pasted screenshots, images in tool results):
//! decoded from base64, checked (PNG, JPEG, GIF or WebP only, by declared
//! media type *and* magic bytes), handed to the [`Sink`] as
//! `assets/img/<blake3>.<ext>` (which writes each once) and referenced by
//! relative URL. Only a page meant to stand alone (`cctree export`,
//! [`ImageStore::inline`]) carries its images, as `data:` URLs.

use std::sync::Mutex;

use anyhow::Result;
use base64::Engine;

use super::Sink;
use crate::limits::{IMAGE_CAP, MEDIA_TYPE_CHARS};
use crate::render::site::urls::{Href, Root, data_url};

/// Hands the images of a project's pages to the sink; remembers the first
/// failure to write one (the page shows a placeholder, the render fails).
pub(crate) struct ImageStore<'a> {
    /// `None`: images are inlined as `data:` URLs.
    sink: Option<&'a dyn Sink>,
    failure: Mutex<Option<anyhow::Error>>,
}

/// Why an image was not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rejected {
    /// No data at all: odd but harmless, shown as a placeholder and not a warning.
    Empty,
    MediaType(String),
    Decode,
    Mismatch,
    TooLarge(usize),
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejected::Empty => f.write_str("empty image"),
            Rejected::MediaType(t) => write!(f, "unsupported image type {t:?}"),
            Rejected::Decode => f.write_str("image data is not valid base64"),
            Rejected::Mismatch => f.write_str("image data does not match its media type"),
            Rejected::TooLarge(n) => write!(f, "image too large ({n} bytes)"),
        }
    }
}

/// The file extension of an accepted media type.
pub(crate) fn extension(media_type: &str) -> Option<&'static str> {
    match media_type.trim().to_ascii_lowercase().as_str() {
        "image/png" => Some("png"),
        "image/jpeg" | "image/jpg" => Some("jpg"),
        "image/gif" => Some("gif"),
        "image/webp" => Some("webp"),
        _ => None,
    }
}

fn magic_ok(ext: &str, b: &[u8]) -> bool {
    match ext {
        "png" => b.starts_with(b"\x89PNG\r\n\x1a\n"),
        "jpg" => b.starts_with(&[0xff, 0xd8, 0xff]),
        "gif" => b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a"),
        "webp" => b.len() > 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP",
        _ => false,
    }
}

impl<'a> ImageStore<'a> {
    /// A store handing images to `sink`.
    pub(crate) fn new(sink: &'a dyn Sink) -> ImageStore<'a> {
        ImageStore { sink: Some(sink), failure: Mutex::new(None) }
    }

    /// A store that writes nothing: every image is shown as a `data:` URL.
    pub(crate) fn inline() -> ImageStore<'a> {
        ImageStore { sink: None, failure: Mutex::new(None) }
    }

    /// Whether images are inlined ([`ImageStore::inline`]).
    pub(crate) fn is_inline(&self) -> bool {
        self.sink.is_none()
    }

    /// Decodes and checks an image; the URL a page in `root` shows it by:
    /// its file under `assets/img/` (handed to the sink), or a `data:` URL.
    /// An `Err` is a failure to write it.
    pub(crate) fn show(&self, media_type: &str, b64: &str, root: &Root) -> Result<std::result::Result<Href, Rejected>> {
        if self.sink.is_none() {
            return Ok(decode(media_type, b64).map(|(ext, bytes)| data_url(media_of(ext), &bytes)));
        }
        Ok(self.store(media_type, b64)?.map(|name| root.asset(&format!("img/{name}"))))
    }

    /// Decodes and checks an image and hands it to the sink; returns its
    /// file name under `assets/img/`. An `Err` is a failure to write it.
    pub(crate) fn store(&self, media_type: &str, b64: &str) -> Result<std::result::Result<String, Rejected>> {
        let (ext, bytes) = match decode(media_type, b64) {
            Ok(image) => image,
            Err(why) => return Ok(Err(why)),
        };
        let name = format!("{}.{ext}", blake3::hash(&bytes).to_hex());
        let Some(sink) = self.sink else { return Ok(Ok(name)) };
        if let Err(err) = sink.image(&name, &bytes) {
            let shown = anyhow::anyhow!("{err:#}");
            let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
            failure.get_or_insert(err);
            return Err(shown);
        }
        Ok(Ok(name))
    }

    /// The first failure to write an image, if any.
    pub(crate) fn take_failure(&self) -> Option<anyhow::Error> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The media type of an accepted extension, as a `data:` URL names it.
fn media_of(ext: &str) -> &'static str {
    match ext {
        "png" => "image/png",
        "jpg" => "image/jpeg",
        "gif" => "image/gif",
        _ => "image/webp",
    }
}

/// An image's extension and bytes, decoded and checked (type, size, magic).
fn decode(media_type: &str, b64: &str) -> std::result::Result<(&'static str, Vec<u8>), Rejected> {
    let Some(ext) = extension(media_type) else {
        return Err(Rejected::MediaType(media_type.chars().take(MEDIA_TYPE_CHARS).collect()));
    };
    if b64.len() / 4 * 3 > IMAGE_CAP {
        return Err(Rejected::TooLarge(b64.len() / 4 * 3));
    }
    let cleaned: String;
    let data = if b64.bytes().any(|c| c.is_ascii_whitespace()) {
        cleaned = b64.split_ascii_whitespace().collect();
        cleaned.as_str()
    } else {
        b64
    };
    if data.is_empty() {
        return Err(Rejected::Empty);
    }
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
        return Err(Rejected::Decode);
    };
    if !magic_ok(ext, &bytes) {
        return Err(Rejected::Mismatch);
    }
    Ok((ext, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG_1PX: &str =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    /// A sink that keeps the images it is given (or, when full, fails).
    #[derive(Default)]
    struct Images {
        kept: Mutex<Vec<(String, usize)>>,
        full: bool,
    }

    impl Sink for Images {
        fn page(&self, _: &str, _: &[u8], _: &str) -> Result<()> {
            Ok(())
        }
        fn image(&self, name: &str, bytes: &[u8]) -> Result<()> {
            anyhow::ensure!(!self.full, "disk full");
            self.kept.lock().unwrap().push((name.to_string(), bytes.len()));
            Ok(())
        }
    }

    #[test]
    fn hands_valid_images_to_the_sink_and_rejects_others() {
        let sink = Images::default();
        let store = ImageStore::new(&sink);
        let a = store.store("image/png", PNG_1PX).unwrap().unwrap();
        let b = store.store("image/png", PNG_1PX).unwrap().unwrap();
        assert_eq!(a, b);
        assert!(a.ends_with(".png"));
        assert_eq!(sink.kept.lock().unwrap().first(), Some(&(a, 70)));
        assert!(matches!(store.store("image/svg+xml", PNG_1PX).unwrap(), Err(Rejected::MediaType(_))));
        assert_eq!(store.store("image/jpeg", PNG_1PX).unwrap(), Err(Rejected::Mismatch));
        assert_eq!(store.store("image/png", "!!!").unwrap(), Err(Rejected::Decode));
        assert_eq!(store.store("image/png", " \n").unwrap(), Err(Rejected::Empty));
        assert!(store.take_failure().is_none());
    }

    #[test]
    fn inline_images_are_data_urls_of_checked_bytes() {
        let store = ImageStore::inline();
        let src = store.show("image/PNG", PNG_1PX, &Root::of("p/")).unwrap().unwrap();
        assert_eq!(src.as_str(), format!("data:image/png;base64,{PNG_1PX}"));
        assert_eq!(store.show("image/jpeg", PNG_1PX, &Root::of("")).unwrap(), Err(Rejected::Mismatch));
        let sink = Images::default();
        let site = ImageStore::new(&sink).show("image/png", PNG_1PX, &Root::of("p/")).unwrap().unwrap();
        assert!(site.as_str().starts_with("../assets/img/") && site.as_str().ends_with(".png"), "{site}");
    }

    #[test]
    fn a_failure_to_write_an_image_is_kept_for_the_render() {
        let sink = Images { full: true, ..Images::default() };
        let store = ImageStore::new(&sink);
        let err = store.store("image/png", PNG_1PX).unwrap_err();
        assert!(format!("{err:#}").contains("disk full"));
        assert!(store.take_failure().is_some_and(|e| e.to_string() == "disk full"));
    }
}
