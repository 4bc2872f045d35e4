//! Aider's input history as a prompt log (transcript-format, Appendix J):
//! `.aider.input.history` beside each chat history (prompt_toolkit's file
//! history: `# <local time>` then the lines typed, each `+<line>`), the only
//! per-prompt times, and the prompts of runs whose chat history is gone.
//! Each line is given the run it was typed in — the last run of the
//! folder's `.aider.chat.history.md` that started before it — when that
//! run's prompts hold it; the others are left to be matched by text, or
//! recovered. The `{` and `}` lines that open and close a multi-line
//! prompt are no prompts.

use std::path::Path;

use anyhow::{Context, Result};

use super::discover::INPUT_HISTORY;
use super::lines::{HISTORY, Runs, time_of};
use super::markdown::{What, blocks_of};
use crate::agent::prompts::{Log, ProjectPrompts, PromptLine, Prompts};
use crate::model::{ProjectSource, PromptLog};

pub(super) const LOG: PromptLog =
    PromptLog { file: INPUT_HISTORY, what: "input history", gone: "chat history deleted" };

/// The input history of each project folder that has one.
pub(super) fn prompt_logs(projects: &[&ProjectSource]) -> Vec<Log> {
    let mut logs: Vec<Log> = (projects.iter())
        .map(|p| Log { path: p.dir.join(INPUT_HISTORY), projects: p.dir.clone() })
        .filter(|l| l.path.is_file())
        .collect();
    logs.sort();
    logs.dedup();
    logs
}

/// The entries of the input history: each one's first line, time, text
/// (its `+` lines joined).
fn entries(text: &str) -> Vec<(u32, Option<i64>, String)> {
    let mut out: Vec<(u32, Option<i64>, String, bool)> = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if let Some(t) = l.strip_prefix("# ") {
            // `2026-12-02 01:46:35.978651`: to the second, as the headings.
            let t = t.trim();
            out.push((n, time_of(t.split('.').next().unwrap_or(t)), String::new(), false));
        } else if let Some(body) = l.strip_prefix('+') {
            match out.last_mut() {
                Some(last) => {
                    if last.3 {
                        last.2.push('\n');
                    }
                    last.2.push_str(body);
                    last.3 = true;
                }
                None => out.push((n, None, body.to_string(), true)),
            }
        }
    }
    out.into_iter().map(|(n, t, s, _)| (n, t, s)).collect()
}

/// The opening or closing line of a `{tag` … `tag}` multi-line prompt.
fn wrapper(t: &str) -> bool {
    let t = t.trim();
    let word = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    t.strip_prefix('{').is_some_and(word) || t.strip_suffix('}').is_some_and(word)
}

/// The runs of the folder's history: start, session, every line of its prompts.
fn runs_of(dir: &Path) -> Vec<(i64, String, rustc_hash::FxHashSet<String>)> {
    let Ok(bytes) = std::fs::read(dir.join(HISTORY)) else { return Vec::new() };
    let mut runs = Runs::new(HISTORY);
    let mut out: Vec<(i64, String, rustc_hash::FxHashSet<String>)> = Vec::new();
    for b in blocks_of(&bytes) {
        runs.see(&b);
        match b.what {
            What::Run => out.push((time_of(&b.text).unwrap_or(i64::MIN), runs.session.clone(), Default::default())),
            What::Prompt => {
                if let Some(last) = out.last_mut() {
                    last.2.insert(b.text.trim().to_string());
                    last.2.extend(b.text.lines().map(|l| l.trim().to_string()));
                }
            }
            _ => {}
        }
    }
    out
}

pub(super) fn read(log: &Log) -> Result<Prompts> {
    let bytes = std::fs::read(&log.path).with_context(|| format!("cannot read {}", log.path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let runs = runs_of(&log.projects);
    let cwd = super::discover::cwd_of(&log.projects);
    let mut warnings = Vec::new();
    let mut lines = Vec::new();
    for (line, ts, prompt) in entries(&text) {
        if prompt.trim().is_empty() || wrapper(&prompt) {
            continue;
        }
        let Some(ts) = ts else {
            warnings.push(format!("{}:{line}: an input line without a `# <time>` line before it", log.path.display()));
            continue;
        };
        let run = runs.iter().rev().find(|r| r.0 <= ts);
        let session_id = run.filter(|r| r.2.contains(prompt.trim())).map(|r| r.1.clone());
        lines.push(PromptLine { line, prompt, timestamp_ms: ts, session_id, pasted: Vec::new() });
    }
    let project = ProjectPrompts {
        name: crate::agent::AIDER.project_name(&cwd),
        dir: log.projects.clone(),
        cwd: Some(cwd),
        lines,
    };
    Ok(Prompts { path: log.path.clone(), log: LOG, projects: vec![project], warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_history_reads_as_timed_prompts_without_the_multi_line_marks() {
        let e = entries(
            "\n# 2026-12-02 01:46:35.978651\n+EDIT: x\n\n# 2026-12-02 01:46:53.891503\n+{\n\n# 2026-12-02 01:47:00.1\n+a\n+b\n",
        );
        let texts: Vec<&str> = e.iter().map(|x| x.2.as_str()).collect();
        assert_eq!(texts, ["EDIT: x", "{", "a\nb"]);
        assert!(wrapper("{") && wrapper("}") && wrapper("{tag") && !wrapper("{ a sentence"));
        assert_eq!(e[0].1, time_of("2026-12-02 01:46:35"));
    }
}
