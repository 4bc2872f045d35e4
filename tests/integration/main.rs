//! The integration test binary: one module per feature.

mod adversarial;
mod cli;
mod corpus;
mod fork;
mod props;
mod regression;
mod render;
mod support;
