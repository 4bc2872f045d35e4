//! The integration test binary: one module per feature.

mod adversarial;
mod browser;
mod cli;
mod corpus;
mod export;
mod fidelity;
mod fork;
mod incremental;
mod paths;
mod props;
mod redact;
mod regression;
mod render;
mod select;
mod support;
mod sync;
mod xss;
