//! Issue 43, "a build that reads only the site": hostile docs folders, each built by the
//! `build-index` command in a child process under a time limit (a hang fails the case instead
//! of the whole run) and a memory limit (`ulimit -v`). A canary secret sits outside the input
//! folder in every case; it must appear in no file the build writes.

#![cfg(unix)]

use std::fs;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use onrecord_core::Index;

/// The canary: a secret in a file beside the input folder, and in the build's environment.
const CANARY: &str = "CANARY_SECRET_9f3c1e7a";

/// Each case's time limit. A debug build of a few pages takes well under a second; the deep
/// HTML case has its own, tighter bound.
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// Each case's memory limit (address space, KiB): far above what a small build takes, far below
/// reading `/dev/zero` until memory runs out.
const MEMORY_LIMIT_KIB: u64 = 4 * 1024 * 1024;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A scratch folder holding `docs/` (the input, with one good page), `secret.md` beside it
/// (the canary) and `out/`.
struct Case {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Case {
    fn new() -> Case {
        let tmp = tempfile::Builder::new()
            .prefix("onrecord-hostile-")
            .tempdir()
            .unwrap();
        let dir = fs::canonicalize(tmp.path()).unwrap();
        write(
            &dir,
            "docs/guide.md",
            "# Guide\n\nThe backup runs every night at two.\n",
        );
        write(
            &dir,
            "secret.md",
            &format!("# Secret\n\nThe token is {CANARY}.\n"),
        );
        Case { _tmp: tmp, dir }
    }

    fn docs(&self) -> PathBuf {
        self.dir.join("docs")
    }

    /// Builds `docs/` with `args`; fails the test past the time limit.
    fn build(&self, args: &[&str]) -> Built {
        self.build_within(args, TIME_LIMIT)
    }

    fn build_within(&self, args: &[&str], limit: Duration) -> Built {
        let out = self.dir.join("out");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v {MEMORY_LIMIT_KIB} && exec \"$@\""))
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_build-index"))
            .arg(self.docs())
            .arg("--out")
            .arg(&out)
            .args(args)
            // A CI token in the build's environment, as `/proc/self/environ` would show it.
            .env("CI_DEPLOY_TOKEN", CANARY)
            // glibc reserves 64 MiB of address space per thread arena; two keep the limit
            // about memory, not about how many cores the machine has.
            .env("MALLOC_ARENA_MAX", "2")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
            thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                bytes
            })
        };
        let stdout = drain(Box::new(child.stdout.take().unwrap()));
        let stderr = drain(Box::new(child.stderr.take().unwrap()));
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the build ran past {limit:?} (a hang?)");
            }
            thread::sleep(Duration::from_millis(20));
        };
        let secs = started.elapsed().as_secs_f64();
        let stdout = stdout.join().unwrap();
        let stderr = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
        Built {
            ok: status.success(),
            stdout_len: stdout.len(),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr,
            out,
            secs,
        }
    }
}

struct Built {
    ok: bool,
    stdout: String,
    stdout_len: usize,
    stderr: String,
    out: PathBuf,
    secs: f64,
}

impl Built {
    /// Asserts the build succeeded and that no file it wrote holds the canary (raw bytes and
    /// the decoded index's text, so compression could not hide it).
    fn clean(&self) -> &Built {
        assert!(
            self.ok,
            "the build failed: {}\n{}",
            self.stderr, self.stdout
        );
        let mut files = 0;
        for entry in fs::read_dir(&self.out).unwrap() {
            let bytes = fs::read(entry.unwrap().path()).unwrap();
            files += 1;
            assert!(
                !contains(&bytes, CANARY.as_bytes()),
                "the canary is in an output file"
            );
        }
        assert!(files > 0, "the build wrote nothing");
        for text in self.texts() {
            assert!(!text.contains(CANARY), "the canary is indexed: {text}");
        }
        self
    }

    /// The indexed fragment texts.
    fn texts(&self) -> Vec<String> {
        let index = Index::from_bytes(&fs::read(self.out.join("index.onr")).unwrap()).unwrap();
        index.fragments.iter().map(|f| f.text.clone()).collect()
    }

    fn warns(&self, what: &str) -> &Built {
        assert!(
            self.stdout
                .lines()
                .any(|l| l.starts_with("warning: ") && l.contains(what)),
            "no warning with '{what}' in:\n{}",
            self.stdout
        );
        self
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// `ln -s /proc/self/environ docs/env.md` put a CI token into the public index; a link to a
/// file beside the docs and a linked folder outside are skipped the same way.
#[test]
fn links_out_of_the_input_folder_are_skipped_with_a_warning_each() {
    let case = Case::new();
    let docs = case.docs();
    symlink(case.dir.join("secret.md"), docs.join("notes.md")).unwrap();
    symlink("/proc/self/environ", docs.join("env.md")).unwrap();
    symlink("/etc/passwd", docs.join("passwd.md")).unwrap();
    write(
        &case.dir,
        "outside/deep.md",
        &format!("# Deep\n\n{CANARY} again.\n"),
    );
    symlink(case.dir.join("outside"), docs.join("linked")).unwrap();
    // A link that stays inside is read where it points.
    write(
        &docs,
        "real/inside.md",
        "# Inside\n\nThe restore takes an hour.\n",
    );
    symlink(docs.join("real/inside.md"), docs.join("alias.md")).unwrap();
    let built = case.build(&[]);
    built
        .clean()
        .warns("notes.md: a link that resolves to ")
        .warns("env.md: a link that resolves to /proc/")
        .warns("passwd.md: a link that resolves to /etc/passwd")
        .warns("linked: a link that resolves to ");
    assert!(!built.texts().iter().any(|t| t.contains("root:")));
    assert!(
        built
            .texts()
            .iter()
            .any(|t| t.contains("restore takes an hour"))
    );
}

/// Warnings of one kind: five, then a count.
#[test]
fn many_links_out_are_five_warnings_and_a_count() {
    let case = Case::new();
    for i in 0..8 {
        symlink(
            case.dir.join("secret.md"),
            case.docs().join(format!("l{i}.md")),
        )
        .unwrap();
    }
    let built = case.build(&[]);
    built
        .clean()
        .warns("3 more like the above: links out of the input folder");
    let listed = built.stdout.matches("a link that resolves to").count();
    assert_eq!(listed, 5, "{}", built.stdout);
}

/// FIFOs and sockets in the docs are never opened (a FIFO blocks its reader forever).
#[test]
fn fifos_and_sockets_in_the_docs_are_never_opened() {
    let case = Case::new();
    let docs = case.docs();
    mkfifo(&docs.join("pipe.md"));
    symlink(docs.join("pipe.md"), docs.join("pipe-link.md")).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(docs.join("socket.md")).unwrap();
    let built = case.build(&[]);
    built
        .clean()
        .warns("pipe.md: a FIFO, which the build never opens; skipped")
        .warns("pipe-link.md: a FIFO, which the build never opens; skipped")
        .warns("socket.md: a socket, which the build never opens; skipped");
}

/// An include of a FIFO hung the build (its size reads 0, then the read blocks).
#[test]
fn an_include_of_a_fifo_does_not_hang() {
    let case = Case::new();
    mkfifo(&case.docs().join("parts/pipe.txt"));
    write(
        &case.docs(),
        "page.md",
        "# Page\n\nBefore.\n\n{{#include parts/pipe.txt}}\n",
    );
    case.build(&[])
        .clean()
        .warns("page.md:5: {{#include parts/pipe.txt}}: parts/pipe.txt is a FIFO");
}

/// The include fence is the input folder: a corpus at `/docs` read `/etc` through `../`.
#[test]
fn includes_stay_inside_the_input_folder_unless_an_include_root_is_named() {
    let case = Case::new();
    write(
        &case.docs(),
        "page.md",
        "# Page\n\n{{#include ../secret.md}}\n\n```{include} ../secret.md\n```\n",
    );
    case.build(&[])
        .clean()
        .warns("page.md:3: {{#include ../secret.md}}: ../secret.md is outside ")
        .warns("page.md:5: {include} ../secret.md: ../secret.md is outside ");

    // Named, the folder above is read (the Black docs include ../CHANGES.md).
    let dir = case.dir.to_str().unwrap();
    let built = case.build(&["--include-root", dir]);
    assert!(built.ok, "{}", built.stderr);
    assert!(built.texts().iter().any(|t| t.contains(CANARY)));
}

/// `{{#include ../dev/zero}}` read until memory ran out; a device is never opened, whatever
/// the include root, and a link to one in the docs is skipped.
#[test]
fn devices_are_never_opened_even_under_the_widest_include_root() {
    let case = Case::new();
    let docs = case.docs();
    symlink("/dev/zero", docs.join("zero.txt")).unwrap();
    symlink("/dev/zero", docs.join("zero.md")).unwrap();
    write(
        &docs,
        "page.md",
        "# Page\n\n{{#include zero.txt}}\n\n{{#include ../../../../../../../../dev/zero}}\n",
    );
    case.build(&["--include-root", "/"])
        .clean()
        .warns("page.md:3: {{#include zero.txt}}: zero.txt is a character device")
        .warns("page.md:5: {{#include ../../../../../../../../dev/zero}}: ../../../../../../../../dev/zero is a character device")
        .warns("zero.md: a link that resolves to /dev/zero");
}

/// A page over the per-file cap is skipped with a warning naming it; so is an include of one.
#[test]
fn a_file_over_the_cap_is_not_read() {
    let case = Case::new();
    let docs = case.docs();
    let big = fs::File::create(docs.join("big.md")).unwrap();
    // Sparse: 17 MiB that take no disk.
    big.set_len(17 << 20).unwrap();
    fs::File::create(docs.join("big.txt"))
        .unwrap()
        .set_len(17 << 20)
        .unwrap();
    write(&docs, "page.md", "# Page\n\n{{#include big.txt}}\n");
    case.build(&[])
        .clean()
        .warns(
            "big.md: holds more than 16777216 bytes, the most the build reads of one file; skipped",
        )
        .warns("page.md:3: {{#include big.txt}}: big.txt would take the page's includes over");
}

/// A file name that is not UTF-8 stopped the whole build.
#[test]
fn a_file_name_that_is_not_utf8_is_skipped() {
    let case = Case::new();
    let name = std::ffi::OsStr::from_bytes(b"bad-\xff.md");
    fs::write(case.docs().join(name), "# Bad\n\nText.\n").unwrap();
    case.build(&[])
        .clean()
        .warns("bad-\u{fffd}.md: file name is not valid UTF-8; skipped");
}

/// 200,000 includes of a missing file printed 200,000 warning lines (23.6 MB).
#[test]
fn includes_of_a_missing_file_are_five_warnings_and_a_count() {
    let case = Case::new();
    let page = format!("# Page\n\n{}", "{{#include missing.md}}\n".repeat(200_000));
    write(&case.docs(), "page.md", &page);
    let built = case.build(&[]);
    built
        .clean()
        .warns("page.md: 199995 more includes not rendered (cannot read), not listed");
    assert_eq!(built.stdout.matches("{{#include missing.md}}").count(), 5);
    assert!(
        built.stdout_len < 10_000,
        "{} bytes of output",
        built.stdout_len
    );
}

/// The deep-HTML time bound: 2 s as the issue asks, in an optimized build; a debug build's
/// parser runs many times slower, so the bound there only tells linear from quadratic (100,000
/// levels took over 120 s before; 40,000 took 27 s).
fn deep_html_limit() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(30)
    } else {
        Duration::from_secs(2)
    }
}

/// 100,000 nested `<div>` or `<ul><li>` ran past 120 s, almost all in the HTML parser; the
/// text at the bottom is still indexed.
#[test]
fn deeply_nested_html_is_read_in_linear_time() {
    for (open, close) in [("<div>", "</div>"), ("<ul><li>", "</li></ul>")] {
        let case = Case::new();
        fs::remove_file(case.docs().join("guide.md")).unwrap();
        let levels = 100_000;
        let page = format!(
            "<!doctype html><html><head><title>Deep</title></head><body><main><h1>Deep</h1>\
             <p>The top paragraph says hello.</p>{}<p>The bottom paragraph says goodbye.</p>{}\
             </main></body></html>",
            open.repeat(levels),
            close.repeat(levels)
        );
        write(&case.docs(), "index.html", &page);
        write(
            &case.docs(),
            "other.html",
            "<html><body><main><h1>Other</h1><p>A second page.</p></main></body></html>",
        );
        let built = case.build_within(&[], deep_html_limit() * 3);
        built.clean();
        assert!(
            built.secs < deep_html_limit().as_secs_f64(),
            "{open}: {:.1} s",
            built.secs
        );
        let texts = built.texts().join("\n");
        assert!(
            texts.contains("The bottom paragraph says goodbye."),
            "{texts}"
        );
        assert!(texts.contains("The top paragraph says hello."), "{texts}");
    }
}

/// Across pages too: eight pages with a missing include each are five warnings and a count.
#[test]
fn failing_includes_across_pages_are_five_warnings_and_a_count() {
    let case = Case::new();
    for i in 0..8 {
        write(
            &case.docs(),
            &format!("p{i}.md"),
            &format!("# Page {i}\n\nText {i}.\n\n{{{{#include missing-{i}.md}}}}\n"),
        );
    }
    let built = case.build(&[]);
    built
        .clean()
        .warns("3 more like the above: includes not rendered");
    assert_eq!(built.stdout.matches("{{#include missing-").count(), 5);
}
