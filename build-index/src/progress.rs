//! What a build tells its caller as it goes: the stage it is in and how far along it is.
//! The library draws nothing; a front end (the `onrecord` CLI) renders it as a bar or as lines.

/// The long stages of a build, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading the site's files, counted in files.
    Reading,
    /// The teacher embedding fragments no cache holds, counted in fragments.
    Embedding,
    /// Writing the index's shards, counted in files.
    Writing,
}

impl Stage {
    /// The stage's name and the unit it counts, for people.
    pub fn name(self) -> (&'static str, &'static str) {
        match self {
            Stage::Reading => ("reading", "files"),
            Stage::Embedding => ("embedding", "fragments"),
            Stage::Writing => ("writing", "files"),
        }
    }
}

/// Receives a build's progress. `Sync`: the embedding threads report as they finish each text.
pub trait Progress: Sync {
    /// A stage begins with `total` units to do.
    fn start(&self, stage: Stage, total: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage is over.
    fn finish(&self);
}

/// Progress nobody watches.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: Stage, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}
