//! The pinned OpenCode and a sandbox to run it in (transcript-format,
//! Appendix F, "Running it offline"): its own `HOME` and XDG folders, a git
//! working directory with one commit, the mock provider in
//! `$XDG_CONFIG_HOME/opencode/opencode.json`, the plugin install made a no-op
//! (its `node_modules/` and lock written first), the `OPENCODE_DISABLE_*`
//! variables set and nothing else (`env_clear`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::chat::{Answer, Chat};
use crate::http::Server;

pub const VERSION: &str = "1.18.33";

fn installed() -> PathBuf {
    let arch = if cfg!(target_arch = "aarch64") { "arm64" } else { "x64" };
    crate::gate::tools().join(format!("opencode-{VERSION}-linux-{arch}/bin/opencode"))
}

pub fn client() -> Option<PathBuf> {
    let bin =
        std::env::var_os("CCTREE_OPENCODE").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(installed);
    crate::gate::client(
        "OPENCODE",
        &format!("OpenCode {VERSION}"),
        bin,
        "scripts/install-opencode.sh",
        "CCTREE_OPENCODE",
    )
}

/// A tool's result: `Done.`; `[[task: PROMPT]]` (offered the `task` tool):
/// a `task` call running the `general` sub-agent on PROMPT; any other
/// prompt `Reply to: <its last line>`.
pub fn answer(chat: &Chat) -> Answer {
    if chat.answers_a_call() {
        return Answer::text("Done.");
    }
    let prompt = chat.prompt();
    if chat.tools.iter().any(|t| t == "task") {
        let calls: Vec<(String, serde_json::Value)> = crate::chat::directives(&prompt, "task")
            .into_iter()
            .map(|p| ("task".to_string(), json!({"description": "mock task", "prompt": p, "subagent_type": "general"})))
            .collect();
        if !calls.is_empty() {
            return Answer::calls(calls);
        }
    }
    Answer::text(format!("Reply to: {}", prompt.trim().lines().last().unwrap_or("")))
}

pub struct Sandbox {
    pub bin: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
    pub work: PathBuf,
    pub mock: Server,
    _tmp: tempfile::TempDir,
}

impl Sandbox {
    pub fn new(bin: &Path, name: &str) -> Sandbox {
        let t = tempfile::Builder::new().prefix(&format!("cctree-opencode-{name}-")).tempdir().expect("tempdir");
        let root = t.path().to_path_buf();
        let (home, work) = (root.join("home"), root.join("work"));
        let config = home.join(".config/opencode");
        for d in [&config.join("node_modules"), &work] {
            std::fs::create_dir_all(d).unwrap();
        }
        let mock = crate::chat::start(Arc::new(answer));
        let cfg = json!({
            "model": "mock/mock-model", "small_model": "mock/mock-model", "autoupdate": false, "share": "disabled",
            "permission": {"edit": "allow", "bash": "allow", "webfetch": "allow"},
            "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                "options": {"baseURL": format!("{}/v1", mock.base_url()), "apiKey": "fake-key"},
                "models": {"mock-model": {"name": "Mock Model", "tool_call": true, "limit": {"context": 200000, "output": 8000}}}}}
        });
        std::fs::write(config.join("opencode.json"), serde_json::to_vec_pretty(&cfg).unwrap()).unwrap();
        let dep = json!({"@opencode-ai/plugin": VERSION});
        std::fs::write(config.join("package.json"), json!({"dependencies": dep}).to_string()).unwrap();
        std::fs::write(
            config.join("package-lock.json"),
            json!({"lockfileVersion": 3, "packages": {"": {"dependencies": dep}}}).to_string(),
        )
        .unwrap();
        for args in [
            &["init", "-q"][..],
            &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"],
        ] {
            let st = Command::new("git").args(args).current_dir(&work).env("HOME", &home).status().expect("git");
            assert!(st.success(), "git {args:?}");
        }
        Sandbox { bin: bin.to_path_buf(), root, home, work, mock, _tmp: t }
    }

    /// `$XDG_DATA_HOME/opencode`, the folder of the database.
    pub fn data(&self) -> PathBuf {
        self.home.join(".local/share/opencode")
    }

    pub fn env(&self) -> Vec<(String, String)> {
        let h = |p: &str| self.home.join(p).display().to_string();
        let mut v: Vec<(String, String)> = vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.home.display().to_string()),
            ("XDG_CONFIG_HOME".into(), h(".config")),
            ("XDG_DATA_HOME".into(), h(".local/share")),
            ("XDG_CACHE_HOME".into(), h(".cache")),
            ("XDG_STATE_HOME".into(), h(".local/state")),
            ("LANG".into(), "C.UTF-8".into()),
        ];
        for k in [
            "MODELS_FETCH",
            "AUTOUPDATE",
            "SHARE",
            "LSP_DOWNLOAD",
            "DEFAULT_PLUGINS",
            "CLAUDE_CODE",
            "EXTERNAL_SKILLS",
            "TERMINAL_TITLE",
        ] {
            v.push((format!("OPENCODE_DISABLE_{k}"), "1".into()));
        }
        v
    }

    /// Runs `opencode ARGS` (at most 180 s) and asserts it succeeded.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::new(&self.bin);
        c.args(args).current_dir(&self.work).env_clear().envs(self.env());
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn opencode");
        let start = Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if start.elapsed() > Duration::from_secs(180) {
                let _ = child.kill();
                panic!("opencode {args:?} did not finish in 180 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("opencode output");
        assert!(
            out.status.success(),
            "opencode {args:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(
            self.data().join("opencode.db"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("opencode.db")
    }

    /// Every session's id and title, oldest first.
    pub fn sessions(&self) -> Vec<(String, String)> {
        let c = self.db();
        let mut st = c.prepare("SELECT id, title FROM session ORDER BY time_created, id").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().flatten().collect()
    }

    /// `(id, role, text)` of a session's messages, oldest first (the text of
    /// their `text` parts).
    pub fn messages(&self, session: &str) -> Vec<(String, String, String)> {
        let c = self.db();
        let mut st = c.prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id").unwrap();
        let rows: Vec<(String, String)> =
            st.query_map([session], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().flatten().collect();
        let mut parts = c.prepare("SELECT data FROM part WHERE message_id = ?1 ORDER BY id").unwrap();
        rows.into_iter()
            .map(|(id, data)| {
                let info: serde_json::Value = serde_json::from_str(&data).unwrap_or_default();
                let texts: Vec<String> = parts
                    .query_map([&id], |r| r.get::<_, String>(0))
                    .unwrap()
                    .flatten()
                    .filter_map(|d| serde_json::from_str::<serde_json::Value>(&d).ok())
                    .filter(|p| p["type"] == "text" && p["synthetic"] != true)
                    .filter_map(|p| p["text"].as_str().map(str::to_string))
                    .collect();
                (id, info["role"].as_str().unwrap_or("").to_string(), texts.join("\n"))
            })
            .collect()
    }

    /// The `tool` parts of a session: `(tool, callID, state.metadata)`.
    pub fn tool_parts(&self, session: &str) -> Vec<(String, String, serde_json::Value)> {
        let c = self.db();
        let mut st = c.prepare("SELECT data FROM part WHERE session_id = ?1 ORDER BY id").unwrap();
        st.query_map([session], |r| r.get::<_, String>(0))
            .unwrap()
            .flatten()
            .filter_map(|d| serde_json::from_str::<serde_json::Value>(&d).ok())
            .filter(|p| p["type"] == "tool")
            .map(|p| {
                (
                    p["tool"].as_str().unwrap_or("").to_string(),
                    p["callID"].as_str().unwrap_or("").to_string(),
                    p["state"]["metadata"].clone(),
                )
            })
            .collect()
    }

    /// The session's `revert` column (JSON), if set.
    pub fn revert_of(&self, id: &str) -> Option<String> {
        self.db().query_row("SELECT revert FROM session WHERE id = ?1", [id], |r| r.get(0)).ok().flatten()
    }

    pub fn parent_of(&self, id: &str) -> Option<String> {
        self.db().query_row("SELECT parent_id FROM session WHERE id = ?1", [id], |r| r.get(0)).ok().flatten()
    }
}
