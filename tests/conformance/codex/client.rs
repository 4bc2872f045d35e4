//! The pinned Codex CLI and a sandbox to run it in: its own `HOME` and
//! `CODEX_HOME`, a working directory, a `config.toml` that points the model
//! provider at the mock on loopback, and nothing from the host but `PATH`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::http::Server;
use crate::tmux::Tmux;

/// The version the suite is pinned to (`tests/conformance/codex/package-lock.json`).
pub const VERSION: &str = "0.171.0";

/// A fake key: the client only needs the variable to exist.
const API_KEY: &str = "sk-cctree-conformance-fake-key-0000";

/// The model the sandbox runs: one of the client's bundled catalog whose
/// tools are plain function calls (`exec_command`, freeform `apply_patch`);
/// the catalog's newer models run every tool through a JavaScript `exec`
/// ("code mode"), which the mock does not script.
pub const MODEL: &str = "gpt-5.5";

/// Where `scripts/install-codex.sh` puts the binary:
/// `<target>/tools/codex-<version>-<platform>/vendor/<triple>/bin/codex`.
fn installed() -> PathBuf {
    let tools = crate::gate::tools();
    let prefix = format!("codex-{VERSION}-");
    std::fs::read_dir(&tools)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .flat_map(|e| std::fs::read_dir(e.path().join("vendor")).into_iter().flatten().flatten())
        .map(|t| t.path().join("bin/codex"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| tools.join(format!("{prefix}<platform>/vendor/<triple>/bin/codex")))
}

/// The client binary, or `None` (see `gate::client`). Panics loudly when it
/// is not the pinned version.
pub fn client() -> Option<PathBuf> {
    let bin = std::env::var_os("CCTREE_CODEX").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(installed);
    let bin =
        crate::gate::client("CODEX", &format!("Codex CLI {VERSION}"), bin, "scripts/install-codex.sh", "CCTREE_CODEX")?;
    let out = Command::new(&bin).arg("--version").env_clear().output().expect("run codex --version");
    let version = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        version.trim(),
        format!("codex-cli {VERSION}"),
        "{} is not the pinned Codex CLI: run scripts/install-codex.sh",
        bin.display()
    );
    Some(bin)
}

pub struct Sandbox {
    pub bin: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
    pub codex_home: PathBuf,
    pub work: PathBuf,
    pub mock: Server,
    _tmp: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// A fresh sandbox. When fixtures are recorded its root is fixed
    /// (`/tmp/cctree-codex-<version>/<name>`), so that the paths the client
    /// writes are stable.
    pub fn new(bin: &Path, name: &str) -> Sandbox {
        let (root, tmp) = if crate::record::recording() {
            let r = std::env::temp_dir().join(format!("cctree-codex-{VERSION}")).join(name);
            let _ = std::fs::remove_dir_all(&r);
            (r, None)
        } else {
            let t = tempfile::Builder::new().prefix(&format!("cctree-codex-{name}-")).tempdir().expect("tempdir");
            (t.path().to_path_buf(), Some(t))
        };
        let (home, work) = (root.join("home"), root.join("work"));
        let codex_home = home.join(".codex");
        for d in [&codex_home, &work] {
            std::fs::create_dir_all(d).expect("create sandbox dirs");
        }
        let s = Sandbox { bin: bin.to_path_buf(), root, home, codex_home, work, mock: super::mock::start(), _tmp: tmp };
        s.configure();
        s
    }

    /// `config.toml`: the mock as model provider (no retries), no approvals,
    /// no sandboxing (the scratch directory is the test's), the working
    /// directory trusted, no background daemon, analytics, feedback, OTEL or
    /// update check, the TUI's first-run notices marked seen (else it
    /// switches `gpt-5.5` to its successor), sub-agents as the newer models
    /// have them (`multi_agent_v2`).
    fn configure(&self) {
        let cfg = format!(
            r#"model = "{MODEL}"
model_provider = "mock"
model_reasoning_effort = "medium"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "{base}/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
daemon_auto_start = false
multi_agent_v2 = true
plugins = false
remote_plugin = false

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

[projects."{work}"]
trust_level = "trusted"

[tui]
screen_reader_detection_done = true
show_tooltips = false

[tui.model_availability_nux]
"gpt-6.1-sol" = 1

[notice.model_migrations]
"{MODEL}" = "gpt-6-sol"
"#,
            base = self.mock.base_url(),
            work = self.work.display()
        );
        std::fs::write(self.codex_home.join("config.toml"), cfg).unwrap();
    }

    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.home.display().to_string()),
            ("CODEX_HOME".into(), self.codex_home.display().to_string()),
            ("OPENAI_API_KEY".into(), API_KEY.into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm-256color".into()),
            ("SHELL".into(), "/bin/bash".into()),
        ]
    }

    /// Runs `codex ARGS` (at most 120 s) and asserts it succeeded.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.bin);
        c.args(args).current_dir(&self.work).env_clear().envs(self.env());
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn codex");
        let start = Instant::now();
        while child.try_wait().expect("wait for codex").is_none() {
            if start.elapsed() > Duration::from_secs(120) {
                let _ = child.kill();
                panic!("codex {args:?} did not finish in 120 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("codex output");
        assert!(
            out.status.success(),
            "codex {args:?} failed ({}):\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `codex exec [ARGS…] PROMPT` (`--skip-git-repo-check`: the scratch
    /// directory is no repository); returns the last message.
    pub fn exec(&self, args: &[&str], prompt: &str) -> String {
        let mut a = vec!["exec", "--skip-git-repo-check"];
        a.extend_from_slice(args);
        a.push(prompt);
        String::from_utf8_lossy(&self.run(&a).stdout).trim().to_string()
    }

    /// The TUI (`--no-alt-screen`, `--no-daemon`), ready for a prompt.
    pub fn tui(&self, args: &[&str]) -> Tmux {
        let mut argv = vec![self.bin.display().to_string(), "--no-alt-screen".into(), "--no-daemon".into()];
        argv.extend(args.iter().map(|a| (*a).to_string()));
        let t = Tmux::start(&self.root, &self.work, &self.env(), &argv);
        t.wait_for("for shortcuts", 60);
        t
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.codex_home.join("sessions")
    }

    /// Every rollout file, by name (their names start with their time).
    pub fn rollouts(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = walkdir::WalkDir::new(self.sessions_dir())
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jsonl"))
            .map(|e| e.path().to_path_buf())
            .collect();
        v.sort_by_key(|p| p.file_name().unwrap().to_os_string());
        v
    }

    /// The rollout files whose `session_meta` names thread `id`.
    pub fn files_of(&self, id: &str) -> Vec<PathBuf> {
        self.rollouts().into_iter().filter(|p| meta(p)["id"] == id).collect()
    }

    /// The model requests so far.
    pub fn turns(&self) -> Vec<crate::http::Request> {
        self.mock.requests().into_iter().filter(super::mock::is_turn).collect()
    }
}

/// The JSON lines of a file.
pub fn lines(path: &Path) -> Vec<Value> {
    crate::client::read_lines(path)
}

/// The payload of a rollout's first line (its `session_meta`).
pub fn meta(path: &Path) -> Value {
    let first = lines(path).into_iter().next().unwrap_or(Value::Null);
    assert_eq!(first["type"], "session_meta", "{} starts with {first}", path.display());
    first["payload"].clone()
}

/// The last uuid of a rollout's name: the thread id, or for a segment
/// (`rollout-<time>-<thread>_<segment>.jsonl`) the segment's id.
pub fn history_id(path: &Path) -> String {
    let stem = path.file_stem().unwrap().to_string_lossy();
    let tail = stem.rsplit('_').next().unwrap_or(&stem);
    tail[tail.len() - 36..].to_string()
}

/// The texts of the user prompts a rollout records (`response_item`
/// messages of role `user` that are not injected context).
pub fn user_prompts(path: &Path) -> Vec<String> {
    lines(path)
        .iter()
        .filter(|l| l["type"] == "response_item" && l["payload"]["type"] == "message" && l["payload"]["role"] == "user")
        .map(|l| super::mock::text_of(&l["payload"]))
        .filter(|t| !t.starts_with('<'))
        .collect()
}
