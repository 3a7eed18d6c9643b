//! An actor: plays self-play games with the newest published model and
//! writes them to the store as shards. It holds no state: a restarted
//! actor starts new games under a new name, losing only the games that
//! were in flight.

use super::learner::{newest_model, store_config};
use super::protocol::{sha256_hex, shard_key, weights_key, ModelRecord, Shard, DONE_KEY};
use super::store::{Created, Store};
use super::DistError;
use crate::game::{to_pdn, PdnHeaders};
use crate::net::{net_from_bytes, ComputeDevice, DeviceChoice, NetEvaluator};
use crate::run::{config_exact_values, RunConfig, RunGame};
use crate::selfplay::SelfPlay;
use crate::util::rng_stream;
use crate::util::stop::Stop;
use rand::Rng as _;
use std::time::{Duration, Instant};

/// How an actor runs.
#[derive(Clone, Debug)]
pub struct ActorOptions {
    /// The actor's index (its place in a job array); part of its name.
    pub index: u32,
    /// Stop after writing this many shards (None: until the learner is done).
    pub max_shards: Option<u64>,
    /// Worker threads (None: the run's `threads`).
    pub threads: Option<usize>,
    /// Device (None: the run's `device`).
    pub device: Option<DeviceChoice>,
    /// Give up when no learner has written the run's config after this long.
    pub wait_for_learner: Duration,
}

impl Default for ActorOptions {
    fn default() -> Self {
        ActorOptions {
            index: 0,
            max_shards: None,
            threads: None,
            device: None,
            wait_for_learner: Duration::from_secs(600),
        }
    }
}

/// The actor index a scheduler gives: `JOB_COMPLETION_INDEX` (a Kubernetes
/// Indexed Job) or `SLURM_ARRAY_TASK_ID` (a Slurm array job).
pub fn scheduler_index() -> Result<Option<u32>, DistError> {
    for var in ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"] {
        if let Ok(v) = std::env::var(var) {
            return v
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| DistError::Config(format!("{var}={v:?} is not an actor index (a number)")));
        }
    }
    Ok(None)
}

/// What an actor reports.
#[derive(Clone, Debug, PartialEq)]
pub enum ActorEvent {
    /// Started as `name` on `device`.
    Started {
        /// The actor's name.
        name: String,
        /// The device its network runs on, in words.
        device: String,
    },
    /// Waiting for a learner to write the run's config or model 0.
    Waiting,
    /// Playing with model `version`.
    Model {
        /// The model's version.
        version: u64,
    },
    /// Model `version`'s weights did not match their hash.
    BadWeights {
        /// The model's version.
        version: u64,
        /// What did not match.
        why: String,
    },
    /// A shard was written.
    Shard {
        /// The shard's key in the store.
        key: String,
        /// Games in it.
        games: u32,
        /// Training samples in it.
        samples: usize,
        /// Seconds its games took.
        seconds: f64,
    },
    /// A shard was dropped: the learner moved past its model.
    Dropped {
        /// The shard's key it would have had.
        key: String,
        /// The newest model version when it was dropped.
        newest: u64,
    },
    /// The learner is done; the actor stops.
    Finished {
        /// Shards this actor wrote.
        shards: u64,
    },
}

/// Download and check model `rec`'s weights.
fn load_weights(store: &Store, rec: &ModelRecord) -> Result<Vec<u8>, String> {
    let key = weights_key(&rec.sha256);
    let bytes = match store.get(&key) {
        Ok(Some(b)) => b,
        Ok(None) => return Err(format!("{key} is missing")),
        Err(e) => return Err(e.to_string()),
    };
    let got = sha256_hex(&bytes);
    if got != rec.sha256 {
        return Err(format!("{key} has SHA-256 {got}"));
    }
    Ok(bytes)
}

/// Run an actor until the learner is done, `max_shards` are written or
/// `stop` is set. Returns the number of shards written. A stop during a
/// shard's games drops that shard unwritten.
pub fn run_actor(
    store: &Store,
    opts: &ActorOptions,
    stop: &Stop,
    on: &mut dyn FnMut(&ActorEvent),
) -> Result<u64, DistError> {
    let Some((cfg, model)) = wait_for_run(store, opts, stop, on)? else {
        return Ok(0);
    };
    let kind = cfg.game.kind().map_err(|e| DistError::Config(e.to_string()))?;
    crate::with_game!(kind, P => {
        let mut actor = Actor::<P>::new(store, opts, cfg, model, on)?;
        actor.selfplay.stop_on(stop.clone());
        play_shards(actor, opts, stop, on)
    })
}

/// The actor's loop (see [`run_actor`]) in its run's game.
fn play_shards<P: RunGame>(
    mut actor: Actor<'_, P>,
    opts: &ActorOptions,
    stop: &Stop,
    on: &mut dyn FnMut(&ActorEvent),
) -> Result<u64, DistError> {
    let store = actor.store;
    let poll = Duration::from_secs_f64(actor.cfg.dist.poll_seconds);
    let mut written = 0u64;
    while !stop.requested() && opts.max_shards.is_none_or(|m| written < m) {
        if store.get(DONE_KEY)?.is_some() {
            break;
        }
        if !actor.refresh_model(on)? {
            stop.sleep(poll);
            continue;
        }
        if actor.play_shard(on)? {
            written += 1;
        }
    }
    on(&ActorEvent::Finished { shards: written });
    Ok(written)
}

/// Wait for the run's config and model 0, written by the learner; None
/// when `stop` is set first.
fn wait_for_run(
    store: &Store,
    opts: &ActorOptions,
    stop: &Stop,
    on: &mut dyn FnMut(&ActorEvent),
) -> Result<Option<(RunConfig, ModelRecord)>, DistError> {
    let t_wait = Instant::now();
    let mut waiting = false;
    loop {
        if stop.requested() {
            return Ok(None);
        }
        if let (Some(text), Some(rec)) = (store_config(store)?, newest_model(store)?) {
            let cfg = RunConfig::from_saved_toml(&text, &[], "run.toml in the store")
                .map_err(|e| DistError::Config(e.to_string()))?;
            return Ok(Some((cfg, rec)));
        }
        if t_wait.elapsed() > opts.wait_for_learner {
            return Err(DistError::Config(format!(
                "no learner has published a model in {} after {} s",
                store.name(),
                opts.wait_for_learner.as_secs()
            )));
        }
        if !waiting {
            on(&ActorEvent::Waiting);
            waiting = true;
        }
        stop.sleep(Duration::from_millis(500));
    }
}

/// An actor at work: its name, its self-play, and the model it plays with.
struct Actor<'s, P: RunGame> {
    store: &'s Store,
    cfg: RunConfig,
    name: String,
    compute: ComputeDevice,
    pool: rayon::ThreadPool,
    selfplay: SelfPlay<P>,
    /// Self-play's settings, with a shard's games per iteration.
    sp_cfg: crate::selfplay::SelfPlayConfig,
    seed: u64,
    /// The newest model record seen.
    model: ModelRecord,
    /// The network of the model version played with.
    evaluator: Option<(u64, NetEvaluator)>,
    /// Shards attempted so far (a part of their names).
    seq: u64,
}

impl<'s, P: RunGame> Actor<'s, P> {
    fn new(
        store: &'s Store,
        opts: &ActorOptions,
        cfg: RunConfig,
        model: ModelRecord,
        on: &mut dyn FnMut(&ActorEvent),
    ) -> Result<Actor<'s, P>, DistError> {
        let compute = ComputeDevice::select(opts.device.unwrap_or(cfg.device))?;
        let pool =
            crate::util::thread_pool(opts.threads.unwrap_or(cfg.threads)).map_err(DistError::Config)?;
        let nonce: u32 = rand::random();
        let name = format!("a{:04}-{nonce:08x}", opts.index);
        on(&ActorEvent::Started {
            name: name.clone(),
            device: compute.describe().to_string(),
        });
        let mut sp_cfg = cfg.selfplay.clone();
        sp_cfg.games_per_iteration = cfg.dist.games_per_shard;
        let stream = (opts.index as u64) << 32 | nonce as u64;
        let seed = rng_stream(cfg.seed, "actor", stream).random();
        let variant = P::variant_named(&cfg.variant).map_err(DistError::Config)?;
        let mut selfplay = SelfPlay::new(&sp_cfg, P::start(variant), cfg.rules, seed);
        selfplay.keep_finished_games();
        // The run's folder of tables, on this machine.
        let tables = config_exact_values(&cfg).map_err(|e| DistError::Config(format!("tablebase: {e}")))?;
        selfplay.set_exact_values(tables);
        Ok(Actor {
            store,
            cfg,
            name,
            compute,
            pool,
            selfplay,
            sp_cfg,
            seed,
            model,
            evaluator: None,
            seq: 0,
        })
    }

    /// Take the newest model, loading its weights when it is new; false
    /// while no model's weights could be had (a bad newer one keeps the
    /// last good model).
    fn refresh_model(&mut self, on: &mut dyn FnMut(&ActorEvent)) -> Result<bool, DistError> {
        if let Some(rec) = newest_model(self.store)? {
            self.model = rec;
        }
        let version = self.model.version;
        if self.evaluator.as_ref().is_some_and(|(v, _)| *v == version) {
            return Ok(true);
        }
        let net = load_weights(self.store, &self.model).and_then(|w| {
            net_from_bytes(&self.cfg.model, w, self.compute.burn(), "model weights")
                .map_err(|e| e.to_string())
        });
        match net {
            Ok(net) => {
                self.evaluator = Some((version, NetEvaluator::on_device(&net, &self.compute)));
                on(&ActorEvent::Model { version });
            }
            Err(why) => on(&ActorEvent::BadWeights { version, why }),
        }
        Ok(self.evaluator.is_some())
    }

    /// Play a shard's games and write the shard, unless the learner has
    /// moved past its model; whether it was written.
    fn play_shard(&mut self, on: &mut dyn FnMut(&ActorEvent)) -> Result<bool, DistError> {
        let (version, ev) = self.evaluator.as_mut().expect("a model");
        let version = *version;
        let t = Instant::now();
        let sp_seed = rng_stream(self.seed, "shard", self.seq).random();
        let (cfg, sp_cfg, selfplay) = (&self.cfg, &self.sp_cfg, &mut self.selfplay);
        let (samples, stats) = self
            .pool
            .install(|| selfplay.run_iteration(&cfg.search, sp_cfg, ev, sp_seed, &mut |_| {}, &mut |_| {}));
        if self.selfplay.stop_requested() {
            // Cut short by a stop request: the shard is incomplete.
            return Ok(false);
        }
        let pdn = self.finished_games_pdn(version);
        let key = shard_key(version, &self.name, self.seq);
        self.seq += 1;
        // A shard the learner would skip as stale is not written.
        let newest = newest_model(self.store)?.map_or(version, |r| r.version);
        if newest > version + self.cfg.dist.max_staleness as u64 {
            on(&ActorEvent::Dropped { key, newest });
            return Ok(false);
        }
        let shard = Shard::<P> {
            model_version: version,
            actor: self.name.clone(),
            games: stats.games,
            plies: stats.plies,
            samples,
            pdn,
        };
        if self.store.put_create(&key, &shard.to_bytes())? == Created::Conflict {
            return Err(DistError::Corrupt(
                key,
                "another object has this actor's shard name".into(),
            ));
        }
        on(&ActorEvent::Shard {
            key,
            games: stats.games,
            samples: shard.samples.len(),
            seconds: t.elapsed().as_secs_f64(),
        });
        Ok(true)
    }

    /// The games self-play finished since the last shard, as PDN.
    fn finished_games_pdn(&mut self, version: u64) -> String {
        self.selfplay
            .take_finished_games()
            .iter()
            .enumerate()
            .map(|(i, (g, o))| {
                let h = PdnHeaders {
                    event: format!("{} self-play, model {version}", P::ID),
                    round: format!("{}", i + 1),
                    white: format!("model {version}"),
                    black: format!("model {version}"),
                    extra: vec![("Actor".into(), self.name.clone())],
                    ..Default::default()
                };
                to_pdn(g, Some(o), &h) + "\n"
            })
            .collect()
    }
}
