//! One template struct per page ([`templates`]: `TrackPage`, `ProjectPage`,
//! `IndexPage`, their rows, facts and pager) and their builders: a page of a
//! branch or an agent ([`track`]), the project index ([`project_index`]),
//! the archive index ([`archive_index`]), a big fork's own list
//! ([`fork_list`]), a session recovered from the prompt history ([`recovered`]), a conversation's map ([`map`]) and fork-point index
//! ([`outline`]), `sitemap.xml` ([`sitemap`]).

pub mod archive_index;
pub mod fork_list;
pub mod map;
pub mod outline;
pub mod project_index;
pub mod recovered;
pub mod sitemap;
pub mod templates;
pub mod track;
