//! The pinned Qwen Code and a sandbox to run it in (transcript-format,
//! Appendix G, "Running it offline"): its own `HOME` (so its own
//! `~/.qwen`), a working directory, `settings.json` choosing the OpenAI
//! auth type with telemetry, updates, follow-up suggestions and folder
//! trust off, and the environment `OPENAI_BASE_URL` (the mock on loopback),
//! `OPENAI_API_KEY` (fake), `OPENAI_MODEL`, nothing else (`env_clear`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::http::Server;

/// The version the suite is pinned to (`tests/conformance/qwen/package-lock.json`).
pub const VERSION: &str = "0.24.4";

/// A fake key: sent as `Authorization: Bearer …`, written to no file.
pub const API_KEY: &str = "cctree-conformance-fake-qwen-key";

pub const MODEL: &str = "qwen-mock";

fn installed() -> PathBuf {
    crate::gate::tools().join(format!("qwen-code-{VERSION}/qwen"))
}

/// The client (the launcher, or `CCTREE_QWEN`), or `None` (see `gate::client`).
/// Panics loudly when it is not the pinned version.
pub fn client() -> Option<PathBuf> {
    let bin = std::env::var_os("CCTREE_QWEN").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(installed);
    let bin =
        crate::gate::client("QWEN", &format!("Qwen Code {VERSION}"), bin, "scripts/install-qwen.sh", "CCTREE_QWEN")?;
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(&bin)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .expect("run qwen --version");
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(version.trim().ends_with(VERSION), "{} is not the pinned Qwen Code ({version:?})", bin.display());
    Some(bin)
}

pub struct Sandbox {
    pub bin: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
    /// `~/.qwen`.
    pub qwen: PathBuf,
    pub work: PathBuf,
    pub mock: Server,
    _tmp: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// A fresh sandbox; its root is fixed when fixtures are recorded
    /// (`/tmp/cctree-qwen-<version>/<name>`).
    pub fn new(bin: &Path, name: &str) -> Sandbox {
        let (root, tmp) = if crate::record::recording() {
            let r = std::env::temp_dir().join(format!("cctree-qwen-{VERSION}")).join(name);
            let _ = std::fs::remove_dir_all(&r);
            (r, None)
        } else {
            let t = tempfile::Builder::new().prefix(&format!("cctree-qwen-{name}-")).tempdir().expect("tempdir");
            (t.path().to_path_buf(), Some(t))
        };
        let (home, work) = (root.join("home"), root.join("work"));
        let qwen = home.join(".qwen");
        for d in [&qwen, &work] {
            std::fs::create_dir_all(d).expect("create sandbox dirs");
        }
        let settings = json!({
            "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "general": {"enableAutoUpdate": false},
            "ui": {"enableFollowupSuggestions": false, "enableUserFeedback": false},
        });
        std::fs::write(qwen.join("settings.json"), serde_json::to_vec_pretty(&settings).unwrap()).unwrap();
        Sandbox { bin: bin.to_path_buf(), root, home, qwen, work, mock: super::mock::start(), _tmp: tmp }
    }

    /// `~/.qwen/projects`.
    pub fn projects(&self) -> PathBuf {
        self.qwen.join("projects")
    }

    /// The project folder of the working directory.
    pub fn project(&self) -> PathBuf {
        let enc: String =
            self.work.display().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        self.projects().join(enc)
    }

    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.home.display().to_string()),
            ("OPENAI_BASE_URL".into(), format!("{}/v1", self.mock.base_url())),
            ("OPENAI_API_KEY".into(), API_KEY.into()),
            ("OPENAI_MODEL".into(), MODEL.into()),
            ("QWEN_CODE_DISABLE_PRECONNECT".into(), "1".into()),
            ("QWEN_CODE_SUPPRESS_YOLO_WARNING".into(), "1".into()),
            ("NO_BROWSER".into(), "1".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm-256color".into()),
        ]
    }

    /// Runs `qwen --yolo ARGS` (at most 180 s) and asserts it succeeded.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.bin);
        c.arg("--yolo").args(args).current_dir(&self.work).env_clear().envs(self.env());
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn qwen");
        let start = Instant::now();
        while child.try_wait().expect("wait for qwen").is_none() {
            if start.elapsed() > Duration::from_secs(180) {
                let _ = child.kill();
                panic!("qwen {args:?} did not finish in 180 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("qwen output");
        assert!(
            out.status.success(),
            "qwen {args:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// The TUI (`qwen --yolo ARGS`) in tmux, once it shows its prompt box.
    pub fn tui(&self, args: &[&str]) -> crate::tmux::Tmux {
        let mut argv = vec![self.bin.display().to_string(), "--yolo".to_string()];
        argv.extend(args.iter().map(|a| a.to_string()));
        let t = crate::tmux::Tmux::start(&self.root, &self.work, &self.env(), &argv);
        t.wait_for("Type your message", 90);
        std::thread::sleep(Duration::from_millis(1000));
        t
    }

    /// `qwen ARGS -p PROMPT`.
    pub fn print(&self, args: &[&str], prompt: &str) -> Output {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["-p", prompt]);
        self.run(&a)
    }

    /// The session files of the project, `chats/<id>.jsonl`, by modification time.
    pub fn sessions(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(self.project().join("chats"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        out.sort_by_key(|p| p.metadata().and_then(|m| m.modified()).ok());
        out
    }

    /// The chat-completions requests the mock received, oldest first, that
    /// are the conversation's (not the memory extractor's).
    pub fn chats(&self) -> Vec<crate::chat::Chat> {
        self.mock
            .requests()
            .into_iter()
            .filter(|r| r.route().ends_with("/chat/completions"))
            .map(|r| crate::chat::Chat::of(&r.body))
            .filter(|c| !super::mock::is_side_request(c))
            .collect()
    }
}

/// Every record of a session file.
pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap_or_default().lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// The text parts of a record's message (no thoughts).
pub fn text(v: &Value) -> String {
    let parts = v["message"]["parts"].as_array().cloned().unwrap_or_default();
    let texts: Vec<String> = parts
        .iter()
        .filter(|p| p["thought"] != true)
        .filter_map(|p| p["text"].as_str())
        .filter(|t| !t.starts_with("<system-reminder>"))
        .map(str::to_string)
        .collect();
    texts.join("\n")
}

/// The uuid of the first record whose text is `t`.
pub fn uuid_of(ls: &[Value], t: &str) -> String {
    ls.iter()
        .find(|v| text(v) == t)
        .and_then(|v| v["uuid"].as_str())
        .unwrap_or_else(|| panic!("no record {t:?}"))
        .to_string()
}
