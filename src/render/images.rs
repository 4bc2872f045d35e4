//! Images from transcripts (pasted screenshots, images in tool results):
//! decoded from base64, checked (PNG, JPEG, GIF or WebP only, by declared
//! media type *and* magic bytes), handed to the [`Sink`] as
//! `assets/img/<blake3>.<ext>` (which writes each once) and referenced by
//! relative URL. Never inlined as `data:` URLs.

use std::sync::Mutex;

use anyhow::Result;
use base64::Engine;

use super::Sink;
use crate::limits::{IMAGE_CAP, MEDIA_TYPE_CHARS};

/// Hands the images of a project's pages to the sink; remembers the first
/// failure to write one (the page shows a placeholder, the render fails).
pub struct ImageStore<'a> {
    sink: &'a dyn Sink,
    failure: Mutex<Option<anyhow::Error>>,
}

/// Why an image was not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
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
pub fn extension(media_type: &str) -> Option<&'static str> {
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
    pub fn new(sink: &'a dyn Sink) -> ImageStore<'a> {
        ImageStore { sink, failure: Mutex::new(None) }
    }

    /// Decodes and checks an image and hands it to the sink; returns its
    /// file name under `assets/img/`. An `Err` is a failure to write it.
    pub fn store(&self, media_type: &str, b64: &str) -> Result<std::result::Result<String, Rejected>> {
        let Some(ext) = extension(media_type) else {
            return Ok(Err(Rejected::MediaType(media_type.chars().take(MEDIA_TYPE_CHARS).collect())));
        };
        if b64.len() / 4 * 3 > IMAGE_CAP {
            return Ok(Err(Rejected::TooLarge(b64.len() / 4 * 3)));
        }
        let cleaned: String;
        let data = if b64.bytes().any(|c| c.is_ascii_whitespace()) {
            cleaned = b64.split_ascii_whitespace().collect();
            cleaned.as_str()
        } else {
            b64
        };
        if data.is_empty() {
            return Ok(Err(Rejected::Empty));
        }
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
            return Ok(Err(Rejected::Decode));
        };
        if !magic_ok(ext, &bytes) {
            return Ok(Err(Rejected::Mismatch));
        }
        let name = format!("{}.{ext}", blake3::hash(&bytes).to_hex());
        if let Err(err) = self.sink.image(&name, &bytes) {
            let shown = anyhow::anyhow!("{err:#}");
            let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
            failure.get_or_insert(err);
            return Err(shown);
        }
        Ok(Ok(name))
    }

    /// The first failure to write an image, if any.
    pub fn take_failure(&self) -> Option<anyhow::Error> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
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
        fn reuse_page(&self, _: &str, _: &str) -> Result<bool> {
            Ok(false)
        }
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
    fn a_failure_to_write_an_image_is_kept_for_the_render() {
        let sink = Images { full: true, ..Images::default() };
        let store = ImageStore::new(&sink);
        let err = store.store("image/png", PNG_1PX).unwrap_err();
        assert!(format!("{err:#}").contains("disk full"));
        assert!(store.take_failure().is_some_and(|e| e.to_string() == "disk full"));
    }
}
