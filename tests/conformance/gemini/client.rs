//! The pinned Gemini CLI and a sandbox to run it in: its own `HOME` (so its
//! own `~/.gemini`), a working directory, a `settings.json` with API-key
//! auth and no telemetry, usage statistics or update check, and the mock's
//! address in `GOOGLE_GEMINI_BASE_URL`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::http::Server;
use crate::tmux::Tmux;

/// The version the suite is pinned to (`tests/conformance/gemini/package-lock.json`).
pub const VERSION: &str = "0.61.0";

/// A fake key: the client sends it as `x-goog-api-key`.
pub const API_KEY: &str = "cctree-conformance-fake-gemini-key";

/// Where `scripts/install-gemini.sh` writes its launcher.
fn installed() -> PathBuf {
    crate::gate::tools().join(format!("gemini-cli-{VERSION}/gemini"))
}

/// The client (an executable: the launcher, or `CCTREE_GEMINI`), or `None`
/// (see `gate::client`). Panics loudly when it is not the pinned version.
pub fn client() -> Option<PathBuf> {
    let bin = std::env::var_os("CCTREE_GEMINI").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(installed);
    let bin = crate::gate::client(
        "GEMINI",
        &format!("Gemini CLI {VERSION}"),
        bin,
        "scripts/install-gemini.sh",
        "CCTREE_GEMINI",
    )?;
    let out = Command::new(&bin)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdin(Stdio::null())
        .output()
        .expect("run gemini --version");
    let version = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        version.trim(),
        VERSION,
        "{} is not the pinned Gemini CLI: run scripts/install-gemini.sh",
        bin.display()
    );
    Some(bin)
}

pub struct Sandbox {
    pub bin: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
    pub gemini_dir: PathBuf,
    pub work: PathBuf,
    pub mock: Server,
    _tmp: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// A fresh sandbox; its root is fixed when fixtures are recorded
    /// (`/tmp/cctree-gemini-<version>/<name>`).
    pub fn new(bin: &Path, name: &str) -> Sandbox {
        let (root, tmp) = if crate::record::recording() {
            let r = std::env::temp_dir().join(format!("cctree-gemini-{VERSION}")).join(name);
            let _ = std::fs::remove_dir_all(&r);
            (r, None)
        } else {
            let t = tempfile::Builder::new().prefix(&format!("cctree-gemini-{name}-")).tempdir().expect("tempdir");
            (t.path().to_path_buf(), Some(t))
        };
        let (home, work) = (root.join("home"), root.join("work"));
        let gemini_dir = home.join(".gemini");
        for d in [&gemini_dir, &work] {
            std::fs::create_dir_all(d).expect("create sandbox dirs");
        }
        let settings = json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
            "ui": {"hideTips": true, "hideBanner": true},
        });
        std::fs::write(gemini_dir.join("settings.json"), serde_json::to_vec_pretty(&settings).unwrap()).unwrap();
        Sandbox { bin: bin.to_path_buf(), root, home, gemini_dir, work, mock: super::mock::start(), _tmp: tmp }
    }

    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.home.display().to_string()),
            ("GEMINI_API_KEY".into(), API_KEY.into()),
            ("GOOGLE_GEMINI_BASE_URL".into(), self.mock.base_url()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm-256color".into()),
            ("SHELL".into(), "/bin/bash".into()),
        ]
    }

    /// Runs `gemini ARGS` (at most 120 s) and asserts it succeeded.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.bin);
        c.args(args).current_dir(&self.work).env_clear().envs(self.env());
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn gemini");
        let start = Instant::now();
        while child.try_wait().expect("wait for gemini").is_none() {
            if start.elapsed() > Duration::from_secs(120) {
                let _ = child.kill();
                panic!("gemini {args:?} did not finish in 120 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("gemini output");
        assert!(
            out.status.success(),
            "gemini {args:?} failed ({}):\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `gemini --yolo [ARGS…] -p PROMPT`; returns what it printed.
    pub fn prompt(&self, args: &[&str], prompt: &str) -> String {
        let mut a = vec!["--yolo"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["-p", prompt]);
        String::from_utf8_lossy(&self.run(&a).stdout).trim().to_string()
    }

    /// The TUI (`--yolo`), ready for a prompt.
    pub fn tui(&self, args: &[&str]) -> Tmux {
        let mut argv = vec![self.bin.display().to_string(), "--yolo".into()];
        argv.extend(args.iter().map(|a| (*a).to_string()));
        let t = Tmux::start(&self.root, &self.work, &self.env(), &argv);
        t.wait_for("Type your message", 60);
        // The prompt box shows before the client takes input.
        std::thread::sleep(Duration::from_secs(3));
        t
    }

    /// `~/.gemini/tmp/<project>`, the project's folder (its name from
    /// `~/.gemini/projects.json`).
    pub fn project(&self) -> PathBuf {
        let projects: Value =
            serde_json::from_slice(&std::fs::read(self.gemini_dir.join("projects.json")).expect("projects.json"))
                .unwrap();
        let name = projects["projects"][self.work.display().to_string()]
            .as_str()
            .expect("the working directory's project name");
        self.gemini_dir.join("tmp").join(name)
    }

    pub fn chats(&self) -> PathBuf {
        self.project().join("chats")
    }

    /// The main session files (`chats/session-*.jsonl`), by name.
    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.chats())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.file_name().unwrap().to_string_lossy().starts_with("session-"))
            .collect();
        v.sort();
        v
    }

    pub fn turns(&self) -> Vec<crate::http::Request> {
        self.mock.requests().into_iter().filter(super::mock::is_turn).collect()
    }

    /// The streamed turns of the main conversation (not the router's, the
    /// compression's or a sub-agent's).
    pub fn main_turns(&self) -> Vec<crate::http::Request> {
        self.turns()
            .into_iter()
            .filter(|r| r.route().ends_with(":streamGenerateContent"))
            .filter(|r| !r.body["tools"].to_string().contains("\"complete_task\""))
            .collect()
    }
}

/// The records of a session file.
pub fn records(path: &Path) -> Vec<Value> {
    crate::client::read_lines(path)
}

/// A session's messages as the client loads them: records keyed by `id` in
/// first-seen order, a later record with the same id replacing the earlier
/// in place; `$set.messages` replacing the whole list; `$rewindTo` dropping
/// the message it names and every later one (all of them when it names none).
pub fn load(path: &Path) -> Vec<Value> {
    let mut msgs: Vec<(String, Value)> = Vec::new();
    let put = |msgs: &mut Vec<(String, Value)>, m: &Value| {
        let id = m["id"].as_str().unwrap().to_string();
        match msgs.iter_mut().find(|(k, _)| *k == id) {
            Some(slot) => slot.1 = m.clone(),
            None => msgs.push((id, m.clone())),
        }
    };
    for r in records(path) {
        if let Some(to) = r["$rewindTo"].as_str() {
            let at = msgs.iter().position(|(k, _)| k == to).unwrap_or(0);
            msgs.truncate(at);
        } else if r["id"].is_string() {
            put(&mut msgs, &r);
        } else if let Some(list) = r["$set"]["messages"].as_array() {
            msgs.clear();
            for m in list.iter().filter(|m| m["id"].is_string()) {
                put(&mut msgs, m);
            }
        }
    }
    msgs.into_iter().map(|(_, m)| m).collect()
}

/// The typed prompts of messages (user text not starting with `<`).
pub fn prompts(msgs: &[Value]) -> Vec<String> {
    msgs.iter()
        .filter(|m| m["type"] == "user")
        .flat_map(|m| match &m["content"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str().map(str::to_string)).collect(),
            _ => vec![],
        })
        .filter(|t| !t.starts_with('<'))
        .collect()
}
