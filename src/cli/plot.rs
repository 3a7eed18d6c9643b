//! `damone plot <run folder>`: the library's [`plot_run`] charts.

use anyhow::Result;
use clap::Args;
use damone::run::plots::plot_run;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// The run folder (checkpoints/<run>).
    pub run: PathBuf,
    /// Output folder (default: the run folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run_plot(a: PlotArgs) -> Result<()> {
    let out = a.out.clone().unwrap_or_else(|| a.run.clone());
    let written = plot_run(&a.run, &out)?;
    let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    eprintln!("wrote {}", names.join(" and "));
    if written.len() == 1 {
        eprintln!("(no evaluation rows yet, so no win-rate plot)");
    }
    Ok(())
}
