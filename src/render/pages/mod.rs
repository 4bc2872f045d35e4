//! One template struct per page ([`templates`]: `TrackPage`, `ProjectPage`,
//! `IndexPage`, their rows, facts and pager) and their builders: a page of a
//! branch or an agent ([`track`]), the project index ([`project_index`]),
//! the archive index ([`archive_index`]), a big fork's own list
//! ([`fork_list`]), a session recovered from the prompt history ([`recovered`]), a conversation's map ([`map`]) and fork-point index
//! ([`outline`]), `sitemap.xml` ([`sitemap`]).

pub(crate) mod archive_index;
pub(crate) mod compare;
pub(crate) mod fork_list;
pub(crate) mod map;
pub(crate) mod outline;
pub(crate) mod project_index;
pub(crate) mod recovered;
pub(crate) mod sitemap;
pub(crate) mod templates;
pub(crate) mod track;
