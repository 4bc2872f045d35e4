//! What a sync did, for people (text) and programs (`--json`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::decision::{Action, Amount, Tally};
use super::record::{Record, Tree};
use crate::limits::SYNC_LISTED;

/// One source file, what was decided for it and what was copied.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    pub tree: Tree,
    /// Path relative to the tree.
    #[serde(rename = "path")]
    pub rel: String,
    #[serde(skip)]
    pub dst: PathBuf,
    #[serde(flatten)]
    pub action: Action,
    /// Newlines and bytes copied (or that a dry run would copy).
    pub lines: u64,
    pub bytes: u64,
    #[serde(skip)]
    pub source_len: u64,
    /// The source file disappeared between the listing and the copy.
    #[serde(skip)]
    pub vanished: bool,
}

impl FileChange {
    pub fn new(tree: Tree, rel: &str, dst: &Path) -> FileChange {
        FileChange {
            tree,
            rel: rel.to_string(),
            dst: dst.to_path_buf(),
            action: Action::UpToDate,
            lines: 0,
            bytes: 0,
            source_len: 0,
            vanished: false,
        }
    }

    /// Something was (or would be) written for it.
    pub fn wrote(&self) -> bool {
        matches!(
            self.action,
            Action::Copy { .. } | Action::Append { .. } | Action::Replace { .. } | Action::Merge { .. }
        )
    }

    fn shown(&self) -> String {
        format!("{}{}", self.tree.label(), self.rel)
    }
}

/// The result of `cctree sync`.
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    pub source: PathBuf,
    pub archive: PathBuf,
    /// Where the source's files went: the archive, or the folder beside it
    /// that keeps the source's agent's ([`crate::agent::Agent::synced_dir`]).
    pub to: PathBuf,
    /// What the source's agent says of where its other files are kept
    /// (Claude Code's: `file_history`, `history`), `null` when the source
    /// has none ([`crate::agent::keep::Kept::report`]).
    #[serde(flatten)]
    pub places: std::collections::BTreeMap<&'static str, Option<PathBuf>>,
    /// Other agents' folders kept in the same run beside the archive
    /// (agent, source, where).
    pub clients: Vec<(String, PathBuf, PathBuf)>,
    /// Databases merged into their copies (database, copy, what changed).
    pub databases: Vec<(PathBuf, PathBuf, crate::sqlite::Merged)>,
    /// Every agent's folder kept, the source first.
    #[serde(skip)]
    pub sources: Vec<(crate::model::Client, PathBuf)>,
    pub dry_run: bool,
    pub files_checked: u64,
    pub bytes_checked: u64,
    #[serde(flatten)]
    pub tally: Tally,
    /// Files copied, extended or rewritten, by tree and path.
    pub changes: Vec<FileChange>,
    /// Files whose only news is an incomplete last line.
    pub waiting: Vec<String>,
    /// Files the archive keeps that the source deleted (moved ones excluded).
    pub only_in_archive: Amount,
    /// Of those, the ones this sync found deleted.
    pub newly_deleted: Vec<String>,
    /// Files the source moved to another project (`relocated`): old → new path.
    pub moved: Vec<(String, String)>,
    /// Previous versions of rewritten files the archive keeps.
    pub kept_versions: usize,
    pub warnings: Vec<String>,
    pub errors: Vec<String>,
    #[serde(rename = "seconds", serialize_with = "secs")]
    pub elapsed: Duration,
    #[serde(skip)]
    pub(super) checked_bytes: u64,
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1000.0).round() / 1000.0)
}

impl SyncReport {
    pub(super) fn new(
        source: &Path,
        archive: &Path,
        places: &[(&'static str, Option<PathBuf>)],
        dry_run: bool,
    ) -> SyncReport {
        SyncReport {
            source: source.to_path_buf(),
            archive: archive.to_path_buf(),
            to: archive.to_path_buf(),
            places: places.iter().cloned().collect(),
            clients: Vec::new(),
            databases: Vec::new(),
            sources: Vec::new(),
            dry_run,
            files_checked: 0,
            bytes_checked: 0,
            tally: Tally::default(),
            changes: Vec::new(),
            waiting: Vec::new(),
            only_in_archive: Amount::default(),
            newly_deleted: Vec::new(),
            moved: Vec::new(),
            kept_versions: 0,
            warnings: Vec::new(),
            errors: Vec::new(),
            elapsed: Duration::ZERO,
            checked_bytes: 0,
        }
    }

    /// Sums the changes and what the record says the source no longer has.
    pub(super) fn finish(&mut self, previous: &Record, record: &Record, mut changes: Vec<FileChange>) {
        changes.sort_by(|a, b| (a.tree, &a.rel).cmp(&(b.tree, &b.rel)));
        self.files_checked = changes.iter().filter(|c| !c.vanished).count() as u64;
        self.bytes_checked = self.checked_bytes;
        for c in &changes {
            match c.action {
                Action::UpToDate if !c.vanished => self.tally.unchanged += 1,
                Action::UpToDate => {}
                Action::Wait { .. } => {
                    self.tally.waiting += 1;
                    self.waiting.push(c.shown());
                }
                Action::Copy { .. } => self.tally.new.add(c.lines, c.bytes),
                Action::Append { .. } | Action::Merge { .. } => self.tally.grown.add(c.lines, c.bytes),
                Action::Replace { .. } => self.tally.rewritten.add(c.lines, c.bytes),
            }
        }
        self.changes = changes.into_iter().filter(FileChange::wrote).collect();
        for g in &record.gone {
            let shown = format!("{}{}", g.tree.label(), g.path);
            if let Some(to) = &g.moved_to {
                self.moved.push((shown, to.clone()));
                continue;
            }
            self.only_in_archive.add(g.lines, g.bytes);
            let known = previous.gone.iter().any(|p| p.tree == g.tree && p.path == g.path && p.moved_to.is_none());
            if !known {
                self.newly_deleted.push(shown);
            }
        }
        self.kept_versions = record.kept.len();
    }

    /// The errors as one message, for the exit status.
    pub fn error_text(&self) -> String {
        let mut s = format!("{} could not be synced (the rest was):", files(self.errors.len() as u64));
        for e in self.errors.iter().take(SYNC_LISTED) {
            let _ = write!(s, "\n  {e}");
        }
        if self.errors.len() > SYNC_LISTED {
            let _ = write!(s, "\n  … and {} more", self.errors.len() - SYNC_LISTED);
        }
        s.push_str(
            "\nfix the cause (space, permissions) and run `cctree sync` again: it goes on where this one stopped",
        );
        s
    }

    /// The report for people.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let would = |done: &'static str, dry: &'static str| if self.dry_run { dry } else { done };
        let checked = format!("{}, {}", files(self.files_checked), size(self.bytes_checked));
        if self.tally.is_noop() {
            let _ = writeln!(
                s,
                "nothing to do: the archive {} is up to date with {} (checked {checked} in {:.2} s)",
                self.to.display(),
                self.source.display(),
                self.elapsed.as_secs_f64()
            );
        } else {
            let _ = writeln!(
                s,
                "{} {} → {} (checked {checked} in {:.2} s)",
                would("synced", "dry run, nothing written:"),
                self.source.display(),
                self.to.display(),
                self.elapsed.as_secs_f64()
            );
        }
        for (agent, from, to) in &self.clients {
            let _ = writeln!(s, "  and {agent}: {} → {}", from.display(), to.display());
        }
        for (db, copy, m) in &self.databases {
            let _ = writeln!(
                s,
                "  {} → {}: {} {} new or changed, {} kept that the database no longer has",
                db.display(),
                copy.display(),
                m.rows,
                if m.rows == 1 { "row" } else { "rows" },
                m.kept
            );
        }
        self.text_changes(&mut s, would);
        self.text_kept(&mut s);
        for w in &self.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    }

    fn text_changes(&self, s: &mut String, would: impl Fn(&'static str, &'static str) -> &'static str) {
        let t = &self.tally;
        if t.new.files > 0 {
            let _ = writeln!(
                s,
                "{} {}: {} lines, {}",
                would("added", "would add"),
                files(t.new.files).replacen(' ', " new ", 1),
                num(t.new.lines),
                size(t.new.bytes)
            );
            list(s, self.changes.iter().filter(|c| matches!(c.action, Action::Copy { .. })).map(|c| c.shown()));
        }
        if t.grown.files > 0 {
            let _ = writeln!(
                s,
                "{} {} lines ({}) to {}",
                would("appended", "would append"),
                num(t.grown.lines),
                size(t.grown.bytes),
                files(t.grown.files)
            );
            list(
                s,
                self.changes.iter().filter_map(|c| match c.action {
                    Action::Append { .. } => Some(c.shown()),
                    Action::Merge { .. } => {
                        Some(format!("{} (rewritten at the source: its new lines added)", c.shown()))
                    }
                    _ => None,
                }),
            );
        }
        if t.rewritten.files > 0 {
            let _ = writeln!(
                s,
                "{} the previous version of {} rewritten at the source, and copied the new one ({} lines, {}):",
                would("kept", "would keep"),
                files(t.rewritten.files),
                num(t.rewritten.lines),
                size(t.rewritten.bytes)
            );
            list(
                s,
                self.changes.iter().filter_map(|c| match &c.action {
                    Action::Replace { keep_as, why, .. } => {
                        Some(format!("{} ({}) → {keep_as}", c.shown(), why.describe()))
                    }
                    _ => None,
                }),
            );
        }
        if t.waiting > 0 {
            let _ = writeln!(s, "waiting for the end of an incomplete last line in {} (next run)", files(t.waiting));
            list(s, self.waiting.iter().cloned());
        }
    }

    fn text_kept(&self, s: &mut String) {
        let o = &self.only_in_archive;
        if o.files > 0 {
            let _ = writeln!(
                s,
                "the archive keeps {} the source no longer has ({} lines, {}){}",
                files(o.files),
                num(o.lines),
                size(o.bytes),
                if self.newly_deleted.is_empty() {
                    String::new()
                } else {
                    format!("; {} deleted since the last sync:", self.newly_deleted.len())
                }
            );
            list(s, self.newly_deleted.iter().cloned());
        }
        if !self.moved.is_empty() {
            let _ = writeln!(
                s,
                "{} moved at the source to another project (kept in the old place too):",
                files(self.moved.len() as u64)
            );
            list(s, self.moved.iter().map(|(a, b)| format!("{a} → {b}")));
        }
        if self.kept_versions > 0 {
            let _ = writeln!(
                s,
                "the archive keeps {} of rewritten files",
                plural(self.kept_versions as u64, "previous version")
            );
        }
    }
}

fn list(s: &mut String, items: impl Iterator<Item = String>) {
    let mut n = 0;
    for item in items {
        if n < SYNC_LISTED {
            let _ = writeln!(s, "  {}", crate::term::escape(&item));
        }
        n += 1;
    }
    if n > SYNC_LISTED {
        let _ = writeln!(s, "  … and {} more", n - SYNC_LISTED);
    }
}

/// `1 file`, `12,345 files`.
fn files(n: u64) -> String {
    plural(n, "file")
}

fn plural(n: u64, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{} {what}s", num(n)) }
}

/// `12,345`.
fn num(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1.20 MB` (as on pages: [`crate::render::plain::human_size`]).
fn size(bytes: u64) -> String {
    indicatif::DecimalBytes(bytes).to_string()
}

/// A progress bar over the bytes to check, drawn only on a terminal.
pub fn progress(total: u64, show: bool) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} syncing [{bar:30}] {bytes}/{total_bytes}  {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(num(0), "0");
        assert_eq!(num(1234567), "1,234,567");
        assert_eq!(size(999), "999 B");
        assert_eq!(size(1_500_000), "1.50 MB");
    }
}
