//! The layout of cctree's own archive (`cctree sync`), which every command
//! reads like a client's folder: where it is by default, the state folder
//! that marks one, and the names under which it keeps the previous versions
//! of files the client rewrote. A leaf: it reads no transcript.

use std::path::{Path, PathBuf};

/// The folder inside an archive that marks it as one (its record and lock).
pub const STATE_DIR: &str = ".cctree-sync";

/// The record of an archive, in its [`STATE_DIR`].
pub const RECORD_FILE: &str = "record.json";

/// The archive directory: `$CCTREE_ARCHIVE`, else `cctree/projects` in the
/// XDG data directory (`etcetera`: `$XDG_DATA_HOME` when absolute, else
/// `~/.local/share`).
pub fn default_archive_dir() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    if let Some(dir) = std::env::var_os("CCTREE_ARCHIVE").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let xdg = etcetera::base_strategy::Xdg::new().ok()?;
    Some(xdg.data_dir().join("cctree").join("projects"))
}

/// The default archive, when a sync made it.
pub fn existing_archive() -> Option<PathBuf> {
    default_archive_dir().filter(|d| d.join(STATE_DIR).is_dir())
}

/// Marks a previous version kept by `cctree sync`: `<stem>.cctree-kept-<hash>.<ext>`.
pub const KEPT_MARK: &str = ".cctree-kept-";

/// Hex digits of the content hash in a kept version's name.
pub const KEPT_HASH_LEN: usize = 16;

/// The name under which `cctree sync` keeps a previous version of the file
/// `name` whose bytes hash (blake3, hex) to `hash`: the mark goes before the
/// last extension, so a kept transcript still ends in `.jsonl` (and is read
/// as one) while a kept `agent-<id>.meta.json` sidecar no longer ends in
/// `.meta.json` (the live sidecar is the one read).
pub fn kept_name(name: &str, hash: &str) -> String {
    let tag = &hash[..hash.len().min(KEPT_HASH_LEN)];
    match name.rfind('.').filter(|i| *i > 0) {
        Some(dot) => format!("{}{KEPT_MARK}{tag}{}", &name[..dot], &name[dot..]),
        None => format!("{name}{KEPT_MARK}{tag}"),
    }
}

/// The live name of a kept version (see [`kept_name`]), or `None` for a live file.
pub fn split_kept(name: &str) -> Option<String> {
    let at = name.rfind(KEPT_MARK)?;
    let rest = &name[at + KEPT_MARK.len()..];
    let hex_len = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
    let after = &rest[hex_len..];
    (hex_len == KEPT_HASH_LEN && (after.is_empty() || after.starts_with('.')))
        .then(|| format!("{}{after}", &name[..at]))
}

/// The archive `dir` is or is in (a projects directory of it, or one of its
/// project directories): the folder holding its record, if any.
pub fn archive_of(dir: &Path) -> Option<PathBuf> {
    let dir = if dir.is_file() { dir.parent()?.parent()? } else { dir };
    [Some(dir), dir.parent()]
        .into_iter()
        .flatten()
        .find(|d| d.join(STATE_DIR).join(RECORD_FILE).is_file())
        .map(Path::to_path_buf)
}
