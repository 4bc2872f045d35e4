//! The HTTP side of `cctree serve`: hyper's HTTP/1 server on a tokio
//! current-thread runtime, behind an accept loop that bounds connections.
//!
//! Every request is checked in this order: its `Host` names the address
//! served (else 403: a page of another site reaching 127.0.0.1 through a DNS
//! name, "DNS rebinding"), its method is GET or HEAD (405), and a browser's
//! `Sec-Fetch-Site` says it comes from the site itself or the reader, unless
//! it is a navigation (403: another site, also another port of localhost,
//! cannot load the pages or the search index as scripts or images). Then:
//! - `/.cctree/live.js`, `/.cctree/live.css`: the live-reload script and its
//!   style (`static/live.js`, `static/live.css`), never part of the site;
//! - `/.cctree/wait.js?page=PATH&token=T`: held until the file PATH names
//!   is no longer the one of token T (after a render), [`SERVE_WAIT`] at
//!   most, then a script calling `CCTREE_LIVE({"state": …})`;
//! - anything else: a file of the site ([`super::site`]); a page gets the
//!   two tags above before its `</head>` (on the wire only: the file stays
//!   as the render wrote it).
//!
//! Every answer carries the static site's own Content-Security-Policy (plus
//! `frame-ancestors 'none'`, which only a header can say), `nosniff`,
//! `no-referrer` and `Cross-Origin-Resource-Policy: same-origin`. Files carry
//! an ETag (their token) and `no-cache`, so a reload revalidates and gets
//! `304` for what did not change.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{Either, Full};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{self, HeaderValue};
use hyper::http::uri::Authority;
use hyper::{Method, Request, Response, StatusCode};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::{Semaphore, watch};

use super::site::{self, Lookup};
use crate::limits::{
    SERVE_CHUNK, SERVE_CONNECTION_LIFE, SERVE_CONNECTIONS, SERVE_HEADER_BYTES, SERVE_HEADER_TIMEOUT, SERVE_PAGE_READ,
    SERVE_PAGE_READS, SERVE_WAIT, SERVE_WAITERS,
};

/// The static site's policy, as `templates/base.html` writes it in every page.
pub const SITE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'";

/// The prefix of what the server adds; no file of a site has a name starting with a dot.
const LIVE: &str = "/.cctree/";
const LIVE_JS: &str = include_str!("../../static/live.js");
const LIVE_CSS: &str = include_str!("../../static/live.css");

/// What every request handler shares.
pub(super) struct Shared {
    /// The site directory.
    pub(super) site: PathBuf,
    /// The address served (its `Host`).
    pub(super) addr: SocketAddr,
    /// Bumped after each render.
    pub(super) generation: watch::Receiver<u64>,
    /// True once the server stops: held requests answer at once.
    pub(super) stopping: watch::Receiver<bool>,
    waiters: AtomicUsize,
    page_reads: Semaphore,
}

impl Shared {
    pub(super) fn new(
        site: PathBuf,
        addr: SocketAddr,
        generation: watch::Receiver<u64>,
        stopping: watch::Receiver<bool>,
    ) -> Shared {
        Shared {
            site,
            addr,
            generation,
            stopping,
            waiters: AtomicUsize::new(0),
            page_reads: Semaphore::new(SERVE_PAGE_READS),
        }
    }
}

type Out = Either<Full<Bytes>, FileBody>;

/// Serves connections from `listener` until `stop` completes, then lets
/// those open finish their request (two seconds at most).
pub(super) async fn run(listener: tokio::net::TcpListener, shared: Arc<Shared>, stop: impl Future<Output = ()>) {
    use hyper::server::conn::http1;
    use hyper_util::rt::{TokioIo, TokioTimer};
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let permits = Arc::new(Semaphore::new(SERVE_CONNECTIONS));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(SERVE_HEADER_TIMEOUT)
        .max_buf_size(SERVE_HEADER_BYTES)
        .max_headers(64);
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            () = &mut stop => break,
            p = permits.clone().acquire_owned() => match p { Ok(p) => p, Err(_) => break },
        };
        let stream = tokio::select! {
            () = &mut stop => break,
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it was accepted.
                    tracing::debug!("accept: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let sh = shared.clone();
        let service = hyper::service::service_fn(move |req| {
            let sh = sh.clone();
            async move { Ok::<_, Infallible>(handle(&sh, req).await) }
        });
        let conn = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            let _ = tokio::time::timeout(SERVE_CONNECTION_LIFE, conn).await;
            drop(permit);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), graceful.shutdown()).await;
}

async fn handle(sh: &Arc<Shared>, req: Request<Incoming>) -> Response<Out> {
    let mut resp = route(sh, &req).await;
    tracing::debug!("{} {} → {}", req.method(), crate::term::safe(req.uri()), resp.status().as_u16());
    let h = resp.headers_mut();
    let csp = format!("{SITE_CSP}; frame-ancestors 'none'");
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_str(&csp).expect("an ASCII constant"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert("cross-origin-resource-policy", HeaderValue::from_static("same-origin"));
    resp
}

async fn route(sh: &Arc<Shared>, req: &Request<Incoming>) -> Response<Out> {
    if !host_ok(req, sh.addr) {
        return text(
            StatusCode::FORBIDDEN,
            &format!("cctree serve answers only requests addressed to {} (its Host header)\n", sh.addr),
        );
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "cctree serve only reads: GET and HEAD\n");
        r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    if cross_site(req) {
        return text(StatusCode::FORBIDDEN, "cctree serve answers only its own pages\n");
    }
    let path = req.uri().path();
    match path.strip_prefix(LIVE) {
        Some("live.js") => asset(LIVE_JS, "js"),
        Some("live.css") => asset(LIVE_CSS, "css"),
        Some("wait.js") => wait(sh, req.uri().query()).await,
        Some(_) => text(StatusCode::NOT_FOUND, "no such file\n"),
        None => file(sh, path, req.headers().get(header::IF_NONE_MATCH)).await,
    }
}

/// The request's `Host` (and the authority of an absolute-form target) names
/// the address served: its IP, or `localhost` when that is a loopback or any
/// address; and its port.
fn host_ok(req: &Request<Incoming>, bound: SocketAddr) -> bool {
    let Some(host) = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()) else { return false };
    let Ok(authority) = host.parse::<Authority>() else { return false };
    authority_ok(&authority, bound) && req.uri().authority().is_none_or(|a| authority_ok(a, bound))
}

fn authority_ok(a: &Authority, bound: SocketAddr) -> bool {
    let port_ok = match a.port_u16() {
        Some(p) => p == bound.port(),
        None => bound.port() == 80,
    };
    let name = a.host().trim_start_matches('[').trim_end_matches(']');
    let ip = bound.ip();
    let host_ok = if name.eq_ignore_ascii_case("localhost") {
        ip.is_loopback() || ip.is_unspecified()
    } else {
        match name.parse::<IpAddr>() {
            Ok(asked) => asked == ip || ip.is_unspecified() || (ip.is_loopback() && asked.is_loopback()),
            Err(_) => false,
        }
    };
    port_ok && host_ok
}

/// A browser says the request comes from another site (or another port of
/// this host), and it is not the reader following a link.
fn cross_site(req: &Request<Incoming>) -> bool {
    let get = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    match get("sec-fetch-site") {
        None | Some("same-origin" | "none") => false,
        Some(_) => get("sec-fetch-mode") != Some("navigate"),
    }
}

fn text(status: StatusCode, body: &str) -> Response<Out> {
    let mut r = Response::new(Either::Left(Full::new(Bytes::copy_from_slice(body.as_bytes()))));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn asset(body: &'static str, ext: &str) -> Response<Out> {
    let mut r = Response::new(Either::Left(Full::new(Bytes::from_static(body.as_bytes()))));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(site::content_type(ext)));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// A file of the site.
async fn file(sh: &Arc<Shared>, path: &str, if_none_match: Option<&HeaderValue>) -> Response<Out> {
    let root = sh.site.clone();
    let raw = path.to_string();
    let found = match tokio::task::spawn_blocking(move || site::lookup(&root, &raw)).await {
        Ok(Lookup::File(f)) => f,
        Ok(Lookup::Redirect(to)) => {
            let mut r = text(StatusCode::MOVED_PERMANENTLY, "moved\n");
            if let Ok(v) = HeaderValue::from_str(&to) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            return r;
        }
        Ok(Lookup::BadRequest) => return text(StatusCode::BAD_REQUEST, "not a path of the site\n"),
        // Browsers ask for it at every origin; a site has none.
        Ok(Lookup::NotFound) if path == "/favicon.ico" => {
            let mut r = text(StatusCode::NO_CONTENT, "");
            *r.body_mut() = Either::Left(Full::new(Bytes::new()));
            return r;
        }
        Ok(Lookup::NotFound) | Err(_) => return text(StatusCode::NOT_FOUND, "no such page\n"),
    };
    let page = found.ext == "html" && found.len <= SERVE_PAGE_READ;
    let etag = format!("\"{}{}\"", found.token, if page { "-live" } else { "" });
    let etag = HeaderValue::from_str(&etag).expect("hex digits and dashes");
    let mut resp = if if_none_match.is_some_and(|v| matches(v, &etag)) {
        let mut r = Response::new(Either::Left(Full::new(Bytes::new())));
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else if page {
        match read_page(sh, found).await {
            Ok(body) => Response::new(Either::Left(Full::new(body))),
            Err(_) => return text(StatusCode::INTERNAL_SERVER_ERROR, "cannot read the page\n"),
        }
    } else {
        let ext = found.ext.clone();
        let mut r = Response::new(Either::Right(FileBody::new(found)));
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(site::content_type(&ext)));
        r
    };
    let h = resp.headers_mut();
    if page {
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(site::content_type("html")));
    }
    h.insert(header::ETAG, etag);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

/// An `If-None-Match` list holds `etag` (or `*`).
fn matches(v: &HeaderValue, etag: &HeaderValue) -> bool {
    let Ok(list) = v.to_str() else { return false };
    let etag = etag.to_str().unwrap_or_default();
    list.split(',').map(str::trim).any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

/// A page read whole, with the live-reload tags before its `</head>`.
async fn read_page(sh: &Arc<Shared>, found: site::Found) -> std::io::Result<Bytes> {
    let _permit = sh.page_reads.acquire().await.map_err(std::io::Error::other)?;
    let token = found.token.clone();
    let mut bytes = tokio::task::spawn_blocking(move || {
        let mut buf = Vec::with_capacity(usize::try_from(found.len).unwrap_or(0));
        std::io::Read::read_to_end(&mut std::io::Read::take(found.file, SERVE_PAGE_READ), &mut buf).map(|_| buf)
    })
    .await
    .map_err(std::io::Error::other)??;
    inject(&mut bytes, &token);
    Ok(Bytes::from(bytes))
}

/// Puts the live-reload style sheet and script before the first `</head>`
/// (the page's token on the script: what the page is a version of).
pub(super) fn inject(page: &mut Vec<u8>, token: &str) {
    let Some(at) = memchr::memmem::find(page, b"</head>") else { return };
    let tags = format!(
        "<link rel=\"stylesheet\" href=\"{LIVE}live.css\">\n<script src=\"{LIVE}live.js\" data-token=\"{token}\" defer></script>\n"
    );
    page.splice(at..at, tags.into_bytes());
}

/// The news of one page: held until the file `page` names changes, the
/// server stops, or [`SERVE_WAIT`] passes.
async fn wait(sh: &Arc<Shared>, query: Option<&str>) -> Response<Out> {
    let (mut page, mut token) = (None, String::new());
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match k.as_ref() {
            "page" => page = Some(v.into_owned()),
            "token" => token = v.into_owned(),
            _ => {}
        }
    }
    let Some(page) = page else { return text(StatusCode::BAD_REQUEST, "wait.js?page=PATH&token=TOKEN\n") };
    let _slot = match Slot::take(&sh.waiters) {
        Some(s) => s,
        None => return news("busy"),
    };
    let mut generation = sh.generation.clone();
    let mut stopping = sh.stopping.clone();
    let deadline = tokio::time::Instant::now() + SERVE_WAIT;
    loop {
        generation.borrow_and_update();
        let root = sh.site.clone();
        let raw = page.clone();
        match tokio::task::spawn_blocking(move || site::current_token(&root, &raw)).await {
            Ok(None) => return news("gone"),
            Ok(Some(now)) if now != token => return news("changed"),
            Ok(Some(_)) => {}
            Err(_) => return news("same"),
        }
        if *stopping.borrow_and_update() {
            return news("stop");
        }
        tokio::select! {
            r = generation.changed() => if r.is_err() { return news("stop") },
            _ = stopping.changed() => return news("stop"),
            () = tokio::time::sleep_until(deadline) => return news("same"),
        }
    }
}

/// A place among the held requests ([`SERVE_WAITERS`]), given back when dropped.
struct Slot<'a>(&'a AtomicUsize);

impl<'a> Slot<'a> {
    fn take(count: &'a AtomicUsize) -> Option<Slot<'a>> {
        let taken = count.fetch_add(1, Ordering::AcqRel);
        let slot = Slot(count);
        (taken < SERVE_WAITERS).then_some(slot)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The answer of `wait.js`: a script that hands `state` to the page.
fn news(state: &'static str) -> Response<Out> {
    let body = format!("CCTREE_LIVE({{\"state\":\"{state}\"}});\n");
    let mut r = Response::new(Either::Left(Full::new(Bytes::from(body))));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(site::content_type("js")));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// A file sent in pieces of [`SERVE_CHUNK`].
pub(super) struct FileBody {
    file: tokio::fs::File,
    left: u64,
    buf: Vec<u8>,
}

impl FileBody {
    fn new(found: site::Found) -> FileBody {
        FileBody { file: tokio::fs::File::from_std(found.file), left: found.len, buf: Vec::new() }
    }
}

impl Body for FileBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.left == 0 {
            return Poll::Ready(None);
        }
        let want = usize::try_from(this.left).map_or(SERVE_CHUNK, |l| l.min(SERVE_CHUNK));
        this.buf.resize(want, 0);
        let mut rb = ReadBuf::new(&mut this.buf);
        match Pin::new(&mut this.file).poll_read(cx, &mut rb) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
            Poll::Ready(Ok(())) => {
                let n = rb.filled().len();
                if n == 0 {
                    // The file is shorter than when it was opened: a render never
                    // writes a file in place, so something else did.
                    return Poll::Ready(Some(Err(std::io::ErrorKind::UnexpectedEof.into())));
                }
                this.left -= n as u64;
                Poll::Ready(Some(Ok(Frame::data(Bytes::copy_from_slice(&this.buf[..n])))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_is_the_static_sites() {
        let base = include_str!("../../templates/base.html");
        assert!(base.contains(&format!("content=\"{SITE_CSP}\"")), "templates/base.html and SITE_CSP differ");
    }

    #[test]
    fn hosts() {
        let at = |s: &str| s.parse::<SocketAddr>().unwrap();
        let ok = |host: &str, bound: &str| authority_ok(&host.parse().unwrap(), at(bound));
        assert!(ok("127.0.0.1:8417", "127.0.0.1:8417"));
        assert!(ok("localhost:8417", "127.0.0.1:8417"));
        assert!(ok("LOCALHOST:8417", "127.0.0.1:8417"));
        assert!(ok("[::1]:8417", "[::1]:8417"));
        assert!(!ok("127.0.0.1:8418", "127.0.0.1:8417"));
        assert!(!ok("127.0.0.1", "127.0.0.1:8417"));
        assert!(!ok("evil.example:8417", "127.0.0.1:8417"));
        assert!(!ok("127.0.0.1.nip.io:8417", "127.0.0.1:8417"));
        assert!(!ok("192.168.1.9:8417", "127.0.0.1:8417"));
        assert!(ok("192.168.1.9:8417", "0.0.0.0:8417"));
        assert!(!ok("evil.example:8417", "0.0.0.0:8417"));
        assert!(!ok("localhost:8417", "192.168.1.9:8417"));
    }

    #[test]
    fn the_tags_go_before_the_head_ends() {
        let mut page = b"<!DOCTYPE html>\n<html><head><title>t</title></head><body>x</head></body>".to_vec();
        inject(&mut page, "1-2");
        let page = String::from_utf8(page).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>\n<html><head><title>t</title><link rel=\"stylesheet\""), "{page}");
        assert!(page.contains("data-token=\"1-2\" defer></script>\n</head><body>x</head>"));
        let mut none = b"no head".to_vec();
        inject(&mut none, "1");
        assert_eq!(none, b"no head");
    }

    #[test]
    fn etags() {
        let e = HeaderValue::from_static("\"a-1\"");
        assert!(matches(&HeaderValue::from_static("\"a-1\""), &e));
        assert!(matches(&HeaderValue::from_static("\"x\", W/\"a-1\""), &e));
        assert!(matches(&HeaderValue::from_static("*"), &e));
        assert!(!matches(&HeaderValue::from_static("\"a-2\""), &e));
    }
}
