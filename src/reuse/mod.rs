//! The incremental render's reuse of pages: which pages of a project are
//! put back from the previous render unrendered, and the key each page
//! rendered is recorded with. Render asks ([`crate::render::Reuse`]); the
//! build answers with an [`Incremental`] over what the previous render left
//! ([`Previous`], from its manifest).
//!
//! A page is re-used when the previous render made it from the same
//! inputs: every page of a page group ([`groups`]) whose key is unchanged,
//! else each page whose own key is ([`groups::Groups::page_key`]: a hash of
//! its [`PageInputs`] — its head, and for each message every input besides
//! what its entries say, with the hash of each entry's line — derived, not
//! kept by hand). So a track that grew renders its first and last pages.
//! A compare page likewise, by the hash of its [`CompareInputs`] (the
//! branches of its fork from the fork on, where they are shown, their spend):
//! a turn appended to one branch renders the compare pages that show it.

pub mod groups;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::render::pages::compare::{self, CompareInputs};
use crate::render::pages::track::{PageInputs, page_inputs};
use crate::render::site::PageJob;
use crate::render::site::context::{ProjectCtx, TrackId};
use crate::render::{CompareJob, Reuse};

/// What the previous render left: the key each page of the site was
/// recorded with (`<group key>:<page key>`).
pub trait Previous: Sync {
    /// Whether the previous render's page at `rel` was of a page group
    /// whose key was `group`.
    fn had_group(&self, rel: &str, group: &str) -> bool;
    /// Puts back the previous render's page at `rel`, unrendered, when it
    /// had the same `page` key (`None`: when its group had the key
    /// `group`), and records it with `group`. `false`: render it.
    fn reuse_page(&self, rel: &str, group: &str, page: Option<&str>) -> Result<bool>;
}

/// The reuse of a project's pages from the previous render.
pub struct Incremental<'p> {
    previous: &'p dyn Previous,
    /// What every page of the project depends on besides its inputs
    /// (renderer, settings, slug, side files: `crate::cache::pages_base`).
    base: String,
    /// The project's page groups, made once (render asks for its track
    /// pages, then for its compare pages).
    groups: std::sync::OnceLock<groups::Groups>,
}

impl<'p> Incremental<'p> {
    pub fn new(previous: &'p dyn Previous, base: String) -> Incremental<'p> {
        Incremental { previous, base, groups: std::sync::OnceLock::new() }
    }

    /// What every page of the project depends on besides its inputs.
    fn base(&self, ctx: &ProjectCtx<'_>) -> String {
        let fork_key = ctx.paths.fork_projects.as_deref().unwrap_or_default();
        format!("{}{}{fork_key}", self.base, ctx.name)
    }

    fn groups(&self, ctx: &ProjectCtx<'_>) -> &groups::Groups {
        self.groups.get_or_init(|| groups::groups(ctx, &self.base(ctx)))
    }
}

impl Reuse for Incremental<'_> {
    fn pages(&self, ctx: &ProjectCtx<'_>, jobs: &[PageJob]) -> Result<Vec<Option<(String, PageInputs)>>> {
        let groups = self.groups(ctx);
        let reuse = |job: &PageJob, key: Option<&str>| -> Result<bool> {
            let group = groups.key(job.track);
            Ok(self.previous.reuse_page(&job.path, group, key)?
                && job.docs.as_deref().map_or(Ok(true), |d| self.previous.reuse_page(d, group, key))?)
        };
        // The group of each page is unchanged when the previous manifest says
        // so (the page records its group's key); its pages are then re-used
        // whatever their own keys. Else each page by its own key.
        let unchanged: Vec<bool> =
            jobs.par_iter().map(|j| self.previous.had_group(&j.path, groups.key(j.track))).collect();
        let mut group_unchanged = vec![true; groups.count()];
        for (j, ok) in jobs.iter().zip(&unchanged) {
            group_unchanged[groups.of(j.track).index()] &= *ok;
        }
        jobs.par_iter()
            .map(|j| {
                if group_unchanged[groups.of(j.track).index()] && reuse(j, None)? {
                    return Ok(None);
                }
                let inputs = page_inputs(ctx, j.track, j.page);
                let key = groups.page_key(ctx, j.track, j.page, &inputs);
                if reuse(j, Some(&key))? {
                    return Ok(None);
                }
                Ok(Some((format!("{}:{key}", groups.key(j.track)), inputs)))
            })
            .collect()
    }

    fn compare_pages<'c>(
        &self,
        ctx: &'c ProjectCtx<'_>,
        pages: &[CompareJob],
    ) -> Result<Vec<Option<(String, CompareInputs<'c>)>>> {
        let groups = self.groups(ctx);
        let base = self.base(ctx);
        pages
            .par_iter()
            .map(|job| {
                // Its conversation's group unchanged: the page is too.
                let group = groups.key(TrackId::Active(job.conversation));
                if self.previous.reuse_page(&job.path, group, None)? {
                    return Ok(None);
                }
                let inputs = compare::inputs(ctx, job.fork)
                    .with_context(|| format!("{}: no fork point to compare", job.path))?;
                let key = groups::compare_key(&base, &inputs);
                if self.previous.reuse_page(&job.path, group, Some(&key))? {
                    return Ok(None);
                }
                Ok(Some((format!("{group}:{key}"), inputs)))
            })
            .collect()
    }
}
