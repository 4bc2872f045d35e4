//! What `cctree serve` watches, and when a change has settled.
//!
//! The roots are what the build read ([`crate::discover::Archive::inputs`]:
//! every directory read whole, each file given alone, the prompt history
//! beside a projects directory: `recover::history_for`), plus the directories a
//! sync copies from (Claude Code's, Codex CLI's and Gemini CLI's that it synced): whatever inputs discovery comes to read (another
//! client's sessions directory), the watch follows, since the list is taken
//! again after each render. A directory is watched recursively; a file by its
//! directory (an editor or a sync may replace it by a rename).
//!
//! `notify` watches (inotify, FSEvents, kqueue, ReadDirectoryChanges; past
//! the system's limit on watches, polling every [`POLL`]). Its events are
//! filtered before they wake the builder: opening or reading a file is no
//! change (the render itself opens every file it reads: counted, those
//! events would start a render after each render), closing a file written
//! is one. The wake-ups go through a channel of one slot, so a burst costs
//! nothing; [`settle`] then waits for quiet.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher};

/// How often the input is looked at when the system cannot watch it.
const POLL: Duration = Duration::from_secs(2);

/// The watcher and what it watches.
pub(super) struct Watch {
    watcher: Box<dyn Watcher + Send>,
    polling: bool,
    wake: SyncSender<()>,
    /// (path asked for, path watched, mode).
    roots: Vec<(PathBuf, PathBuf, RecursiveMode)>,
}

/// What wakes the builder: a change, not a read.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

fn handler(wake: SyncSender<()>) -> impl notify::EventHandler {
    move |event: notify::Result<notify::Event>| {
        let change = match event {
            Ok(e) => is_change(&e.kind),
            Err(e) => {
                // Lost events (a queue overflow): render to be sure.
                tracing::debug!("watching the input: {e}");
                true
            }
        };
        if change {
            match wake.try_send(()) {
                Ok(()) | Err(TrySendError::Full(())) | Err(TrySendError::Disconnected(())) => {}
            }
        }
    }
}

impl Watch {
    /// A watcher that wakes `wake`, watching nothing yet.
    pub(super) fn new(wake: SyncSender<()>) -> notify::Result<Watch> {
        let watcher = notify::recommended_watcher(handler(wake.clone()))?;
        Ok(Watch { watcher: Box::new(watcher), polling: false, wake, roots: Vec::new() })
    }

    /// Watches `paths` (and stops watching what is no longer among them).
    pub(super) fn set(&mut self, paths: &[PathBuf]) {
        let wanted: Vec<(PathBuf, PathBuf, RecursiveMode)> = paths.iter().filter_map(|p| target(p)).collect();
        let gone: Vec<_> = self.roots.iter().filter(|r| !wanted.contains(r)).cloned().collect();
        for (_, watched, _) in &gone {
            let _ = self.watcher.unwatch(watched);
        }
        self.roots.retain(|r| wanted.contains(r));
        for root in wanted {
            if self.roots.contains(&root) {
                continue;
            }
            match self.watcher.watch(&root.1, root.2) {
                Ok(()) => self.roots.push(root),
                Err(e) if !self.polling && matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => {
                    tracing::warn!(
                        "the system's limit on watched directories is reached ({e}): looking for changes every {} s \
                         instead (on Linux, raise fs.inotify.max_user_watches)",
                        POLL.as_secs()
                    );
                    self.poll_instead();
                    let paths: Vec<PathBuf> = self.roots.iter().map(|r| r.0.clone()).chain([root.0]).collect();
                    self.roots.clear();
                    return self.set(&paths);
                }
                Err(e) => tracing::warn!("cannot watch {}: {e}; its changes are not followed", root.0.display()),
            }
        }
    }

    fn poll_instead(&mut self) {
        let config = notify::Config::default().with_poll_interval(POLL);
        match notify::PollWatcher::new(handler(self.wake.clone()), config) {
            Ok(w) => {
                self.watcher = Box::new(w);
                self.polling = true;
            }
            Err(e) => tracing::warn!("cannot look for changes: {e}"),
        }
    }

    /// What is watched: the paths asked for.
    #[cfg(test)]
    pub(super) fn roots(&self) -> Vec<&Path> {
        self.roots.iter().map(|r| r.0.as_path()).collect()
    }
}

/// How `path` is watched: a directory recursively, a file through its directory.
fn target(path: &Path) -> Option<(PathBuf, PathBuf, RecursiveMode)> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return Some((path.to_path_buf(), path.to_path_buf(), RecursiveMode::Recursive));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some((path.to_path_buf(), parent, RecursiveMode::NonRecursive))
}

/// After a first wake-up: waits until `quiet` passes without another, or
/// `longest` since the first (a session written without a pause still shows
/// up). `false` when the channel closed (the server stops).
pub(super) fn settle(rx: &Receiver<()>, quiet: Duration, longest: Duration) -> bool {
    let first = Instant::now();
    loop {
        let left = longest.saturating_sub(first.elapsed());
        if left.is_zero() {
            return true;
        }
        match rx.recv_timeout(quiet.min(left)) {
            Ok(()) => {}
            Err(RecvTimeoutError::Timeout) => return true,
            Err(RecvTimeoutError::Disconnected) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::sync_channel;

    #[test]
    fn reads_are_no_change() {
        assert!(!is_change(&EventKind::Access(AccessKind::Open(AccessMode::Any))));
        assert!(!is_change(&EventKind::Access(AccessKind::Close(AccessMode::Read))));
        assert!(is_change(&EventKind::Access(AccessKind::Close(AccessMode::Write))));
        assert!(is_change(&EventKind::Modify(notify::event::ModifyKind::Any)));
        assert!(is_change(&EventKind::Create(notify::event::CreateKind::File)));
    }

    #[test]
    fn settles_after_quiet_or_at_the_longest() {
        let (tx, rx) = sync_channel(1);
        // Quiet: returns after about `quiet`.
        let t = Instant::now();
        assert!(settle(&rx, Duration::from_millis(30), Duration::from_secs(10)));
        assert!(t.elapsed() < Duration::from_secs(5));
        // Wake-ups without a pause: returns at `longest`, not later.
        let writer = std::thread::spawn(move || {
            for _ in 0..200 {
                let _ = tx.try_send(());
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        // `quiet` is far longer than any pause a loaded machine puts between
        // two wake-ups, so only `longest` can end the wait.
        let t = Instant::now();
        assert!(settle(&rx, Duration::from_secs(20), Duration::from_millis(300)));
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < Duration::from_secs(20), "waited for quiet: {took:?}");
        writer.join().unwrap();
        // The sender is gone: the server stops.
        while rx.try_recv().is_ok() {}
        assert!(!settle(&rx, Duration::from_millis(30), Duration::from_secs(10)));
    }

    #[test]
    fn a_change_wakes_and_a_read_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        let (tx, rx) = sync_channel(1);
        let mut w = Watch::new(tx).unwrap();
        w.set(&[dir.path().to_path_buf()]);
        assert_eq!(w.roots(), [dir.path()]);
        let _ = std::fs::read(&file).unwrap();
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "a read woke the builder");
        std::fs::create_dir(dir.path().join("new-project")).unwrap();
        std::fs::write(dir.path().join("new-project/a.jsonl"), "{}\n").unwrap();
        // Bounded wait for the event (never a sleep taken as the answer).
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok(), "a write did not wake the builder");
        w.set(&[]);
        assert!(w.roots().is_empty());
    }
}
