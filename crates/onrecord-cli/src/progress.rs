//! How the CLI shows a long build: a bar on a terminal, a plain line per stage in a log (CI),
//! nothing with `--quiet`. Everything goes to stderr, so the report on stdout stays clean.

use std::fmt;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use build_index::{Progress, Stage};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// In a log, a long stage adds a line this often, so a 20-minute embedding is not silence.
const LOG_EVERY: Duration = Duration::from_secs(30);

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Bar,
    Lines,
    Quiet,
}

impl Mode {
    /// A bar when stderr is a terminal, lines when it is not.
    pub(crate) fn detect(quiet: bool) -> Mode {
        if quiet {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            Mode::Bar
        } else {
            Mode::Lines
        }
    }
}

/// The CLI's [`Progress`]: one stage at a time.
pub(crate) struct Shown {
    mode: Mode,
    current: Mutex<Option<Current>>,
}

struct Current {
    stage: Stage,
    total: u64,
    done: u64,
    started: Instant,
    last_line: Instant,
    bar: Option<ProgressBar>,
}

impl Shown {
    pub(crate) fn new(mode: Mode) -> Shown {
        Shown {
            mode,
            current: Mutex::new(None),
        }
    }

    /// A bar (or lines) for bytes, as a download counts them; `None` with `--quiet`.
    pub(crate) fn bytes(&self, what: &str, total: u64, done: u64) -> Option<ProgressBar> {
        match self.mode {
            Mode::Quiet => None,
            Mode::Bar => {
                let bar = ProgressBar::new(total).with_position(done);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}, {eta} left",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
                bar.set_message(what.to_owned());
                Some(bar)
            }
            Mode::Lines => {
                eprintln!("{what}: {} of {} MB", mb(done), mb(total));
                Some(ProgressBar::hidden())
            }
        }
    }

    /// A line for people, on stderr, unless quiet.
    pub(crate) fn say(&self, line: &str) {
        if self.mode != Mode::Quiet {
            eprintln!("{line}");
        }
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1e6)
}

impl Progress for Shown {
    fn start(&self, stage: Stage, total: u64) {
        if self.mode == Mode::Quiet {
            return;
        }
        let (name, unit) = stage.name();
        let bar = match self.mode {
            Mode::Bar => {
                let bar = ProgressBar::new(total);
                let template = format!(
                    "{{msg:<9}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{rate}} {unit}/s, {{eta}} left"
                );
                bar.set_style(
                    ProgressStyle::with_template(&template)
                        .unwrap_or_else(|_| ProgressStyle::default_bar())
                        // Whole units a second: indicatif's own `per_sec` prints four decimals.
                        .with_key("rate", |state: &ProgressState, w: &mut dyn fmt::Write| {
                            let _ = write!(w, "{:.0}", state.per_sec());
                        })
                        .progress_chars("=> "),
                );
                bar.set_message(name);
                Some(bar)
            }
            _ => {
                eprintln!("{name}: {total} {unit}");
                None
            }
        };
        let now = Instant::now();
        if let Ok(mut current) = self.current.lock() {
            *current = Some(Current {
                stage,
                total,
                done: 0,
                started: now,
                last_line: now,
                bar,
            });
        }
    }

    fn advance(&self, n: u64) {
        let Ok(mut current) = self.current.lock() else {
            return;
        };
        let Some(current) = current.as_mut() else {
            return;
        };
        current.done += n;
        if let Some(bar) = &current.bar {
            bar.inc(n);
        } else if current.last_line.elapsed() >= LOG_EVERY {
            current.last_line = Instant::now();
            let (name, unit) = current.stage.name();
            let secs = current.started.elapsed().as_secs_f64();
            let rate = current.done as f64 / secs.max(1e-9);
            let left = current.total.saturating_sub(current.done) as f64 / rate.max(1e-9);
            eprintln!(
                "{name}: {} of {} {unit}, {rate:.0} {unit}/s, about {left:.0} s left",
                current.done, current.total
            );
        }
    }

    fn finish(&self) {
        let Ok(mut current) = self.current.lock() else {
            return;
        };
        let Some(done) = current.take() else {
            return;
        };
        let (name, unit) = done.stage.name();
        let secs = done.started.elapsed().as_secs_f64();
        if let Some(bar) = done.bar {
            bar.finish_and_clear();
        }
        // The bar is gone; one line stays in the scrollback either way.
        eprintln!(
            "{name}: {} {unit} in {secs:.1} s ({:.0} {unit}/s)",
            done.done,
            done.done as f64 / secs.max(1e-9)
        );
    }
}
