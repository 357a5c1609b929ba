//! build-index: reads a corpus from disk — a markdown folder or a built HTML site — and builds
//! an onrecord index through the core.
//!
//! The readers (`onrecord-sources`) turn files into `SourceDoc`s; every decision about text
//! after that lives in `onrecord-core`. The eval harness calls [`build`] so that it indexes
//! exactly as this CLI does.
//!
//! The build runs in `build.rs`; which files it reads is `selection.rs`, one page read as it
//! reads them `pages.rs`, private notes `privacy.rs`, what it reports `report.rs`, and how the
//! index is written `layout.rs`.

#[cfg(feature = "experiments")]
mod adapt;
mod build;
mod config;
mod embed;
pub mod ivf;
mod layout;
mod pages;
mod privacy;
mod progress;
mod random;
#[cfg(feature = "experiments")]
mod reader_pack;
mod report;
mod scale;
mod selection;

use std::path::PathBuf;

use onrecord_core::{Index, Lang};

#[cfg(feature = "experiments")]
pub use crate::adapt::{Adapt, AdaptStats, MAX_NEGATIVES, MAX_QUERIES, adapt, pseudo_queries};
pub use crate::build::{build, build_reporting, build_with, embedding_texts};
pub use crate::config::{
    CONFIG_FILE, CollectionRule, RuleError, check_collections, yml_collections,
};
#[cfg(feature = "experiments")]
pub use crate::embed::CandleBert;
pub use crate::embed::{
    DEFAULT_CACHE_DIR, E5_FILE, EmbedOptions, EmbedStats, Embedder, MAX_TOKENS, ModelFiles,
    QueryModelFiles, Teacher,
};
pub use crate::layout::{
    Layout, to_compressed_shards, to_shards, write_atomically, write_index, write_layout,
};
pub use crate::pages::{ParsedPage, page_text, parse_page};
pub use crate::privacy::note_hint;
pub use crate::progress::{Progress, Silent, Stage};
pub use crate::random::SplitMix;
#[cfg(feature = "experiments")]
pub use crate::reader_pack::{
    PackOptions, pack_reader, pack_reader_with, read_vocab, reader_weights,
};
pub use crate::report::{MAX_SAME_WARNINGS, Report};
pub use crate::scale::{BENCH_QUESTIONS, replicated_index};
pub use crate::selection::{Input, corpus_input};
pub use onrecord_sources::{html_url_for, slug, url_for};

/// Build settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Folder (relative to the corpus root) whose notes are private: never indexed.
    pub private_dir: String,
    /// Language of pages without a `lang` frontmatter field.
    pub default_lang: Lang,
    /// Fragment size in characters.
    pub fragment_chars: usize,
    /// Whether index terms are stemmed (the eval turns it off for its ablation).
    pub stemming: bool,
    /// Names of the site or its author, which questions use to mean "these pages".
    pub site_names: Vec<String>,
    /// With vectors: adapt the query model to the site's own text (`None`: copy it as is; an
    /// experiment, built with the `experiments` feature only).
    #[cfg(feature = "experiments")]
    pub adapt: Option<Adapt>,
    /// Files or folders (relative to the corpus root, `/`-separated, with `*`, `?` and `**`
    /// wildcards) that are not read: a vendored theme's pages, an archive of old versions.
    pub exclude: Vec<String>,
    /// The folder includes may read (`None`: the corpus root itself). Docs that include
    /// `../CHANGES.md` name the folder above; nothing outside it is ever read.
    pub include_root: Option<PathBuf>,
    /// The collections, by name (from `onrecord.toml`); `None` reads the corpus's
    /// `onrecord.yml`, if any. Both at once is an error: one place says what a collection is.
    pub collections: Option<Vec<(String, CollectionRule)>>,
}

impl Options {
    /// The settings the demo and the README use.
    pub fn standard() -> Options {
        Options {
            private_dir: "private".into(),
            default_lang: Lang::English,
            fragment_chars: onrecord_core::FRAGMENT_CHARS,
            stemming: true,
            site_names: Vec::new(),
            #[cfg(feature = "experiments")]
            adapt: None,
            exclude: Vec::new(),
            include_root: None,
            collections: None,
        }
    }
}

/// A finished build: the index, its bytes and what happened.
pub struct Build {
    pub index: Index,
    pub bytes: Vec<u8>,
    /// The query model the vectors were made for (with vectors): the given one, or its copy
    /// adapted to this site. It goes next to the index.
    pub query_model: Option<Vec<u8>>,
    pub report: Report,
}
