//! The integration tests, one binary: each file beside this one is a
//! module of it (`cargo test --release --test integration -- serve::`
//! runs one file's tests). One binary links the library once, where a
//! binary per file linked it and instantiated its generic layers once per
//! file (docs/ci.md). `tests/gpu.rs` is a binary of its own, built only
//! with the `gpu` feature.

mod common;

mod board;
mod cli;
mod cluster;
mod dameo;
mod fastnet;
mod games;
mod layers;
mod learned;
mod perft;
mod player;
mod playout;
mod properties;
mod protocols;
mod robustness;
mod rules;
mod run;
mod scripts;
mod search;
mod serve;
mod tablebase;
mod train;
mod vecenv;
