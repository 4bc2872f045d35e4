//! The pinned Claude Code client, and a sandbox to run it in: an isolated
//! `HOME` and `CLAUDE_CONFIG_DIR`, a working directory, and a mock API on
//! loopback. `-p` runs are plain processes; the TUI runs in tmux.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mock::Mock;

/// The version the suite is pinned to (`tests/conformance/package-lock.json`).
pub const VERSION: &str = "2.1.332";

/// A fake key: the client only needs one to exist.
const API_KEY: &str = "sk-ant-api03-cctree-conformance-fake-key-0000";

/// Where `scripts/install-claude.sh` installs the client:
/// `<target>/tools/claude-code-<version>-<platform>/claude`.
fn installed() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let tools = target.join("tools");
    let prefix = format!("claude-code-{VERSION}-");
    std::fs::read_dir(&tools)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path().join("claude"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| tools.join(format!("{prefix}<platform>/claude")))
}

/// The client binary. When it is missing: a failure if the suite is required
/// (`CCTREE_REQUIRE_CONFORMANCE=1`, as `scripts/test.sh` sets, or `CI`), else
/// `None` after a notice written straight to the terminal (past the test
/// harness's capture), once. `CCTREE_SKIP_CONFORMANCE=1` skips it with the
/// same notice, except in CI. Panics loudly when the installed client is not
/// the pinned version.
pub fn client() -> Option<PathBuf> {
    static NOTICE: std::sync::Once = std::sync::Once::new();
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    let bin = std::env::var_os("CCTREE_CLAUDE").map(PathBuf::from).unwrap_or_else(installed);
    let in_ci = set("CI");
    let why = if set("CCTREE_SKIP_CONFORMANCE") && !in_ci {
        Some("CCTREE_SKIP_CONFORMANCE=1".to_string())
    } else if !bin.is_file() {
        Some(format!("the pinned Claude Code {VERSION} is not installed at {}", bin.display()))
    } else {
        None
    };
    if let Some(why) = why {
        if in_ci || set("CCTREE_REQUIRE_CONFORMANCE") {
            panic!(
                "the conformance suite cannot run: {why}; run scripts/install-claude.sh (or set CCTREE_CLAUDE to the binary)"
            );
        }
        NOTICE.call_once(|| {
            let banner = format!(
                "\n*** CLAUDE CODE CONFORMANCE SUITE NOT RUN: {why}\n*** run scripts/install-claude.sh \
                 (or scripts/test.sh, which installs it); scripts/test.sh and CI require it.\n\n"
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr(), banner.as_bytes());
        });
        return None;
    }
    let out =
        Command::new(&bin).arg("--version").env("DISABLE_AUTOUPDATER", "1").output().expect("run claude --version");
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        version.starts_with(&format!("{VERSION} ")),
        "{} is Claude Code {version:?}, not the pinned {VERSION}: run scripts/install-claude.sh",
        bin.display()
    );
    Some(bin)
}

/// An isolated home for the client, with its own mock API.
pub struct Sandbox {
    pub bin: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
    pub config: PathBuf,
    pub work: PathBuf,
    pub mock: Mock,
    _tmp: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// A fresh sandbox named `name`. When fixtures are being recorded the root
    /// is a fixed path (`/tmp/cctree-client-<version>/<name>`), so that the
    /// paths written into the transcripts are stable.
    pub fn new(bin: &Path, name: &str) -> Sandbox {
        let (root, tmp) = if crate::record::recording() {
            let r = std::env::temp_dir().join(format!("cctree-client-{VERSION}")).join(name);
            let _ = std::fs::remove_dir_all(&r);
            (r, None)
        } else {
            let t = tempfile::Builder::new().prefix(&format!("cctree-cc-{name}-")).tempdir().expect("tempdir");
            (t.path().to_path_buf(), Some(t))
        };
        let (home, config, work) = (root.join("home"), root.join("config"), root.join("work"));
        for d in [&home, &config, &work] {
            std::fs::create_dir_all(d).expect("create sandbox dirs");
        }
        let s = Sandbox { bin: bin.to_path_buf(), root, home, config, work, mock: Mock::start(), _tmp: tmp };
        s.onboard();
        s
    }

    /// What the client needs to start without first-run dialogs: onboarding
    /// done, the fake key approved, the working directory trusted.
    fn onboard(&self) {
        let key_tail: String = API_KEY.chars().rev().take(20).collect::<Vec<_>>().into_iter().rev().collect();
        let mut projects = serde_json::Map::new();
        projects.insert(
            self.work.to_string_lossy().into_owned(),
            json!({"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}),
        );
        let cfg = json!({
            "hasCompletedOnboarding": true,
            "lastOnboardingVersion": VERSION,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
            "projects": projects,
        });
        std::fs::write(self.config.join(".claude.json"), serde_json::to_vec_pretty(&cfg).unwrap()).unwrap();
    }

    /// The environment of every client process: nothing from the host but
    /// `PATH`, and only loopback traffic.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut v = vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.home.display().to_string()),
            ("CLAUDE_CONFIG_DIR".into(), self.config.display().to_string()),
            ("ANTHROPIC_BASE_URL".into(), self.mock.base_url()),
            ("ANTHROPIC_API_KEY".into(), API_KEY.into()),
            ("DISABLE_TELEMETRY".into(), "1".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(), "1".into()),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm-256color".into()),
        ];
        v.push(("SHELL".into(), "/bin/bash".into()));
        v
    }

    /// A client process in the working directory.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args).current_dir(&self.work).env_clear().envs(self.env()).stdin(Stdio::null());
        c
    }

    /// Runs `claude ARGS` with extra environment, waits (at most 120 s), and
    /// asserts it succeeded.
    pub fn run_env(&self, extra: &[(&str, &str)], args: &[&str]) -> Output {
        let mut c = self.command(args);
        c.envs(extra.iter().map(|(k, v)| (*k, *v))).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn claude");
        let start = Instant::now();
        loop {
            if child.try_wait().expect("wait for claude").is_some() {
                break;
            }
            if start.elapsed() > Duration::from_secs(120) {
                let _ = child.kill();
                panic!("claude {args:?} did not finish in 120 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("claude output");
        assert!(
            out.status.success(),
            "claude {args:?} failed ({}):\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Runs `claude ARGS` (see [`Sandbox::run_env`]).
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_env(&[], args)
    }

    /// `claude -p PROMPT` with more arguments before it.
    pub fn print(&self, args: &[&str], prompt: &str) -> String {
        let mut a: Vec<&str> = vec!["--allowedTools", "Bash,Write"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["-p", prompt]);
        String::from_utf8_lossy(&self.run(&a).stdout).into_owned()
    }

    pub fn projects(&self) -> PathBuf {
        self.config.join("projects")
    }

    /// The project directory of the working directory.
    pub fn project(&self) -> PathBuf {
        let name: String =
            self.work.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        self.projects().join(name)
    }

    /// Session ids of the project's transcripts, oldest file first.
    pub fn sessions(&self) -> Vec<String> {
        let mut v: Vec<(std::time::SystemTime, String)> = std::fs::read_dir(self.project())
            .map(|rd| {
                rd.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
                    .map(|e| {
                        let t = e.metadata().and_then(|m| m.modified()).unwrap_or(std::time::UNIX_EPOCH);
                        (t, e.path().file_stem().unwrap().to_string_lossy().into_owned())
                    })
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v.into_iter().map(|(_, s)| s).collect()
    }
}

/// The JSON lines of a file.
pub fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: bad line {l}: {e}", path.display())))
        .collect()
}

/// The client's TUI in a tmux session of its own.
pub struct Tui {
    socket: PathBuf,
}

impl Tui {
    /// Starts `claude ARGS` in a 160×50 terminal and waits for the prompt box.
    pub fn start(s: &Sandbox, args: &[&str], extra_env: &[(&str, &str)]) -> Tui {
        let socket = s.root.join("tmux.sock");
        let mut cmd = Command::new("tmux");
        cmd.arg("-S").arg(&socket).args(["-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50", "-s", "cc"]);
        cmd.arg("-c").arg(&s.work).arg("--").arg("env").arg("-i");
        for (k, v) in s.env().iter().map(|(k, v)| (k.as_str(), v.as_str())).chain(extra_env.iter().copied()) {
            cmd.arg(format!("{k}={v}"));
        }
        cmd.arg(&s.bin).args(["--allowedTools", "Bash,Write"]).args(args);
        let st = cmd.status().expect("tmux (install it: apt-get install tmux)");
        assert!(st.success(), "tmux new-session failed");
        let t = Tui { socket };
        t.wait_for("❯", 60);
        t
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux")
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "cc"]).stdout).into_owned()
    }

    /// Sends keys by tmux name (`Enter`, `Escape`, `Up`, `C-u`).
    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "cc", k]);
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Types text literally, then Enter.
    pub fn type_line(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "cc", "-l", text]);
        std::thread::sleep(Duration::from_millis(400));
        self.keys(&["Enter"]);
    }

    /// Waits until the screen shows `text`; panics with the screen after `secs`.
    pub fn wait_for(&self, text: &str, secs: u64) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(secs) {
                panic!("the client's screen never showed {text:?}; it shows:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Waits until the client is idle: the screen shows `text` and no spinner line.
    pub fn wait_idle(&self, text: &str, secs: u64) -> String {
        self.wait_for(text, secs);
        std::thread::sleep(Duration::from_millis(800));
        self.screen()
    }

    /// `/exit`, then waits for the process to end.
    pub fn exit(self) {
        self.type_line("/exit");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(20) {
            if !self.tmux(&["has-session", "-t", "cc"]).status.success() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}
