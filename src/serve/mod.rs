//! `cctree serve`: the site on localhost, following the transcripts as they
//! are written.
//!
//! ```text
//!  builder thread: first render ─▶ watch the roots ─▶ wake-up ─▶ settle ─▶ render ─▶ generation + 1
//!                                        ▲                                    │
//!                                        └──────── the roots it read ◀────────┘
//!  main thread (tokio, one thread): accept ─▶ Host / method / Sec-Fetch ─▶ file of the site
//!                                                                         ─▶ wait.js: held until its page changes
//! ```
//!
//! The render is the caller's ([`Rebuild`]: sync when asked, discover, then
//! `build::build` into the site directory, incremental as `cctree render`),
//! so serve knows nothing of the stages; it renders again after every change
//! of what the last render read ([`watch`]), serves the site's files and
//! nothing else ([`site`]), adds the live-reload script to the pages it
//! sends ([`http`]: the files on disk stay as the render wrote them), and
//! stops on Ctrl-C or SIGTERM: it stops accepting, answers the requests held,
//! waits for a render under way (a second signal stops at once), and stops
//! watching.

mod http;
mod site;
mod watch;

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use anyhow::{Context, Result};

use crate::build::BuildSummary;
use crate::limits::{SERVE_PORT, SERVE_PORT_TRIES, SERVE_SETTLE, SERVE_SETTLE_MAX};

pub use http::SITE_CSP;

/// Settings of `cctree serve` (the render's own are the caller's).
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The site directory the render writes.
    pub site: PathBuf,
    pub bind: IpAddr,
    /// `None`: [`SERVE_PORT`], or one of the next ones when it is taken.
    pub port: Option<u16>,
    /// Open the browser once the site is served.
    pub open: bool,
    pub quiet: bool,
}

/// Which render this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// The first: progress shown, everything reported.
    First,
    /// After a change: one line.
    Again,
}

/// What a render did, and what it read (the roots to watch).
#[derive(Debug)]
pub struct Built {
    pub summary: BuildSummary,
    /// Warnings it met that were printed before, and not again
    /// ([`crate::term::warnings_once`]); the summary counts them.
    pub repeated: usize,
    pub read: Vec<PathBuf>,
}

/// The render, as the caller makes it.
pub type Rebuild = Box<dyn FnMut(Round) -> Result<Built> + Send>;

/// The default site directory for an input: one of its own under the user's
/// cache directory (`$XDG_CACHE_HOME/cctree/serve/<name>-<hash>`, the
/// platform's elsewhere), named after the input and a hash of its resolved
/// paths and `kind`, so that another input gets another site and the same
/// input finds its site (and its cache) again.
pub fn default_site(inputs: &[PathBuf], kind: &str) -> Result<PathBuf> {
    use etcetera::BaseStrategy;
    let base = etcetera::choose_base_strategy()
        .context("no cache directory (no home directory is known): give the site directory with -o DIR")?;
    let mut key = String::from(kind);
    for i in inputs {
        key.push('\n');
        key.push_str(&crate::files::resolve(i).to_string_lossy());
    }
    let name = inputs
        .first()
        .and_then(|p| crate::files::resolve(p).file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "site".into());
    let hash = blake3::hash(key.as_bytes()).to_hex();
    let name = format!("{}-{}", crate::render::site::urls::sanitize_segment(&name), &hash[..12]);
    Ok(base.cache_dir().join("cctree").join("serve").join(name))
}

/// A render's summary line, saying how many of its warnings were printed
/// before (and not again).
pub struct Summary<'a>(pub &'a BuildSummary, pub usize);

impl std::fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        match self.1 {
            0 => Ok(()),
            1 => write!(f, "; 1 warning printed before"),
            n => write!(f, "; {n} warnings printed before"),
        }
    }
}

/// Renders, serves and follows the input until Ctrl-C or SIGTERM. Each
/// warning is printed once ([`crate::term::warnings_once`]): every render
/// would print all the archive's warnings again.
pub fn serve(opts: &ServeOptions, rebuild: Rebuild) -> Result<()> {
    crate::term::warnings_once();
    let listener = bind(opts)?;
    let addr = listener.local_addr().context("the address served")?;
    if !opts.bind.is_loopback() {
        tracing::warn!(
            "serving on {addr}, not a loopback address: anyone who can reach this machine on port {} can read every \
             transcript of the site",
            addr.port()
        );
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(8)
        .build()
        .context("cannot start the server's runtime")?;
    let _guard = runtime.enter();
    let mut signals = Signals::new().context("cannot handle Ctrl-C")?;

    let (generation_tx, generation) = tokio::sync::watch::channel(0u64);
    let (stopping_tx, stopping) = tokio::sync::watch::channel(false);
    let (first_tx, first_rx) = tokio::sync::oneshot::channel();
    let (wake, woken) = sync_channel(1);
    let stop = Arc::new(AtomicBool::new(false));
    let building = Arc::new(AtomicBool::new(false));
    let builder = {
        let ctx = Builder { wake: wake.clone(), stop: stop.clone(), building: building.clone(), quiet: opts.quiet };
        std::thread::Builder::new()
            .name("cctree serve: render".into())
            .spawn(move || ctx.run(rebuild, &woken, first_tx, &generation_tx))
            .context("cannot start the render thread")?
    };
    let stop_builder = || {
        stop.store(true, Ordering::Release);
        let _ = wake.try_send(());
    };

    let first = runtime.block_on(async {
        tokio::select! {
            r = first_rx => Some(r),
            s = signals.next() => { if !opts.quiet { note(&format!("{s}: stopping after the first render…")) } None }
        }
    });
    let served = match first {
        Some(Ok(Ok(()))) => true,
        Some(Ok(Err(e))) => {
            let _ = builder.join();
            return Err(e);
        }
        Some(Err(_)) => anyhow::bail!("the render thread stopped"),
        None => false,
    };
    if served {
        let news = News { generation, stopping, stopping_tx };
        run_http(&runtime, opts, listener, news, &mut signals)?;
    }
    stop_builder();
    finish(&runtime, builder, &building, &mut signals, opts.quiet);
    Ok(())
}

/// What the held requests wait on.
struct News {
    generation: tokio::sync::watch::Receiver<u64>,
    stopping: tokio::sync::watch::Receiver<bool>,
    stopping_tx: tokio::sync::watch::Sender<bool>,
}

/// Serves until a signal (after the first render), `--open` first.
fn run_http(
    runtime: &tokio::runtime::Runtime,
    opts: &ServeOptions,
    listener: TcpListener,
    news: News,
    signals: &mut Signals,
) -> Result<()> {
    let addr = listener.local_addr().context("the address served")?;
    let url = url_of(addr);
    // Even with -q, the URL is said when it is not the one asked for (the
    // default port was taken).
    let moved = opts.port.is_none() && addr.port() != SERVE_PORT;
    if !opts.quiet || moved {
        note(&format!("serving {} at {url} (Ctrl-C to stop)", crate::term::safe(opts.site.display())));
    }
    if opts.open {
        if let Err(e) = crate::browser::open(&url) {
            // Said even with -q: what was asked for did not happen.
            crate::term::print_err(&format!("error: the browser did not open {url}: {e:#}\nhint: open it yourself\n"));
        }
    }
    let shared = Arc::new(http::Shared::new(opts.site.clone(), addr, news.generation, news.stopping));
    let listener = tokio::net::TcpListener::from_std(listener).context("the listening socket")?;
    let quiet = opts.quiet;
    let stopping = news.stopping_tx;
    runtime.block_on(http::run(listener, shared, async move {
        let s = signals.next().await;
        if !quiet {
            note(&format!("{s}: stopping"));
        }
        let _ = stopping.send(true);
    }));
    Ok(())
}

/// Waits for the render thread; a second signal exits at once (the render
/// under way leaves its temporary directory, which the next one removes).
fn finish(
    runtime: &tokio::runtime::Runtime,
    builder: std::thread::JoinHandle<()>,
    building: &AtomicBool,
    signals: &mut Signals,
    quiet: bool,
) {
    if building.load(Ordering::Acquire) && !quiet {
        note("waiting for the render under way to finish (Ctrl-C again to stop at once)");
    }
    let joined = runtime.block_on(async {
        tokio::select! {
            r = tokio::task::spawn_blocking(move || builder.join()) => Some(r),
            _ = signals.next() => None,
        }
    });
    if joined.is_none() {
        note("stopped during a render");
        std::process::exit(130);
    }
}

fn note(text: &str) {
    crate::term::print_err(&format!("{text}\n"));
}

/// The URL a browser on this machine reaches `addr` at.
fn url_of(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}/", SocketAddr::new(ip, addr.port()))
}

/// The listening socket: the port asked for, else [`SERVE_PORT`] or the
/// first free one of the next [`SERVE_PORT_TRIES`].
fn bind(opts: &ServeOptions) -> Result<TcpListener> {
    let listen = |port: u16| -> std::io::Result<TcpListener> {
        let l = TcpListener::bind(SocketAddr::new(opts.bind, port))?;
        l.set_nonblocking(true)?;
        Ok(l)
    };
    if let Some(port) = opts.port {
        return listen(port).with_context(|| {
            format!("cannot listen on {}: pass another --port (0: any free port)", SocketAddr::new(opts.bind, port))
        });
    }
    let mut last = None;
    for port in SERVE_PORT..SERVE_PORT.saturating_add(SERVE_PORT_TRIES) {
        match listen(port) {
            Ok(l) => return Ok(l),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => last = Some(e),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot listen on {}", SocketAddr::new(opts.bind, port)));
            }
        }
    }
    Err(last.map_or_else(|| anyhow::anyhow!("no port"), anyhow::Error::from)).with_context(|| {
        format!(
            "ports {SERVE_PORT} to {} are taken: pass --port PORT (0: any free port)",
            SERVE_PORT.saturating_add(SERVE_PORT_TRIES - 1)
        )
    })
}

/// The render thread's side.
struct Builder {
    wake: SyncSender<()>,
    stop: Arc<AtomicBool>,
    building: Arc<AtomicBool>,
    quiet: bool,
}

impl Builder {
    /// The first render (its result to `first`), then a render after each
    /// settled change until `stop`.
    fn run(
        self,
        mut rebuild: Rebuild,
        woken: &Receiver<()>,
        first: tokio::sync::oneshot::Sender<Result<()>>,
        generation: &tokio::sync::watch::Sender<u64>,
    ) {
        self.building.store(true, Ordering::Release);
        let built = rebuild(Round::First);
        self.building.store(false, Ordering::Release);
        let read = match built {
            Ok(b) => b.read,
            Err(e) => {
                let _ = first.send(Err(e));
                return;
            }
        };
        let mut watch = match watch::Watch::new(self.wake.clone()) {
            Ok(w) => Some(w),
            Err(e) => {
                tracing::warn!("cannot watch the input ({e}): the site is served as it is, without following changes");
                None
            }
        };
        if let Some(w) = &mut watch {
            w.set(&read);
        }
        if first.send(Ok(())).is_err() {
            return;
        }
        drop(self.wake);
        while woken.recv().is_ok() && !self.stop.load(Ordering::Acquire) {
            if !watch::settle(woken, SERVE_SETTLE, SERVE_SETTLE_MAX) || self.stop.load(Ordering::Acquire) {
                break;
            }
            self.building.store(true, Ordering::Release);
            let built = rebuild(Round::Again);
            self.building.store(false, Ordering::Release);
            match built {
                Ok(b) => {
                    generation.send_modify(|g| *g += 1);
                    if !self.quiet {
                        let now = jiff::ZonedDateTime::now().strftime("%H:%M:%S");
                        note(&format!("{now} {}", Summary(&b.summary, b.repeated)));
                    }
                    if let Some(w) = &mut watch {
                        w.set(&b.read);
                    }
                }
                Err(e) => tracing::error!("the render failed: {e:#}; the previous site is still served"),
            }
        }
    }
}

/// Ctrl-C and SIGTERM.
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals { interrupt: signal(SignalKind::interrupt())?, terminate: signal(SignalKind::terminate())? })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal's name.
    async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.interrupt.recv() => "interrupted",
                _ = self.terminate.recv() => "terminated",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "interrupted"
        }
    }
}

/// The site directory exists under `path`'s parent (made when missing).
pub fn make_parent(path: &Path) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    Ok(())
}
