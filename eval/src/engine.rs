//! The answerer as the harness runs it: the core's `ask` and `assess`, with the reader model
//! that `--reader` names (an experiment, not shipped) when one is given.

use std::sync::OnceLock;

use onrecord_core::{AnswerConfig, Answer, Assessment, Index, QueryModel, ReaderModel};

/// The reader model of this run, set once from `--reader` before any question is asked.
static READER: OnceLock<ReaderModel> = OnceLock::new();

/// Uses `reader` for every question of this run. Only the first call counts.
pub fn use_reader(reader: ReaderModel) {
    let _ = READER.set(reader);
}

pub fn assess(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    config: &AnswerConfig,
) -> Assessment {
    onrecord_core::assess_with(index, model, READER.get(), question, config)
}

pub fn ask(index: &Index, model: Option<&QueryModel>, question: &str, config: &AnswerConfig) -> Answer {
    onrecord_core::ask_with(index, model, READER.get(), question, config)
}
