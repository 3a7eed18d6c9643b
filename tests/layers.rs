//! The error rule of ARCHITECTURE.md ("Errors, one style a layer"), read
//! from the sources: the library's modules return their own error types or
//! a message (`String`), never `anyhow` (the front ends' type: `src/cli/`,
//! `src/main.rs`, `src/app.rs`) and never a boxed error in a public
//! signature.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The library's source files: `src/` without the front ends.
fn library_files() -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let front_ends = [src.join("cli"), src.join("main.rs"), src.join("app.rs")];
    rust_files(&src)
        .into_iter()
        .filter(|p| !front_ends.iter().any(|f| p.starts_with(f)))
        .collect()
}

#[test]
fn library_modules_use_no_anyhow() {
    let files = library_files();
    assert!(files.len() > 50, "the library's files were not found: {files:?}");
    let offenders: Vec<String> = files
        .iter()
        .filter(|p| std::fs::read_to_string(p).unwrap().contains("anyhow"))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "library modules using anyhow: {offenders:?}"
    );
}

#[test]
fn no_public_library_function_returns_a_boxed_error() {
    let mut offenders = Vec::new();
    for path in library_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        // A public function's signature runs from `pub fn` to its body's `{`.
        for (at, _) in text.match_indices("pub fn ") {
            let signature = &text[at..text[at..].find('{').map_or(text.len(), |end| at + end)];
            if signature.contains("Box<dyn std::error::Error") || signature.contains("Box<dyn Error") {
                offenders.push(format!(
                    "{}: {}",
                    path.display(),
                    signature.lines().next().unwrap()
                ));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "public functions returning a boxed error: {offenders:?}"
    );
}
