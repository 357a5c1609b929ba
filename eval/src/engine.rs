//! The answerer as the harness runs it: the core's `ask` and `assess`, with the reader model
//! that `--reader` names (an experiment, not shipped) when one is given.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use onrecord_core::{Answer, AnswerConfig, Assessment, Index, QueryModel, ReaderModel, ScorePairs};

/// The reader model of this run, set once from `--reader` before any question is asked.
static READER: OnceLock<Cached> = OnceLock::new();

/// The reader with its scores remembered: the knob search asks the same question of the same
/// passages many times over.
struct Cached {
    model: ReaderModel,
    scores: Mutex<HashMap<(String, String), f32>>,
}

impl ScorePairs for Cached {
    fn answers(&self, question: &str, passages: &[&str]) -> Vec<f32> {
        let Ok(mut scores) = self.scores.lock() else {
            return self.model.answers(question, passages);
        };
        passages
            .iter()
            .map(|p| {
                *scores
                    .entry((question.to_owned(), (*p).to_owned()))
                    .or_insert_with(|| self.model.answers(question, &[p])[0])
            })
            .collect()
    }
}

/// Uses `reader` for every question of this run. Only the first call counts.
pub fn use_reader(reader: ReaderModel) {
    let _ = READER.set(Cached {
        model: reader,
        scores: Mutex::new(HashMap::new()),
    });
}

fn reader() -> Option<&'static dyn ScorePairs> {
    READER.get().map(|r| r as &dyn ScorePairs)
}

pub fn assess(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    config: &AnswerConfig,
) -> Assessment {
    onrecord_core::assess_with(index, model, reader(), question, config)
}

pub fn ask(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    config: &AnswerConfig,
) -> Answer {
    onrecord_core::ask_with(index, model, reader(), question, config)
}
