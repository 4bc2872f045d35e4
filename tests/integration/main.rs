//! The integration test binary: one module per feature.

#![allow(
    unreachable_pub,
    clippy::too_many_lines,
    clippy::cast_possible_truncation,
    clippy::format_push_string,
    reason = "the crate's curated lints (Cargo.toml) hold src/; test helpers are `pub` across test modules and a scenario reads best whole"
)]

mod adversarial;
#[path = "../common/agent_files.rs"]
mod agent_files;
#[path = "../common/agent_lines.rs"]
mod agent_lines;
mod agents;
mod aider;
mod browser;
mod check_agents;
mod cleanup;
mod cli;
#[path = "../common/mod.rs"]
mod common;
mod compaction;
mod compare;
mod content;
mod copilot;
mod corpus;
mod cost;
mod crush;
mod export;
mod fidelity;
mod fork;
mod gemini_shapes;
mod hostile;
mod imports;
mod incremental;
mod layering;
mod lost;
mod newcomer;
mod opencode;
mod paths;
mod pi;
mod props;
mod qwen;
mod readers;
mod reading;
mod recover;
mod redact;
mod regression;
mod render;
mod schedule;
mod select;
mod serve;
mod shapes;
mod support;
mod sync;
mod sync_agents;
mod xss;
