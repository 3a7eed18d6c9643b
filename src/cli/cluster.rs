//! `damone actor`, `damone learner` and `damone store`: self-play on many
//! machines over the library's [`damone::cluster`].

use anyhow::{bail, Context, Result};
use clap::Args;
use damone::cluster::{
    audit, run_actor, scheduler_index, ActorEvent, ActorOptions, Learner, LearnerEvent, Store, StoreOptions,
    Taken, WaitLog,
};
use damone::net::DeviceChoice;
use damone::run::RunGame;

use damone::util::stop::{stop_on_signals, Stop};
use std::path::PathBuf;
use std::time::Duration;

/// Where the shared store is.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// The shared store: file:///path/to/folder or s3://bucket/prefix (S3
    /// credentials and region from the usual AWS_* environment variables).
    #[arg(long, value_name = "URL")]
    pub store: String,
    /// S3 endpoint for S3-compatible stores (MinIO, Ceph, Garage, R2,
    /// moto): e.g. http://127.0.0.1:9000; default AWS_ENDPOINT_URL or AWS.
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
}

impl StoreArgs {
    /// The store for a one-off command: a few attempts, then the error.
    fn open(&self) -> Result<Store> {
        let mut o = StoreOptions::new();
        o.endpoint = self.endpoint.clone();
        o.attempts = 6;
        Ok(Store::open(&self.store, &o)?)
    }

    /// The store for a long-running actor or learner: an outage of any
    /// length is waited out (a line a minute says so), until `stop`.
    fn open_waiting(&self, stop: &Stop) -> Result<Store> {
        let mut o = StoreOptions::new();
        o.endpoint = self.endpoint.clone();
        o.stop = Some(stop.clone());
        o.on_wait = Some(WaitLog(std::sync::Arc::new(|line: &str| {
            eprintln!("warning: {line}")
        })));
        Ok(Store::open(&self.store, &o)?)
    }
}

#[derive(Args, Debug)]
pub struct ActorArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// This actor's index (part of its shard names); default
    /// JOB_COMPLETION_INDEX (Kubernetes Indexed Job), SLURM_ARRAY_TASK_ID
    /// (Slurm array job), or 0.
    #[arg(long)]
    pub index: Option<u32>,
    /// Stop after writing this many shards (default: until the learner is done).
    #[arg(long)]
    pub shards: Option<u64>,
    /// Worker threads (default: the run's `threads`).
    #[arg(long)]
    pub threads: Option<usize>,
    /// cpu, gpu or auto (default: the run's `device`).
    #[arg(long, value_name = "cpu|gpu|auto")]
    pub device: Option<DeviceChoice>,
    /// Seconds to wait for a learner to publish its first model.
    #[arg(long, default_value_t = 600)]
    pub wait: u64,
    /// No per-shard lines.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run_actor_cmd(a: ActorArgs) -> Result<()> {
    let stop = Stop::new();
    stop_on_signals(&stop).context("cannot handle stop signals")?;
    let store = a.store.open_waiting(&stop)?;
    let index = match a.index {
        Some(i) => i,
        None => scheduler_index()?.unwrap_or(0),
    };
    let opts = ActorOptions {
        index,
        max_shards: a.shards,
        threads: a.threads,
        device: a.device,
        wait_for_learner: Duration::from_secs(a.wait),
    };
    let quiet = a.quiet;
    run_actor(&store, &opts, &stop, &mut |e| {
        match e {
        ActorEvent::Started { name, device } => {
            eprintln!("actor {name} on {}, device {device}", store.name())
        }
        ActorEvent::Waiting => eprintln!("waiting for a learner to publish model 0 in {}", store.name()),
        ActorEvent::Model { version } if !quiet => eprintln!("playing with model {version}"),
        ActorEvent::BadWeights { version, why } => {
            eprintln!("warning: model {version}'s weights fail their check ({why}); not used")
        }
        ActorEvent::Shard {
            key,
            games,
            samples,
            seconds,
        } if !quiet => eprintln!(
            "{key}: {games} games, {samples} samples in {seconds:.1} s ({:.2} games/s)",
            *games as f64 / seconds.max(1e-9)
        ),
        ActorEvent::Dropped { key, newest } => {
            eprintln!("dropped {key}: the learner is at model {newest}, too far ahead")
        }
        ActorEvent::Finished { shards } if stop.requested() => eprintln!(
            "actor stopped on request: {shards} shards written; the shard under way, if any, was dropped unwritten"
        ),
        ActorEvent::Finished { shards } => eprintln!("actor done: {shards} shards written"),
        _ => {}
    }
    })?;
    Ok(())
}

#[derive(Args, Debug)]
pub struct LearnerArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Config for a new run (default: the embedded configs/default.toml);
    /// a store that already holds a run keeps its own run.toml.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override a config value (repeatable). On a store that holds a run,
    /// only the keys that may change on resume (as for train --resume).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// cpu, gpu or auto (default: the run's `device`).
    #[arg(long, value_name = "cpu|gpu|auto")]
    pub device: Option<DeviceChoice>,
    /// No per-version lines.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run_learner_cmd(a: LearnerArgs) -> Result<()> {
    let stop = Stop::new();
    stop_on_signals(&stop).context("cannot handle stop signals")?;
    let store = a.store.open_waiting(&stop)?;
    let name = store.name().to_string();
    let game = damone::cluster::learner::learner_game(&store, a.config.as_deref(), &a.sets)
        .with_context(|| format!("learner on {name}"))?;
    damone::with_game!(game.kind()?, P => learn::<P>(&a, store, stop))
}

/// The learner of the game `P` on `store`, its events printed.
fn learn<P: RunGame>(a: &LearnerArgs, store: damone::cluster::Store, stop: Stop) -> Result<()> {
    let name = store.name().to_string();
    let (mut learner, had_run) = Learner::<P>::open_run(store, a.config.as_deref(), &a.sets, a.device)
        .with_context(|| format!("learner on {name}"))?;
    if had_run && a.config.is_some() {
        eprintln!("note: {name} already holds a run; its run.toml is used, not --config");
    }
    let quiet = a.quiet;
    learner.run(&stop, &mut |e| match e {
        LearnerEvent::Started {
            epoch,
            version,
            resumed,
            device,
        } => eprintln!(
            "learner epoch {epoch} on {name}, device {device}: {} model {version}",
            if *resumed { "resumed from" } else { "published" }
        ),
        LearnerEvent::Shard { key, taken, why } if *taken != Taken::Used => {
            eprintln!(
                "skipped {key} ({}): {why}",
                if *taken == Taken::Stale {
                    "stale"
                } else {
                    "corrupt"
                }
            )
        }
        LearnerEvent::Published(r) if !quiet => eprintln!(
            "model {}: {} shards, {} games, {} samples in all, step {}, loss {:.3}/{:.3}, {:.0} s",
            r.version,
            r.shards.len(),
            r.games,
            r.samples,
            r.step,
            r.loss_policy,
            r.loss_value,
            r.wall_s
        ),
        LearnerEvent::Reloaded { version } => {
            eprintln!("another learner published model {version} first; continuing from its state")
        }
        LearnerEvent::Finished { version } => eprintln!("learner done at model {version}"),
        _ => {}
    })?;
    if stop.requested() {
        eprintln!(
            "learner stopped on request: the store keeps model {} and its state; the epoch under way was not published; start the learner again to go on",
            learner.version()
        );
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct StoreStatusArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Exit with an error when a shard was lost or used twice, or a model
    /// version is missing.
    #[arg(long)]
    pub check: bool,
    /// Measure the store's cost per shard instead: write N copies of the
    /// newest shard create-only, list them, read and decode them, remove them.
    #[arg(long, value_name = "N")]
    pub bench: Option<usize>,
}

pub fn run_store_status(a: StoreStatusArgs) -> Result<()> {
    let store = a.store.open()?;
    if let Some(n) = a.bench {
        let b = damone::cluster::bench_store(&store, n)?;
        println!(
            "{}: {} shards of {} bytes: {:.2} ms per create-only write, {:.2} ms per read+decode, {:.2} ms to list them",
            store.name(),
            b.shards,
            b.bytes,
            b.put_ms,
            b.get_ms,
            b.list_ms
        );
        return Ok(());
    }
    let au = audit(&store)?;
    println!("| version | epoch | step | games | samples | shards | loss (policy/value) | wall s |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in &au.models {
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.3}/{:.3} | {:.0} |",
            r.version,
            r.epoch,
            r.step,
            r.games,
            r.samples,
            r.shards.len(),
            r.loss_policy,
            r.loss_value,
            r.wall_s
        );
    }
    println!(
        "shards: {} in the store, {} used, {} stale, {} corrupt, {} waiting, {} lost, {} used twice; learner {}",
        au.shards,
        au.used,
        au.stale,
        au.corrupt,
        au.waiting,
        au.missed.len(),
        au.used_twice.len(),
        if au.done { "done" } else { "not done" }
    );
    let problems = au.problems();
    for p in &problems {
        eprintln!("problem: {p}");
    }
    if a.check && !problems.is_empty() {
        bail!("{} problem(s) in {}", problems.len(), store.name());
    }
    Ok(())
}
