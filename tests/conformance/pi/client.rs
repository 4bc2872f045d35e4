//! The pinned Pi and a sandbox to run it in (transcript-format, Appendix E,
//! "Running it offline"): its own `HOME` (so its own `~/.pi/agent`), a
//! working directory, the mock provider in `~/.pi/agent/models.json`
//! (`api: openai-completions`, `baseUrl` the chat-completions mock on
//! loopback, the key read from `MOCK_API_KEY`), `settings.json` choosing it
//! with telemetry, analytics and cache warming off, and the environment
//! `PI_OFFLINE=1`, `PI_SKIP_VERSION_CHECK=1`, `PI_TELEMETRY=0`, nothing else
//! (`env_clear`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::chat::{Answer, Chat, directives};
use crate::http::Server;
use crate::tmux::Tmux;

/// The version the suite is pinned to (`tests/conformance/pi/package-lock.json`).
pub const VERSION: &str = "1.6.0";

/// A fake key: sent as `Authorization: Bearer …`, written to no file.
pub const API_KEY: &str = "cctree-conformance-fake-pi-key";

pub const MODEL: &str = "mock-model";

fn installed() -> PathBuf {
    crate::gate::tools().join(format!("pi-coding-agent-{VERSION}/pi"))
}

/// The client (the launcher, or `CCTREE_PI`), or `None` (see `gate::client`).
/// Panics loudly when it is not the pinned version.
pub fn client() -> Option<PathBuf> {
    let bin = std::env::var_os("CCTREE_PI").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(installed);
    let bin = crate::gate::client("PI", &format!("Pi {VERSION}"), bin, "scripts/install-pi.sh", "CCTREE_PI")?;
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(&bin)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("PI_OFFLINE", "1")
        .env("PI_SKIP_VERSION_CHECK", "1")
        .env("PI_TELEMETRY", "0")
        .stdin(Stdio::null())
        .output()
        .expect("run pi --version");
    // Pi prints its version on stderr.
    let version = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(version.trim(), VERSION, "{} is not the pinned Pi", bin.display());
    Some(bin)
}

/// Whether a request is one of Pi's summarising requests (a branch summary
/// or a compaction): its system prompt is the summarizer's.
pub fn is_summary_request(chat: &Chat) -> bool {
    chat.system.starts_with("You are a context summarization assistant")
}

/// What the person typed of a prompt (its last line).
pub fn typed(p: &str) -> String {
    p.trim().lines().last().unwrap_or("").trim().to_string()
}

/// The mock's answers: a summarising request `Branch summary of the
/// exploration.`; `[[sh: CMD]]` a `bash` call; a tool's result `Done with:
/// <prompt>`; any other prompt `Reply to: <its last line>`.
pub fn answer(chat: &Chat) -> Answer {
    if is_summary_request(chat) {
        return Answer::text("Branch summary of the exploration.");
    }
    let prompt = chat.prompt();
    if chat.answers_a_call() {
        return Answer::text(format!("Done with: {}", typed(&prompt).chars().take(40).collect::<String>()));
    }
    let calls: Vec<(String, Value)> =
        directives(&prompt, "sh").into_iter().map(|c| ("bash".to_string(), json!({"command": c}))).collect();
    if !calls.is_empty() {
        return Answer::calls(calls);
    }
    Answer::text(format!("Reply to: {}", typed(&prompt).chars().take(80).collect::<String>()))
}

pub struct Sandbox {
    pub bin: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
    /// `~/.pi/agent`.
    pub agent: PathBuf,
    pub work: PathBuf,
    pub mock: Server,
    _tmp: tempfile::TempDir,
}

impl Sandbox {
    pub fn new(bin: &Path, name: &str) -> Sandbox {
        let t = tempfile::Builder::new().prefix(&format!("cctree-pi-{name}-")).tempdir().expect("tempdir");
        let root = t.path().to_path_buf();
        let (home, work) = (root.join("home"), root.join("work"));
        let agent = home.join(".pi/agent");
        for d in [&agent, &work] {
            std::fs::create_dir_all(d).expect("create sandbox dirs");
        }
        let mock = crate::chat::start(Arc::new(answer));
        let model = |id: &str| {
            json!({"id": id, "name": id, "contextWindow": 128_000, "maxTokens": 4096,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}})
        };
        let models = json!({"providers": {"mock": {"name": "Mock", "baseUrl": format!("{}/v1", mock.base_url()),
            "api": "openai-completions", "apiKey": "$MOCK_API_KEY",
            "models": [model(MODEL), model("mock-model-2")]}}});
        std::fs::write(agent.join("models.json"), serde_json::to_vec_pretty(&models).unwrap()).unwrap();
        let settings = json!({"defaultProvider": "mock", "defaultModel": MODEL, "defaultProjectTrust": "always",
            "enableInstallTelemetry": false, "enableAnalytics": false, "cacheWarming": "off",
            "quietStartup": true, "collapseChangelog": true});
        std::fs::write(agent.join("settings.json"), serde_json::to_vec_pretty(&settings).unwrap()).unwrap();
        Sandbox { bin: bin.to_path_buf(), root, home, agent, work, mock, _tmp: t }
    }

    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.home.display().to_string()),
            ("PI_OFFLINE".into(), "1".into()),
            ("PI_SKIP_VERSION_CHECK".into(), "1".into()),
            ("PI_TELEMETRY".into(), "0".into()),
            ("MOCK_API_KEY".into(), API_KEY.into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm-256color".into()),
        ]
    }

    /// `~/.pi/agent/sessions`, the input cctree reads.
    pub fn sessions_dir(&self) -> PathBuf {
        self.agent.join("sessions")
    }

    /// The project folder of the working directory (the only one).
    pub fn project(&self) -> PathBuf {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(self.sessions_dir())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        assert_eq!(dirs.len(), 1, "one project folder: {dirs:?}");
        dirs.pop().unwrap()
    }

    /// Runs `pi ARGS` (at most 180 s) and asserts it succeeded.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.bin);
        c.args(args).current_dir(&self.work).env_clear().envs(self.env());
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn pi");
        let start = Instant::now();
        while child.try_wait().expect("wait for pi").is_none() {
            if start.elapsed() > Duration::from_secs(180) {
                let _ = child.kill();
                panic!("pi {args:?} did not finish in 180 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("pi output");
        assert!(
            out.status.success(),
            "pi {args:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `pi ARGS -p PROMPT`.
    pub fn print(&self, args: &[&str], prompt: &str) -> Output {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["-p", prompt]);
        self.run(&a)
    }

    /// The TUI (`pi ARGS`) in tmux, ready once the footer shows the model.
    pub fn tui(&self, args: &[&str]) -> Tmux {
        let mut argv = vec![self.bin.display().to_string()];
        argv.extend(args.iter().map(|a| a.to_string()));
        let t = Tmux::start(&self.root, &self.work, &self.env(), &argv);
        t.wait_for(MODEL, 60);
        std::thread::sleep(Duration::from_millis(500));
        t
    }

    /// The session files of the project folder (`*.jsonl` directly in it),
    /// oldest first by the time in their name.
    pub fn sessions(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(self.project())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        out.sort();
        out
    }

    /// The chat-completions requests of the conversation (not the
    /// summarizer's), oldest first.
    pub fn chats(&self) -> Vec<Chat> {
        self.mock
            .requests()
            .into_iter()
            .filter(|r| r.route().ends_with("/chat/completions"))
            .map(|r| Chat::of(&r.body))
            .filter(|c| !is_summary_request(c))
            .collect()
    }
}

/// Every line of a session file.
pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap_or_default().lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// The text of a `message` entry's content (its text parts).
pub fn text(v: &Value) -> String {
    crate::chat::text(&v["message"]["content"])
}

/// The id of the first `message` entry of `role` whose text is `t`.
pub fn id_of(ls: &[Value], role: &str, t: &str) -> String {
    ls.iter()
        .find(|v| v["type"] == "message" && v["message"]["role"] == role && text(v) == t)
        .and_then(|v| v["id"].as_str())
        .unwrap_or_else(|| panic!("no {role} entry {t:?}"))
        .to_string()
}

/// The header's session id.
pub fn session_id(path: &Path) -> String {
    lines(path)[0]["id"].as_str().unwrap().to_string()
}
