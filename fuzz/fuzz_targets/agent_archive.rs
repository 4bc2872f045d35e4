//! Every agent's reader, end to end: the fuzzer's bytes become an archive of
//! Claude Code, Codex and Gemini sessions (`tests/common/agent_lines.rs`: each
//! agent's record shapes over a tiny id alphabet, timestamps missing, numeric
//! or garbage, lines cut short), and discover, parse, link, `stats`, `check`
//! and `render` must take it without a panic.
#![no_main]

use clap::Parser;
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/agent_lines.rs"]
mod agent_lines;

fuzz_target!(|data: &[u8]| {
    let archive = agent_lines::archive(data);
    let root = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    agent_lines::write(root.path(), &archive);
    let inputs: Vec<std::path::PathBuf> = agent_lines::INPUTS.iter().map(|i| root.path().join(i)).collect();
    let discovered = cctree::discover::discover(&inputs).expect("discover");
    let projects: Vec<cctree::project::Project> =
        discovered.projects.into_iter().map(cctree::project::Project::load).collect();
    let mut report = cctree::stats::ReportBuilder::new(cctree::stats::StatsOptions { detail: true, exclude_own_forks: false });
    for p in &projects {
        report.add(p);
        let _ = cctree::check::check_project(p);
    }
    let _ = report.finish();
    let out = root.path().join("site");
    let mut args = vec!["cctree".into(), "-q".into(), "render".into()];
    args.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
    args.extend(["-o".into(), out.into_os_string()]);
    let cli = cctree::cli::Cli::parse_from(args);
    cctree::run::run(cli).expect("render");
});
