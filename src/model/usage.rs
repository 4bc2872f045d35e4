//! Token usage, as the API bills it.

use serde::{Deserialize, Serialize};

use crate::model::Usage;

/// Tokens of one or more API calls, split as the API bills them: fresh
/// input, output, input read from the prompt cache, input written to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl Tokens {
    pub fn of(u: Usage) -> Tokens {
        Tokens { input: u.input, output: u.output, cache_read: u.cache_read, cache_write: u.cache_creation }
    }

    pub fn add(&mut self, o: Tokens) {
        // Saturating: usage numbers come from the transcript.
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.cache_write = self.cache_write.saturating_add(o.cache_write);
    }

    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }
}
