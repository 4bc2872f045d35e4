//! The cleanup clock: which sessions Claude Code's next cleanup deletes that
//! the archive of `cctree sync` does not hold yet.
//!
//! When it starts, the client deletes every transcript whose modification
//! time is older than `cleanupPeriodDays` days (30 by default): a file is
//! deleted when `mtime < now − days × 24 h` (transcript-format, "The
//! cleanup"). It reads the period from its user settings,
//! `<config dir>/settings.json` — the configuration directory being
//! `$CLAUDE_CONFIG_DIR`, else `~/.claude` — and managed settings override
//! them ([`managed_settings_files`]). A value that is not a whole number of
//! days ≥ 1 is a settings error, and the client then skips its cleanup.
//!
//! [`clock`] reads the period, [`at_risk`] lists the sessions of a projects
//! directory past it that the archive lacks (or holds only in part), and
//! [`warning`] says so with the one command that keeps them; [`warning_for`]
//! is Claude Code's answer to `Agent::cleanup_warning`. Pure but for
//! reading the settings and the two directories; "now" is a parameter.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The client's period when no settings file sets one.
pub(super) const DEFAULT_PERIOD_DAYS: u64 = 30;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// How the client's cleanup is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Clock {
    /// Transcripts older than `days` are deleted; `from` is the settings
    /// file that set it (`None`: the default).
    Days { days: u64, from: Option<PathBuf> },
    /// The cleanup does not run: `why` (a settings error the client refuses to clean with).
    Off { why: String },
}

/// The managed settings files of this system, which override the user's:
/// `/etc/claude-code/managed-settings.json` (Linux),
/// `/Library/Application Support/ClaudeCode/managed-settings.json` (macOS).
pub(super) fn managed_settings_files() -> Vec<PathBuf> {
    if cfg!(target_os = "macos") {
        vec![PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json")]
    } else if cfg!(unix) {
        vec![PathBuf::from("/etc/claude-code/managed-settings.json")]
    } else {
        Vec::new()
    }
}

/// What one settings file says of `cleanupPeriodDays`.
enum Setting {
    Absent,
    Days(u64),
    Invalid(String),
}

fn setting(path: &Path) -> Setting {
    let Ok(bytes) = std::fs::read(path) else { return Setting::Absent };
    let Ok(Value::Object(o)) = crate::json::parse(String::from_utf8_lossy(&bytes).trim_start_matches('\u{feff}'))
    else {
        return Setting::Absent;
    };
    match o.get("cleanupPeriodDays") {
        None => Setting::Absent,
        Some(v) => match v.as_u64() {
            Some(d) if d >= 1 => Setting::Days(d),
            _ => Setting::Invalid(format!(
                "cleanupPeriodDays is {v} in {} (a whole number ≥ 1 is required)",
                path.display()
            )),
        },
    }
}

/// The cleanup clock of the client whose configuration directory is
/// `config_dir`, managed settings (`managed`, first that sets it) first.
pub(super) fn clock(config_dir: &Path, managed: &[PathBuf]) -> Clock {
    let user = config_dir.join("settings.json");
    for path in managed.iter().chain([&user]) {
        match setting(path) {
            Setting::Absent => {}
            Setting::Days(days) => return Clock::Days { days, from: Some(path.clone()) },
            Setting::Invalid(why) => return Clock::Off { why },
        }
    }
    Clock::Days { days: DEFAULT_PERIOD_DAYS, from: None }
}

/// A session the next cleanup deletes that the archive lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct AtRisk {
    /// `<project>/<session>.jsonl`, relative to the projects directory.
    pub rel: String,
    /// Its modification time (ms since the epoch).
    pub modified_ms: i64,
    /// The archive holds part of it (an older, shorter copy).
    pub partly_kept: bool,
}

/// The sessions (`<project>/<id>.jsonl`) of the projects directory
/// `projects` whose modification time is before `now_ms − days`, and that
/// the archive `archive` (a projects directory of the same layout) does not
/// hold whole (no copy, or a shorter one). Sorted by path.
pub(super) fn at_risk(projects: &Path, archive: Option<&Path>, days: u64, now_ms: i64) -> Vec<AtRisk> {
    let cutoff = now_ms.saturating_sub(i64::try_from(days).unwrap_or(i64::MAX).saturating_mul(DAY_MS));
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(projects) else { return out };
    for d in dirs.flatten() {
        if !d.path().is_dir() {
            continue;
        }
        let Ok(files) = std::fs::read_dir(d.path()) else { continue };
        for f in files.flatten() {
            let path = f.path();
            if path.extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            // As the client: `stat`, which follows a link.
            let Ok(meta) = std::fs::metadata(&path) else { continue };
            if !meta.is_file() {
                continue;
            }
            let Some(modified_ms) = meta.modified().ok().map(ms_of) else { continue };
            if modified_ms >= cutoff {
                continue;
            }
            let rel = format!("{}/{}", d.file_name().to_string_lossy(), f.file_name().to_string_lossy());
            let kept = archive.and_then(|a| std::fs::metadata(a.join(&rel)).ok()).map(|m| m.len());
            match kept {
                Some(len) if len >= meta.len() => {}
                Some(_) => out.push(AtRisk { rel, modified_ms, partly_kept: true }),
                None => out.push(AtRisk { rel, modified_ms, partly_kept: false }),
            }
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

fn ms_of(t: std::time::SystemTime) -> i64 {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// The warning about `risky` (none: `None`): how many sessions, which
/// (at most [`crate::limits::SYNC_LISTED`]), the clock, and `command`, the
/// one that keeps them.
pub(super) fn warning(risky: &[AtRisk], days: u64, from: Option<&Path>, now_ms: i64, command: &str) -> Option<String> {
    use std::fmt::Write as _;
    if risky.is_empty() {
        return None;
    }
    let set = match from {
        Some(p) => format!("cleanupPeriodDays {days} in {}", p.display()),
        None => format!("cleanupPeriodDays {days}, the default"),
    };
    let n = crate::term::plural(risky.len(), "session", "sessions");
    let mut s = format!(
        "warning: Claude Code's next cleanup deletes {n} not in the cctree archive yet (last written more than {days} days ago; {set}):\n"
    );
    for r in risky.iter().take(crate::limits::SYNC_LISTED) {
        let day = crate::timestamp::format_timestamp(r.modified_ms);
        let ago = (now_ms - r.modified_ms) / DAY_MS;
        let part = if r.partly_kept { ", the archive holds an older part" } else { "" };
        let _ = writeln!(s, "  {} (last written {}, {ago} days ago{part})", r.rel, day.get(..10).unwrap_or(&day));
    }
    if risky.len() > crate::limits::SYNC_LISTED {
        let _ = writeln!(s, "  … and {} more", risky.len() - crate::limits::SYNC_LISTED);
    }
    let _ = writeln!(s, "keep them before the client starts again: {command}");
    Some(s)
}

/// The warning about the sessions the next cleanup deletes that the
/// archive `archive` lacks, when `folder` (or the projects directory of the
/// configuration directory it is) is the client's default projects
/// directory; `command` keeps them. A cleanup that does not run says why in
/// the log, not as a warning.
pub(super) fn warning_for(folder: &Path, archive: Option<&Path>, command: &str, now_ms: i64) -> Option<String> {
    let client = crate::agent::claude::discover::default_projects_dir()?;
    let folder = crate::agent::claude::discover::config_projects(folder).unwrap_or_else(|| folder.to_path_buf());
    if !client.is_dir() || crate::files::resolve(&folder) != crate::files::resolve(&client) {
        return None;
    }
    let config = client.parent()?;
    match clock(config, &managed_settings_files()) {
        Clock::Off { why } => {
            tracing::info!("Claude Code's cleanup does not run: {why}");
            None
        }
        Clock::Days { days, from } => {
            warning(&at_risk(&client, archive, days, now_ms), days, from.as_deref(), now_ms, command)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_comes_from_managed_then_user_settings_else_the_default() {
        let t = tempfile::tempdir().unwrap();
        let (cfg, managed) = (t.path().join("cfg"), t.path().join("managed-settings.json"));
        std::fs::create_dir_all(&cfg).unwrap();
        assert_eq!(clock(&cfg, std::slice::from_ref(&managed)), Clock::Days { days: 30, from: None });
        std::fs::write(cfg.join("settings.json"), r#"{"model":"x","cleanupPeriodDays":7}"#).unwrap();
        let user = Some(cfg.join("settings.json"));
        assert_eq!(clock(&cfg, std::slice::from_ref(&managed)), Clock::Days { days: 7, from: user });
        std::fs::write(&managed, r#"{"cleanupPeriodDays":90}"#).unwrap();
        assert_eq!(clock(&cfg, std::slice::from_ref(&managed)), Clock::Days { days: 90, from: Some(managed.clone()) });
        std::fs::remove_file(&managed).unwrap();
        for bad in ["0", "-3", "1.5", "\"30\""] {
            std::fs::write(cfg.join("settings.json"), format!(r#"{{"cleanupPeriodDays":{bad}}}"#)).unwrap();
            assert!(matches!(clock(&cfg, &[]), Clock::Off { .. }), "{bad}: the client skips its cleanup");
        }
        std::fs::write(cfg.join("settings.json"), "not json").unwrap();
        assert_eq!(clock(&cfg, &[]), Clock::Days { days: 30, from: None });
    }
}
