//! Self-play on many machines: stateless actors and one learner that share
//! nothing but an object store (`file:///path`, `s3://bucket/prefix`).
//!
//! ```text
//! actor 0..N:  newest models/vN.toml -> weights/<sha256>.bpk (hash checked)
//!              -> self-play -> shards/vN/<actor>-<seq>.shard (create-only)
//! learner:     shards of models >= vN-K -> replay window -> train
//!              -> weights (by hash) -> learner/state/... -> models/vN+1.toml
//! ```
//!
//! Every object is written once ([`store::Store::put_create`]); the object
//! layout and formats are in [`protocol`]. The learner claims an epoch
//! (create-only) when it starts and checks before each publication that no
//! newer epoch exists, so a stale learner that is still running is fenced
//! out. Its checkpoint records every shard it has taken, so a restarted
//! learner neither loses nor double-counts one. [`audit`] checks a store
//! after the fact.

pub mod actor;
pub mod learner;
pub mod protocol;
pub mod store;

pub use actor::{run_actor, scheduler_index, ActorEvent, ActorOptions};
pub use learner::{all_models, newest_model, store_game, Learner, LearnerEvent};
pub use protocol::{LearnerState, ModelRecord, Shard, Taken};
pub use store::{Created, Store, StoreError, StoreOptions, WaitLog};

use crate::net::DeviceError;
use std::collections::{BTreeMap, BTreeSet};

/// Why an actor or a learner stopped.
#[derive(Debug, thiserror::Error)]
pub enum DistError {
    /// The object store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The run's config is invalid.
    #[error("config: {0}")]
    Config(String),
    /// An object the protocol needs is missing.
    #[error("{0} is missing from the store")]
    Missing(String),
    /// An object does not read.
    #[error("{0} is corrupt: {1}")]
    Corrupt(String, String),
    /// A newer learner has started: this one must stop.
    #[error("fenced out: this learner holds epoch {mine} but a learner with epoch {newer} has started; stop this one")]
    Fenced {
        /// This learner's epoch.
        mine: u64,
        /// The newer learner's epoch.
        newer: u64,
    },
    /// The network could not be serialised.
    #[error("cannot serialise the network: {0}")]
    Weights(String),
    /// The device could not be opened.
    #[error("device: {0}")]
    Device(#[from] DeviceError),
}

/// What a store holds, and what is wrong with it.
#[derive(Clone, Debug, Default)]
pub struct Audit {
    /// Model records, oldest first.
    pub models: Vec<ModelRecord>,
    /// Shards in the store.
    pub shards: usize,
    /// Shards the learner trained on, skipped as stale, skipped as corrupt.
    pub used: usize,
    /// Shards skipped as stale.
    pub stale: usize,
    /// Shards skipped as corrupt.
    pub corrupt: usize,
    /// Shards not taken yet, of models still fresh enough.
    pub waiting: usize,
    /// Shards of models past the staleness limit that the learner never
    /// took (lost).
    pub missed: Vec<String>,
    /// Shards named in more than one model record (used twice).
    pub used_twice: Vec<String>,
    /// Model versions missing from 0..=newest.
    pub gaps: Vec<u64>,
    /// The learner wrote its done marker.
    pub done: bool,
}

impl Audit {
    /// Everything wrong, one line each (empty when the store is sound).
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        p.extend(
            self.missed
                .iter()
                .map(|k| format!("shard {k} was never taken (lost)")),
        );
        p.extend(
            self.used_twice
                .iter()
                .map(|k| format!("shard {k} was used twice")),
        );
        p.extend(self.gaps.iter().map(|v| format!("model version {v} is missing")));
        p
    }
}

/// Check a store: every shard taken once at most, none lost, model
/// versions contiguous.
pub fn audit(store: &Store) -> Result<Audit, DistError> {
    let models = all_models(store)?;
    let mut a = Audit {
        done: store.get(protocol::DONE_KEY)?.is_some(),
        ..Default::default()
    };
    let newest = models.last().map_or(0, |r| r.version);
    let have: BTreeSet<u64> = models.iter().map(|r| r.version).collect();
    a.gaps = (0..=newest)
        .filter(|v| !models.is_empty() && !have.contains(v))
        .collect();
    let mut named: BTreeMap<&str, u32> = BTreeMap::new();
    for r in &models {
        for k in &r.shards {
            *named.entry(k.as_str()).or_default() += 1;
        }
    }
    a.used_twice = named
        .iter()
        .filter(|(_, &n)| n > 1)
        .map(|(k, _)| k.to_string())
        .collect();
    let taken = match models.last() {
        Some(r) => {
            let bytes = store
                .get(&r.checkpoint)?
                .ok_or_else(|| DistError::Missing(r.checkpoint.clone()))?;
            LearnerState::from_bytes(&bytes)
                .map_err(|e| DistError::Corrupt(r.checkpoint.clone(), e.to_string()))?
                .taken
        }
        None => BTreeMap::new(),
    };
    let staleness = match learner::store_config(store)? {
        Some(t) => {
            crate::run::RunConfig::from_toml(&t, &[], "run.toml in the store")
                .map_err(|e| DistError::Config(e.to_string()))?
                .dist
                .max_staleness as u64
        }
        None => 0,
    };
    for key in store.list("shards/")? {
        a.shards += 1;
        match taken.get(&key) {
            Some((Taken::Used, _)) => a.used += 1,
            Some((Taken::Stale, _)) => a.stale += 1,
            Some((Taken::Corrupt, _)) => a.corrupt += 1,
            None => {
                let v = key
                    .strip_prefix("shards/")
                    .and_then(|k| protocol::key_number(k.split('/').next().unwrap_or(""), 'v'));
                match v {
                    Some(v) if v + staleness < newest => a.missed.push(key),
                    _ => a.waiting += 1,
                }
            }
        }
    }
    a.models = models;
    Ok(a)
}

/// The cost of the store per shard ([`bench_store`]).
#[derive(Clone, Debug, PartialEq)]
pub struct StoreBench {
    /// Shards written, listed and read.
    pub shards: usize,
    /// Size of each (a copy of the newest shard in the store).
    pub bytes: usize,
    /// Mean milliseconds per create-only write.
    pub put_ms: f64,
    /// Milliseconds of one listing of the `shards` objects.
    pub list_ms: f64,
    /// Mean milliseconds per read, checksum and decode.
    pub get_ms: f64,
}

/// Measure what the protocol costs per shard on `store`: `n` copies of
/// the store's newest shard written create-only under `bench/`, listed,
/// read back and decoded, then removed.
pub fn bench_store(store: &Store, n: usize) -> Result<StoreBench, DistError> {
    use std::time::Instant;
    let newest = store
        .list("shards/")?
        .pop()
        .ok_or_else(|| DistError::Missing("a shard to copy (run an actor first)".into()))?;
    let bytes = store
        .get(&newest)?
        .ok_or_else(|| DistError::Missing(newest.clone()))?;
    let dir = format!("bench/{:016x}/", rand::random::<u64>());
    let n = n.max(1);
    let t = Instant::now();
    for i in 0..n {
        store.put_create(&format!("{dir}{i:06}.shard"), &bytes)?;
    }
    let put_ms = t.elapsed().as_secs_f64() * 1e3 / n as f64;
    let t = Instant::now();
    let keys = store.list(&dir)?;
    let list_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    for k in &keys {
        let b = store.get(k)?.ok_or_else(|| DistError::Missing(k.clone()))?;
        let game = store_game(store)?
            .kind()
            .map_err(|e| DistError::Config(e.to_string()))?;
        crate::with_game!(game, P => Shard::<P>::from_bytes(&b).map(|_| ()))
            .map_err(|e| DistError::Corrupt(k.clone(), e.to_string()))?;
    }
    let get_ms = t.elapsed().as_secs_f64() * 1e3 / keys.len().max(1) as f64;
    for k in &keys {
        store.delete(k)?;
    }
    Ok(StoreBench {
        shards: keys.len(),
        bytes: bytes.len(),
        put_ms,
        list_ms,
        get_ms,
    })
}
