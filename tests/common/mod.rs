//! What the integration tests that drive the binary share: the binary run
//! from the crate's root, its exit status and output, and a fresh
//! temporary folder per test.

#![allow(dead_code)]

pub mod ws;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The `damone` binary, run from the crate's root (where `configs/` is).
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_damone"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Run the binary with `args`: its exit code (-1 when killed), stdout and
/// stderr.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An empty temporary folder path for this test process: `name` tells
/// tests apart (the folder itself is not created).
pub fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("damone-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `damone engine ARGS` given `input`: whether it succeeded, its lines,
/// its stderr.
pub fn engine_with(args: &[&str], input: &[u8]) -> (bool, Vec<String>, String) {
    let mut child = bin()
        .arg("engine")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A child that refuses its arguments exits without reading its input:
    // the write may then find the pipe closed.
    if let Err(e) = child.stdin.take().unwrap().write_all(input) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
