//! The distributed protocol (actors and a learner over object storage) on
//! `object_store`'s local-folder and in-memory stores, with a
//! fault-injecting wrapper: lost replies, corrupt weights, stale and
//! corrupt shards, a crash between checkpoint and model record, a
//! restarted learner, two learners racing, a store without create-only
//! writes.

use async_trait::async_trait;
use damone::cluster::protocol::{model_key, shard_key, shard_prefix, weights_key};
use damone::cluster::{
    all_models, audit, run_actor, ActorEvent, ActorOptions, DistError, Learner, Shard, Store, StoreError,
    StoreOptions, Taken,
};
use damone::run::RunConfig;
use damone::util::stop::Stop;
use futures_util::stream::BoxStream;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore, PutMode,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Wraps a store and injects faults into its writes.
#[derive(Debug, Default)]
struct Faults {
    /// Keys containing one of these: the write lands, then its reply is
    /// lost (reported as a timeout), once per entry.
    lose_reply: Mutex<Vec<String>>,
    /// Keys containing one of these: every write fails.
    fail: Mutex<Vec<String>>,
    /// Create-only writes overwrite (a store without conditional writes).
    ignore_create: AtomicBool,
    /// Replies lost so far.
    lost: Mutex<u32>,
}

#[derive(Debug)]
struct Faulty {
    inner: Arc<dyn ObjectStore>,
    faults: Arc<Faults>,
}

impl std::fmt::Display for Faulty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Faulty({})", self.inner)
    }
}

fn injected(what: &str) -> object_store::Error {
    object_store::Error::Generic {
        store: "faulty",
        source: what.to_string().into(),
    }
}

#[async_trait]
impl ObjectStore for Faulty {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        mut opts: PutOptions,
    ) -> Result<PutResult> {
        let loc = location.to_string();
        if self
            .faults
            .fail
            .lock()
            .unwrap()
            .iter()
            .any(|p| loc.contains(p.as_str()))
        {
            return Err(injected("injected write failure"));
        }
        if self.faults.ignore_create.load(Ordering::Relaxed) {
            opts.mode = PutMode::Overwrite;
        }
        let r = self.inner.put_opts(location, payload, opts).await?;
        let mut lose = self.faults.lose_reply.lock().unwrap();
        if let Some(i) = lose.iter().position(|p| loc.contains(p.as_str())) {
            lose.remove(i);
            *self.faults.lost.lock().unwrap() += 1;
            return Err(injected("injected timeout after a successful upload"));
        }
        Ok(r)
    }
    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }
    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.inner.get_opts(location, options).await
    }
    fn delete_stream(&self, locations: BoxStream<'static, Result<Path>>) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }
    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }
    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }
    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

fn quick() -> StoreOptions {
    let mut o = StoreOptions::new();
    o.attempts = 3;
    o.backoff = Duration::from_millis(5);
    o
}

/// A faulty in-memory store, and a second handle on the same objects.
fn faulty_store() -> (Store, Arc<Faults>) {
    let mem: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let faults = Arc::new(Faults::default());
    let faulty = Faulty {
        inner: mem,
        faults: faults.clone(),
    };
    (
        Store::with(Arc::new(faulty), "run", "faulty-memory", quick()),
        faults,
    )
}

/// A second handle on the objects of `store` (another machine).
fn same(store: &Store) -> Store {
    store.handle()
}

fn tiny(sets: &[&str]) -> RunConfig {
    let mut all: Vec<String> = vec![
        "selfplay.games_per_iteration=8".into(),
        "selfplay.parallel_games=8".into(),
        "dist.games_per_shard=8".into(),
        "dist.poll_seconds=0.05".into(),
        "train.min_samples=1".into(),
    ];
    all.extend(sets.iter().map(|s| s.to_string()));
    RunConfig::load(Some(std::path::Path::new("configs/tiny.toml")), &all).unwrap()
}

fn one_shard(store: &Store, index: u32) -> u64 {
    let opts = ActorOptions {
        index,
        max_shards: Some(1),
        threads: Some(1),
        ..Default::default()
    };
    run_actor(store, &opts, &Stop::new(), &mut |_| {}).unwrap()
}

/// The games held by the shards written for model `v`: an actor's shard
/// holds at least `games_per_shard` games, more when several end in the
/// search round of the last one counted.
fn games_for_model(store: &Store, v: u64) -> u64 {
    store
        .list(&shard_prefix(v))
        .unwrap()
        .iter()
        .map(|k| {
            Shard::<damone::game::damone::Position>::from_bytes(&store.get(k).unwrap().unwrap())
                .unwrap()
                .games as u64
        })
        .sum()
}

#[test]
fn shards_round_trip_and_corruption_is_detected() {
    let (store, _) = faulty_store();
    let _learner =
        Learner::<damone::game::damone::Position>::open(same(&store), &tiny(&[]), &[], None).unwrap();
    assert_eq!(one_shard(&store, 3), 1);
    let keys = store.list("shards/").unwrap();
    assert_eq!(keys.len(), 1);
    assert!(keys[0].starts_with("shards/v00000000/a0003-"), "{keys:?}");
    let bytes = store.get(&keys[0]).unwrap().unwrap();
    let shard = Shard::<damone::game::damone::Position>::from_bytes(&bytes).unwrap();
    assert_eq!(shard.model_version, 0);
    // At least games_per_shard: games that end in the same search round
    // as the eighth are kept too (the actor's seed has a random nonce, so
    // this varies from run to run).
    assert!(shard.games >= 8, "{} games", shard.games);
    assert!(!shard.samples.is_empty());
    assert_eq!(
        shard.pdn.matches("[Event ").count(),
        shard.games as usize,
        "one PDN record per game"
    );
    assert_eq!(
        Shard::<damone::game::damone::Position>::from_bytes(&shard.to_bytes()).unwrap(),
        shard
    );
    let mut bad = bytes.clone();
    bad[bytes.len() / 2] ^= 0x40;
    let e = Shard::<damone::game::damone::Position>::from_bytes(&bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("checksum"), "{e}");
    let e = Shard::<damone::game::damone::Position>::from_bytes(&bytes[..10])
        .unwrap_err()
        .to_string();
    assert!(e.contains("game shard"), "{e}");
    // The store benchmark copies it, reads the copies back and removes them.
    let b = damone::cluster::bench_store(&store, 3).unwrap();
    assert_eq!((b.shards, b.bytes), (3, bytes.len()));
    assert!(store.list("bench/").unwrap().is_empty());
}

#[test]
fn one_learner_and_two_actors_train_over_a_local_folder() {
    let dir = std::env::temp_dir().join(format!("damone-dist-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let url = format!("file://{}", dir.display());
    let store = Store::open(&url, &quick()).unwrap();
    let mut learner =
        Learner::<damone::game::damone::Position>::open(store, &tiny(&["iterations=3"]), &[], None).unwrap();
    let actors: Vec<_> = (0..2)
        .map(|i| {
            let url = url.clone();
            std::thread::spawn(move || {
                let store = Store::open(&url, &quick()).unwrap();
                let opts = ActorOptions {
                    index: i,
                    threads: Some(1),
                    ..Default::default()
                };
                run_actor(&store, &opts, &Stop::new(), &mut |_| {}).unwrap()
            })
        })
        .collect();
    let mut published = Vec::new();
    learner
        .run(&Stop::new(), &mut |e| {
            if let damone::cluster::LearnerEvent::Published(r) = e {
                published.push(r.version)
            }
        })
        .unwrap();
    let written: u64 = actors.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(published, vec![1, 2, 3]);
    // Learner checkpoints of all but the newest keep_last (2) versions are removed.
    let states = Store::open(&url, &quick())
        .unwrap()
        .list("learner/state/")
        .unwrap();
    assert_eq!(states.len(), 2, "{states:?}");
    assert!(states[1].starts_with("learner/state/v00000003-"), "{states:?}");
    let store = Store::open(&url, &quick()).unwrap();
    let a = audit(&store).unwrap();
    assert!(a.problems().is_empty(), "{:?}", a.problems());
    assert!(a.done);
    assert_eq!(a.models.len(), 4);
    assert_eq!(a.shards as u64, written, "every shard written is in the store");
    assert!(a.used >= 3, "{a:?}");
    assert!(a
        .models
        .windows(2)
        .all(|w| w[1].step >= w[0].step && w[1].games > w[0].games));
    // Weights are stored under their hash and match it.
    for r in &a.models {
        let w = store.get(&weights_key(&r.sha256)).unwrap().unwrap();
        assert_eq!(damone::cluster::protocol::sha256_hex(&w), r.sha256);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_write_whose_reply_is_lost_is_retried_without_a_duplicate() {
    let (store, faults) = faulty_store();
    faults
        .lose_reply
        .lock()
        .unwrap()
        .extend(["shards/".to_string(), "models/v00000001".to_string()]);
    let mut learner =
        Learner::<damone::game::damone::Position>::open(same(&store), &tiny(&[]), &[], None).unwrap();
    assert_eq!(one_shard(&store, 0), 1);
    learner.collect(&mut |_| {}).unwrap();
    assert!(learner.ready());
    learner.train_and_publish(&mut |_| {}).unwrap();
    assert_eq!(*faults.lost.lock().unwrap(), 2, "both replies were lost");
    assert_eq!(store.list("shards/").unwrap().len(), 1);
    let models = all_models(&store).unwrap();
    assert_eq!(models.iter().map(|m| m.version).collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(models[1].shards.len(), 1);
    assert!(audit(&store).unwrap().problems().is_empty());
}

#[test]
fn actors_refuse_weights_that_fail_their_hash() {
    let (store, _) = faulty_store();
    let _learner =
        Learner::<damone::game::damone::Position>::open(same(&store), &tiny(&[]), &[], None).unwrap();
    let rec = all_models(&store).unwrap().remove(0);
    let key = weights_key(&rec.sha256);
    let mut w = store.get(&key).unwrap().unwrap();
    let n = w.len();
    w[n - 100] ^= 0xff;
    store.put_overwrite(&key, &w).unwrap();
    let stop = Stop::new();
    let mut bad = Vec::new();
    let opts = ActorOptions {
        max_shards: Some(1),
        threads: Some(1),
        ..Default::default()
    };
    let written = run_actor(&store, &opts, &stop, &mut |e| {
        if let ActorEvent::BadWeights { version, why } = e {
            bad.push((*version, why.clone()));
            stop.request();
        }
    })
    .unwrap();
    assert_eq!(written, 0);
    assert_eq!(bad.len(), 1);
    assert!(bad[0].1.contains("SHA-256"), "{bad:?}");
    assert!(store.list("shards/").unwrap().is_empty());
}

#[test]
fn stale_and_corrupt_shards_are_skipped_and_counted() {
    let (store, _) = faulty_store();
    let mut learner = Learner::<damone::game::damone::Position>::open(
        same(&store),
        &tiny(&["dist.max_staleness=0"]),
        &[],
        None,
    )
    .unwrap();
    assert_eq!(one_shard(&store, 0), 1);
    let good = store.list("shards/").unwrap().remove(0);
    // Garbage, and a shard whose header names another model than its key
    // (named to sort before the actor's shard: the learner fetches in key
    // order and stops when it holds an iteration's games).
    store
        .put_create(&shard_key(0, "0-junk", 0), b"not a shard")
        .unwrap();
    let mut lying =
        Shard::<damone::game::damone::Position>::from_bytes(&store.get(&good).unwrap().unwrap()).unwrap();
    lying.model_version = 7;
    store
        .put_create(&shard_key(0, "0-liar", 0), &lying.to_bytes())
        .unwrap();
    let mut skipped = Vec::new();
    learner.collect(&mut |e| skipped.push(format!("{e:?}"))).unwrap();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(learner.ready());
    // A shard of model 0 arrives while the learner trains model 1: with
    // max_staleness 0 it is stale once model 1 is out.
    assert_eq!(one_shard(&store, 1), 1);
    learner.train_and_publish(&mut |_| {}).unwrap();
    let kinds: Vec<Taken> = learner.taken().values().map(|(t, _)| *t).collect();
    assert_eq!(kinds.iter().filter(|t| **t == Taken::Used).count(), 1);
    assert_eq!(kinds.iter().filter(|t| **t == Taken::Corrupt).count(), 2);
    assert_eq!(kinds.iter().filter(|t| **t == Taken::Stale).count(), 1);
    let a = audit(&store).unwrap();
    assert_eq!((a.used, a.stale, a.corrupt, a.waiting), (1, 1, 2, 0));
    assert!(a.problems().is_empty(), "{:?}", a.problems());
    let rec = all_models(&store).unwrap().pop().unwrap();
    assert_eq!((rec.shards_used, rec.shards_stale, rec.shards_corrupt), (1, 1, 2));
}

#[test]
fn a_restarted_learner_neither_loses_nor_double_counts_a_shard() {
    let (store, faults) = faulty_store();
    let cfg = tiny(&[]);
    let mut first = Learner::<damone::game::damone::Position>::open(same(&store), &cfg, &[], None).unwrap();
    assert_eq!(one_shard(&store, 0), 1);
    first.collect(&mut |_| {}).unwrap();
    first.train_and_publish(&mut |_| {}).unwrap();
    // A second shard is fetched, then the learner dies before publishing.
    assert_eq!(one_shard(&store, 1), 1);
    first.collect(&mut |_| {}).unwrap();
    let second_shard = games_for_model(&store, 1);
    assert!(second_shard >= 8, "{second_shard} games");
    assert_eq!(first.pending_games(), second_shard);
    drop(first);
    let mut second = Learner::<damone::game::damone::Position>::open(same(&store), &cfg, &[], None).unwrap();
    assert_eq!((second.epoch(), second.version()), (2, 1));
    second.collect(&mut |_| {}).unwrap();
    assert_eq!(
        second.pending_games(),
        second_shard,
        "the first shard is not taken again"
    );
    // It crashes between its checkpoint and its model record.
    faults.fail.lock().unwrap().push(model_key(2));
    assert!(second.train_and_publish(&mut |_| {}).is_err());
    faults.fail.lock().unwrap().clear();
    drop(second);
    let third = Learner::<damone::game::damone::Position>::open(same(&store), &cfg, &[], None).unwrap();
    assert_eq!(
        third.version(),
        2,
        "the orphan checkpoint's model record is published"
    );
    let a = audit(&store).unwrap();
    assert!(a.problems().is_empty(), "{:?}", a.problems());
    assert_eq!((a.shards, a.used), (2, 2));
    let models = all_models(&store).unwrap();
    assert_eq!(
        models.iter().map(|m| m.shards.len()).collect::<Vec<_>>(),
        vec![0, 1, 1]
    );
    assert_eq!(models.iter().map(|m| m.epoch).collect::<Vec<_>>(), vec![1, 1, 3]);
}

#[test]
fn a_stale_learner_is_fenced_out_by_a_newer_epoch() {
    let (store, _) = faulty_store();
    let cfg = tiny(&[]);
    let mut old = Learner::<damone::game::damone::Position>::open(same(&store), &cfg, &[], None).unwrap();
    let mut new = Learner::<damone::game::damone::Position>::open(same(&store), &cfg, &[], None).unwrap();
    assert_eq!((old.epoch(), new.epoch()), (1, 2));
    assert_eq!(one_shard(&store, 0), 1);
    old.collect(&mut |_| {}).unwrap();
    new.collect(&mut |_| {}).unwrap();
    let e = old.train_and_publish(&mut |_| {}).unwrap_err();
    assert!(matches!(e, DistError::Fenced { mine: 1, newer: 2 }), "{e}");
    assert!(e.to_string().contains("fenced out"), "{e}");
    new.train_and_publish(&mut |_| {}).unwrap();
    let models = all_models(&store).unwrap();
    assert_eq!(models.len(), 2);
    assert_eq!(models[1].epoch, 2);
    assert!(audit(&store).unwrap().problems().is_empty());
}

#[test]
fn a_store_that_ignores_create_only_writes_is_refused() {
    let (store, faults) = faulty_store();
    faults.ignore_create.store(true, Ordering::Relaxed);
    let e = Learner::<damone::game::damone::Position>::open(store, &tiny(&[]), &[], None)
        .err()
        .expect("refused");
    assert!(matches!(e, DistError::Store(StoreError::NotCreateOnly(_))), "{e}");
    assert!(e.to_string().contains("create-only"), "{e}");
}

#[test]
fn bad_store_urls_get_one_line_errors() {
    for (url, want) in [
        ("bucket/prefix", "expected file:///path"),
        ("ftp://x", "unknown scheme 'ftp'"),
        ("file://relative/path", "absolute path"),
        ("s3://", "no bucket"),
    ] {
        let e = Store::open(url, &quick()).unwrap_err().to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{url}: {e}");
    }
}

#[test]
fn actors_take_their_index_from_the_scheduler() {
    let dir = std::env::temp_dir().join(format!("damone-dist-index-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let url = format!("file://{}", dir.display());
    let _learner = Learner::<damone::game::damone::Position>::open(
        Store::open(&url, &quick()).unwrap(),
        &tiny(&[]),
        &[],
        None,
    )
    .unwrap();
    let actor = |var: &str, value: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_damone"))
            .args([
                "actor",
                "--store",
                &url,
                "--shards",
                "1",
                "--threads",
                "1",
                "--quiet",
            ])
            .env_remove("JOB_COMPLETION_INDEX")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env(var, value)
            .output()
            .unwrap()
    };
    let out = actor("JOB_COMPLETION_INDEX", "5");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = actor("SLURM_ARRAY_TASK_ID", "12");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let store = Store::open(&url, &quick()).unwrap();
    let names: Vec<String> = store
        .list("shards/")
        .unwrap()
        .iter()
        .map(|k| k.rsplit('/').next().unwrap()[..5].to_string())
        .collect();
    assert_eq!(names, vec!["a0005", "a0012"]);
    let out = actor("SLURM_ARRAY_TASK_ID", "seven");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("SLURM_ARRAY_TASK_ID") && err.lines().count() == 1,
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An Italian draughts run over a store: the learner publishes, an actor
/// plays Italian games into a shard, the shard reads back as Italian
/// samples and is refused by name as Damone's, and a Damone learner is
/// refused on the store.
#[test]
fn an_italian_run_over_a_store() {
    use damone::game::{damone::Position, italian, GameKind};
    let (store, _) = faulty_store();
    assert_eq!(
        damone::cluster::learner::learner_game(&store, None, &["game=italian".into()]).unwrap(),
        GameKind::Italian
    );
    let _learner =
        Learner::<italian::Position>::open(same(&store), &tiny(&["game=italian"]), &[], None).unwrap();
    assert_eq!(damone::cluster::store_game(&store).unwrap(), GameKind::Italian);
    assert_eq!(one_shard(&store, 1), 1);
    let key = store.list("shards/").unwrap().remove(0);
    let bytes = store.get(&key).unwrap().unwrap();
    let shard = Shard::<italian::Position>::from_bytes(&bytes).unwrap();
    assert!(!shard.samples.is_empty());
    assert!(shard.pdn.contains("[Variant \"italian\"]"), "{}", shard.pdn);
    let e = Shard::<Position>::from_bytes(&bytes).unwrap_err().to_string();
    assert!(e.contains("italian") && e.contains("damone run"), "{e}");
    let e = Learner::<Position>::open(same(&store), &tiny(&[]), &[], None)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("holds a run of italian, not of damone"), "{e}");
    assert!(audit(&store).unwrap().problems().is_empty());
}

/// A Dameo run over a store: the learner publishes its model, an actor
/// plays a shard of Dameo games, and the shard is refused as another game's.
#[test]
fn a_dameo_run_over_a_store() {
    use damone::game::{dameo, italian, GameKind};
    let (store, _) = faulty_store();
    let _learner = Learner::<dameo::Position>::open(same(&store), &tiny(&["game=dameo"]), &[], None).unwrap();
    assert_eq!(damone::cluster::store_game(&store).unwrap(), GameKind::Dameo);
    assert_eq!(one_shard(&store, 1), 1);
    let key = store.list("shards/").unwrap().remove(0);
    let bytes = store.get(&key).unwrap().unwrap();
    let shard = Shard::<dameo::Position>::from_bytes(&bytes).unwrap();
    assert!(!shard.samples.is_empty());
    assert!(shard.pdn.contains("[Variant \"dameo\"]"), "{}", shard.pdn);
    let e = Shard::<italian::Position>::from_bytes(&bytes)
        .unwrap_err()
        .to_string();
    assert!(e.contains("dameo") && e.contains("italian run"), "{e}");
    assert!(audit(&store).unwrap().problems().is_empty());
}

/// With no attempt limit, a store waits out an outage however long,
/// reporting while it waits, and a stop request ends the wait with the
/// error.
#[test]
fn an_outage_is_waited_out_and_a_stop_ends_the_wait() {
    let mem: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let faults = Arc::new(Faults::default());
    let faulty = Faulty {
        inner: mem,
        faults: faults.clone(),
    };
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = lines.clone();
    let stop = Stop::new();
    let mut opts = StoreOptions::new();
    opts.backoff = Duration::from_millis(1);
    opts.log_every = Duration::from_millis(50);
    opts.on_wait = Some(damone::cluster::WaitLog(Arc::new(move |l: &str| {
        seen.lock().unwrap().push(l.to_string())
    })));
    opts.stop = Some(stop.clone());
    assert_eq!(opts.attempts, 0, "no attempt limit by default");
    let store = Store::with(Arc::new(faulty), "run", "faulty-memory", opts);
    // An outage of 400 ms: the write waits, then lands.
    faults.fail.lock().unwrap().push("shards/".into());
    let mend = {
        let faults = faults.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(400));
            faults.fail.lock().unwrap().clear();
        })
    };
    let t = std::time::Instant::now();
    assert_eq!(
        store.put_create("shards/a", b"x").unwrap(),
        damone::cluster::Created::Written
    );
    mend.join().unwrap();
    assert!(t.elapsed() >= Duration::from_millis(400));
    let reported = lines.lock().unwrap().clone();
    assert!(
        !reported.is_empty()
            && reported[0].contains("faulty-memory unreachable")
            && reported[0].contains("still trying"),
        "{reported:?}"
    );
    assert_eq!(store.get("shards/a").unwrap().as_deref(), Some(&b"x"[..]));
    // Another outage, ended by a stop request instead.
    faults.fail.lock().unwrap().push("shards/".into());
    let stopper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stop.request();
        })
    };
    let e = store.put_create("shards/b", b"y").unwrap_err().to_string();
    stopper.join().unwrap();
    assert!(e.contains("injected write failure"), "{e}");
}
