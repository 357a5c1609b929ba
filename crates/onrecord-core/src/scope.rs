//! The scope rules: which pages a question is restricted to (a follow-up's "why?", a widget's
//! `data-scope`), read by retrieval and answering alike.

use crate::format::Index;

/// The pages a question is restricted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// Indices into [`Index::docs`], sorted.
    pub docs: Vec<u32>,
}

impl Scope {
    /// The pages of a decisions collection, and the others.
    pub fn split_decisions(&self, index: &Index) -> (Scope, Scope) {
        let (decisions, pages): (Vec<u32>, Vec<u32>) =
            self.docs.iter().partition(|&&d| is_decision(index, d));
        (Scope { docs: decisions }, Scope { docs: pages })
    }

    /// One part of a site, as a widget's `data-scope` names it (versioned docs): with a leading
    /// `/`, the pages whose URL path begins with it (`/v2/`); else the pages of the collection
    /// of that name. A name no page matches gives no pages.
    pub fn part(index: &Index, name: &str) -> Scope {
        let prefix = name.strip_prefix('/');
        let collection = (0..index.collections.len() as u32)
            .find(|&c| index.collection(c).is_some_and(|c| c.name == name));
        let docs = (0..index.docs.len() as u32)
            .filter(|&d| {
                index.docs.get(d as usize).is_some_and(|doc| match prefix {
                    // Page URLs are site paths, with or without their leading '/'.
                    Some(p) => doc.url.trim_start_matches('/').starts_with(p),
                    None => collection.is_some() && doc.collection == collection,
                })
            })
            .collect();
        Scope { docs }
    }

    /// The pages of both scopes.
    pub fn and(&self, other: &Scope) -> Scope {
        let docs = self
            .docs
            .iter()
            .filter(|d| other.docs.binary_search(d).is_ok())
            .copied()
            .collect();
        Scope { docs }
    }

    /// Whether fragment `frag` lies on one of the pages.
    pub fn contains(&self, index: &Index, frag: u32) -> bool {
        index
            .page_of(frag)
            .is_some_and(|d| self.docs.binary_search(&d).is_ok())
    }
}

/// Whether page `doc` belongs to a decisions collection.
pub(crate) fn is_decision(index: &Index, doc: u32) -> bool {
    index.doc(doc).is_some_and(|d| index.in_decisions(d))
}
