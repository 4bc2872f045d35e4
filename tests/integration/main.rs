//! The integration test binary: one module per feature.

mod adversarial;
mod cli;
mod corpus;
mod props;
mod support;
