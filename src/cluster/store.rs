//! The shared store: object storage through the `object_store` crate
//! (`file:///path`, `s3://bucket/prefix`, `memory://`), seen through a
//! blocking API with the few operations the protocol needs, every one
//! retried with exponential backoff (capped at 10 s) on transient errors.
//! By default a store waits out an outage of any length, reporting once a
//! minute while it waits ([`StoreOptions::on_wait`]); a stop request
//! ([`StoreOptions::stop`]) ends the wait with the error.
//!
//! Create-only writes ([`Store::put_create`]) are the protocol's only
//! synchronisation. A write that landed but whose reply was lost (a
//! timeout) is retried; the retry then finds the object and compares it
//! with what it meant to write, so an idempotent retry succeeds and a
//! different object under the same key is reported as a conflict.
//! [`Store::check_create_only`] refuses a store that ignores create-only
//! writes.

use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path as ObjPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use std::sync::Arc;
use std::time::Duration;

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store's URL does not read.
    #[error("store URL '{0}': {1}")]
    Url(String, String),
    /// An operation on the store failed.
    #[error("store {store}: {op} {key}: {source}")]
    Op {
        /// The store's URL.
        store: String,
        /// The operation (get, put, list, delete).
        op: &'static str,
        /// The object's key.
        key: String,
        /// The store client's error.
        #[source]
        source: Box<object_store::Error>,
    },
    /// The store does not honour create-only writes.
    #[error("store {0} ignores create-only writes (a second create of the same object succeeded); the protocol needs them: use a store with conditional writes (S3 If-None-Match)")]
    NotCreateOnly(String),
}

/// The longest wait between two attempts of an operation.
pub const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// Told, while an operation keeps failing, what fails and for how long.
#[derive(Clone)]
pub struct WaitLog(pub Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for WaitLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WaitLog")
    }
}

/// How the store is reached.
#[derive(Clone, Debug, Default)]
pub struct StoreOptions {
    /// S3 endpoint (`http://127.0.0.1:9000` for MinIO, moto, Garage...);
    /// `AWS_ENDPOINT_URL` when not given.
    pub endpoint: Option<String>,
    /// Attempts per operation before an error is returned; 0: no limit
    /// (an outage is waited out).
    pub attempts: u32,
    /// The first backoff between attempts; it doubles up to [`MAX_BACKOFF`].
    pub backoff: Duration,
    /// How often `on_wait` hears of an operation that keeps failing.
    pub log_every: Duration,
    /// Told every `log_every` while an operation keeps failing.
    pub on_wait: Option<WaitLog>,
    /// Raised, a failing operation stops retrying and returns its error.
    pub stop: Option<crate::util::stop::Stop>,
}

impl StoreOptions {
    /// No attempt limit, 200 ms first backoff, a report a minute (to no one
    /// until `on_wait` is set).
    pub fn new() -> StoreOptions {
        StoreOptions {
            endpoint: None,
            attempts: 0,
            backoff: Duration::from_millis(200),
            log_every: Duration::from_secs(60),
            on_wait: None,
            stop: None,
        }
    }
}

/// What a create-only write found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    /// The object now holds these bytes (written now, or by an earlier
    /// attempt of the same write).
    Written,
    /// Another object was there first.
    Conflict,
}

/// A store and a key prefix (see the module docs).
pub struct Store {
    inner: Arc<dyn ObjectStore>,
    prefix: String,
    name: String,
    rt: tokio::runtime::Runtime,
    opts: StoreOptions,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Store({})", self.name)
    }
}

fn transient(e: &object_store::Error) -> bool {
    !matches!(
        e,
        object_store::Error::NotFound { .. }
            | object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. }
            | object_store::Error::AlreadyExists { .. }
            | object_store::Error::Precondition { .. }
            | object_store::Error::NotImplemented { .. }
            | object_store::Error::NotSupported { .. }
            | object_store::Error::InvalidPath { .. }
            | object_store::Error::UnknownConfigurationKey { .. }
    )
}

/// The folder of a `file://` URL's path: absolute, `/path/to/folder` on
/// Unix; on Windows a drive's path, `/C:/path/to/folder` (the URL
/// `file:///C:/path/to/folder`) or `C:/path/to/folder`.
fn local_dir(rest: &str) -> Result<&str, String> {
    #[cfg(windows)]
    {
        let path = rest.strip_prefix('/').unwrap_or(rest);
        let drive = path.as_bytes();
        if drive.len() >= 3
            && drive[0].is_ascii_alphabetic()
            && drive[1] == b':'
            && matches!(drive[2], b'/' | b'\\')
        {
            return Ok(path);
        }
        Err("a file URL needs a drive's absolute path: file:///C:/path/to/folder".into())
    }
    #[cfg(not(windows))]
    {
        if rest.starts_with('/') {
            return Ok(rest);
        }
        Err("a file URL needs an absolute path: file:///path/to/folder".into())
    }
}

impl Store {
    /// Open `url`: `file:///path` (the folder is created), `s3://bucket`
    /// or `s3://bucket/prefix` (credentials and region from the usual
    /// `AWS_*` environment variables), or `memory://` (this process only).
    pub fn open(url: &str, opts: &StoreOptions) -> Result<Store, StoreError> {
        let bad = |why: String| StoreError::Url(url.to_string(), why);
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| bad("expected file:///path, s3://bucket/prefix or memory://".into()))?;
        let (inner, prefix): (Arc<dyn ObjectStore>, String) = match scheme {
            "file" => {
                let dir = local_dir(rest).map_err(bad)?;
                std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create {dir}: {e}")))?;
                let fs = LocalFileSystem::new_with_prefix(dir).map_err(|e| bad(e.to_string()))?;
                (Arc::new(fs), String::new())
            }
            "s3" => {
                let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
                if bucket.is_empty() {
                    return Err(bad("no bucket name: s3://bucket/prefix".into()));
                }
                // object_store's own retries kept short: the loop above
                // waits out longer outages and hears stop requests.
                let retry = object_store::RetryConfig {
                    max_retries: 2,
                    retry_timeout: Duration::from_secs(10),
                    ..Default::default()
                };
                let mut b = AmazonS3Builder::from_env()
                    .with_bucket_name(bucket)
                    .with_retry(retry);
                let endpoint = opts
                    .endpoint
                    .clone()
                    .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok());
                if let Some(ep) = endpoint {
                    b = b.with_allow_http(ep.starts_with("http://")).with_endpoint(ep);
                }
                if std::env::var("AWS_REGION").is_err() && std::env::var("AWS_DEFAULT_REGION").is_err() {
                    b = b.with_region("us-east-1");
                }
                let s3 = b.build().map_err(|e| bad(e.to_string()))?;
                (Arc::new(s3), prefix.trim_matches('/').to_string())
            }
            "memory" => (Arc::new(InMemory::new()), rest.trim_matches('/').to_string()),
            other => {
                return Err(bad(format!(
                    "unknown scheme '{other}' (file://, s3:// or memory://)"
                )))
            }
        };
        Ok(Store::with(inner, &prefix, url, opts.clone()))
    }

    /// A store over any `object_store` implementation (a wrapper, a test
    /// double) under `prefix`.
    pub fn with(inner: Arc<dyn ObjectStore>, prefix: &str, name: &str, opts: StoreOptions) -> Store {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        Store {
            inner,
            prefix: prefix.trim_matches('/').to_string(),
            name: name.to_string(),
            rt,
            opts,
        }
    }

    /// Another handle on the same objects, as a second process would have.
    pub fn handle(&self) -> Store {
        Store::with(self.inner.clone(), &self.prefix, &self.name, self.opts.clone())
    }

    /// The URL or name it was opened with.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn path(&self, key: &str) -> ObjPath {
        if self.prefix.is_empty() {
            ObjPath::from(key)
        } else {
            ObjPath::from(format!("{}/{key}", self.prefix))
        }
    }

    fn err(&self, op: &'static str, key: &str, source: object_store::Error) -> StoreError {
        StoreError::Op {
            store: self.name.clone(),
            op,
            key: key.to_string(),
            source: Box::new(source),
        }
    }

    /// Run `f` until it succeeds, fails for good, runs out of attempts (if
    /// limited) or a stop is requested; report a long wait every
    /// `log_every`.
    fn retry<T, F, Fut>(&self, mut f: F) -> Result<T, object_store::Error>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = object_store::Result<T>>,
    {
        let mut wait = self.opts.backoff;
        let (started, mut reported) = (std::time::Instant::now(), std::time::Instant::now());
        let mut attempt = 1;
        loop {
            let e = match self.rt.block_on(f()) {
                Ok(v) => return Ok(v),
                Err(e) => e,
            };
            let limited = self.opts.attempts > 0 && attempt >= self.opts.attempts;
            if !transient(&e) || limited || self.stopping() {
                return Err(e);
            }
            if reported.elapsed() >= self.opts.log_every {
                reported = std::time::Instant::now();
                self.report_wait(started.elapsed(), &e);
            }
            match &self.opts.stop {
                Some(stop) if stop.sleep(wait) => return Err(e),
                Some(_) => {}
                None => std::thread::sleep(wait),
            }
            wait = (wait * 2).min(MAX_BACKOFF);
            attempt += 1;
        }
    }

    fn stopping(&self) -> bool {
        self.opts.stop.as_ref().is_some_and(|s| s.requested())
    }

    fn report_wait(&self, failing: Duration, e: &object_store::Error) {
        if let Some(WaitLog(log)) = &self.opts.on_wait {
            let error = e.to_string().replace('\n', " ");
            log(&format!(
                "store {} unreachable for {} s ({error}); still trying",
                self.name,
                failing.as_secs()
            ));
        }
    }

    /// The object under `key`, or None when there is none.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let p = self.path(key);
        let inner = self.inner.clone();
        match self.retry(|| {
            let (inner, p) = (inner.clone(), p.clone());
            async move { inner.get(&p).await?.bytes().await }
        }) {
            Ok(b) => Ok(Some(b.to_vec())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.err("get", key, e)),
        }
    }

    /// Write `bytes` under `key` unless an object is there (see the module
    /// docs for retries).
    pub fn put_create(&self, key: &str, bytes: &[u8]) -> Result<Created, StoreError> {
        let p = self.path(key);
        let payload = PutPayload::from(bytes.to_vec());
        let inner = self.inner.clone();
        let r = self.retry(|| {
            let (inner, p, payload) = (inner.clone(), p.clone(), payload.clone());
            async move {
                let opts = PutOptions {
                    mode: PutMode::Create,
                    ..Default::default()
                };
                inner.put_opts(&p, payload, opts).await
            }
        });
        match r {
            Ok(_) => Ok(Created::Written),
            Err(object_store::Error::AlreadyExists { .. }) => {
                // Our own earlier attempt (its reply lost), or the same
                // content-addressed object, counts as written.
                if self.get(key)?.as_deref() == Some(bytes) {
                    Ok(Created::Written)
                } else {
                    Ok(Created::Conflict)
                }
            }
            Err(e) => Err(self.err("create", key, e)),
        }
    }

    /// Write `bytes` under `key`, replacing what is there.
    pub fn put_overwrite(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let p = self.path(key);
        let payload = PutPayload::from(bytes.to_vec());
        let inner = self.inner.clone();
        self.retry(|| {
            let (inner, p, payload) = (inner.clone(), p.clone(), payload.clone());
            async move { inner.put(&p, payload).await }
        })
        .map(|_| ())
        .map_err(|e| self.err("put", key, e))
    }

    /// Remove `key` (no error when it is not there).
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let p = self.path(key);
        let inner = self.inner.clone();
        match self.retry(|| {
            let (inner, p) = (inner.clone(), p.clone());
            async move { inner.delete(&p).await }
        }) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.err("delete", key, e)),
        }
    }

    /// Every key under `prefix` (a folder such as `models/`), relative to
    /// the store's prefix, sorted.
    pub fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        use futures_util::TryStreamExt as _;
        let p = self.path(prefix.trim_end_matches('/'));
        let inner = self.inner.clone();
        let strip = if self.prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.prefix)
        };
        let mut keys: Vec<String> = self
            .retry(|| {
                let (inner, p) = (inner.clone(), p.clone());
                async move { inner.list(Some(&p)).try_collect::<Vec<_>>().await }
            })
            .map_err(|e| self.err("list", prefix, e))?
            .into_iter()
            .map(|m| {
                let s = m.location.to_string();
                s.strip_prefix(&strip).map(str::to_string).unwrap_or(s)
            })
            .collect();
        keys.sort();
        Ok(keys)
    }

    /// Refuse a store whose create-only writes overwrite: create a probe
    /// object twice with different bytes; the second must be refused.
    pub fn check_create_only(&self) -> Result<(), StoreError> {
        let nonce: u64 = rand::random();
        let key = format!("probe/{nonce:016x}");
        let first = self.put_create(&key, b"first")?;
        let second = self.put_create(&key, b"second");
        let kept = self.get(&key);
        let _ = self.delete(&key);
        match (first, second?, kept?) {
            (Created::Written, Created::Conflict, Some(b)) if b == b"first" => Ok(()),
            _ => Err(StoreError::NotCreateOnly(self.name.clone())),
        }
    }
}
