//! `cctree sync --schedule` / `--unschedule`: an hourly sync for the current
//! user, with the scheduler the system has:
//!
//! | system | what is written | then |
//! |---|---|---|
//! | Linux with systemd | `$XDG_CONFIG_HOME/systemd/user/cctree-sync.{service,timer}` (else `~/.config/…`) | `systemctl --user daemon-reload`, `enable --now cctree-sync.timer` |
//! | macOS | `~/Library/LaunchAgents/dev.cctree.sync.plist` | `launchctl load -w <plist>` |
//! | elsewhere with cron | one line of the user's crontab, ending in [`CRON_MARK`] | `crontab -` |
//!
//! `CCTREE_SCHEDULER=systemd|launchd|cron` chooses instead. The scheduled
//! command is this executable with absolute paths (`-q sync <projects> --to
//! <archive>`), so it does not depend on the environment it runs in. Every
//! file written starts with [`MARK`]; `--unschedule` removes only files
//! holding it (and crontab lines ending in [`CRON_MARK`]), never a file
//! cctree did not write. A [`Plan`] is computed first, shown, then carried out.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// The first line of every file `--schedule` writes (in the file's comment syntax).
pub const MARK: &str = "Written by `cctree sync --schedule`; `cctree sync --unschedule` removes it.";
/// The end of the crontab line `--schedule` adds.
pub const CRON_MARK: &str = "# cctree sync --schedule";
const UNIT: &str = "cctree-sync";
const LABEL: &str = "dev.cctree.sync";

/// A scheduler of the current user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduler {
    Systemd,
    Launchd,
    Cron,
}

impl Scheduler {
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Systemd => "a systemd user timer",
            Scheduler::Launchd => "a launchd agent",
            Scheduler::Cron => "a crontab line",
        }
    }
}

/// The scheduler to use: `CCTREE_SCHEDULER`, else launchd on macOS, a
/// systemd user timer where systemd runs the system, else cron when
/// `crontab` is installed.
pub fn detect() -> Result<Scheduler> {
    match std::env::var("CCTREE_SCHEDULER").ok().as_deref().filter(|v| !v.is_empty()) {
        Some("systemd") => return Ok(Scheduler::Systemd),
        Some("launchd") => return Ok(Scheduler::Launchd),
        Some("cron") => return Ok(Scheduler::Cron),
        Some(other) => bail!("CCTREE_SCHEDULER={other}: use systemd, launchd or cron"),
        None => {}
    }
    if cfg!(target_os = "macos") {
        return Ok(Scheduler::Launchd);
    }
    if Path::new("/run/systemd/system").is_dir() && on_path("systemctl") {
        return Ok(Scheduler::Systemd);
    }
    if on_path("crontab") {
        return Ok(Scheduler::Cron);
    }
    bail!(
        "no scheduler found (no systemd user manager, no launchd, no crontab): run `cctree -q sync` every hour \
         from the scheduler you use, or install cron"
    )
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// What `--schedule` or `--unschedule` does.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Files written, with their content.
    pub write: Vec<(PathBuf, String)>,
    /// Files removed (each holds [`MARK`]).
    pub remove: Vec<PathBuf>,
    /// The crontab as it will be (cron only), and the line added or removed.
    pub crontab: Option<(String, String)>,
    /// Commands run after the files are written or before they are removed.
    pub commands: Vec<Vec<String>>,
    /// Nothing to do (`--unschedule` with no schedule).
    pub nothing: Option<String>,
}

/// Where the files go: the user's home and configuration directory.
#[derive(Debug, Clone)]
pub struct Dirs {
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub config: PathBuf,
}

impl Dirs {
    pub fn current() -> Result<Dirs> {
        use etcetera::BaseStrategy;
        let x = etcetera::base_strategy::Xdg::new().context("no home directory is known: set HOME")?;
        Ok(Dirs { home: x.home_dir().to_path_buf(), config: x.config_dir() })
    }

    fn units(&self) -> PathBuf {
        self.config.join("systemd/user")
    }

    fn plist(&self) -> PathBuf {
        self.home.join("Library/LaunchAgents").join(format!("{LABEL}.plist"))
    }
}

/// The plan that schedules `program args…` every hour. `crontab` is the
/// user's crontab now (cron only).
pub fn install(s: Scheduler, dirs: &Dirs, program: &Path, args: &[String], crontab: &str) -> Plan {
    let mut argv = vec![program.to_string_lossy().into_owned()];
    argv.extend(args.iter().cloned());
    let mut plan = Plan::default();
    match s {
        Scheduler::Systemd => {
            let exec: Vec<String> = argv.iter().map(|a| systemd_quote(a)).collect();
            let service = format!(
                "# {MARK}\n[Unit]\nDescription=cctree sync: keep every Claude Code conversation\n\n\
                 [Service]\nType=oneshot\nExecStart={}\nNice=10\n",
                exec.join(" ")
            );
            let timer = format!(
                "# {MARK}\n[Unit]\nDescription=cctree sync every hour\n\n\
                 [Timer]\nOnCalendar=hourly\nRandomizedDelaySec=5min\nPersistent=true\n\n\
                 [Install]\nWantedBy=timers.target\n"
            );
            plan.write.push((dirs.units().join(format!("{UNIT}.service")), service));
            plan.write.push((dirs.units().join(format!("{UNIT}.timer")), timer));
            plan.commands.push(cmd(&["systemctl", "--user", "daemon-reload"]));
            plan.commands.push(cmd(&["systemctl", "--user", "enable", "--now", &format!("{UNIT}.timer")]));
        }
        Scheduler::Launchd => {
            let strings: String = argv.iter().map(|a| format!("    <string>{}</string>\n", xml(a))).collect();
            let plist = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- {} -->\n\
                 <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
                 <plist version=\"1.0\">\n<dict>\n  <key>Label</key>\n  <string>{LABEL}</string>\n\
                 \x20 <key>ProgramArguments</key>\n  <array>\n{strings}  </array>\n\
                 \x20 <key>StartInterval</key>\n  <integer>3600</integer>\n  <key>RunAtLoad</key>\n  <true/>\n\
                 \x20 <key>ProcessType</key>\n  <string>Background</string>\n</dict>\n</plist>\n",
                xml(MARK)
            );
            let path = dirs.plist();
            plan.commands.push(cmd(&["launchctl", "load", "-w", &path.to_string_lossy()]));
            plan.write.push((path, plist));
        }
        Scheduler::Cron => {
            let command: Vec<String> = argv.iter().map(|a| crate::term::shell_quote(a).replace('%', "\\%")).collect();
            let line = format!("7 * * * * {} {CRON_MARK}", command.join(" "));
            let mut kept = without_mark(crontab);
            kept.push_str(&line);
            kept.push('\n');
            plan.crontab = Some((kept, line));
        }
    }
    plan
}

/// The plan that removes the schedule: files holding [`MARK`] (a file
/// without it is an error: cctree did not write it), the crontab's marked
/// lines.
pub fn remove(s: Scheduler, dirs: &Dirs, crontab: &str) -> Result<Plan> {
    let mut plan = Plan::default();
    let ours = |p: &Path| -> Result<bool> {
        match std::fs::read_to_string(p) {
            Ok(t) if t.contains(MARK) => Ok(true),
            Ok(_) => bail!("{} was not written by cctree sync --schedule: remove it yourself", p.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", p.display())),
        }
    };
    match s {
        Scheduler::Systemd => {
            let files = [dirs.units().join(format!("{UNIT}.timer")), dirs.units().join(format!("{UNIT}.service"))];
            for f in files {
                if ours(&f)? {
                    plan.remove.push(f);
                }
            }
            if !plan.remove.is_empty() {
                plan.commands.push(cmd(&["systemctl", "--user", "disable", "--now", &format!("{UNIT}.timer")]));
            }
        }
        Scheduler::Launchd => {
            let f = dirs.plist();
            if ours(&f)? {
                plan.commands.push(cmd(&["launchctl", "unload", "-w", &f.to_string_lossy()]));
                plan.remove.push(f);
            }
        }
        Scheduler::Cron => {
            let kept = without_mark(crontab);
            let line = crontab.lines().find(|l| l.trim_end().ends_with(CRON_MARK)).map(str::to_string);
            if let Some(line) = line {
                plan.crontab = Some((kept, line));
            }
        }
    }
    if plan.remove.is_empty() && plan.crontab.is_none() {
        plan.nothing = Some(format!("no hourly sync is scheduled ({} of cctree sync --schedule)", s.name()));
    }
    Ok(plan)
}

fn without_mark(crontab: &str) -> String {
    crontab.lines().filter(|l| !l.trim_end().ends_with(CRON_MARK)).map(|l| format!("{l}\n")).collect()
}

fn cmd(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_string()).collect()
}

/// A word of `ExecStart=`: double-quoted, `\` and `"` escaped, `%` and `$` doubled.
fn systemd_quote(s: &str) -> String {
    let inner = s.replace('\\', "\\\\").replace('"', "\\\"").replace('%', "%%").replace('$', "$$");
    format!("\"{inner}\"")
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The user's crontab (empty when there is none).
pub fn read_crontab() -> Result<String> {
    let out = Command::new("crontab").arg("-l").stdin(Stdio::null()).output().context("cannot run crontab -l")?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("no crontab") {
        return Ok(String::new());
    }
    bail!("crontab -l failed: {}", err.trim())
}

/// What the plan does, for people.
pub fn text(s: Scheduler, plan: &Plan, install: bool) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if let Some(n) = &plan.nothing {
        let _ = writeln!(out, "{n}");
        return out;
    }
    let _ = writeln!(out, "{} {}:", if install { "an hourly cctree sync as" } else { "removing" }, s.name());
    for (path, content) in &plan.write {
        let _ = writeln!(out, "\nwrite {}:", path.display());
        for l in content.lines() {
            let _ = writeln!(out, "  {l}");
        }
    }
    for path in &plan.remove {
        let _ = writeln!(out, "remove {}", path.display());
    }
    if let Some((_, line)) = &plan.crontab {
        let _ = writeln!(out, "{} the user's crontab:\n  {line}", if install { "\nadd to" } else { "remove from" });
    }
    if !plan.commands.is_empty() {
        let _ = writeln!(out, "{}run:", if install { "\nthen " } else { "" });
        for c in &plan.commands {
            let words: Vec<String> = c.iter().map(|w| crate::term::shell_quote(w)).collect();
            let _ = writeln!(out, "  {}", words.join(" "));
        }
    }
    out
}

/// Carries out a plan: files written (made private to the user, directories
/// made) then commands run (installing), or commands run then files
/// removed (removing). A command that fails is a note saying what to run;
/// the files stay as planned.
pub fn apply(plan: &Plan, install: bool) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    if install {
        // Every file checked before any is written.
        for (path, _) in &plan.write {
            if std::fs::read_to_string(path).is_ok_and(|old| !old.contains(MARK)) || path.is_dir() {
                bail!("{} exists and was not written by cctree: move it away first", path.display());
            }
        }
        for (path, content) in &plan.write {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            crate::files::write(path, content.as_bytes(), crate::files::Access::Default)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    if let Some((crontab, _)) = &plan.crontab {
        write_crontab(crontab)?;
    }
    for c in &plan.commands {
        if let Err(e) = run(c) {
            let words: Vec<String> = c.iter().map(|w| crate::term::shell_quote(w)).collect();
            notes.push(format!("{e:#}; run it yourself: {}", words.join(" ")));
        }
    }
    if !install {
        for path in &plan.remove {
            std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(notes)
}

fn run(c: &[String]) -> Result<()> {
    let (program, args) = c.split_first().context("an empty command")?;
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {program}"))?;
    if !out.status.success() {
        bail!("{program} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

fn write_crontab(text: &str) -> Result<()> {
    use std::io::Write;
    let mut child = Command::new("crontab")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run crontab")?;
    child.stdin.take().context("crontab's input")?.write_all(text.as_bytes()).context("writing the crontab")?;
    let out = child.wait_with_output().context("crontab")?;
    if !out.status.success() {
        bail!("crontab - failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs() -> Dirs {
        Dirs { home: "/home/me".into(), config: "/home/me/.config".into() }
    }

    #[test]
    fn each_scheduler_runs_the_sync_with_absolute_paths_quoted_for_it() {
        let args: Vec<String> = ["-q", "sync", "/home/me/.claude/projects", "--to", "/data/my 100% archive"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let p = install(Scheduler::Systemd, &dirs(), Path::new("/usr/bin/cctree"), &args, "");
        assert_eq!(p.write[0].0, Path::new("/home/me/.config/systemd/user/cctree-sync.service"));
        assert!(p.write[0].1.contains(
            "ExecStart=\"/usr/bin/cctree\" \"-q\" \"sync\" \"/home/me/.claude/projects\" \"--to\" \"/data/my 100%% archive\""
        ));
        assert!(p.write[1].1.contains("OnCalendar=hourly") && p.write[1].1.starts_with(&format!("# {MARK}")));
        let p = install(Scheduler::Launchd, &dirs(), Path::new("/usr/bin/cctree"), &args, "");
        assert_eq!(p.write[0].0, Path::new("/home/me/Library/LaunchAgents/dev.cctree.sync.plist"));
        assert!(p.write[0].1.contains("<string>/data/my 100% archive</string>"));
        assert!(p.write[0].1.contains("<integer>3600</integer>"));
        let p = install(Scheduler::Cron, &dirs(), Path::new("/usr/bin/cctree"), &args, "MAILTO=me\n0 1 * * * backup\n");
        let (crontab, line) = p.crontab.unwrap();
        assert_eq!(
            line,
            "7 * * * * /usr/bin/cctree -q sync /home/me/.claude/projects --to '/data/my 100\\% archive' # cctree sync --schedule"
        );
        assert_eq!(crontab, format!("MAILTO=me\n0 1 * * * backup\n{line}\n"), "the user's lines stay");
        let again = install(Scheduler::Cron, &dirs(), Path::new("/usr/bin/cctree"), &args, &crontab);
        assert_eq!(again.crontab.unwrap().0, crontab, "scheduling twice adds one line");
        let r = remove(Scheduler::Cron, &dirs(), &crontab).unwrap();
        assert_eq!(r.crontab.unwrap().0, "MAILTO=me\n0 1 * * * backup\n");
        assert!(remove(Scheduler::Cron, &dirs(), "0 1 * * * backup\n").unwrap().nothing.is_some());
    }
}
