//! The site model and URLs: what shapes every page besides the input
//! ([`RenderOptions`]), where a project is published ([`Placement`]), where
//! pages go ([`Sink`]), what every page of a project knows of the others
//! ([`context`]), how tracks are laid out on pages ([`layout`]), the URL
//! contract ([`urls`]), images ([`images`]), the embedded static files
//! ([`assets`]) and `--redact` for strings that are not lines ([`redaction`]).

pub(crate) mod assets;
pub(crate) mod context;
pub(crate) mod images;
pub(crate) mod layout;
pub mod redactor;
pub(crate) mod spend;
pub mod urls;

use anyhow::Result;

/// What shapes every page besides the input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Counted turns per page.
    pub page_size: u32,
    /// `--redact`: replace secrets in every string that is not an entry line
    /// (entry lines are redacted when parsed; [`redaction`]).
    pub redact: bool,
    /// `--show-paths`: absolute input paths on pages ([`context::InputPaths`]).
    pub show_paths: bool,
    /// `--base-url`: where the site is published; every page names its
    /// absolute URL there (`<link rel="canonical">`).
    pub base_url: Option<urls::BaseUrl>,
    /// The price table costs are computed with (`--prices`, else the bundled one).
    pub prices: crate::cost::PriceTable,
}

impl RenderOptions {
    /// The absolute URL of the page `rel` under `--base-url`, if given.
    pub fn canonical(&self, rel: &str) -> Option<urls::Href> {
        self.base_url.as_ref().map(|b| b.page(rel))
    }
}

/// Where a project is published and what its pages depend on besides the
/// project, as the build knows it.
#[derive(Debug, Clone, Default)]
pub struct Placement<'a> {
    /// The project's directory in the site (see [`urls::project_slugs`]).
    pub slug: &'a str,
    /// The `--projects` argument of the fork commands on its pages
    /// ([`crate::fork::lookup`]).
    pub fork_projects: Option<String>,
    /// The working directory pages name the project by: the whole project's
    /// ([`Project::cwd`]), also when only part of it is rendered
    /// ([`crate::select`]), so its pages read the same whatever is selected.
    /// `None`: the project's directory name.
    pub cwd: Option<String>,
    /// Which checkpoints a fork may cut at, as the project's agent judges
    /// them (the pages offer the `cctree fork` command at those).
    pub checkpoints: crate::project::Checkpoints,
}

/// Where render puts what it makes. The build implements it; render never
/// touches the file system.
pub trait Sink: Sync {
    /// A page of the site at `rel`; `key` is what it was made from (empty
    /// for a page rendered every time; see `crate::reuse`).
    fn page(&self, rel: &str, html: &[u8], key: &str) -> Result<()>;
    /// An image shown at `assets/img/<name>` (named by its content: the same
    /// name always comes with the same bytes).
    fn image(&self, name: &str, bytes: &[u8]) -> Result<()>;
}

/// A page of a track: the track, its number on it, its path in the site,
/// and the path of its file of the search index (when its messages are
/// indexed there: not those of a conversation's active track, indexed on
/// their branches' pages).
#[derive(Debug, Clone)]
pub(crate) struct PageJob {
    pub(crate) track: context::TrackId,
    pub(crate) page: u32,
    pub(crate) path: String,
    pub(crate) docs: Option<String>,
}
