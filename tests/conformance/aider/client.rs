//! The pinned Aider and a sandbox to run it in (transcript-format,
//! Appendix J, "Driving it offline"): its own `HOME` (so its own
//! `~/.aider`, with a fresh price cache naming the model, so nothing is
//! fetched), a scratch git repository to work in, and `OPENAI_API_BASE` (the
//! chat-completions mock on loopback) with a fake `OPENAI_API_KEY`; nothing
//! else (`env_clear`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::chat::{Answer, Chat};
use crate::http::Server;

/// The version the suite is pinned to (`tests/conformance/aider/requirements.txt`).
pub const VERSION: &str = "0.86.2";

/// A fake key (Aider logs it as `...<last 4>` in its command line).
pub const API_KEY: &str = "cctree-conformance-fake-aider-key";

pub const MODEL: &str = "openai/mock-model";

fn installed() -> PathBuf {
    crate::gate::tools().join(format!("aider-{VERSION}/venv/bin/aider"))
}

/// The client (`target/tools`, or `CCTREE_AIDER`), or `None` (see `gate::client`).
pub fn client() -> Option<PathBuf> {
    let bin = std::env::var_os("CCTREE_AIDER").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(installed);
    crate::gate::client("AIDER", &format!("Aider {VERSION}"), bin, "scripts/install-aider.sh", "CCTREE_AIDER")
}

/// What the person typed of a prompt as sent: its first line (Aider appends
/// its system reminder to the last user message).
pub fn typed(p: &str) -> String {
    p.trim().lines().next().unwrap_or("").trim().to_string()
}

/// The mock's answer: `Reply to: <the prompt's first line>`.
pub fn answer(chat: &Chat) -> Answer {
    Answer::text(format!("Reply to: {}", typed(&chat.prompt()).chars().take(80).collect::<String>()))
}

pub struct Sandbox {
    pub bin: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
    /// The repository Aider runs in (its histories at its root).
    pub work: PathBuf,
    pub mock: Server,
    _tmp: tempfile::TempDir,
}

fn git(work: &Path, args: &[&str]) {
    let o = Command::new("git").args(args).current_dir(work).output().expect("run git");
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

impl Sandbox {
    pub fn new(bin: &Path, name: &str) -> Sandbox {
        let t = tempfile::Builder::new().prefix(&format!("cctree-aider-{name}-")).tempdir().expect("tempdir");
        let root = t.path().to_path_buf();
        let (home, work) = (root.join("home"), root.join("work"));
        let caches = home.join(".aider/caches");
        for d in [&caches, &work] {
            std::fs::create_dir_all(d).expect("create sandbox dirs");
        }
        // A fresh price list naming the model: Aider fetches none.
        let prices = serde_json::json!({ MODEL: {
            "max_tokens": 4096, "max_input_tokens": 128_000, "max_output_tokens": 4096,
            "input_cost_per_token": 0.000_001, "output_cost_per_token": 0.000_002,
            "litellm_provider": "openai", "mode": "chat"
        }});
        std::fs::write(caches.join("model_prices_and_context_window.json"), prices.to_string()).expect("price cache");
        git(&work, &["init", "-q"]);
        git(&work, &["config", "user.name", "cctree"]);
        git(&work, &["config", "user.email", "cctree@example.invalid"]);
        std::fs::write(work.join("notes.txt"), "notes\n").expect("notes");
        git(&work, &["add", "notes.txt"]);
        git(&work, &["commit", "-qm", "notes"]);
        let mock = crate::chat::start(Arc::new(answer));
        Sandbox { bin: bin.to_path_buf(), root, home, work, mock, _tmp: t }
    }

    fn env(&self) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.home.display().to_string()),
            ("OPENAI_API_BASE".into(), format!("{}/v1", self.mock.base_url())),
            ("OPENAI_API_KEY".into(), API_KEY.into()),
            ("LITELLM_LOCAL_MODEL_COST_MAP".into(), "True".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "dumb".into()),
        ]
    }

    /// Runs `aider <offline flags> ARGS --message PROMPT` in the repository
    /// (at most 180 s) and asserts it succeeded.
    pub fn message(&self, args: &[&str], prompt: &str) -> Output {
        let mut c = Command::new(&self.bin);
        c.args(["--model", MODEL, "--no-check-update", "--analytics-disable", "--no-show-model-warnings"])
            .args(["--yes-always", "--edit-format", "diff", "--no-show-release-notes", "--map-tokens", "0"])
            .args(["--no-auto-lint", "--no-gitignore", "--no-pretty"])
            .args(args)
            .args(["--message", prompt])
            .current_dir(&self.work)
            .env_clear()
            .envs(self.env());
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn aider");
        let start = Instant::now();
        while child.try_wait().expect("wait for aider").is_none() {
            if start.elapsed() > Duration::from_secs(180) {
                let _ = child.kill();
                panic!("aider {args:?} did not finish in 180 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("aider output");
        assert!(
            out.status.success(),
            "aider {args:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// The streamed chat-completions requests the mock received (the
    /// conversation's turns), oldest first.
    pub fn chats(&self) -> Vec<Chat> {
        (self.mock.requests().into_iter())
            .filter(|r| r.route().ends_with("/chat/completions"))
            .map(|r| Chat::of(&r.body))
            .filter(|c| c.stream)
            .collect()
    }
}
