//! The command line a newcomer meets on a fresh clone: a mistaken input is
//! one error naming it, a flood of one warning is capped with its count,
//! every command reads the same default folders and names every agent's,
//! what is printed lines up (`warning:` beside `error:` and `note:`, a
//! finding once and in line order, a table as wide as the terminal), and
//! nothing asked for fails quietly (`--open`, a moved port, `-o -`).

use std::io::BufRead;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{cctree, example_archive, odd_archive};

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

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_file_that_is_not_a_transcript_is_one_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    for cmd in ["render", "stats", "check"] {
        let mut c = cctree();
        c.arg(cmd).arg(&readme);
        if cmd == "render" {
            c.arg("-o").arg(tmp.path().join("site"));
        }
        let out = c.output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert_eq!(err.lines().count(), 1, "{cmd}: one line: {err}");
        assert!(err.starts_with("error: ") && err.contains("README.md is not a transcript"), "{cmd}: {err}");
    }
    assert!(!tmp.path().join("site").exists(), "no empty site is written");
}

#[test]
fn a_flood_of_one_warning_about_one_file_is_capped_with_its_count() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects/-home-me-app");
    std::fs::create_dir_all(&project).unwrap();
    let good =
        std::fs::read_to_string(odd_archive().join("-home-alice-odd/0dd00000-0000-4000-8000-0000000000d1.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string();
    let mut file = format!("{good}\n");
    for i in 0..500 {
        file.push_str(&format!("not json {i}\n"));
    }
    std::fs::write(project.join("0dd00000-0000-4000-8000-0000000000d1.jsonl"), file).unwrap();
    let out = cctree()
        .arg("render")
        .arg(tmp.path().join("projects"))
        .arg("-o")
        .arg(tmp.path().join("site"))
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warnings.len(), 11, "ten listed, then one that counts the rest:\n{err}");
    assert!(warnings[10].contains(":12: and 490 more lines like the above, to line 501 (malformed JSON"), "{err}");
    assert!(err.contains("11 warnings"), "the summary counts what was printed:\n{err}");
}

#[test]
fn warnings_are_headed_as_errors_and_notes_are() {
    let out = cctree().arg("stats").arg(odd_archive()).output().unwrap();
    let err = text(&out.stderr);
    assert!(err.lines().any(|l| l.starts_with("warning: ") && l.contains("malformed JSON")), "{err}");
    assert!(!err.contains("WARN"), "{err}");
}

#[test]
fn check_prints_each_finding_once_in_line_order() {
    let out = cctree().arg("check").arg(odd_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!stderr.contains("malformed JSON"), "a finding is not also a warning:\n{stderr}");
    let lines: Vec<(String, u32)> = stdout
        .lines()
        .filter_map(|l| {
            let (at, _) = l.split_once(": [")?;
            let (file, line) = at.rsplit_once(':')?;
            Some((file.to_string(), line.parse().ok()?))
        })
        .collect();
    assert!(lines.len() >= 2, "{stdout}");
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "in file and line order:\n{stdout}");
}

#[test]
fn the_stats_table_fits_the_terminal_and_detail_asks_for_json() {
    for width in [60usize, 100] {
        let out = cctree().arg("stats").arg(example_archive()).env("COLUMNS", width.to_string()).output().unwrap();
        let stdout = text(&out.stdout);
        for l in stdout.lines() {
            assert!(l.chars().count() <= width, "{width} columns: {l:?}\n{stdout}");
        }
        assert!(stdout.contains("weather-cli") && stdout.contains("TOTAL") && stdout.contains("sidechain"), "{stdout}");
    }
    let out = cctree().args(["stats", "--detail"]).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--json"), "{}", text(&out.stderr));
}

#[test]
fn help_names_every_agent_s_default_folder_and_jobs_only_where_workers_run() {
    let out = cctree().arg("--help").env("HOME", "/home/newcomer").output().unwrap();
    let help = text(&out.stdout);
    for folder in ["~/.claude/projects", "~/.codex/sessions", "~/.gemini/tmp"] {
        assert!(help.contains(folder) || help.contains("/nonexistent/cctree-test"), "{folder}:\n{help}");
    }
    assert!(help.contains("Codex CLI") && help.contains("Gemini CLI"), "{help}");
    for (cmd, jobs) in [("render", true), ("prices", false), ("completions", false), ("man", false)] {
        let out = cctree().args([cmd, "--help"]).output().unwrap();
        assert_eq!(text(&out.stdout).contains("--jobs"), jobs, "{cmd} --help");
    }
}

#[test]
fn render_to_stdout_is_refused_and_the_redact_hint_comes_with_a_new_site() {
    let tmp = tempfile::tempdir().unwrap();
    let out = cctree().current_dir(tmp.path()).arg("render").arg(example_archive()).args(["-o", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot go to stdout"), "{}", text(&out.stderr));
    assert!(!tmp.path().join("-").exists(), "no folder named -");
    let site = tmp.path().join("site");
    let hint = |args: &[&str]| {
        let out = cctree().arg("render").arg(example_archive()).arg("-o").arg(&site).args(args).output().unwrap();
        assert!(out.status.success());
        text(&out.stderr).contains("--redact")
    };
    assert!(hint(&[]), "a new site");
    assert!(!hint(&[]), "rendered again");
    assert!(hint(&["--base-url", "https://example.org/chats/"]), "about to be published");
}

#[test]
fn a_browser_that_fails_to_open_the_site_is_said() {
    let tmp = tempfile::tempdir().unwrap();
    let out = cctree()
        .args(["-q", "render"])
        .arg(example_archive())
        .arg("-o")
        .arg(tmp.path().join("site"))
        .arg("--open")
        .env("BROWSER", "sh -c 'exit 4'")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("browser did not open") && err.contains("exit 4") && err.contains("index.html"), "{err}");
    let opened = tmp.path().join("opened");
    let out = cctree()
        .args(["-q", "render"])
        .arg(example_archive())
        .arg("-o")
        .arg(tmp.path().join("site"))
        .arg("--open")
        .env("BROWSER", format!("f() {{ echo \"$1\" > '{}'; }}; f", opened.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(&opened).unwrap_or_default();
    assert!(page.trim_end().ends_with("index.html"), "the page opened: {page:?}");
}

#[test]
fn serve_quiet_still_says_where_it_moved_when_its_port_was_taken() {
    // Hold the default port (or find it held already): the server moves on.
    let _held = std::net::TcpListener::bind(("127.0.0.1", 8417));
    let tmp = tempfile::tempdir().unwrap();
    let mut child = cctree()
        .args(["-q", "serve"])
        .arg(example_archive())
        .arg("-o")
        .arg(tmp.path().join("site"))
        .env_remove("CCTREE_ARCHIVE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let start = Instant::now();
    let mut said = None;
    while start.elapsed() < Duration::from_secs(90) && said.is_none() {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            said = line.contains("at http://127.0.0.1:").then_some(line);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let said = said.expect("the URL it moved to");
    assert!(!said.contains(":8417/"), "{said}");
}

#[test]
fn fork_takes_the_start_of_a_session_id_and_its_errors_ask_for_what_was_not_given() {
    let tmp = tempfile::tempdir().unwrap();
    let projects = tmp.path().join("projects");
    copy_tree(&example_archive(), &projects);
    let fork =
        |target: &str| cctree().args(["fork", target, "--dry-run", "--projects"]).arg(&projects).output().unwrap();
    let out = fork("5e5510a2");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("fork of session 5e5510a2-0000-4000-8000-0000000000a2"),
        "{}",
        text(&out.stdout)
    );
    let out = fork("5e5510a");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("ambiguous"), "{}", text(&out.stderr));
    let out = fork("5e5510a9");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(!err.contains("pass --projects"), "--projects was given: {err}");
}

#[test]
fn the_guide_s_completion_line_works_where_its_folder_does_not_exist_yet() {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/completions.md")).unwrap();
    let line = guide.lines().find(|l| l.contains("completions bash")).unwrap();
    let line = line.split("   #").next().unwrap().trim();
    let home = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_cctree")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(line)
        .env("HOME", home.path())
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{line}: {}", text(&out.stderr));
    let script = std::fs::read_to_string(home.path().join(".local/share/bash-completion/completions/cctree")).unwrap();
    assert!(script.contains("_cctree"), "a completion script");
}
