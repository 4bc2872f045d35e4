//! What a site says about where the archive lives: fork commands on pages name no directory (unless
//! `--show-paths`) and work as copied from any directory, finding the
//! session in the client's projects directory or the `cctree sync` archive;
//! no page reveals the input's absolute path unless `--show-paths` asks.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::render::{files, fork_commands_in};
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
        // No archive of `cctree sync` but the one a test names.
        c.env_remove("CCTREE_ARCHIVE").env_remove("XDG_DATA_HOME");
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
            cmds.extend(fork_commands_in(&String::from_utf8_lossy(&bytes)));
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

/// Runs a copied fork command (`--dry-run`) where the session cannot be
/// found: it fails, naming where it looked and what to pass; with
/// `--projects DIR` added it works.
fn run_copied_elsewhere(at: &At<'_>, cmd: &str, projects: &Path) {
    let bin = Path::new(env!("CARGO_BIN_EXE_cctree")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let o =
        at.command("sh").arg("-c").arg(cmd.replacen(" -- ", " --dry-run -- ", 1)).env("PATH", &path).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("pass --projects DIR"), "`{cmd}`: {err}");
    let with = cmd.replacen(" -- ", &format!(" --projects '{}' -- ", projects.display()), 1);
    run_copied(at, &with);
}

/// Runs a copied fork command (`--dry-run`) with the archive of `cctree
/// sync` at `archive` (and no client projects directory): it finds the
/// session there, and would write the fork where the client finds it.
fn run_copied_archived(at: &At<'_>, cmd: &str, archive: &Path) {
    let bin = Path::new(env!("CARGO_BIN_EXE_cctree")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let run = cmd.replacen(" -- ", " --dry-run --json -- ", 1);
    let o = at.command("sh").arg("-c").arg(run).env("PATH", path).env("CCTREE_ARCHIVE", archive).output().unwrap();
    assert!(o.status.success(), "`{cmd}` with the archive: {}", String::from_utf8_lossy(&o.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let written = PathBuf::from(plan["path"].as_str().unwrap());
    assert!(written.starts_with(at.config.join("projects")), "the fork goes where `claude -r` finds it: {written:?}");
}

/// Render from, input, flags, the `--projects` the commands carry.
type Case<'a> = (&'a Path, Option<PathBuf>, &'a [&'a str], Option<String>);

/// The fork commands on pages carried
/// `--projects` with the input's path relative to where the render ran (or
/// from `~`): a local path on published pages, and a command that failed
/// when copied from another directory. Now they name no directory unless
/// `--show-paths` (then the absolute path), and `cctree fork` finds the
/// session by its id in the client's projects directory, then in the
/// archive of `cctree sync`, from any directory; elsewhere it says to pass
/// `--projects DIR`. That failed as copied from a site
/// of an archive elsewhere ("pass --projects DIR"); a site not published
/// (no `--base-url`, no `--redact`) names its archive's absolute path, and
/// works as copied from anywhere; a published one names no directory.
#[test]
fn fork_commands_on_pages_name_no_directory_and_work_from_anywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (home, work, elsewhere) = (t.join("home"), t.join("work"), t.join("elsewhere/projects"));
    let (cfg, no_cfg, archive) = (t.join("cfg"), t.join("no-cfg"), t.join("data/archive/projects"));
    copy_tree(&example_archive(), &home.join("archive/projects"));
    copy_tree(&example_archive(), &elsewhere);
    copy_tree(&example_archive(), &cfg.join("projects"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&no_cfg).unwrap();
    // The archive of `cctree sync`, made from a copy of the example.
    let o =
        cctree().args(["-q", "sync"]).arg(&elsewhere).arg("--to").arg(&archive).env("HOME", &home).output().unwrap();
    assert!(o.status.success(), "sync: {}", String::from_utf8_lossy(&o.stderr));
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = Path::new("/");
    let site = |n: &str| t.join("sites").join(n);
    let abs = |p: &Path| Some(p.canonicalize().unwrap().display().to_string());
    let published: &[&str] = &["--base-url", "https://example.org/chats/"];
    let cases: [Case<'_>; 8] = [
        (repo, Some("examples/archive/projects".into()), &[], abs(&repo.join("examples/archive/projects"))),
        (repo, Some("examples/archive/projects".into()), published, None),
        (&work, Some(home.join("archive/projects")), &[], abs(&home.join("archive/projects"))),
        (&work, Some(home.join("archive/projects")), &["--redact"], None),
        (&work, Some(elsewhere.clone()), published, None),
        (&work, Some(elsewhere.clone()), &[], abs(&elsewhere)),
        (&work, Some(elsewhere.clone()), &["--show-paths"], Some(elsewhere.display().to_string())),
        (&work, None, &[], None),
    ];
    for (i, (cwd, input, flags, want)) in cases.iter().enumerate() {
        let config = if input.is_none() { &cfg } else { &no_cfg };
        let at = At { cwd, home: &home, config };
        let out = site(&i.to_string());
        let cmds = fork_commands(&at, input.as_deref(), &out, flags);
        for cmd in &cmds {
            let got = cmd.split_once(" --projects ").and_then(|(_, d)| d.split(" -- ").next()).map(str::to_string);
            assert_eq!(&got, want, "case {i}: {cmd}");
        }
        if *flags == published || *flags == ["--redact"] {
            for needle in [t.display().to_string(), "examples/archive".into(), "~/archive".into()] {
                let hits: Vec<PathBuf> =
                    holding(&out, &needle).into_iter().filter(|p| p.extension().is_some_and(|e| e == "html")).collect();
                assert_eq!(hits, Vec::<PathBuf>::new(), "case {i}: pages naming {needle}");
            }
        }
        // From the root directory: found in the client's projects directory
        // (or the directory the command names).
        let found = At { cwd: root, home: &home, config: &cfg };
        for cmd in cmds.iter().take(12) {
            run_copied(&found, cmd);
        }
        if want.is_some() {
            // Named: found there, with no client directory and no archive.
            let nowhere = At { cwd: root, home: &no_cfg, config: &no_cfg };
            for cmd in cmds.iter().take(3) {
                run_copied(&nowhere, cmd);
            }
        }
        // Not there: found in the archive of `cctree sync`; in neither, a
        // clear error, and the command works with --projects.
        if want.is_none() {
            let no_client = At { cwd: root, home: &home, config: &no_cfg };
            for cmd in cmds.iter().take(12) {
                run_copied_archived(&no_client, cmd, &archive);
            }
            for cmd in cmds.iter().take(3) {
                run_copied_elsewhere(&no_client, cmd, &elsewhere);
            }
        }
    }
}

/// The fork commands on pages had no `--` before the session id,
/// so an id starting with `-` (ids come from transcripts) was read as an
/// option and the copied command failed. (This test passed
/// only where the clone sat three directories deep, as the command carried
/// `--projects` relative to where the render ran.) Rendered from the
/// client's projects directory, the commands are run from other directories.
#[test]
fn fork_commands_for_ids_starting_with_a_dash_work_as_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let config = t.join("config");
    let projects = config.join("projects");
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
    let o = cctree()
        .args(["-q", "render"])
        .arg(&projects)
        .arg("-o")
        .arg(&site)
        .env("HOME", &t)
        .env("CLAUDE_CONFIG_DIR", &config)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut cmds = Vec::new();
    for (path, bytes) in files(&site) {
        if path.extension().is_some_and(|e| e == "html") {
            cmds.extend(fork_commands_in(&String::from_utf8_lossy(&bytes)));
        }
    }
    assert!(!cmds.is_empty(), "no fork command on the site");
    let deep = t.join("a/b/c/d");
    std::fs::create_dir_all(&deep).unwrap();
    for cwd in [t.as_path(), deep.as_path(), Path::new("/")] {
        let at = At { cwd, home: &t, config: &config };
        for cmd in &cmds {
            run_copied(&at, cmd);
            assert!(cmd.ends_with(&format!(" -- {session}")), "{cmd}");
            assert!(!cmd.contains(" --projects "), "{cmd}");
        }
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
        // Published (a site not published names its
        // archive in its fork commands, and nowhere else).
        let o = cctree()
            .args(["-q", "render", "--base-url", "https://example.org/"])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(files(&out).keys().filter(|p| p.extension().is_some_and(|e| e == "html")).count() > 5);
        assert_eq!(holding(&out, &needle), Vec::<PathBuf>::new(), "{name}: files naming {needle}");
        let local = tmp.path().join(format!("{name}-local"));
        let o = cctree().args(["-q", "render"]).arg(&input).arg("-o").arg(&local).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for (path, bytes) in files(&local).into_iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "html")) {
            let page = String::from_utf8_lossy(&bytes);
            let named = page.matches(&needle).count();
            let in_commands = page.matches(&format!("--projects {needle} ")).count();
            assert_eq!(named, in_commands, "{}: names {needle} outside its fork commands", path.display());
        }
        // Asked for, the path is there (so the check above can fail).
        let shown = tmp.path().join(format!("{name}-shown"));
        let o = cctree().args(["-q", "render", "--show-paths"]).arg(&input).arg("-o").arg(&shown).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!holding(&shown, &needle).is_empty(), "{name}: --show-paths shows no path");
    }
    // Odd entries are placed from the project directory, not the disk.
    let odd = crate::support::odd_archive().canonicalize().unwrap();
    let out = tmp.path().join("odd");
    // Published (--base-url): a local site's fork commands name its archive.
    let o = cctree()
        .args(["-q", "render", "--base-url", "https://example.org/chats/"])
        .arg(&odd)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(holding(&out, &odd.display().to_string()), Vec::<PathBuf>::new());
    let page = std::fs::read_to_string(out.join("-home-alice-odd/index.html")).unwrap();
    assert!(page.contains("future-thing (-home-alice-odd/0dd00000-0000-4000-8000-0000000000d1.jsonl:3)"), "{page}");
}

/// A published render (`--base-url`) of the example and
/// every fixture archive — pages, search shards, scripts, sitemap, the render
/// cache — and each conversation's exports (HTML and Markdown) hold no
/// directory of the machine: not the input's absolute path nor the relative
/// one it was given as, not the output's, not `$HOME`, not the directory the
/// render ran in. Each of those directories carries a marker name found in
/// no transcript, so any byte naming one is found. (The working directories
/// a transcript records are its content, and stay.)
#[test]
fn a_published_render_names_no_directory_of_the_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (home, cwd, out_root) = (t.join("home-q7hj2"), t.join("cwd-x4kv9"), t.join("out-m3pz8"));
    std::fs::create_dir_all(&cwd).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut inputs = vec![("example", example_archive()), ("odd", crate::support::odd_archive())];
    inputs.push(("claude-code-log", fixtures.join("claude-code-log/real_projects")));
    for client in ["client-2.1.330", "client-2.1.332", "codex-0.171.0", "gemini-0.61.0"] {
        for e in std::fs::read_dir(fixtures.join(client)).unwrap().map(Result::unwrap) {
            if e.file_type().unwrap().is_dir() {
                let name: &'static str = format!("{client}-{}", e.file_name().to_string_lossy()).leak();
                inputs.push((name, e.path()));
            }
        }
    }
    assert!(inputs.len() >= 10, "{inputs:?}");
    let markers = ["home-q7hj2", "cwd-x4kv9", "out-m3pz8", "in-w8rc5", &t.display().to_string()];
    let (mut checked, mut exported) = (0, 0);
    for (name, from) in &inputs {
        // The input, inside the home directory, given relative to the cwd.
        let input = home.join("in-w8rc5").join(name);
        copy_tree(from, &input);
        let relative = Path::new("../home-q7hj2/in-w8rc5").join(name);
        let out = out_root.join(name);
        let at = At { cwd: &cwd, home: &home, config: &home.join(".claude") };
        let o = at
            .command(env!("CARGO_BIN_EXE_cctree"))
            .args(["-q", "render", "--base-url", "https://example.org/chats/"])
            .arg(&relative)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        // Each conversation's exports, looked up by a page's session id.
        let site = files(&out);
        let mut sessions: Vec<String> = Vec::new();
        for (path, bytes) in &site {
            if path.extension().is_some_and(|e| e == "html") {
                for cmd in fork_commands_in(&String::from_utf8_lossy(bytes)) {
                    if let Some(id) = cmd.rsplit(" -- ").next().filter(|_| cmd.contains(" -- ")) {
                        let id = id.trim_matches('\'').to_string();
                        if !sessions.contains(&id) {
                            sessions.push(id);
                        }
                    }
                }
            }
        }
        let exports = out_root.join(format!("{name}-exports"));
        std::fs::create_dir_all(&exports).unwrap();
        for (i, id) in sessions.iter().take(4).enumerate() {
            for ext in ["html", "md"] {
                let file = exports.join(format!("{i}.{ext}"));
                let o = at
                    .command(env!("CARGO_BIN_EXE_cctree"))
                    .args(["-q", "export", "--projects"])
                    .arg(&relative)
                    .arg("-o")
                    .arg(&file)
                    .arg("--")
                    .arg(id)
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{name}: export {id}: {}", String::from_utf8_lossy(&o.stderr));
                exported += 1;
            }
        }
        let all = site.into_iter().chain(files(&exports));
        for (path, bytes) in all {
            checked += bytes.len();
            for m in &markers {
                let hit = bytes.windows(m.len()).position(|w| w == m.as_bytes());
                if let Some(at) = hit {
                    let around = String::from_utf8_lossy(&bytes[at.saturating_sub(120)..(at + 120).min(bytes.len())])
                        .into_owned();
                    panic!("{name}: {} names {m}: …{around}…", path.display());
                }
            }
        }
    }
    assert!(checked > 1_000_000 && exported >= 20, "only {checked} bytes and {exported} exports checked");
}
