//! The run log: one JSON line per question with its outcome. No client address, no key, no
//! model text beyond the verified quotes' count.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

/// One line.
#[derive(Serialize)]
pub(crate) struct Entry<'a> {
    pub(crate) question: &'a str,
    pub(crate) fragments: &'a [u32],
    /// `answer`, `not-found` or an error kind (`upstream-timeout`, `client-gone`, …).
    pub(crate) outcome: &'a str,
    pub(crate) reason: Option<&'a str>,
    pub(crate) claims: usize,
    pub(crate) dropped: usize,
    pub(crate) cached: bool,
    pub(crate) ms: u64,
}

#[derive(Serialize)]
struct Line<'a> {
    ts: u64,
    #[serde(flatten)]
    entry: &'a Entry<'a>,
}

pub(crate) struct RunLog {
    file: Option<Mutex<File>>,
}

impl RunLog {
    pub(crate) fn open(path: Option<&Path>) -> anyhow::Result<RunLog> {
        let file = match path {
            None => None,
            Some(p) => Some(Mutex::new(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .map_err(|e| {
                        anyhow::anyhow!("could not open the run log {}: {e}", p.display())
                    })?,
            )),
        };
        Ok(RunLog { file })
    }

    pub(crate) fn write(&self, entry: &Entry<'_>) {
        let Some(file) = &self.file else {
            return;
        };
        let ts = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let Ok(mut line) = serde_json::to_vec(&Line { ts, entry }) else {
            return;
        };
        line.push(b'\n');
        let mut file = file.lock().unwrap_or_else(|p| p.into_inner());
        // A full disk must not take answers down; the line is lost, the request is not.
        let _ = file.write_all(&line);
    }
}
