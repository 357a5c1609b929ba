//! onrecord-core: everything that decides, and nothing that does IO.
//!
//! The pipeline is: a parsed document ([`SourceDoc`]) is cut into fragments ([`chunk()`]),
//! the fragments are indexed ([`IndexBuilder`]) into an [`Index`], which is written and read
//! through one set of format types ([`Index::to_bytes`], [`Index::from_bytes`]).
//! A question goes to [`ask`], which retrieves with BM25 and either quotes a sentence
//! byte-exactly from a stored fragment, with its citation, or declines and says why.
//!
//! ```
//! use onrecord_core::{ask, chunk, AnswerConfig, Block, IndexBuilder, Index, IndexSettings, Lang,
//!     Mode, SourceDoc, SourceSection};
//!
//! let doc = SourceDoc {
//!     path: "shop/returns.md".into(),
//!     url: "/shop/returns/".into(),
//!     title: "Returns".into(),
//!     lang: Lang::English,
//!     themes: vec![],
//!     collection: None,
//!     sections: vec![SourceSection {
//!         heading_path: vec!["Refunds".into()],
//!         anchor: "refunds".into(),
//!         blocks: vec![Block::paragraph("Refunds arrive within 14 days. We pay return postage.")],
//!     }],
//! };
//! let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
//! builder.add(&doc, &chunk(&doc, 800));
//! let bytes = builder.finish().to_bytes([0; 32]).unwrap();
//! let index = Index::from_bytes(&bytes).unwrap();
//!
//! let answer = ask(&index, None, "When does my refund arrive?", &AnswerConfig::DEFAULT);
//! assert_eq!(answer.mode, Mode::Answer);
//! assert_eq!(answer.quotes[0].text, "Refunds arrive within 14 days.");
//! assert_eq!(answer.quotes[0].citation.url, "/shop/returns/#refunds");
//!
//! let answer = ask(&index, None, "What is the capital of France?", &AnswerConfig::DEFAULT);
//! assert_eq!(answer.mode, Mode::NotFound);
//! ```
#![warn(missing_docs)]
// The core never panics on input: no unwrap or expect outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod ann;
mod answer;
mod bm25;
mod chunk;
mod collection;
mod crc;
mod format;
mod fusion;
mod hex;
mod lang;
mod page;
mod plain;
mod question;
mod reader_model;
mod retrieve;
mod scope;
mod sentence;
mod shard;
mod source;
mod store;
mod text;
mod vector;
mod verify;
mod wordpiece;

pub use crate::answer::{
    Answer, AnswerConfig, AskKind, Assessment, Citation, Completeness, Confidence, Correction,
    Decline, DeclineModel, FEATURE_NAMES, Features, FollowUp, MAX_CONTEXT_FRAGMENTS,
    MAX_CONTEXT_QUESTION, MAX_PER_PAGE, MAX_RESULTS, Mode, N_FEATURES, Quote, Reply, Scope, Search,
    Section, SectionHit, Turn, TurnContext, ask, ask_kind, ask_turn, ask_turn_in, ask_with, assess,
    assess_with, decide, explore, resolve, search as search_sections,
    search_in as search_sections_in, section_url,
};
pub use crate::bm25::{Hit, IndexBuilder, QueryTerm, query_terms, search};
pub use crate::chunk::{
    FRAGMENT_CHARS, FragmentDraft, MAX_HEADING_CHARS, MAX_TITLE_CHARS, chunk, shorten,
};
pub use crate::collection::{Collection, asks_about_decisions};
pub use crate::format::{
    Bm25Params, DecodeError, Doc, EncodeError, FORMAT_VERSION, Fragment, HEADER_LEN, Index,
    IndexSettings, MAGIC, RoutingHint, Sharding, TermPostings, VectorIndex,
};
pub use crate::fusion::Fusion;
pub use crate::hex::hex;
pub use crate::page::{asks_about_changes, page_kind};
pub use crate::plain::{
    LightReader, MAX_FILE_BYTES, MAX_FILES, PlainError, PlainFile, index_documents, slug,
};
pub use crate::question::{MAX_QUESTION_CHARS, Question, QuestionError, check_question};
pub use crate::reader_model::{
    MAX_PAIR_TOKENS, MAX_QUESTION_TOKENS, READER_VERSION, ReaderConfig, ReaderModel,
    ReaderModelError, ReaderTensor, ReaderWeights, ReaderWeightsError, STORED_POSITIONS,
    ScorePairs, encode_reader_model, gelu, prune_reader_model,
};

pub use crate::retrieve::{
    Method, SHIPPED, asks_by_meaning, model_fits, reciprocal_rank, retrieve, retrieve_fused,
    retrieve_with,
};
pub use crate::sentence::sentences;
pub use crate::shard::{
    MANIFEST_MAGIC, Manifest, ManifestError, PROBES, SHARD_FORMAT_VERSION, SHARD_MAGIC, ShardError,
    ShardErrorKind, ShardSizes, ShardedFiles, ShardedIndex, VectorLists,
};
pub use crate::source::{
    Block, BlockKind, CELL_SEPARATOR, Page, PageKind, Read, ReadError, Reader, SourceDoc,
    SourceSection,
};
pub use crate::text::{Analyzer, Lang, Stemmer, fold_typography, is_stopword, tokens};
pub use crate::vector::{
    MODEL_VERSION, QueryModel, QueryModelError, encode_query_model, encode_query_model_rows,
    quantize_row, search_vectors,
};
pub use crate::verify::{MIN_QUOTE_WORDS, verify_quote};
pub use crate::wordpiece::{WordPiece, basic_tokens};
