//! The integration test binary: one module per feature.

mod cli;
mod corpus;
mod props;
mod support;
