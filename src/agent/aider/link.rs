//! Links the lines of each Aider chat history (transcript-format, Appendix
//! J). A run is a session; its messages are one chain, each hung on the
//! one before. A run whose startup output says it restored the history
//! (`--restore-chat-history`) continues the run before it in the file: its
//! first message hangs on that run's last (a resume, one line of
//! conversation). A `/clear` or `/reset` is a boundary where the model's
//! context starts again, joined after the command (a cut, nothing lost).
//! A reply takes the usage of the `Tokens:` output after it and the model
//! of the run's last `Model:` output. A run of another file of the project
//! whose key a run of `.aider.chat.history.md` has (the runs a fork
//! written by `cctree fork` copied) is a copy of that run.

use rustc_hash::FxHashSet;

use super::header::{RESTORED, RUN};
use crate::model::{Entries, Entry, Kind, ProjectSource};

pub(super) fn link(source: &ProjectSource, entries: &mut Entries) {
    let all = entries.as_mut_slice();
    // The runs of the history itself (live or kept versions), by session.
    let main: FxHashSet<Box<str>> = all
        .iter()
        .filter(|e| e.kind == Kind::KnownMeta(RUN.into()))
        .filter(|e| e.session_id.as_deref().is_some_and(|s| !s.contains('@')))
        .filter_map(|e| e.session_id.clone())
        .collect();
    let _ = source;
    let mut start = 0;
    while start < all.len() {
        let file = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == file).count();
        link_file(&mut all[start..end], &main);
        start = end;
    }
}

fn link_file(es: &mut [Entry], main: &FxHashSet<Box<str>>) {
    // The last message of the current run, of the run before, its model.
    let mut prev: Option<Box<str>> = None;
    let mut before: Option<Box<str>> = None;
    let mut first = true;
    let mut model: Option<Box<str>> = None;
    let mut reply: Option<usize> = None;
    for i in 0..es.len() {
        if es[i].kind == Kind::KnownMeta(RUN.into()) {
            before = prev.take().or(before);
            first = true;
            model = None;
            reply = None;
            let sid = es[i].session_id.clone().unwrap_or_default();
            if let Some((key, _)) = sid.split_once('@').filter(|(k, _)| main.contains(*k)) {
                es[i].copied_from = Some(key.into());
            }
            continue;
        }
        let Some(id) = es[i].uuid.clone() else { continue };
        if let Some(m) = es[i].model.clone() {
            model = Some(m);
        }
        if let Some(u) = es[i].usage.take() {
            match reply {
                Some(r) if es[i].kind != Kind::Assistant => es[r].usage = Some(u),
                _ => {}
            }
            reply = None;
        }
        if es[i].kind != Kind::Assistant {
            es[i].model = None;
        }
        let restored = first && es[i].subtype.as_deref() == Some(RESTORED);
        let e = &mut es[i];
        if e.is_compact_boundary() {
            e.parent = None;
            e.logical_parent = prev.clone();
        } else if restored {
            e.parent = before.clone();
        } else {
            e.parent = prev.clone();
        }
        if e.kind == Kind::Assistant {
            e.model.clone_from(&model);
            reply = Some(i);
        }
        first = false;
        prev = Some(id);
    }
}
