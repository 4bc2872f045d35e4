//! A terminal for the Codex and Gemini TUIs: one tmux server of its own
//! (its socket in the sandbox), 160×50, the client started with exactly the
//! environment given (`env -i`).

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub struct Tmux {
    socket: std::path::PathBuf,
    /// The pane's process, leader of its process group.
    pid: Option<u32>,
}

impl Tmux {
    /// Starts `argv` in `cwd` with `env` only.
    pub fn start(root: &Path, cwd: &Path, env: &[(String, String)], argv: &[String]) -> Tmux {
        let socket = root.join("tmux.sock");
        let mut cmd = Command::new("tmux");
        cmd.arg("-S").arg(&socket).args(["-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50", "-s", "t"]);
        cmd.arg("-c").arg(cwd).arg("--").arg("env").arg("-i");
        for (k, v) in env {
            cmd.arg(format!("{k}={v}"));
        }
        cmd.args(argv);
        let st = cmd.status().expect("tmux (install it: apt-get install tmux)");
        assert!(st.success(), "tmux new-session failed");
        let mut t = Tmux { socket, pid: None };
        t.pid = String::from_utf8_lossy(&t.tmux(&["list-panes", "-t", "t", "-F", "#{pane_pid}"]).stdout)
            .trim()
            .parse()
            .ok();
        t
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux")
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// Sends keys by tmux name (`Enter`, `Escape`, `Left`, `C-u`).
    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "t", k]);
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Types text literally, then Enter once the screen shows all of it: on a
    /// loaded machine an Enter that overtakes the typing picks a completion of
    /// what was typed so far (`/resume resume ` became `/resume resume clear`).
    pub fn type_line(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", text]);
        let start = Instant::now();
        let tail: String = text.chars().rev().take(40).collect::<Vec<_>>().into_iter().rev().collect();
        while !self.screen().contains(tail.trim()) && start.elapsed() < Duration::from_secs(8) {
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(Duration::from_millis(500));
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
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "the screen never showed {text:?}; it shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Waits for `text`, then lets the client settle (write its files).
    pub fn wait_idle(&self, text: &str, secs: u64) -> String {
        self.wait_for(text, secs);
        std::thread::sleep(Duration::from_millis(1000));
        self.screen()
    }

    /// Whether the client is still running.
    pub fn alive(&self) -> bool {
        self.tmux(&["has-session", "-t", "t"]).status.success()
    }

    /// Types `command` (`/exit`, `/quit`) and waits for the client to end.
    pub fn exit(&self, command: &str) {
        self.type_line(command);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if !self.alive() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("the client did not exit after {command}:\n{}", self.screen());
    }
}

impl Drop for Tmux {
    /// Ends the client's process group too: Gemini CLI (Node) outlives the
    /// hang-up that ending the tmux server sends.
    fn drop(&mut self) {
        if let Some(pid) = self.pid.filter(|_| self.alive()) {
            let _ = Command::new("kill").args(["-TERM", "--", &format!("-{pid}")]).status();
        }
        let _ = self.tmux(&["kill-server"]);
    }
}
