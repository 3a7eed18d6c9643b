//! The learner: takes the actors' shards from the store, trains, and
//! publishes model versions (see the `dist` module docs for the protocol).

use super::protocol::{
    epoch_key, key_number, model_key, sha256_hex, shard_prefix, state_key, weights_key, LearnerState,
    ModelRecord, Shard, Taken, CONFIG_KEY, DONE_KEY, EPOCHS, MODELS, STATES,
};
use super::store::{Created, Store};
use super::DistError;
use crate::data::ReplayWindow;
use crate::game::GameId;
use crate::mcts::ExactValues;
use crate::net::ComputeDevice;
use crate::run::{check_resumable, config_exact_values, table_samples, RunConfig, RunGame};
use crate::train::Trainer;
use crate::util::rng_stream;
use crate::util::stop::Stop;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the learner reports.
#[derive(Clone, Debug, PartialEq)]
pub enum LearnerEvent {
    /// Claimed `epoch`; starting from model `version` (resumed or not).
    Started {
        /// The epoch it claimed.
        epoch: u64,
        /// The model version it starts from.
        version: u64,
        /// True when it resumed from a learner checkpoint.
        resumed: bool,
        /// The device its network trains on, in words.
        device: String,
    },
    /// A shard was taken (used later, or skipped as stale or corrupt).
    Shard {
        /// The shard's key.
        key: String,
        /// Used, or skipped and why.
        taken: Taken,
        /// Why it was skipped (empty when used).
        why: String,
    },
    /// A model version was published.
    Published(Box<ModelRecord>),
    /// Another learner published first; this one reloaded its state.
    Reloaded {
        /// The version it reloaded.
        version: u64,
    },
    /// The learner reached its limit and wrote the done marker.
    Finished {
        /// The last version published.
        version: u64,
    },
}

/// A learner bound to a store (see the module docs).
pub struct Learner<P: RunGame> {
    store: Store,
    cfg: RunConfig,
    compute: ComputeDevice,
    pool: Arc<rayon::ThreadPool>,
    trainer: Trainer,
    window: ReplayWindow<P>,
    /// The config's endgame tables, drawn from for `tablebase_samples`.
    tables: Option<Arc<dyn ExactValues<P>>>,
    state: LearnerState,
    /// Shards fetched but not trained on yet.
    pending: Vec<(String, Shard<P>)>,
    started: Instant,
    resumed: bool,
    /// Raised, training ends early and nothing of the epoch is published.
    stop: Stop,
}

fn parse_config(text: &str, sets: &[String]) -> Result<RunConfig, DistError> {
    let config = |e: crate::run::ConfigError| DistError::Config(e.to_string());
    check_resumable(sets, "on a store that holds a run (its run.toml is fixed)").map_err(config)?;
    RunConfig::from_saved_toml(text, sets, "run.toml in the store").map_err(config)
}

/// The newest model record in the store, if any.
pub fn newest_model(store: &Store) -> Result<Option<ModelRecord>, DistError> {
    let keys = store.list(MODELS)?;
    let Some(key) = keys.iter().filter(|k| key_number(k, 'v').is_some()).max() else {
        return Ok(None);
    };
    read_model(store, key).map(Some)
}

/// Model record `key`.
pub fn read_model(store: &Store, key: &str) -> Result<ModelRecord, DistError> {
    let bytes = store
        .get(key)?
        .ok_or_else(|| DistError::Missing(key.to_string()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| DistError::Corrupt(key.to_string(), "not UTF-8".into()))?;
    ModelRecord::from_toml(&text, key).map_err(|e| DistError::Corrupt(key.to_string(), e))
}

/// Every model record in the store, oldest first.
pub fn all_models(store: &Store) -> Result<Vec<ModelRecord>, DistError> {
    store
        .list(MODELS)?
        .iter()
        .filter(|k| key_number(k, 'v').is_some())
        .map(|k| read_model(store, k))
        .collect()
}

/// The run's config in the store, if a learner has written it.
pub fn store_config(store: &Store) -> Result<Option<String>, DistError> {
    match store.get(CONFIG_KEY)? {
        None => Ok(None),
        Some(b) => String::from_utf8(b)
            .map(Some)
            .map_err(|_| DistError::Corrupt(CONFIG_KEY.into(), "not UTF-8".into())),
    }
}

/// The highest learner epoch claimed so far (0 when none).
fn newest_epoch(store: &Store) -> Result<u64, DistError> {
    Ok(store
        .list(EPOCHS)?
        .iter()
        .filter_map(|k| key_number(k, 'e'))
        .max()
        .unwrap_or(0))
}

/// Claim the next learner epoch (create-only); returns it.
fn claim_epoch(store: &Store) -> Result<u64, DistError> {
    loop {
        let e = newest_epoch(store)? + 1;
        let host = std::env::var("HOSTNAME").unwrap_or_default();
        let note = format!(
            "pid = {}\nhost = \"{}\"\n",
            std::process::id(),
            host.escape_default()
        );
        if store.put_create(&epoch_key(e), note.as_bytes())? == Created::Written {
            return Ok(e);
        }
    }
}

/// The game of the run a store holds (its `run.toml`'s), or None when it
/// holds none yet.
pub fn store_game(store: &Store) -> Result<GameId, DistError> {
    Ok(match store_config(store)? {
        Some(text) => parse_config(&text, &[])?.game,
        None => GameId::default(),
    })
}

/// The game of the learner [`Learner::open_run`] would open: the store's
/// run's, or the new run's config's (so that the caller can open it with
/// the game's type, e.g. with `with_game!` on its [`GameId::kind`]).
pub fn learner_game(
    store: &Store,
    config: Option<&std::path::Path>,
    sets: &[String],
) -> Result<GameId, DistError> {
    if store_config(store)?.is_some() {
        return store_game(store);
    }
    Ok(RunConfig::load(config, sets)
        .map_err(|e| DistError::Config(e.to_string()))?
        .game)
}

impl<P: RunGame> Learner<P> {
    /// The learner of the run `store` holds, or of a new run from `config`
    /// (a file, or the embedded default when None) with `sets`. A store
    /// that already holds a run keeps its `run.toml`, and `sets` then change
    /// only what a resume may change. The flag says whether the store held
    /// a run (so `config` was not used).
    pub fn open_run(
        store: Store,
        config: Option<&std::path::Path>,
        sets: &[String],
        device: Option<crate::net::DeviceChoice>,
    ) -> Result<(Learner<P>, bool), DistError> {
        let fresh = RunConfig::load(config, sets).map_err(|e| DistError::Config(e.to_string()))?;
        let has_run = store_config(&store)?.is_some();
        let sets = if has_run { sets } else { &[] };
        Ok((Learner::open(store, &fresh, sets, device)?, has_run))
    }

    /// Open the learner on `store`: check create-only writes, write the
    /// run's config when the store has none (`new_config`; otherwise the
    /// store's config is used, with `sets` of resumable keys applied
    /// locally), claim an epoch, and resume from the newest checkpoint or
    /// publish model version 0.
    pub fn open(
        store: Store,
        new_config: &RunConfig,
        sets: &[String],
        device: Option<crate::net::DeviceChoice>,
    ) -> Result<Learner<P>, DistError> {
        store.check_create_only()?;
        let text = match store_config(&store)? {
            Some(t) => t,
            None => {
                let t = new_config.to_toml();
                if store.put_create(CONFIG_KEY, t.as_bytes())? == Created::Written {
                    t
                } else {
                    store_config(&store)?.ok_or_else(|| DistError::Missing(CONFIG_KEY.into()))?
                }
            }
        };
        let mut cfg = parse_config(&text, sets)?;
        if cfg.game != P::ID {
            return Err(DistError::Config(format!(
                "{} holds a run of {}, not of {}",
                store.name(),
                cfg.game,
                P::ID
            )));
        }
        cfg.fit_game::<P>().map_err(DistError::Config)?;
        if let Some(d) = device {
            cfg.device = d;
        }
        let compute = ComputeDevice::select(cfg.device)?;
        let pool = crate::util::thread_pool(cfg.threads)
            .map(Arc::new)
            .map_err(DistError::Config)?;
        let tables = config_exact_values(&cfg).map_err(|e| DistError::Config(format!("tablebase: {e}")))?;
        let epoch = claim_epoch(&store)?;
        let device = compute.burn().clone();
        let trainer = Trainer::seeded(cfg.model.clone(), cfg.train.clone(), device, cfg.seed);
        let mut l = Learner {
            state: LearnerState {
                epoch,
                version: 0,
                step: 0,
                games: 0,
                samples: 0,
                wall_s: 0.0,
                config: text,
                weights: Vec::new(),
                optimizer: Vec::new(),
                replay: Vec::new(),
                taken: BTreeMap::new(),
            },
            window: ReplayWindow::new(cfg.train.window),
            tables,
            store,
            cfg,
            compute,
            pool,
            trainer,
            pending: Vec::new(),
            started: Instant::now(),
            resumed: false,
            stop: Stop::new(),
        };
        if l.reload()? {
            l.resumed = true;
        } else {
            l.publish(0.0, 0.0)?;
        }
        Ok(l)
    }

    /// Load the newest checkpoint (publishing its model record when a
    /// crash came between the two). Returns false when the store has none.
    fn reload(&mut self) -> Result<bool, DistError> {
        let newest = newest_model(&self.store)?;
        // A checkpoint one version past the newest record: its learner
        // stopped before the record; finish its publication.
        let next = newest.as_ref().map_or(0, |r| r.version + 1);
        // (Listing works on whole path segments: list the folder, then match.)
        let orphan_prefix = format!("{STATES}v{next:08}-");
        let orphan = self
            .store
            .list(STATES)?
            .into_iter()
            .find(|k| k.starts_with(&orphan_prefix));
        let key = match (&orphan, &newest) {
            (Some(k), _) => k.clone(),
            (None, Some(r)) => r.checkpoint.clone(),
            (None, None) => return Ok(false),
        };
        let bytes = self
            .store
            .get(&key)?
            .ok_or_else(|| DistError::Missing(key.clone()))?;
        let st =
            LearnerState::from_bytes(&bytes).map_err(|e| DistError::Corrupt(key.clone(), e.to_string()))?;
        self.trainer
            .restore(st.weights.clone(), st.optimizer.clone(), st.step)
            .map_err(|e| DistError::Corrupt(key.clone(), e))?;
        self.window = ReplayWindow::from_bytes(&st.replay)
            .map_err(|e| DistError::Corrupt(key.clone(), e.to_string()))?;
        self.state = LearnerState {
            epoch: self.state.epoch,
            config: self.state.config.clone(),
            ..st
        };
        self.pending.clear();
        if orphan.is_some() {
            let sha = sha256_hex(&self.state.weights);
            self.store.put_create(&weights_key(&sha), &self.state.weights)?;
            let rec = self.record(key.clone(), sha, 0.0, 0.0);
            if self
                .store
                .put_create(&model_key(rec.version), rec.to_toml().as_bytes())?
                == Created::Conflict
            {
                return self.reload();
            }
        }
        Ok(true)
    }

    fn record(&self, checkpoint: String, sha: String, lp: f64, lv: f64) -> ModelRecord {
        let count = |t: Taken| self.state.taken.values().filter(|&&(x, _)| x == t).count() as u64;
        let used = (self.state.taken.iter())
            .filter(|(_, &(t, v))| t == Taken::Used && v == self.state.version)
            .map(|(k, _)| k.clone())
            .collect();
        ModelRecord {
            version: self.state.version,
            epoch: self.state.epoch,
            sha256: sha,
            checkpoint,
            step: self.state.step,
            games: self.state.games,
            samples: self.state.samples,
            shards_used: count(Taken::Used),
            shards_stale: count(Taken::Stale),
            shards_corrupt: count(Taken::Corrupt),
            shards: used,
            loss_policy: (lp * 1e5).round() / 1e5,
            loss_value: (lv * 1e5).round() / 1e5,
            wall_s: (self.state.wall_s * 10.0).round() / 10.0,
        }
    }

    /// Write the current state as version `self.state.version`: weights
    /// (under their hash), checkpoint, then the model record, all
    /// create-only. Fails with [`DistError::Fenced`] when a newer learner
    /// epoch exists or a newer learner published this version.
    fn publish(&mut self, lp: f64, lv: f64) -> Result<Option<ModelRecord>, DistError> {
        let newest = newest_epoch(&self.store)?;
        if newest > self.state.epoch {
            return Err(DistError::Fenced {
                mine: self.state.epoch,
                newer: newest,
            });
        }
        let weights = self.trainer.weights_bytes().map_err(DistError::Weights)?;
        let sha = sha256_hex(&weights);
        let wkey = weights_key(&sha);
        if self.store.put_create(&wkey, &weights)? == Created::Conflict {
            // An object under this hash that is not these bytes is corrupt.
            self.store.put_overwrite(&wkey, &weights)?;
        }
        self.state.weights = weights;
        self.state.optimizer = self.trainer.optimizer_bytes().map_err(DistError::Weights)?;
        self.state.replay = self.window.to_bytes();
        self.state.step = self.trainer.step;
        self.state.wall_s += self.started.elapsed().as_secs_f64();
        self.started = Instant::now();
        let skey = state_key(self.state.version, self.state.epoch);
        if self.store.put_create(&skey, &self.state.to_bytes())? == Created::Conflict {
            return Err(DistError::Corrupt(
                skey,
                "another checkpoint of this epoch is there".into(),
            ));
        }
        let rec = self.record(skey, sha, lp, lv);
        match self
            .store
            .put_create(&model_key(rec.version), rec.to_toml().as_bytes())?
        {
            Created::Written => {
                self.prune_checkpoints()?;
                Ok(Some(rec))
            }
            Created::Conflict => {
                let theirs = read_model(&self.store, &model_key(rec.version))?;
                if theirs.epoch > self.state.epoch {
                    Err(DistError::Fenced {
                        mine: self.state.epoch,
                        newer: theirs.epoch,
                    })
                } else {
                    // A stale learner got there first; it will be fenced at
                    // its next publication. Continue from its state.
                    self.reload()?;
                    Ok(None)
                }
            }
        }
    }

    /// Remove the learner checkpoints of all but the newest `keep_last`
    /// versions (their model records and weights stay).
    fn prune_checkpoints(&self) -> Result<(), DistError> {
        let keep = self.cfg.keep_last.max(1) as u64;
        for key in self.store.list(STATES)? {
            if key_number(&key, 'v').is_some_and(|v| v + keep <= self.state.version) {
                self.store.delete(&key)?;
            }
        }
        Ok(())
    }

    /// The config in force.
    pub fn config(&self) -> &RunConfig {
        &self.cfg
    }
    /// This learner's epoch.
    pub fn epoch(&self) -> u64 {
        self.state.epoch
    }
    /// The newest model version published.
    pub fn version(&self) -> u64 {
        self.state.version
    }
    /// The shards taken so far (used or skipped).
    pub fn taken(&self) -> &BTreeMap<String, (Taken, u64)> {
        &self.state.taken
    }
    /// Games in the shards fetched but not trained on yet.
    pub fn pending_games(&self) -> u64 {
        self.pending.iter().map(|(_, s)| s.games as u64).sum()
    }
    /// True once the config's version or time limit is reached.
    pub fn limit_reached(&self) -> bool {
        let wall = self.state.wall_s + self.started.elapsed().as_secs_f64();
        (self.cfg.iterations > 0 && self.state.version >= self.cfg.iterations as u64)
            || (self.cfg.time_limit_minutes > 0.0 && wall >= self.cfg.time_limit_minutes * 60.0)
    }

    fn oldest_fresh(&self) -> u64 {
        self.state
            .version
            .saturating_sub(self.cfg.dist.max_staleness as u64)
    }

    /// Look for new shards of the models still fresh enough, oldest model
    /// first; fetch, check and hold them until they have an iteration's
    /// games. Returns the number of shards fetched.
    pub fn collect(&mut self, on: &mut dyn FnMut(&LearnerEvent)) -> Result<usize, DistError> {
        let mut n = 0;
        for v in self.oldest_fresh()..=self.state.version {
            for key in self.store.list(&shard_prefix(v))? {
                if self.ready() {
                    return Ok(n);
                }
                if self.state.taken.contains_key(&key) || self.pending.iter().any(|(k, _)| *k == key) {
                    continue;
                }
                let Some(bytes) = self.store.get(&key)? else {
                    continue;
                };
                match Shard::from_bytes(&bytes) {
                    Ok(s) if s.model_version != v => {
                        let why = format!("its header says model {}, its key model {v}", s.model_version);
                        self.skip(key, Taken::Corrupt, why, on);
                    }
                    Ok(s) => {
                        self.pending.push((key, s));
                        n += 1;
                    }
                    Err(e) => self.skip(key, Taken::Corrupt, e.to_string(), on),
                }
            }
        }
        Ok(n)
    }

    fn skip(&mut self, key: String, taken: Taken, why: String, on: &mut dyn FnMut(&LearnerEvent)) {
        on(&LearnerEvent::Shard {
            key: key.clone(),
            taken,
            why,
        });
        self.state.taken.insert(key, (taken, self.state.version + 1));
    }

    /// True when the shards held have an iteration's games.
    pub fn ready(&self) -> bool {
        self.pending_games() >= self.cfg.selfplay.games_per_iteration as u64
    }

    /// Train on the shards held (`new samples x reuse / batch` steps once
    /// the window has `min_samples`) and publish the next version.
    pub fn train_and_publish(&mut self, on: &mut dyn FnMut(&LearnerEvent)) -> Result<(), DistError> {
        let pending = std::mem::take(&mut self.pending);
        let next = self.state.version + 1;
        let wall = self.state.wall_s + self.started.elapsed().as_secs_f64();
        let share = self.cfg.planned_share(self.state.version as u32, wall);
        self.trainer.set_run_share(share);
        let mut new_samples = 0usize;
        for (key, s) in pending {
            self.state.games += s.games as u64;
            new_samples += s.samples.len();
            let train = &self.cfg.train;
            self.window
                .extend_growing(s.samples, |made| train.window_for(made));
            on(&LearnerEvent::Shard {
                key: key.clone(),
                taken: Taken::Used,
                why: String::new(),
            });
            self.state.taken.insert(key, (Taken::Used, next));
        }
        self.state.samples += new_samples as u64;
        let drawn = table_samples(&self.cfg, self.tables.as_deref(), new_samples, next);
        self.window.extend(drawn);
        let steps = self.cfg.train.steps_for(new_samples, self.window.len());
        let mut rng = rng_stream(self.cfg.seed, "learner", next);
        let pool = self.pool.clone();
        let (trainer, window) = (&mut self.trainer, &self.window);
        let losses = pool.install(|| trainer.train(window, steps, &mut rng, || {}));
        if self.stop.requested() {
            // Cut short by a stop request: the store keeps the previous
            // version, and its shards stay untaken for the next learner.
            return Ok(());
        }
        // The version that leaves the fresh window: its untaken shards are
        // stale from now on.
        if next > self.cfg.dist.max_staleness as u64 {
            let retired = next - self.cfg.dist.max_staleness as u64 - 1;
            for key in self.store.list(&shard_prefix(retired))? {
                if !self.state.taken.contains_key(&key) {
                    let why = format!("played by model {retired}; the learner is at {next}");
                    self.skip(key, Taken::Stale, why, on);
                }
            }
        }
        self.state.version = next;
        match self.publish(losses.policy, losses.value)? {
            Some(rec) => on(&LearnerEvent::Published(Box::new(rec))),
            None => on(&LearnerEvent::Reloaded {
                version: self.state.version,
            }),
        }
        Ok(())
    }

    /// Collect, train and publish until the config's limit or `stop`;
    /// then write the done marker. A stop during training publishes
    /// nothing of that epoch: the learner is then to be opened again.
    pub fn run(&mut self, stop: &Stop, on: &mut dyn FnMut(&LearnerEvent)) -> Result<(), DistError> {
        self.stop = stop.clone();
        self.trainer.stop_on(stop.clone());
        on(&LearnerEvent::Started {
            epoch: self.state.epoch,
            version: self.state.version,
            resumed: self.resumed,
            device: self.compute.describe().to_string(),
        });
        while !stop.requested() {
            if self.limit_reached() {
                self.store
                    .put_create(DONE_KEY, format!("version = {}\n", self.state.version).as_bytes())?;
                on(&LearnerEvent::Finished {
                    version: self.state.version,
                });
                break;
            }
            self.collect(on)?;
            if self.ready() {
                self.train_and_publish(on)?;
            } else {
                stop.sleep(Duration::from_secs_f64(self.cfg.dist.poll_seconds));
            }
        }
        Ok(())
    }
}
