//! What a site says about where the archive lives (issue 10): fork commands on
//! pages work as copied for any input (they carry `--projects` when the input
//! is not the default projects directory), and no page reveals the input's
//! absolute path unless `--show-paths` asks for it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::render::{attr_values, files, unescape};
use crate::support::{cctree, corpus, example_archive};

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().map(Result::unwrap) {
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Where a render runs: its current directory and environment.
struct At<'a> {
    cwd: &'a Path,
    home: &'a Path,
    config: &'a Path,
}

impl At<'_> {
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.current_dir(self.cwd).env("HOME", self.home).env("CLAUDE_CONFIG_DIR", self.config);
        c
    }
}

/// Renders `input` (none: the default directory) and returns every fork
/// command on the site, as a reader copies it.
fn fork_commands(at: &At<'_>, input: Option<&Path>, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut c = at.command(env!("CARGO_BIN_EXE_cctree"));
    c.args(["-q", "render"]).args(extra).args(input).arg("-o").arg(out);
    let o = c.output().unwrap();
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
    let mut cmds = Vec::new();
    for (path, bytes) in files(out) {
        if path.extension().is_some_and(|e| e == "html") {
            cmds.extend(attr_values(&String::from_utf8_lossy(&bytes), "data-copy").into_iter().map(unescape));
        }
    }
    assert!(cmds.len() >= 10, "too few fork commands on the site: {cmds:?}");
    cmds
}

/// Runs a copied fork command (`--dry-run`) in a shell where `cctree` is the
/// binary under test; it must find the session and the checkpoint.
fn run_copied(at: &At<'_>, cmd: &str) {
    let bin = Path::new(env!("CARGO_BIN_EXE_cctree")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    // Options go before the `--` that ends the copied command.
    let run = cmd.replacen(" -- ", " --dry-run --json -- ", 1);
    let o = at.command("sh").arg("-c").arg(run).env("PATH", path).output().unwrap();
    assert!(o.status.success(), "`{cmd}` failed in {}: {}", at.cwd.display(), String::from_utf8_lossy(&o.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let at_uuid = cmd.split(" --at=").nth(1).and_then(|r| r.split(' ').next()).unwrap();
    assert_eq!(plan["checkpoint"], at_uuid.trim_matches('\''), "{cmd}");
}

/// Render from, input, flags, the `--projects` the commands carry, run the copies from.
type Case<'a> = (&'a Path, Option<PathBuf>, &'a [&'a str], Option<String>, &'a Path);

#[test]
fn fork_commands_on_pages_work_as_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (home, work, elsewhere) = (t.join("home"), t.join("work"), t.join("elsewhere/projects"));
    let (cfg, no_cfg) = (t.join("cfg"), t.join("no-cfg"));
    copy_tree(&example_archive(), &home.join("archive/projects"));
    copy_tree(&example_archive(), &elsewhere);
    copy_tree(&example_archive(), &cfg.join("projects"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&no_cfg).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = Path::new("/");
    let site = |n: &str| t.join("sites").join(n);
    let cases: [Case<'_>; 5] = [
        // A relative input: as given, from where it was rendered.
        (repo, Some("examples/archive/projects".into()), &[], Some("examples/archive/projects".into()), repo),
        // Under the home directory: from ~, so from anywhere.
        (&work, Some(home.join("archive/projects")), &[], Some("~/archive/projects".into()), root),
        // Elsewhere: relative to the directory it was rendered from.
        (&work, Some(elsewhere.clone()), &[], Some("../elsewhere/projects".into()), &work),
        // --show-paths: the absolute path, from anywhere.
        (&work, Some(elsewhere.clone()), &["--show-paths"], Some(elsewhere.display().to_string()), root),
        // The default projects directory needs no flag.
        (&work, None, &[], None, root),
    ];
    for (i, (cwd, input, flags, want, run_from)) in cases.iter().enumerate() {
        let config = if input.is_none() { &cfg } else { &no_cfg };
        let at = At { cwd, home: &home, config };
        let cmds = fork_commands(&at, input.as_deref(), &site(&i.to_string()), flags);
        for cmd in &cmds {
            let got = cmd.split_once(" --projects ").and_then(|(_, d)| d.split(" -- ").next()).map(str::to_string);
            assert_eq!(&got, want, "case {i}: {cmd}");
        }
        let run_at = At { cwd: run_from, home: &home, config };
        for cmd in &cmds {
            run_copied(&run_at, cmd);
        }
    }
}

/// Issue 15: the fork commands on pages had no `--` before the session id,
/// so an id starting with `-` (ids come from transcripts) was read as an
/// option and the copied command failed.
#[test]
fn fork_commands_for_ids_starting_with_a_dash_work_as_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let projects = t.join("projects");
    let session = "-x-session";
    std::fs::create_dir_all(projects.join("-p")).unwrap();
    let line = |uuid: &str, parent: Option<&str>, kind: &str, message: serde_json::Value| {
        serde_json::json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session,
            "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w", "message": message})
        .to_string()
    };
    let prompt = line("-rf-prompt", None, "user", serde_json::json!({"role": "user", "content": "hello"}));
    let answer = line(
        "--help",
        Some("-rf-prompt"),
        "assistant",
        serde_json::json!({"role": "assistant", "id": "msg_1", "content": [{"type": "text", "text": "hi"}]}),
    );
    std::fs::write(projects.join(format!("-p/{session}.jsonl")), format!("{prompt}\n{answer}\n")).unwrap();
    let site = t.join("site");
    let o = cctree().args(["-q", "render"]).arg(&projects).arg("-o").arg(&site).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut cmds = Vec::new();
    for (path, bytes) in files(&site) {
        if path.extension().is_some_and(|e| e == "html") {
            cmds.extend(attr_values(&String::from_utf8_lossy(&bytes), "data-copy").into_iter().map(unescape));
        }
    }
    assert!(!cmds.is_empty(), "no fork command on the site");
    let at = At { cwd: &t, home: &t, config: &t.join("no-config") };
    for cmd in &cmds {
        run_copied(&at, cmd);
        assert!(cmd.ends_with(&format!(" -- {session}")), "{cmd}");
    }
}

/// Every file of a site (pages, search index, cache) that holds `needle`.
fn holding(site: &Path, needle: &str) -> Vec<PathBuf> {
    files(site)
        .into_iter()
        .filter(|(_, bytes)| String::from_utf8_lossy(bytes).contains(needle))
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn pages_do_not_reveal_the_input_path() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, input) in [("example", example_archive()), ("corpus", corpus().join("real_projects"))] {
        let input = input.canonicalize().unwrap();
        let needle = input.display().to_string();
        let out = tmp.path().join(name);
        let o = cctree().args(["-q", "render"]).arg(&input).arg("-o").arg(&out).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(files(&out).keys().filter(|p| p.extension().is_some_and(|e| e == "html")).count() > 5);
        assert_eq!(holding(&out, &needle), Vec::<PathBuf>::new(), "{name}: files naming {needle}");
        // Asked for, the path is there (so the check above can fail).
        let shown = tmp.path().join(format!("{name}-shown"));
        let o = cctree().args(["-q", "render", "--show-paths"]).arg(&input).arg("-o").arg(&shown).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!holding(&shown, &needle).is_empty(), "{name}: --show-paths shows no path");
    }
    // Odd entries are placed from the project directory, not the disk.
    let odd = crate::support::odd_archive().canonicalize().unwrap();
    let out = tmp.path().join("odd");
    let o = cctree().args(["-q", "render"]).arg(&odd).arg("-o").arg(&out).output().unwrap();
    assert!(o.status.success());
    assert_eq!(holding(&out, &odd.display().to_string()), Vec::<PathBuf>::new());
    let page = std::fs::read_to_string(out.join("-home-alice-odd/index.html")).unwrap();
    assert!(page.contains("future-thing (-home-alice-odd/0dd00000-0000-4000-8000-0000000000d1.jsonl:3)"), "{page}");
}
