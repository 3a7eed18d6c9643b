//! The `damone` command-line tool. Each subcommand lives in its own file
//! under `src/cli/`; this is the only place that wires backends to the library.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    if let Err(e) = cli::run(args) {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}
