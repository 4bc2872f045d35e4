//! Images from transcripts (pasted screenshots, images in tool results):
//! decoded from base64, checked (PNG, JPEG, GIF or WebP only, by declared
//! media type *and* magic bytes), written once as `assets/img/<blake3>.<ext>`
//! and referenced by relative URL. Never inlined as `data:` URLs.

use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::{Context, Result};
use base64::Engine;
use rustc_hash::FxHashSet;

/// Largest decoded image written (bigger ones become a placeholder).
pub const IMAGE_CAP: usize = 16 * 1024 * 1024;

/// Writes images into the site's `assets/img/` directory, each content once.
pub struct ImageStore {
    dir: PathBuf,
    written: Mutex<FxHashSet<String>>,
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

impl ImageStore {
    /// A store writing into `site/assets/img`.
    pub fn new(site: &std::path::Path) -> ImageStore {
        ImageStore { dir: site.join("assets").join("img"), written: Mutex::new(FxHashSet::default()) }
    }

    /// Decodes and writes an image; returns its file name under `assets/img/`.
    pub fn store(&self, media_type: &str, b64: &str) -> Result<std::result::Result<String, Rejected>> {
        let Some(ext) = extension(media_type) else {
            return Ok(Err(Rejected::MediaType(media_type.chars().take(40).collect())));
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
        let fresh = self.written.lock().map(|mut w| w.insert(name.clone())).unwrap_or(true);
        if fresh {
            std::fs::create_dir_all(&self.dir).with_context(|| format!("creating {}", self.dir.display()))?;
            let path = self.dir.join(&name);
            std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(Ok(name))
    }

    /// How many distinct images were written.
    pub fn count(&self) -> usize {
        self.written.lock().map(|w| w.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG_1PX: &str =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    #[test]
    fn writes_valid_images_once_and_rejects_others() {
        let dir = tempfile::tempdir().unwrap();
        let store = ImageStore::new(dir.path());
        let a = store.store("image/png", PNG_1PX).unwrap().unwrap();
        let b = store.store("image/png", PNG_1PX).unwrap().unwrap();
        assert_eq!(a, b);
        assert!(a.ends_with(".png"));
        assert!(dir.path().join("assets/img").join(&a).is_file());
        assert_eq!(store.count(), 1);
        assert!(matches!(store.store("image/svg+xml", PNG_1PX).unwrap(), Err(Rejected::MediaType(_))));
        assert_eq!(store.store("image/jpeg", PNG_1PX).unwrap(), Err(Rejected::Mismatch));
        assert_eq!(store.store("image/png", "!!!").unwrap(), Err(Rejected::Decode));
        assert_eq!(store.store("image/png", " \n").unwrap(), Err(Rejected::Empty));
    }
}
