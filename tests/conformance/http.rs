//! A small HTTP/1.1 server on 127.0.0.1 that the Codex and Gemini mocks
//! share: it reads each request (fixed length or chunked body), logs it
//! (method, path, headers, JSON body), and answers what the mock's handler
//! says — one JSON document (the connection kept alive) or a whole
//! `text/event-stream` (the connection then closed).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// One request a mock received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Request {
    /// The path without its query.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or("")
    }

    /// A header's value (names are lower-cased).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// What a handler answers.
pub enum Reply {
    Json(Value),
    /// A whole event stream: the text of its events.
    Sse(String),
}

pub type Handler = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;

/// A running server; stops accepting when dropped.
pub struct Server {
    pub port: u16,
    log: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub fn start(handler: Handler) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a mock API on 127.0.0.1");
        let port = listener.local_addr().expect("mock address").port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (l, s) = (log.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (l, h) = (l.clone(), handler.clone());
                std::thread::spawn(move || serve(conn, &l, &h));
            }
        });
        Server { port, log, stop }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// Forgets the requests so far.
    pub fn clear(&self) {
        self.log.lock().unwrap().clear();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(conn: TcpStream, log: &Mutex<Vec<Request>>, handler: &Handler) {
    let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(300)));
    let Ok(read) = conn.try_clone() else { return };
    let mut reader = BufReader::new(read);
    let mut out = conn;
    loop {
        let Some((method, path, headers)) = read_head(&mut reader) else { return };
        let body = read_body(&mut reader, &headers);
        let close = headers.iter().any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));
        let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let req = Request { method, path, headers, body };
        log.lock().unwrap().push(req.clone());
        let keep = match handler(&req) {
            Reply::Json(v) => send(&mut out, "application/json", &v.to_string(), false),
            Reply::Sse(s) => send(&mut out, "text/event-stream", &s, true),
        };
        if !keep || close {
            return;
        }
    }
}

type Head = (String, String, Vec<(String, String)>);

fn read_head(r: &mut BufReader<TcpStream>) -> Option<Head> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    Some((method, path, headers))
}

fn read_body(r: &mut BufReader<TcpStream>, headers: &[(String, String)]) -> Vec<u8> {
    let get = |k: &str| headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.as_str());
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        let mut body = Vec::new();
        loop {
            let mut size = String::new();
            if r.read_line(&mut size).unwrap_or(0) == 0 {
                return body;
            }
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            if r.read_exact(&mut chunk).is_err() || n == 0 {
                return body;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    let n: usize = get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; n];
    let _ = r.read_exact(&mut body);
    body
}

fn send(out: &mut TcpStream, kind: &str, body: &str, close: bool) -> bool {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\ncache-control: no-cache\r\n{}\r\n",
        body.len(),
        if close { "connection: close\r\n" } else { "" }
    );
    let ok =
        out.write_all(head.as_bytes()).and_then(|()| out.write_all(body.as_bytes())).and_then(|()| out.flush()).is_ok();
    ok && !close
}

/// The bodies of every `[[name: …]]` directive in `text`, in order.
pub fn directives<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("[[{name}: ");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        let Some(end) = after.find("]]") else { break };
        out.push(&after[..end]);
        rest = &after[end + 2..];
    }
    out
}
