//! The command line: output shapes and exit codes.

use std::path::Path;

use crate::support::{cctree, corpus, example_archive, odd_archive};

#[test]
fn stats_json_has_the_documented_keys() {
    let out = cctree().args(["stats", "--json", "--detail"]).arg(example_archive()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in [
        "projects",
        "files",
        "lines",
        "bad_lines",
        "entries",
        "nodes",
        "duplicate_uuids",
        "roots",
        "leaves",
        "multi_child_nodes",
        "fork_points",
        "conversations",
        "branches",
        "sidechain_nodes",
        "summaries",
        "summaries_attached",
        "compactions",
    ] {
        assert!(v[k].is_u64(), "missing {k}");
    }
    assert_eq!(v["projects"], 2);
    let conv = &v["projects_detail"][1]["conversations"][0];
    for k in ["id", "root", "title", "messages", "fork_points", "branches"] {
        assert!(!conv[k].is_null(), "missing {k}");
    }
    let fork = &conv["fork_points"][0];
    assert!(fork["uuid"].is_string() && fork["children"].is_array());
    let main = &conv["branches"][0];
    assert!(main["fork_point"].is_null(), "the main branch has no fork point");
    for k in ["id", "leaf", "title", "messages"] {
        assert!(!main[k].is_null(), "missing {k}");
    }
    assert!(conv["branches"][1]["fork_point"].is_string());
}

#[test]
fn stats_table_on_a_terminal_or_pipe() {
    let out = cctree().arg("stats").arg(example_archive()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("-home-alice-src-weather-cli") && text.contains("TOTAL"), "{text}");
}

#[test]
fn check_exit_codes() {
    // The bundled example is clean.
    let out = cctree().args(["check"]).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "no findings\n");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // Its odd entries live in their own fixture.
    let out = cctree().args(["check", "--json"]).arg(odd_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["counts"], serde_json::json!({"malformed-line": 1, "unknown-type": 1}));
    // A broken file has findings, each with file:line.
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("s.jsonl");
    std::fs::write(
        &f,
        concat!(
            "{\"type\":\"user\",\"uuid\":\"a\",\"parentUuid\":\"gone\",\"sessionId\":\"s\",\"message\":{\"content\":\"hi\"}}\n",
            "{\"type\":\"user\",\"uuid\":\"b\",\"parentUuid\":\"a\",\"sessi"
        ),
    )
    .unwrap();
    let out = cctree().args(["check", "--json"]).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["P2-dangling-parent", "malformed-line"]);
    assert_eq!(v["findings"][1]["line"], 2);
    // A missing input is an error (exit 2) that names the path.
    let out = cctree().args(["check", "/nonexistent/projects"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/projects"));
}

#[test]
fn missing_default_directory_points_at_the_example() {
    let tmp = tempfile::tempdir().unwrap();
    let out = cctree().arg("stats").env("CLAUDE_CONFIG_DIR", tmp.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not exist") && err.contains("examples/archive/projects"), "{err}");
}

#[test]
fn real_corpus_checks_without_errors() {
    let out = cctree().args(["check", "--json"]).arg(corpus().join("real_projects")).output().unwrap();
    // Findings are expected in real data; an error (2) is not.
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f["file"].is_string() && f["line"].is_u64()));
}

/// The `warning:` lines of a run's stderr, and the count its summary line gives.
fn warnings_of(stderr: &str) -> (Vec<String>, usize) {
    let lines: Vec<String> =
        stderr.lines().filter_map(|l| l.trim_start().strip_prefix("warning: ")).map(str::to_string).collect();
    let summary = stderr.lines().find(|l| l.starts_with("rendered ")).unwrap_or_else(|| panic!("no summary: {stderr}"));
    let n = summary
        .split(" warnings in ")
        .next()
        .and_then(|head| head.split(" warning in ").next())
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok());
    (lines, n.unwrap_or_else(|| panic!("no warning count in {summary:?}")))
}

#[test]
fn render_prints_every_warning_it_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let render = || {
        let out = cctree().arg("render").arg(odd_archive()).arg("-o").arg(&site).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        warnings_of(&String::from_utf8_lossy(&out.stderr))
    };
    let file = odd_archive().join("-home-alice-odd/0dd00000-0000-4000-8000-0000000000d1.jsonl");
    let page = site.join("-home-alice-odd/c/0dd00000-0000-4000-8000-000000000001/index.html");
    let expected = [
        format!("{}:3: unknown entry type \"future-thing\" (1 entry, kept and shown as it is)", file.display()),
        format!("{}:4: malformed JSON, line skipped: EOF while parsing a string at line 1 column 108", file.display()),
        format!("{}: image not written: image data is not valid base64", page.display()),
    ];
    // A fresh render, then one that re-uses everything: the same warnings,
    // each printed, and the summary counts exactly those.
    for run in ["fresh", "unchanged"] {
        let (lines, n) = render();
        assert_eq!(lines, expected, "{run}");
        assert_eq!(n, expected.len(), "{run}");
    }
    // The empty image is odd but not a warning: a placeholder on the page.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("image not shown: empty image"), "no placeholder for the empty image");
    // Problems met walking the directories (a symbolic link loop) are found
    // afresh each run: printed and counted each time, also when nothing changed.
    #[cfg(unix)]
    {
        let input = tmp.path().join("odd");
        let project = input.join("-home-alice-odd");
        std::fs::create_dir_all(project.join("sub")).unwrap();
        for f in std::fs::read_dir(odd_archive().join("-home-alice-odd")).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), project.join(f.file_name())).unwrap();
        }
        std::os::unix::fs::symlink(&project, project.join("sub/loop")).unwrap();
        let site = tmp.path().join("looped");
        for run in ["fresh", "unchanged"] {
            let out = cctree().arg("render").arg(&input).arg("-o").arg(&site).output().unwrap();
            let (lines, n) = warnings_of(&String::from_utf8_lossy(&out.stderr));
            assert_eq!((lines.len(), n), (expected.len() + 1, expected.len() + 1), "{run}: {lines:#?}");
            assert!(lines.iter().any(|l| l.contains("loop")), "{run}: {lines:#?}");
        }
    }
    // A clean archive: no warning printed, "0 warnings".
    let out = cctree().arg("render").arg(example_archive()).arg("-o").arg(tmp.path().join("ex")).output().unwrap();
    let (lines, n) = warnings_of(&String::from_utf8_lossy(&out.stderr));
    assert_eq!((lines, n), (Vec::<String>::new(), 0));
}

/// The usage lines the guide lists (docs/guide/usage.md) and the command
/// headings of the README and the guide are the program's own.
#[test]
fn guide_usage_is_the_programs() {
    let help = |cmd: &[&str]| {
        let out = cctree().args(cmd).arg("--help").output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let usage = |h: &str| h.lines().find_map(|l| l.strip_prefix("Usage: ")).map(str::to_string).expect("a usage line");
    let top = help(&[]);
    let commands: Vec<&str> = top
        .split("Commands:\n")
        .nth(1)
        .expect("a command list")
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 4, "{commands:?}");
    let mut want = vec![usage(&top)];
    want.extend(commands.iter().map(|c| usage(&help(&[c]))));
    let guide = manifest().join("docs/guide");
    let usage_page = std::fs::read_to_string(guide.join("usage.md")).unwrap();
    let section = usage_page.split("# Usage\n").nth(1).and_then(|s| s.split("\n## ").next()).expect("# Usage");
    let listed: Vec<&str> = section.lines().filter(|l| l.starts_with("cctree ")).collect();
    assert_eq!(listed, want, "the guide's usage lines (docs/guide/usage.md) are not the program's");
    // Each command's heading, in the README and in every page of the guide, is its usage line.
    let mut pages = vec![manifest().join("README.md")];
    pages.extend(
        std::fs::read_dir(&guide)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    let mut headings = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let mut fenced = false;
        for l in text.lines() {
            fenced ^= l.starts_with("```");
            if fenced || !l.starts_with('#') || !l.contains("`cctree ") {
                continue;
            }
            let inner = l.split('`').nth(1).unwrap();
            assert!(
                want.iter().any(|w| w == inner),
                "{}: heading {l:?} is no usage line of the program",
                page.display()
            );
            headings += 1;
        }
    }
    assert!(headings >= 8, "only {headings} command headings in the README and the guide");
}

// ---------------------------------------------------------------------------
// A command line that installs in one line and behaves like the
// tools its users know.

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo install cctree` builds the published package: it must hold what
/// the build reads (build.rs, the lock file), the licence, and say where it
/// comes from. (`.ci/run` also builds and tests the unpacked package.)
#[test]
fn the_package_holds_what_the_build_needs() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["package", "--list", "--locked", "--offline", "--allow-dirty"])
        .current_dir(manifest())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    let files: Vec<&str> = listed.lines().collect();
    for f in ["build.rs", "Cargo.lock", "Cargo.toml", "LICENSE", "README.md", "askama.toml", "src/main.rs"] {
        assert!(files.contains(&f), "the package lacks {f}: {files:?}");
    }
    // Every template and asset the binary compiles in.
    for dir in ["templates", "static"] {
        for e in walkdir::WalkDir::new(manifest().join(dir)).into_iter().flatten().filter(|e| e.file_type().is_file()) {
            let rel = e.path().strip_prefix(manifest()).unwrap().to_string_lossy().replace('\\', "/");
            assert!(files.contains(&rel.as_str()), "the package lacks {rel}");
        }
    }
    // Nothing of the tests' data (megabytes of fixtures) is shipped.
    assert!(files.iter().all(|f| !f.starts_with("tests/") && !f.starts_with("examples/")), "{files:?}");
    let toml = std::fs::read_to_string(manifest().join("Cargo.toml")).unwrap();
    let field = |k: &str| {
        toml.lines().find_map(|l| l.strip_prefix(&format!("{k} = "))).unwrap_or_else(|| panic!("Cargo.toml has no {k}"))
    };
    let repo = field("repository").trim_matches('"');
    assert!(repo.starts_with("https://"), "{repo}");
    for k in ["homepage", "keywords", "categories", "license"] {
        field(k);
    }
    // The README says where to clone from: the same repository.
    let readme = std::fs::read_to_string(manifest().join("README.md")).unwrap();
    assert!(readme.contains(&format!("git clone {repo}")), "the README never says `git clone {repo}`");
}

/// The completion scripts and the man page come from the binary itself.
#[test]
fn completions_and_man_page() {
    let generate = |args: &[&str]| {
        let out = cctree().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let bash = generate(&["completions", "bash"]);
    assert!(generate(&["completions", "zsh"]).starts_with("#compdef cctree"));
    assert!(generate(&["completions", "fish"]).contains("complete -c cctree"));
    assert!(generate(&["completions", "powershell"]).contains("Register-ArgumentCompleter"));
    // Bash completes a command and a command's options with it.
    if std::process::Command::new("bash").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let complete = |words: &str| {
            let script = format!(
                "{bash}\nCOMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMP_LINE=\"{words}\"; \
                 COMP_POINT=${{#COMP_LINE}}; _cctree cctree \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; \
                 printf '%s\\n' \"${{COMPREPLY[@]}}\""
            );
            let out = std::process::Command::new("bash").arg("-c").arg(script).output().unwrap();
            assert!(out.status.success(), "{}", stderr(&out));
            String::from_utf8(out.stdout).unwrap()
        };
        assert!(complete("cctree ren").lines().any(|l| l == "render"), "{}", complete("cctree ren"));
        assert!(complete("cctree render --base").lines().any(|l| l == "--base-url"));
    }
    let man = generate(&["man"]);
    assert!(man.starts_with(".ie") || man.contains(".TH cctree 1"), "{}", &man[..man.len().min(200)]);
    assert!(man.contains(".TH cctree 1"));
    for cmd in ["render", "stats", "check", "fork", "export", "sync"] {
        assert!(man.contains(&format!("cctree\\-{cmd}(1)")), "the page names no cctree-{cmd}(1)");
    }
    // Every page, for a packager.
    let tmp = tempfile::tempdir().unwrap();
    generate(&["man", "--dir", tmp.path().to_str().unwrap()]);
    for page in ["cctree.1", "cctree-render.1", "cctree-sync.1", "cctree-export.1"] {
        let text = std::fs::read_to_string(tmp.path().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH"), "{page}");
    }
    let render = std::fs::read_to_string(tmp.path().join("cctree-render.1")).unwrap();
    assert!(render.contains("base\\-url"), "cctree-render(1) lists its options");
}

/// `-q` prints errors only: no progress bar on a terminal either.
#[cfg(unix)]
#[test]
fn quiet_draws_no_progress_bar() {
    use crate::support::on_terminal;
    let tmp = tempfile::tempdir().unwrap();
    let run = |quiet: bool, site: &str| {
        let mut cmd = cctree();
        if quiet {
            cmd.arg("-q");
        }
        cmd.arg("render").arg(example_archive()).arg("-o").arg(tmp.path().join(site));
        let t = on_terminal(&mut cmd);
        assert!(t.status.success(), "{}", t.terminal);
        t.terminal
    };
    let loud = run(false, "a");
    assert!(loud.contains("rendered 2 projects"), "{loud}");
    assert!(loud.contains("-home-alice-"), "no progress bar drawn on a terminal: {loud:?}");
    assert_eq!(run(true, "b"), "", "-q drew something");
    for cmd in ["stats", "check"] {
        let mut c = cctree();
        c.args(["-q", cmd]).arg(example_archive());
        let t = on_terminal(&mut c);
        assert_eq!(t.terminal, "", "{cmd} -q drew something");
    }
}

/// The bar of a single-project archive tells how far the work is, not `0/1`.
#[cfg(unix)]
#[test]
fn one_project_progress_counts_its_work() {
    use crate::support::on_terminal;
    let tmp = tempfile::tempdir().unwrap();
    let project = example_archive().join("-home-alice-src-weather-cli");
    let mut cmd = cctree();
    cmd.arg("render").arg(&project).arg("-o").arg(tmp.path().join("site"));
    let t = on_terminal(&mut cmd);
    assert!(t.status.success(), "{}", t.terminal);
    assert!(!t.terminal.contains("/1 projects"), "{:?}", t.terminal);
    assert!(t.terminal.contains("3 files"), "the bar says what it reads: {:?}", t.terminal);
}

/// Colours: on a terminal unless `NO_COLOR` is set or `--color never`;
/// `--color always` also into a pipe.
#[cfg(unix)]
#[test]
fn colour_follows_no_color_and_color() {
    use crate::support::{colours, on_terminal};
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    let mut render = |args: &[&str], env: Option<(&str, &str)>| {
        n += 1;
        let mut cmd = cctree();
        cmd.args(args).arg("render").arg(odd_archive()).arg("-o").arg(tmp.path().join(format!("s{n}")));
        cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
        if let Some((k, v)) = env {
            cmd.env(k, v);
        }
        let t = on_terminal(&mut cmd);
        assert!(t.status.success(), "{}", t.terminal);
        assert!(t.terminal.contains("warning:"), "{}", t.terminal);
        colours(&t.terminal)
    };
    assert!(render(&[], None) > 0, "no colour on a terminal");
    assert_eq!(render(&[], Some(("NO_COLOR", "1"))), 0, "NO_COLOR is not honoured");
    assert_eq!(render(&["--color", "never"], None), 0, "--color never is not honoured");
    assert_eq!(render(&["--color=never"], Some(("CLICOLOR_FORCE", "1"))), 0);
    let out = cctree()
        .args(["--color", "always", "render"])
        .arg(odd_archive())
        .arg("-o")
        .arg(tmp.path().join("piped"))
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(colours(&stderr(&out)) > 0, "--color always into a pipe: {}", stderr(&out));
    // Help and usage errors too.
    let mut help = cctree();
    help.args(["render", "--help"]).env("NO_COLOR", "1");
    assert_eq!(colours(&String::from_utf8_lossy(&on_terminal(&mut help).stdout)), 0);
    let mut bad = cctree();
    bad.args(["--color", "never", "render", "--no-such-flag"]);
    let t = on_terminal(&mut bad);
    assert_eq!(t.status.code(), Some(2));
    assert!(t.terminal.contains("--no-such-flag") && colours(&t.terminal) == 0, "{:?}", t.terminal);
}

/// `-v` and `RUST_LOG` show the log, as in other Rust tools.
#[test]
fn verbose_and_rust_log_show_the_log() {
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = cctree();
        cmd.args(args).arg(example_archive()).env_remove("RUST_LOG").env_remove("CCTREE_LOG");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    let debug = |text: &str| text.lines().any(|l| l.starts_with("debug: ") && l.contains("stats in"));
    assert!(!debug(&run(&["stats"], &[])), "the log shows by default");
    assert!(debug(&run(&["-vv", "stats"], &[])), "-vv shows no debug log");
    assert!(debug(&run(&["stats", "--verbose", "--verbose"], &[])), "--verbose --verbose shows no debug log");
    assert!(debug(&run(&["stats"], &[("RUST_LOG", "debug")])), "RUST_LOG=debug shows no debug log");
    assert!(debug(&run(&["stats"], &[("CCTREE_LOG", "debug")])), "CCTREE_LOG=debug shows no debug log");
    assert!(!debug(&run(&["-v", "stats"], &[])), "-v is info, not debug");
    let out = cctree().args(["-q", "-v", "stats"]).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "-q with -v is a usage error");
}

/// `export -o -` writes to standard output, as `-` means everywhere.
#[test]
fn export_to_standard_output() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        cctree()
            .args(["-q", "export", "--projects"])
            .arg(example_archive())
            .arg("5e5510b1-0000-4000-8000-0000000000b1")
            .args(["-o", "-"])
            .args(args)
            .current_dir(tmp.path())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("How many notes"), "{}", &html[..html.len().min(300)]);
    assert!(!tmp.path().join("-").exists(), "a file named - was written");
    let out = run(&["--format", "md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("How many notes") && !md.contains("<!DOCTYPE"), "{md}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "export -o - wrote a file");
}

/// `--conversation` and `export` take a unique id prefix, as `fork --at` does.
#[test]
fn ids_by_unique_prefix() {
    let tmp = tempfile::tempdir().unwrap();
    // A session id's prefix (the notes conversation) and a message uuid's.
    for prefix in ["5e5510b1", "b0000000-0000-4000-8000-00000000000"] {
        let out = cctree().args(["stats", "--json", "--conversation", prefix]).arg(example_archive()).output().unwrap();
        assert!(out.status.success(), "{prefix}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((v["projects"].as_u64(), v["conversations"].as_u64()), (Some(1), Some(1)), "{prefix}");
    }
    let site = tmp.path().join("site");
    let out = cctree()
        .args(["-q", "render", "--conversation", "5e5510a2"])
        .arg(example_archive())
        .arg("-o")
        .arg(&site)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(site.join("-home-alice-src-weather-cli").is_dir() && !site.join("-home-alice-notes").exists());
    let file = tmp.path().join("notes.md");
    let out = cctree()
        .args(["-q", "export", "--projects"])
        .arg(example_archive())
        .args(["5e5510b1", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&file).unwrap().contains("How many notes"));
    // A prefix of ids of two conversations names neither: it lists them.
    let out = cctree().args(["stats", "--conversation", "5e5510"]).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("5e5510") && err.contains("ambiguous") && err.contains("a1000000-0000-4000-8000-000000000001"),
        "{err}"
    );
    let out = cctree()
        .args(["-q", "export", "--projects"])
        .arg(example_archive())
        .args(["5e5510", "-o"])
        .arg(tmp.path().join("x.md"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("names 2 conversations"), "{}", stderr(&out));
    // One conversation a line, not a literal `\x0a` between them.
    let err = stderr(&out);
    assert!(!err.contains("\\x0a") && err.lines().filter(|l| l.starts_with("  ")).count() == 2, "{err}");
}

/// `render --help` groups options by what they are about.
#[test]
fn help_headings_hold_their_options() {
    for cmd in ["render", "stats", "check"] {
        let out = cctree().args([cmd, "--help"]).output().unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        let selection = help.split("\nSelection").nth(1).unwrap_or_else(|| panic!("{cmd}: no Selection heading"));
        let section = selection.split("\n\n").next().unwrap();
        let flags: Vec<&str> = section
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("--"))
            .map(|l| l.split([' ', '=', '<']).next().unwrap())
            .collect();
        assert_eq!(flags, ["project", "conversation", "since", "until", "agent"], "{cmd} --help:\n{help}");
    }
}

/// One project, one image, one warning: no "1 projects".
#[test]
fn counts_of_one_are_singular() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects/-home-me-app");
    std::fs::create_dir_all(&project).unwrap();
    // A 1×1 PNG.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let lines = [
        format!(
            r#"{{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","cwd":"/home/me/app","timestamp":"2026-01-01T00:00:00Z","message":{{"role":"user","content":[{{"type":"text","text":"look"}},{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{png}"}}}}]}}}}"#
        ),
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","model":"m","content":[{"type":"text","text":"seen"}]}}"#.to_string(),
        r#"{"type":"user","uuid":"u2","parentUu"#.to_string(),
    ];
    std::fs::write(project.join("s1.jsonl"), lines.join("\n")).unwrap();
    let out = cctree()
        .arg("render")
        .arg(tmp.path().join("projects"))
        .arg("-o")
        .arg(tmp.path().join("site"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let summary = err.lines().find(|l| l.starts_with("rendered ")).unwrap_or_else(|| panic!("{err}"));
    assert!(
        summary.starts_with("rendered 1 project, 1 conversation, 1 branch: ")
            && summary.contains(" pages, 1 image, 1 warning in "),
        "{summary}"
    );
}

/// `render --open` opens the site in the browser (`$BROWSER`, else the system's).
#[cfg(unix)]
#[test]
fn open_opens_the_index_in_the_browser() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let browser = tmp.path().join("browser");
    let seen = tmp.path().join("seen");
    std::fs::write(&browser, format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", seen.display())).unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let site = tmp.path().join("site");
    let out = cctree()
        .args(["-q", "render", "--open"])
        .arg(example_archive())
        .arg("-o")
        .arg(&site)
        .env("BROWSER", &browser)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The browser is started, not waited for.
    let t0 = std::time::Instant::now();
    while !seen.exists() && t0.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let opened = std::fs::read_to_string(&seen).expect("the browser was not started");
    assert!(opened.ends_with("index.html") && Path::new(&opened).is_file(), "{opened}");
    assert_eq!(std::fs::canonicalize(&opened).unwrap(), std::fs::canonicalize(site.join("index.html")).unwrap());
}

// Errors that mislead.

/// `cctree stats ~/.claude` (the config directory) reads its `projects/`,
/// not every project merged into one called `projects`.
#[test]
fn the_config_directory_reads_its_projects() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join(".claude");
    std::fs::create_dir_all(config.join("todos")).unwrap();
    std::fs::write(config.join("settings.json"), "{}").unwrap();
    copy_dir(&example_archive(), &config.join("projects"));
    let out = cctree().args(["stats", "--json", "--detail"]).arg(&config).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["projects"], 2, "{v}");
    let names: Vec<&str> = v["projects_detail"].as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(!names.contains(&"projects"), "{names:?}");
    assert!(stderr(&out).contains(&config.join("projects").display().to_string()), "{}", stderr(&out));
}

/// An empty or mistyped input is an error, not an empty site.
#[test]
fn an_input_without_transcripts_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    let docs = tmp.path().join("Documents");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(docs.join("letters")).unwrap();
    std::fs::write(docs.join("letters/a.txt"), "hello").unwrap();
    for input in [&empty, &docs] {
        for cmd in ["render", "stats", "check"] {
            let mut c = cctree();
            c.arg(cmd).arg(input);
            if cmd == "render" {
                c.arg("-o").arg(tmp.path().join("site"));
            }
            let out = c.output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{cmd} {}: {}", input.display(), stderr(&out));
            let err = stderr(&out);
            assert!(err.contains("no transcript") && err.contains(&input.display().to_string()), "{err}");
        }
    }
    assert!(!tmp.path().join("site").exists());
}

/// A file given as input is that file, not its whole directory: a site
/// beside it is not "inside the input".
#[test]
fn a_file_input_is_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let src = example_archive().join("-home-alice-notes/5e5510b1-0000-4000-8000-0000000000b1.jsonl");
    let file = tmp.path().join("chat.jsonl");
    std::fs::copy(&src, &file).unwrap();
    let out = cctree().current_dir(tmp.path()).args(["-q", "render", "chat.jsonl", "-o", "site"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(tmp.path().join("site/index.html").is_file());
    // The file itself is still the input.
    let out =
        cctree().current_dir(tmp.path()).args(["-q", "render", "chat.jsonl", "-o", "chat.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `cctree DIR` hints at `cctree render DIR`.
#[test]
fn a_path_instead_of_a_command_gets_a_hint() {
    let out = cctree().arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let shown = example_archive().display().to_string();
    assert!(err.contains(&format!("cctree render {shown}")), "{err}");
    // A mistyped command still gets clap's suggestion.
    let out = cctree().arg("rendr").output().unwrap();
    assert!(stderr(&out).contains("render"), "{}", stderr(&out));
}

/// `cctree sync` without any agent's default folder says which were looked
/// for (Claude Code's projects directory among them), and what to do.
#[test]
fn sync_without_the_default_directory_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let out = cctree()
        .args(["sync", "--to"])
        .arg(tmp.path().join("archive"))
        .env("CLAUDE_CONFIG_DIR", tmp.path().join("config"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("no agent's default folder exists") && err.contains("config/projects"), "{err}");
    assert!(err.contains("cctree sync DIR") || err.contains("pass"), "{err}");
    assert!(!tmp.path().join("archive").exists(), "an archive was made for nothing");
}

/// Plain `cctree` suggests the bundled example only where it is.
#[test]
fn the_example_is_suggested_only_where_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |dir: &Path| {
        let out = cctree()
            .current_dir(dir)
            .env("CLAUDE_CONFIG_DIR", tmp.path().join("config"))
            .env("CCTREE_ARCHIVE", tmp.path().join("no-archive"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        stderr(&out)
    };
    let outside = run(tmp.path());
    assert!(outside.contains("does not exist") && !outside.contains("examples/archive/projects"), "{outside}");
    assert!(run(manifest()).contains("examples/archive/projects"));
}

/// Without `HOME`, the home directory is still found (as the system knows it).
#[test]
fn the_home_directory_without_home() {
    let out = cctree()
        .args(["stats", "--project", "no-such-project-*"])
        .env_remove("HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(!err.contains("HOME is set") && !err.contains("HOME is not set"), "{err}");
    assert!(err.contains("/.claude/projects"), "{err}");
}

/// `--base-url` is checked as a URL (the `url` crate): an IDN host is
/// fine, a broken one is not.
#[test]
fn base_urls_are_urls() {
    let tmp = tempfile::tempdir().unwrap();
    let render = |url: &str, dir: &str| {
        cctree()
            .args(["-q", "render", "--base-url", url])
            .arg(example_archive())
            .arg("-o")
            .arg(tmp.path().join(dir))
            .output()
            .unwrap()
    };
    for bad in [
        "https://%zz/",
        "https://x:abc/",
        "https://exa..mple/",
        "ftp://example.org/",
        "https://u:p@example.org/",
        "https://example.org/?q",
        "https:///x",
    ] {
        let out = render(bad, "bad");
        assert_eq!(out.status.code(), Some(2), "{bad} was accepted");
        assert!(stderr(&out).contains("--base-url"), "{bad}: {}", stderr(&out));
    }
    assert!(!tmp.path().join("bad").exists());
    let out = render("https://münchen.de/chats", "idn");
    assert!(out.status.success(), "{}", stderr(&out));
    let index = std::fs::read_to_string(tmp.path().join("idn/index.html")).unwrap();
    assert!(index.contains(r#"<link rel="canonical" href="https://xn--mnchen-3ya.de/chats/index.html">"#), "{index}");
}

/// `robots.txt` is read only at a host's root: under a sub-path it is not
/// written, and cctree says what to do instead.
#[test]
fn robots_txt_only_at_a_host_root() {
    let tmp = tempfile::tempdir().unwrap();
    let render = |url: &str, dir: &str| {
        let out = cctree()
            .args(["render", "--sitemap", "--base-url", url])
            .arg(example_archive())
            .arg("-o")
            .arg(tmp.path().join(dir))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    let err = render("https://me.github.io/chats/", "sub");
    assert!(tmp.path().join("sub/sitemap.xml").is_file());
    assert!(!tmp.path().join("sub/robots.txt").exists(), "robots.txt under a sub-path");
    assert!(
        err.contains("robots.txt")
            && err.contains("https://me.github.io/robots.txt")
            && err.contains("https://me.github.io/chats/sitemap.xml"),
        "{err}"
    );
    let err = render("https://chats.example/", "root");
    let robots = std::fs::read_to_string(tmp.path().join("root/robots.txt")).unwrap();
    assert!(robots.contains("Sitemap: https://chats.example/sitemap.xml"), "{robots}");
    assert!(!err.contains("robots.txt"), "{err}");
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let dst = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}
