//! Embeds every file of `assets/` (the widget as `scripts/cli-assets.sh` built it) in the
//! binary: their names are content-hashed, so the list is generated rather than written by hand.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| {
            let entry = entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
            entry
                .file_name()
                .into_string()
                .unwrap_or_else(|name| panic!("{}: file name {name:?} is not UTF-8", dir.display()))
        })
        .collect();
    names.sort();
    let mut code = String::from("pub(crate) static FILES: &[(&str, &[u8])] = &[\n");
    for name in &names {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    code.push_str("];\n");
    let out = Path::new(&env::var("OUT_DIR").unwrap_or_else(|e| panic!("OUT_DIR: {e}")))
        .join("widget.rs");
    fs::write(&out, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}
