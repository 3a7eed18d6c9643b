//! The `damone` command-line tool. Each subcommand lives in its own file
//! under `src/cli/`; this is the only place that wires backends to the library.

mod cli;

use clap::error::ErrorKind;
use clap::Parser;

fn main() {
    let args = match cli::Cli::try_parse() {
        Ok(a) => a,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        Err(e) => {
            // One line, as every other error: clap's first line and a pointer to --help.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("bad arguments").trim();
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("error: {} (see --help)", cli::clip(first, 300));
            std::process::exit(2);
        }
    };
    if let Err(e) = cli::run(args) {
        eprintln!("error: {}", cli::clip(&format!("{e:#}").replace('\n', " "), 1000));
        std::process::exit(2);
    }
}
