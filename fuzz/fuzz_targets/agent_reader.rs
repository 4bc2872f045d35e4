//! Every registered agent's reader on arbitrary input
//! (`tests/common/agent_files.rs`): the first byte picks the agent, the rest
//! is its session file, or the JSON of one row of its database; discover,
//! load, `stats`, `check` and `render` must take it without a panic. Seed
//! the corpus from the fixtures with `fuzz/seed.sh`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/agent_files.rs"]
mod agent_files;

fuzz_target!(|data: &[u8]| {
    let _ = agent_files::run(data);
});
