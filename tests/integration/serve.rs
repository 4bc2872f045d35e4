//! `cctree serve` over real HTTP on 127.0.0.1: the binary is
//! started on a copy of the example archive with `--port 0`, its address read
//! from what it prints, and spoken to through plain TCP (so that requests a
//! browser would never send — `..`, a foreign `Host` — can be sent as they
//! are). What must happen after a write is polled for, with a bound: a sleep
//! is never the answer.

#![cfg(unix)]

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{cctree, example_archive};

/// How long anything a test waits for may take (a busy shared machine).
const LIMIT: Duration = Duration::from_secs(90);

/// A running `cctree serve`.
pub struct Server {
    child: Child,
    addr: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `cctree serve ARGS… --port 0` with `env`, and waits for it to serve.
    pub fn start(args: &[&std::ffi::OsStr], env: &[(&str, &Path)]) -> Server {
        let mut cmd = cctree();
        cmd.arg("serve").args(args).args(["--port", "0"]);
        cmd.env_remove("CCTREE_ARCHIVE").env_remove("CLAUDE_CONFIG_DIR").env("BROWSER", "false");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut l = sink.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        let mut server = Server { child, addr: String::new(), log };
        server.addr = eventually("the server to start", || {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("cctree serve ended ({status}):\n{}", server.log());
            }
            let log = server.log();
            let at = log.find("at http://")? + "at http://".len();
            let end = at + log[at..].find('/')?;
            Some(log[at..end].to_string())
        });
        server
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    fn port(&self) -> &str {
        self.addr.rsplit(':').next().unwrap()
    }

    /// Sends `request` as it is and reads the answer (the connection closed after it).
    fn raw(&self, request: &str) -> Response {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(LIMIT)).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut bytes = Vec::new();
        s.read_to_end(&mut bytes).unwrap();
        Response::parse(&bytes)
    }

    /// GET `path` with the right `Host` and `extra` header lines.
    fn get_with(&self, path: &str, extra: &str) -> Response {
        self.raw(&format!("GET {path} HTTP/1.1\r\nHost: {}\r\n{extra}Connection: close\r\n\r\n", self.addr))
    }

    pub fn get(&self, path: &str) -> Response {
        self.get_with(path, "")
    }

    /// Sends SIGINT (as Ctrl-C does) or SIGTERM, and waits for the end.
    fn stop(mut self, signal: &str) -> (std::process::ExitStatus, String) {
        let pid = self.child.id().to_string();
        assert!(std::process::Command::new("kill").args([signal, &pid]).status().unwrap().success());
        let status = eventually("the server to stop", || self.child.try_wait().unwrap());
        // The stderr reader sees the end of the pipe.
        let log = eventually("the log to close", || {
            let l = self.log();
            (Arc::strong_count(&self.log) == 1).then_some(l)
        });
        (status, log)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Response {
    pub status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn parse(bytes: &[u8]) -> Response {
        let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").expect("an HTTP answer");
        let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Response { status, headers, body: bytes[end + 4..].to_vec() }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Polls `f` until it gives a value, [`LIMIT`] at most.
fn eventually<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < LIMIT, "waited {LIMIT:?} for {what}");
        std::thread::sleep(Duration::from_millis(40));
    }
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(from).unwrap();
        if e.file_type().is_dir() {
            std::fs::create_dir_all(to.join(rel)).unwrap();
        } else {
            std::fs::copy(e.path(), to.join(rel)).unwrap();
        }
    }
}

/// The example archive, copied (the tests write into it).
fn example_copy(tmp: &Path) -> PathBuf {
    let input = tmp.join("projects");
    copy_dir(&example_archive(), &input);
    input
}

const NOTES: &str = "-home-alice-notes";
const NOTES_SESSION: &str = "5e5510b1-0000-4000-8000-0000000000b1";
const NOTES_PAGE: &str = "/-home-alice-notes/c/b0000000-0000-4000-8000-000000000001/index.html";

/// A prompt line of the notes session, after its last message.
fn prompt_line(uuid: &str, parent: Option<&str>, session: &str, text: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        "{{\"parentUuid\":{parent},\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/home/alice/notes\",\
         \"sessionId\":\"{session}\",\"version\":\"2.1.42\",\"type\":\"user\",\"message\":{{\"role\":\"user\",\
         \"content\":\"{text}\"}},\"uuid\":\"{uuid}\",\"timestamp\":\"2026-03-05T09:00:00.000Z\"}}\n"
    )
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// The uuid of the last message of a session file.
fn last_uuid(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v.get("type").and_then(|t| t.as_str()).is_some_and(|t| t == "user" || t == "assistant"))
        .find_map(|v| v.get("uuid").and_then(|u| u.as_str()).map(str::to_string))
        .unwrap()
}

/// The page as the render wrote it: what the server sent less the two tags it adds.
fn without_live_tags(served: &str) -> String {
    let start = served.find("<link rel=\"stylesheet\" href=\"/.cctree/live.css\">").expect("the live tags");
    let end = served[start..].find("</script>\n").unwrap() + start + "</script>\n".len();
    format!("{}{}", &served[..start], &served[end..])
}

/// Appending to a session shows on its page; a new session in the project
/// index; a new project in the archive index; a held request for news
/// answers once its page changed. Pages carry the static site's policy, and
/// are the files of the site plus the live tags.
#[test]
fn follows_the_transcripts_as_they_are_written() {
    let tmp = tempfile::tempdir().unwrap();
    let input = example_copy(tmp.path());
    let site = tmp.path().join("site");
    let server = Server::start(&[input.as_os_str(), "-o".as_ref(), site.as_os_str()], &[]);

    let page = server.get(NOTES_PAGE);
    assert_eq!(page.status, 200, "{}", page.text());
    assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
    let csp = format!("{}; frame-ancestors 'none'", cctree::serve::SITE_CSP);
    assert_eq!(page.header("content-security-policy"), Some(csp.as_str()));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    let on_disk = std::fs::read_to_string(site.join(NOTES_PAGE.trim_start_matches('/'))).unwrap();
    assert_eq!(without_live_tags(&page.text()), on_disk, "the page served is not the file plus the live tags");
    assert!(!on_disk.contains("/.cctree/"), "the live tags were written into the site");
    let token = page.text().split("data-token=\"").nth(1).unwrap().split('"').next().unwrap().to_string();

    // A request for news, held until the page changes.
    let held = {
        let addr = server.addr.clone();
        let path = format!("/.cctree/wait.js?page={}&token={token}", NOTES_PAGE);
        std::thread::spawn(move || {
            let mut s = TcpStream::connect(&addr).unwrap();
            s.set_read_timeout(Some(LIMIT)).unwrap();
            write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
            let mut b = Vec::new();
            s.read_to_end(&mut b).unwrap();
            Response::parse(&b).text()
        })
    };

    let session = input.join(NOTES).join(format!("{NOTES_SESSION}.jsonl"));
    let parent = last_uuid(&session);
    append(
        &session,
        &prompt_line("b0000000-0000-4000-8000-0000000000f1", Some(&parent), NOTES_SESSION, "appended zanzibar"),
    );
    eventually("the appended line on its page", || {
        server.get(NOTES_PAGE).text().contains("appended zanzibar").then_some(())
    });
    assert_eq!(held.join().unwrap(), "CCTREE_LIVE({\"state\":\"changed\"});\n");

    // A new session: in the project index.
    let new = "5e5510b9-0000-4000-8000-0000000000b9";
    std::fs::write(
        input.join(NOTES).join(format!("{new}.jsonl")),
        prompt_line("b0000000-0000-4000-8000-0000000000f9", None, new, "a brand new session about quokkas"),
    )
    .unwrap();
    eventually("the new session in the project index", || {
        server.get(&format!("/{NOTES}/index.html")).text().contains("a brand new session about quokkas").then_some(())
    });

    // A new project: in the archive index.
    let project = input.join("-home-alice-garden");
    std::fs::create_dir(&project).unwrap();
    let s = "5e5510c1-0000-4000-8000-0000000000c1";
    std::fs::write(
        project.join(format!("{s}.jsonl")),
        prompt_line("c0000000-0000-4000-8000-000000000001", None, s, "tomatoes"),
    )
    .unwrap();
    eventually("the new project in the archive index", || server.get("/").text().contains("garden").then_some(()));

    let (status, log) = server.stop("-INT");
    assert_eq!(status.code(), Some(0), "{log}");
    assert!(log.contains("interrupted: stopping"), "{log}");
}

/// The prompt history beside the projects directory is watched
/// too: a prompt of a deleted session typed there shows as a recovered
/// session.
#[test]
fn follows_the_prompt_history() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("claude");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history"), &config);
    let site = tmp.path().join("site");
    let input = config.join("projects");
    let server = Server::start(&[input.as_os_str(), "-o".as_ref(), site.as_os_str()], &[]);
    let index = "/-home-ana-shop/index.html";
    assert!(server.get(index).text().contains("4 recovered from the prompt history"));
    let line = serde_json::json!({"display": "a prompt about narwhals", "pastedContents": {},
        "timestamp": 1_773_600_000_000_i64, "project": "/home/ana/shop", "sessionId": "de1e7ed0-0000-4000-8000-0000000000aa"});
    append(&config.join("history.jsonl"), &format!("{line}\n"));
    eventually("the recovered session on the project index", || {
        server.get(index).text().contains("a prompt about narwhals").then_some(())
    });
    let page = server.get("/-home-ana-shop/r/de1e7ed0-0000-4000-8000-0000000000aa/index.html");
    assert_eq!(page.status, 200);
    let (status, log) = server.stop("-INT");
    assert_eq!(status.code(), Some(0), "{log}");
}

/// The site is the same, byte for byte, whether `cctree render` or `cctree
/// serve` wrote it: live reload is added on the wire only.
#[test]
fn the_site_is_the_static_sites_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let input = example_copy(tmp.path());
    let rendered = tmp.path().join("rendered");
    let out = cctree().args(["-q", "render"]).arg(&input).arg("-o").arg(&rendered).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let served = tmp.path().join("served");
    let server = Server::start(&[input.as_os_str(), "-o".as_ref(), served.as_os_str()], &[]);
    let files = |root: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut v: Vec<_> = walkdir::WalkDir::new(root)
            .sort_by_file_name()
            .into_iter()
            .map(Result::unwrap)
            .filter(|e| e.file_type().is_file())
            .map(|e| (e.path().strip_prefix(root).unwrap().to_path_buf(), std::fs::read(e.path()).unwrap()))
            .collect();
        v.sort();
        v
    };
    let (a, b) = (files(&rendered), files(&served));
    assert!(a.len() > 10);
    assert_eq!(a.iter().map(|f| &f.0).collect::<Vec<_>>(), b.iter().map(|f| &f.0).collect::<Vec<_>>());
    for ((path, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{} differs between render and serve", path.display());
    }
    // And each page served is its file plus the live tags.
    for (path, bytes) in a.iter().filter(|f| f.0.extension().is_some_and(|e| e == "html")) {
        let url = format!("/{}", path.to_string_lossy());
        let served = server.get(&url);
        assert_eq!(served.status, 200, "{url}");
        assert_eq!(without_live_tags(&served.text()).as_bytes(), bytes.as_slice(), "{url}");
    }
    let (status, _) = server.stop("-TERM");
    assert_eq!(status.code(), Some(0));
}

/// Only files of the site: no `..`, no links out, no hidden files (the
/// cache), no listings; only requests addressed to the bound address, only
/// reads, nothing loaded by another site.
#[test]
fn refuses_what_is_not_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let input = example_copy(tmp.path());
    let site = tmp.path().join("site");
    std::fs::write(tmp.path().join("secret.txt"), "the secret").unwrap();
    let server = Server::start(&[input.as_os_str(), "-o".as_ref(), site.as_os_str()], &[]);
    assert_eq!(server.get("/").status, 200);

    // Traversal, as a browser never sends it but a script can.
    for path in [
        "/../secret.txt",
        "/assets/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/assets/%2E%2E/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/assets/..%5c..%5csecret.txt",
        "//etc/passwd",
        "/assets/app.js%00.html",
    ] {
        let r = server.get(path);
        assert!(r.status == 400 || r.status == 404, "{path}: {}", r.status);
        assert!(!r.text().contains("the secret"), "{path}");
    }
    // Links out of the site (and into it) are not followed.
    std::os::unix::fs::symlink(tmp.path().join("secret.txt"), site.join("leak.txt")).unwrap();
    std::os::unix::fs::symlink(tmp.path(), site.join("up")).unwrap();
    std::os::unix::fs::symlink(site.join("index.html"), site.join("again.html")).unwrap();
    for path in ["/leak.txt", "/up/secret.txt", "/up/", "/again.html"] {
        let r = server.get(path);
        assert_eq!(r.status, 404, "{path}");
        assert!(!r.text().contains("the secret"), "{path}");
    }
    // The cache, the marker, and directories: nothing listed.
    for path in ["/.cctree-cache/manifest.json", "/.cctree-cache/", "/.cctree-site", "/assets/", "/assets/img/"] {
        assert_eq!(server.get(path).status, 404, "{path}");
    }
    // A directory without its slash: to it, when it has an index.
    let r = server.get(&format!("/{NOTES}"));
    assert_eq!((r.status, r.header("location")), (301, Some(format!("/{NOTES}/").as_str())));
    assert_eq!(server.get(&format!("/{NOTES}/")).status, 200);

    // DNS rebinding: a name that resolves to 127.0.0.1 is not the bound address.
    let port = server.port().to_string();
    for host in [format!("attacker.example:{port}"), format!("127.0.0.1.nip.io:{port}"), "127.0.0.1:1".into()] {
        let r = server.raw(&format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"));
        assert_eq!(r.status, 403, "{host}");
        assert!(!r.text().contains("<html"), "{host}");
    }
    let r = server.raw("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert!(r.status >= 400, "no Host: {}", r.status);
    let r = server.raw(&format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"));
    assert_eq!(r.status, 200, "localhost");
    // Only reads.
    let r = server
        .raw(&format!("POST / HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", server.addr));
    assert_eq!((r.status, r.header("allow")), (405, Some("GET, HEAD")));
    // Another site (another port of localhost too) cannot load the search index as a script…
    let r = server.get_with("/search/index.js", "Sec-Fetch-Site: same-site\r\nSec-Fetch-Mode: no-cors\r\n");
    assert_eq!(r.status, 403);
    let r = server.get_with("/search/index.js", "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\n");
    assert_eq!(r.status, 403);
    assert_eq!(server.get("/search/index.js").header("cross-origin-resource-policy"), Some("same-origin"));
    // …but a link to a page is followed, and the site's own requests are served.
    assert_eq!(server.get_with("/", "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: navigate\r\n").status, 200);
    assert_eq!(
        server.get_with("/search/index.js", "Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: no-cors\r\n").status,
        200
    );
    // Headers past the bound are refused.
    let big = format!("X-Big: {}\r\n", "a".repeat(64 << 10));
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(LIMIT)).unwrap();
    let _ = write!(s, "GET / HTTP/1.1\r\nHost: {}\r\n{big}\r\n", server.addr);
    let mut b = Vec::new();
    let _ = s.read_to_end(&mut b);
    assert!(!String::from_utf8_lossy(&b).contains("200 OK"), "64 KB of headers were taken");

    let (status, log) = server.stop("-INT");
    assert_eq!(status.code(), Some(0), "{log}");
}

/// Ctrl-C stops it: exit 0, the port closed, no temporary directory left,
/// the site in place; and a conditional request gets 304.
#[test]
fn ctrl_c_stops_it_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let input = example_copy(tmp.path());
    let site = tmp.path().join("site");
    let server = Server::start(&[input.as_os_str(), "-o".as_ref(), site.as_os_str()], &[]);
    // The pages' icon is served as an image (no request for /favicon.ico).
    let icon = server.get("/assets/icon.svg");
    assert_eq!((icon.status, icon.header("content-type")), (200, Some("image/svg+xml")));
    let r = server.get("/assets/style.css");
    let etag = r.header("etag").unwrap().to_string();
    assert_eq!(server.get_with("/assets/style.css", &format!("If-None-Match: {etag}\r\n")).status, 304);
    // A connection left open (idle keep-alive) does not hold the stop.
    let idle = TcpStream::connect(&server.addr).unwrap();
    let addr = server.addr.clone();
    let (status, log) = server.stop("-INT");
    assert_eq!(status.code(), Some(0), "{log}");
    assert!(TcpStream::connect(&addr).is_err(), "still listening after Ctrl-C");
    drop(idle);
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("cctree-tmp") || n.contains("cctree-old"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(site.join("index.html").is_file());
}

/// With no `-o`, the site is a directory of its own under the cache
/// directory, the same for the same input; with no INPUT and an archive, it
/// syncs first (as plain `cctree`) and follows the client's directory
/// through the archive.
#[test]
fn syncs_first_and_keeps_its_site_in_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("claude");
    copy_dir(&example_archive(), &config.join("projects"));
    let archive = tmp.path().join("archive");
    let cache = tmp.path().join("cache");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env: Vec<(&str, &Path)> =
        vec![("CLAUDE_CONFIG_DIR", &config), ("CCTREE_ARCHIVE", &archive), ("XDG_CACHE_HOME", &cache), ("HOME", &home)];
    let out = cctree().args(["-q", "sync"]).envs(env.iter().copied()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let server = Server::start(&[], &env);
    let log = server.log();
    let sites: Vec<PathBuf> =
        std::fs::read_dir(cache.join("cctree/serve")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(sites.len(), 1, "{sites:?}");
    assert!(sites[0].file_name().unwrap().to_string_lossy().starts_with("archive-"), "{sites:?}");
    assert!(log.contains(&sites[0].display().to_string()), "{log}");
    // A line written by the client reaches the archive, then the page.
    let session = config.join("projects").join(NOTES).join(format!("{NOTES_SESSION}.jsonl"));
    let parent = last_uuid(&session);
    append(
        &session,
        &prompt_line("b0000000-0000-4000-8000-0000000000f2", Some(&parent), NOTES_SESSION, "synced wombat"),
    );
    eventually("the line synced and shown", || server.get(NOTES_PAGE).text().contains("synced wombat").then_some(()));
    assert!(
        std::fs::read_to_string(archive.join(NOTES).join(format!("{NOTES_SESSION}.jsonl")))
            .unwrap()
            .contains("synced wombat")
    );
    let (status, _) = server.stop("-INT");
    assert_eq!(status.code(), Some(0));

    // The same input: the same site, its cache re-used.
    let server = Server::start(&[], &env);
    assert_eq!(std::fs::read_dir(cache.join("cctree/serve")).unwrap().count(), 1);
    assert!(server.log().contains("unchanged"), "{}", server.log());
    let (status, _) = server.stop("-INT");
    assert_eq!(status.code(), Some(0));
}

/// Another address than loopback only when asked, with a warning; and the
/// page then answers to that address.
#[test]
fn another_address_warns() {
    let tmp = tempfile::tempdir().unwrap();
    let input = example_copy(tmp.path());
    let site = tmp.path().join("site");
    let server = Server::start(
        &[input.as_os_str(), "-o".as_ref(), site.as_os_str(), "--bind".as_ref(), "0.0.0.0".as_ref()],
        &[],
    );
    assert!(server.log().contains("not a loopback address"), "{}", server.log());
    // Reached here through loopback, with the loopback address as its Host.
    assert_eq!(server.get("/").status, 200);
    let (status, _) = server.stop("-TERM");
    assert_eq!(status.code(), Some(0));
}

/// Each warning is printed once, not again at every render after a change
/// (each would print all the archive's warnings), while each render's
/// summary still counts them all and says how many were printed before; a
/// new warning is printed.
#[test]
fn a_warning_is_printed_once_across_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let input = example_copy(tmp.path());
    let site = tmp.path().join("site");
    let session = input.join(NOTES).join(format!("{NOTES_SESSION}.jsonl"));
    let parent = last_uuid(&session);
    append(&session, "{not json\n");
    let server = Server::start(&[input.as_os_str(), "-o".as_ref(), site.as_os_str()], &[]);
    let summaries = |log: &str| -> Vec<String> {
        log.lines().filter(|l| l.contains("rendered ") && l.contains(" in ")).map(str::to_string).collect()
    };
    let malformed = |log: &str| log.lines().filter(|l| l.contains("warning:") && l.contains("malformed JSON")).count();
    let log = server.log();
    assert_eq!(malformed(&log), 1, "{log}");
    assert!(summaries(&log)[0].contains(", 1 warning in "), "{log}");
    assert!(!log.contains("printed before"), "{log}");

    // A change elsewhere in the file: rendered again (once or more, as the
    // watcher reports it), the warning not printed again.
    append(&session, &prompt_line("b0000000-0000-4000-8000-0000000000f3", Some(&parent), NOTES_SESSION, "okapi"));
    eventually("the appended line on its page", || server.get(NOTES_PAGE).text().contains("okapi").then_some(()));
    let log = eventually("the second render's summary", || {
        let log = server.log();
        (summaries(&log).len() >= 2).then_some(log)
    });
    assert_eq!(malformed(&log), 1, "{log}");
    for again in &summaries(&log)[1..] {
        assert!(again.contains(", 1 warning in ") && again.ends_with("; 1 warning printed before"), "{log}");
    }

    // A new warning is printed, and the render's summary counts both; the
    // old one is still not printed again.
    append(&session, "still not json\n");
    let (log, third) = eventually("the render of the new warning", || {
        let log = server.log();
        let at = log.find(&format!("{NOTES_SESSION}.jsonl:21: malformed JSON"))?;
        let summary = summaries(&log[at..]).first()?.clone();
        Some((log, summary))
    });
    assert_eq!(malformed(&log), 2, "{log}");
    assert!(third.contains(", 2 warnings in ") && third.ends_with("; 1 warning printed before"), "{log}");
    let (status, _) = server.stop("-INT");
    assert_eq!(status.code(), Some(0));
}

/// In Chromium (`tests/browser/live.mjs`): an open page reloads by itself
/// after an append, keeping the message at the top of the window (or the
/// end, for a reader at the end); with text selected it says "updated"
/// instead, and reloads when asked; a new tab marks what was written since
/// the last visit "new", in the page and in the project index. Screenshots
/// in `target/screenshots/live-*.png`.
#[test]
fn an_open_page_follows_in_the_browser() {
    let Some(driver) = crate::browser::Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let input = example_copy(tmp.path());
    let site = tmp.path().join("site");
    let server = Server::start(&["-vv".as_ref(), input.as_os_str(), "-o".as_ref(), site.as_os_str()], &[]);
    let session = input.join(NOTES).join(format!("{NOTES_SESSION}.jsonl"));
    let shots = crate::browser::screenshots_dir();
    std::fs::create_dir_all(&shots).unwrap();
    let out = std::process::Command::new(&driver.node)
        .arg(driver.script.with_file_name("live.mjs"))
        .args(["--base", &format!("http://{}/", server.addr)])
        .args(["--page", NOTES_PAGE.trim_start_matches('/')])
        .args(["--index", &format!("{NOTES}/index.html")])
        .arg("--session")
        .arg(&session)
        .args(["--parent", &last_uuid(&session), "--session-id", NOTES_SESSION])
        .arg("--shots")
        .arg(&shots)
        .env("CCTREE_CHROMIUM", &driver.chromium)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the live-reload checks failed (exit {:?})\nreport:\n{report}\nstderr:\n{}\nserver:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr),
        server.log()
    );
    let (status, _) = server.stop("-INT");
    assert_eq!(status.code(), Some(0));
}

/// With no INPUT, the sync before each render copies every client's folder,
/// and each of them is watched: a line Codex CLI or Gemini CLI writes reaches
/// the archive, then the site, as Claude Code's does.
#[test]
fn syncs_and_follows_every_clients_folder() {
    use crate::agents::{codex, copy_tree, files_under, gemini};
    use crate::common::site_text;
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("claude");
    copy_dir(&example_archive(), &config.join("projects"));
    let codex_home = tmp.path().join("dot-codex");
    copy_tree(&codex("exec"), &codex_home);
    let home = tmp.path().join("home");
    copy_tree(&gemini("headless"), &home.join(".gemini"));
    let archive = tmp.path().join("archive");
    let cache = tmp.path().join("cache");
    let env: Vec<(&str, &Path)> = vec![
        ("CLAUDE_CONFIG_DIR", &config),
        ("CCTREE_ARCHIVE", &archive),
        ("XDG_CACHE_HOME", &cache),
        ("HOME", &home),
        ("CODEX_HOME", &codex_home),
        ("GEMINI_CLI_HOME", &home),
    ];
    let out = cctree().args(["-q", "sync"]).envs(env.iter().copied()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let server = Server::start(&[], &env);
    let site = std::fs::read_dir(cache.join("cctree/serve")).unwrap().next().unwrap().unwrap().path();
    // A prompt appended to a Codex rollout and one to a Gemini session.
    let rollout =
        files_under(&codex_home, "jsonl").into_iter().find(|f| f.to_string_lossy().contains("77ea-7351")).unwrap();
    append(
        &rollout,
        "{\"timestamp\":\"2026-11-27T03:00:00.000Z\",\"ordinal\":100000,\"type\":\"response_item\",\"payload\":\
         {\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"codex numbat\"}]}}\n",
    );
    eventually("the Codex line synced and shown", || site_text(&site).contains("codex numbat").then_some(()));
    let session = files_under(&home.join(".gemini"), "jsonl")
        .into_iter()
        .find(|f| f.to_string_lossy().contains("chats/session-"))
        .unwrap();
    append(
        &session,
        "{\"id\":\"f0000000-0000-4000-8000-00000000beef\",\"timestamp\":\"2026-11-27T03:00:00.000Z\",\"type\":\"user\",\
         \"content\":[{\"text\":\"gemini quokka\"}]}\n",
    );
    eventually("the Gemini line synced and shown", || site_text(&site).contains("gemini quokka").then_some(()));
    // Kept by the sync, beside the archive.
    let kept = |dir: &str, words: &str| {
        files_under(&tmp.path().join(dir), "jsonl").iter().any(|f| std::fs::read_to_string(f).unwrap().contains(words))
    };
    assert!(kept("codex", "codex numbat") && kept("gemini", "gemini quokka"));
    let (status, _) = server.stop("-INT");
    assert_eq!(status.code(), Some(0));
}
