//! `cctree sync --schedule` / `--unschedule`: for each scheduler,
//! in a temporary HOME whose PATH holds recording stand-ins for
//! `systemctl`, `launchctl` and `crontab` (the real ones would change the
//! machine): shown first, written only when confirmed (`--yes`), the hourly
//! command absolute, the scheduler told, and everything removed again; a
//! file cctree did not write is never removed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::cctree;

struct Home {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

const SCRIPT: &str = r#"#!/bin/sh
echo "$(basename "$0") $*" >> "$FAKE_LOG"
if [ "$(basename "$0")" = crontab ]; then
  case "$1" in
    -l) if [ -f "$FAKE_CRONTAB" ]; then cat "$FAKE_CRONTAB"; else echo "no crontab for me" >&2; exit 1; fi ;;
    -) cat > "$FAKE_CRONTAB" ;;
  esac
fi
"#;

impl Home {
    fn new() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let home = root.join("home");
        std::fs::create_dir_all(home.join(".claude/projects/-p")).unwrap();
        std::fs::write(home.join(".claude/projects/-p/s.jsonl"), "{}\n").unwrap();
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        for tool in ["systemctl", "launchctl", "crontab"] {
            use std::os::unix::fs::PermissionsExt;
            let p = bin.join(tool);
            std::fs::write(&p, SCRIPT).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Home { _tmp: tmp, root, home }
    }

    fn run(&self, scheduler: &str, args: &[&str]) -> Output {
        let path = format!("{}:{}", self.root.join("bin").display(), std::env::var("PATH").unwrap_or_default());
        let mut c: Command = cctree();
        c.arg("sync")
            .args(args)
            .env("HOME", &self.home)
            .env("PATH", path)
            .env("CCTREE_SCHEDULER", scheduler)
            .env("FAKE_LOG", self.root.join("log"))
            .env("FAKE_CRONTAB", self.root.join("crontab"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CCTREE_ARCHIVE")
            .stdin(std::process::Stdio::null());
        c.output().unwrap()
    }

    fn ok(&self, scheduler: &str, args: &[&str]) -> String {
        let out = self.run(scheduler, args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.root.join("log")).unwrap_or_default().lines().map(str::to_string).collect()
    }

    /// Files under HOME but the client's transcript.
    fn written(&self) -> Vec<PathBuf> {
        walkdir::WalkDir::new(&self.home)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file() && !e.path().starts_with(self.home.join(".claude")))
            .map(|e| e.path().strip_prefix(&self.home).unwrap().to_path_buf())
            .collect()
    }
}

fn scheduled_command(h: &Home) -> String {
    let exe = Path::new(env!("CARGO_BIN_EXE_cctree")).canonicalize().unwrap();
    let projects = h.home.join(".claude/projects").canonicalize().unwrap();
    let archive = h.home.canonicalize().unwrap().join(".local/share/cctree/projects");
    format!("{} -q sync {} --to {}", exe.display(), projects.display(), archive.display())
}

#[test]
fn a_systemd_user_timer_is_shown_written_enabled_and_removed_again() {
    let h = Home::new();
    let shown = h.ok("systemd", &["--schedule", "--dry-run"]);
    assert!(shown.contains(".config/systemd/user/cctree-sync.timer") && shown.contains("OnCalendar=hourly"), "{shown}");
    assert!(shown.contains("systemctl --user enable --now cctree-sync.timer"), "{shown}");
    assert!(h.written().is_empty() && h.log().is_empty(), "a dry run writes nothing, runs nothing");
    let refused = h.run("systemd", &["--schedule"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pass --yes"));
    assert!(h.written().is_empty(), "not confirmed: nothing written");
    h.ok("systemd", &["--schedule", "--yes"]);
    let units = h.home.join(".config/systemd/user");
    let service = std::fs::read_to_string(units.join("cctree-sync.service")).unwrap();
    let want: Vec<String> = scheduled_command(&h).split(' ').map(|w| format!("\"{w}\"")).collect();
    assert!(service.contains(&format!("ExecStart={}", want.join(" "))), "{service}");
    assert!(units.join("cctree-sync.timer").is_file());
    assert_eq!(h.log(), ["systemctl --user daemon-reload", "systemctl --user enable --now cctree-sync.timer"]);
    h.ok("systemd", &["--unschedule", "--yes"]);
    assert!(h.written().is_empty(), "removed again: {:?}", h.written());
    assert_eq!(h.log().last().unwrap(), "systemctl --user disable --now cctree-sync.timer");
    let again = h.ok("systemd", &["--unschedule", "--yes"]);
    assert!(again.contains("no hourly sync is scheduled"), "{again}");
}

#[test]
fn a_launchd_agent_is_written_loaded_and_removed_again() {
    let h = Home::new();
    h.ok("launchd", &["--schedule", "-y"]);
    let plist = h.home.join("Library/LaunchAgents/dev.cctree.sync.plist");
    let text = std::fs::read_to_string(&plist).unwrap();
    for word in scheduled_command(&h).split(' ') {
        assert!(text.contains(&format!("<string>{word}</string>")), "{word} in {text}");
    }
    assert!(text.contains("<key>StartInterval</key>\n  <integer>3600</integer>"));
    assert_eq!(h.log(), [format!("launchctl load -w {}", plist.display())]);
    h.ok("launchd", &["--unschedule", "-y"]);
    assert!(h.written().is_empty(), "{:?}", h.written());
    assert_eq!(h.log().last().unwrap(), &format!("launchctl unload -w {}", plist.display()));
}

#[test]
fn a_crontab_line_is_added_once_and_removed_leaving_the_users_lines() {
    let h = Home::new();
    std::fs::write(h.root.join("crontab"), "MAILTO=me\n0 3 * * * backup\n").unwrap();
    h.ok("cron", &["--schedule", "--yes"]);
    h.ok("cron", &["--schedule", "--yes"]);
    let tab = std::fs::read_to_string(h.root.join("crontab")).unwrap();
    let line = format!("7 * * * * {} # cctree sync --schedule", scheduled_command(&h));
    assert_eq!(tab, format!("MAILTO=me\n0 3 * * * backup\n{line}\n"), "one line, the user's kept");
    let shown = h.ok("cron", &["--unschedule", "--dry-run"]);
    assert!(shown.contains(&line), "{shown}");
    h.ok("cron", &["--unschedule", "--yes"]);
    assert_eq!(std::fs::read_to_string(h.root.join("crontab")).unwrap(), "MAILTO=me\n0 3 * * * backup\n");
    assert!(h.written().is_empty());
}

#[test]
fn a_file_cctree_did_not_write_is_never_removed_nor_replaced() {
    let h = Home::new();
    let units = h.home.join(".config/systemd/user");
    std::fs::create_dir_all(&units).unwrap();
    std::fs::write(units.join("cctree-sync.timer"), "[Timer]\nOnCalendar=daily\n").unwrap();
    let out = h.run("systemd", &["--unschedule", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("was not written by cctree"));
    let out = h.run("systemd", &["--schedule", "--yes"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(units.join("cctree-sync.timer")).unwrap(), "[Timer]\nOnCalendar=daily\n");
    assert!(!units.join("cctree-sync.service").exists(), "nothing written when one file is not cctree's");
    assert!(h.log().is_empty());
}
