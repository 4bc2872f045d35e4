//! The pinned GitHub Copilot CLI and a sandbox to run it in (transcript-format,
//! Appendix I, "Driving it offline"): its own `HOME` (so its own `~/.copilot`),
//! a working directory, and the BYOK environment — `COPILOT_OFFLINE=true`,
//! `COPILOT_PROVIDER_BASE_URL` (the chat-completions mock on loopback),
//! `COPILOT_PROVIDER_API_KEY` (fake), `COPILOT_MODEL` and its token limits —
//! nothing else (`env_clear`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::chat::{Answer, Chat, directives};
use crate::http::Server;

/// The version the suite is pinned to (`tests/conformance/copilot/package-lock.json`).
pub const VERSION: &str = "1.0.102";

/// A fake key: sent as `Authorization: Bearer …`, written to no file.
pub const API_KEY: &str = "cctree-conformance-fake-copilot-key";

pub const MODEL: &str = "mock-model";

fn installed() -> PathBuf {
    let arch = if cfg!(target_arch = "aarch64") { "arm64" } else { "x64" };
    let os = if cfg!(target_os = "macos") { "darwin" } else { "linux" };
    crate::gate::tools().join(format!("copilot-{VERSION}-{os}-{arch}/bin/copilot"))
}

/// The client (the launcher, or `CCTREE_COPILOT`), or `None` (see `gate::client`).
/// Panics loudly when it is not the pinned version.
pub fn client() -> Option<PathBuf> {
    let bin = std::env::var_os("CCTREE_COPILOT").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(installed);
    let bin = crate::gate::client(
        "COPILOT",
        &format!("GitHub Copilot CLI {VERSION}"),
        bin,
        "scripts/install-copilot.sh",
        "CCTREE_COPILOT",
    )?;
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(&bin)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .expect("run copilot --version");
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        version.lines().next().unwrap_or("").trim() == format!("GitHub Copilot CLI {VERSION}."),
        "{} is not the pinned GitHub Copilot CLI ({version:?})",
        bin.display()
    );
    Some(bin)
}

/// What the person typed of a prompt as sent: its last line
/// (`<current_datetime>…</current_datetime>` comes first).
pub fn typed(p: &str) -> String {
    p.trim().lines().last().unwrap_or("").trim().to_string()
}

/// The mock's answers: `[[sh: CMD]]` a `bash` call, a tool's result
/// `Done with: <prompt>`, any other prompt `Reply to: <its last line>`.
pub fn answer(chat: &Chat) -> Answer {
    let prompt = chat.prompt();
    if chat.answers_a_call() {
        return Answer::text(format!("Done with: {}", typed(&prompt).chars().take(40).collect::<String>()));
    }
    let calls: Vec<(String, Value)> = directives(&prompt, "sh")
        .into_iter()
        .map(|c| {
            ("bash".to_string(), json!({"command": c, "description": "mock shell", "mode": "sync", "initial_wait": 30}))
        })
        .collect();
    if !calls.is_empty() {
        return Answer::calls(calls);
    }
    Answer::text(format!("Reply to: {}", typed(&prompt).chars().take(80).collect::<String>()))
}

pub struct Sandbox {
    pub bin: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
    /// `~/.copilot`.
    pub copilot: PathBuf,
    pub work: PathBuf,
    pub mock: Server,
    _tmp: tempfile::TempDir,
}

impl Sandbox {
    pub fn new(bin: &Path, name: &str) -> Sandbox {
        let t = tempfile::Builder::new().prefix(&format!("cctree-copilot-{name}-")).tempdir().expect("tempdir");
        let root = t.path().to_path_buf();
        let (home, work) = (root.join("home"), root.join("work"));
        let copilot = home.join(".copilot");
        for d in [&copilot, &work] {
            std::fs::create_dir_all(d).expect("create sandbox dirs");
        }
        let mock = crate::chat::start(Arc::new(answer));
        Sandbox { bin: bin.to_path_buf(), root, home, copilot, work, mock, _tmp: t }
    }

    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.home.display().to_string()),
            ("COPILOT_OFFLINE".into(), "true".into()),
            ("COPILOT_AUTO_UPDATE".into(), "false".into()),
            ("COPILOT_PROVIDER_BASE_URL".into(), format!("{}/v1", self.mock.base_url())),
            ("COPILOT_PROVIDER_API_KEY".into(), API_KEY.into()),
            ("COPILOT_MODEL".into(), MODEL.into()),
            ("COPILOT_PROVIDER_MAX_PROMPT_TOKENS".into(), "128000".into()),
            ("COPILOT_PROVIDER_MAX_OUTPUT_TOKENS".into(), "4096".into()),
            ("COPILOT_ALLOW_ALL".into(), "true".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm-256color".into()),
        ]
    }

    /// Runs `copilot --allow-all ARGS` (at most 180 s) and asserts it succeeded.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.bin);
        c.arg("--allow-all").args(args).current_dir(&self.work).env_clear().envs(self.env());
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn copilot");
        let start = Instant::now();
        while child.try_wait().expect("wait for copilot").is_none() {
            if start.elapsed() > Duration::from_secs(180) {
                let _ = child.kill();
                panic!("copilot {args:?} did not finish in 180 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("copilot output");
        assert!(
            out.status.success(),
            "copilot {args:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `copilot ARGS -p PROMPT`.
    pub fn print(&self, args: &[&str], prompt: &str) -> Output {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["-p", prompt]);
        self.run(&a)
    }

    /// The session folders, `session-state/<id>/`, by creation order of their
    /// `events.jsonl` (modification time).
    pub fn sessions(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(self.copilot.join("session-state"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("events.jsonl").is_file())
            .collect();
        out.sort_by_key(|p| p.join("events.jsonl").metadata().and_then(|m| m.modified()).ok());
        out
    }

    /// The chat-completions requests the mock received that offer tools
    /// (the conversation's turns), oldest first.
    pub fn chats(&self) -> Vec<Chat> {
        self.mock
            .requests()
            .into_iter()
            .filter(|r| r.route().ends_with("/chat/completions"))
            .map(|r| Chat::of(&r.body))
            .filter(|c| !c.tools.is_empty())
            .collect()
    }
}

/// Every event of an `events.jsonl`.
pub fn events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap_or_default().lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}
