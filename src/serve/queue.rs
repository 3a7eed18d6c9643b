//! The server's searches: at most `workers` at once on blocking threads,
//! the others waiting in arrival order (tokio's semaphore is first come,
//! first served). An engine's reply always gets in line (each game has at
//! most one, and the games are bounded); an analysis is refused at once,
//! with a "busy" message, when `max_waiting` analyses are already waiting.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The queue of searches (see the module docs).
pub(super) struct SearchQueue {
    permits: Arc<Semaphore>,
    /// Analyses waiting for a worker.
    waiting: Arc<AtomicUsize>,
    max_waiting: usize,
}

/// A place in line: run a search with it, or drop it to leave the line.
pub(super) struct Ticket {
    permits: Arc<Semaphore>,
    /// The count of waiting analyses, while this one (an analysis) waits.
    waiting: Option<Arc<AtomicUsize>>,
}

impl Ticket {
    /// Leave the line (once).
    fn leave(&mut self) {
        if let Some(w) = self.waiting.take() {
            w.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.leave();
    }
}

impl SearchQueue {
    pub(super) fn new(workers: usize, max_waiting: usize) -> SearchQueue {
        SearchQueue {
            permits: Arc::new(Semaphore::new(workers.max(1))),
            waiting: Arc::new(AtomicUsize::new(0)),
            max_waiting,
        }
    }

    /// A place in line; for an analysis (`optional`), none when
    /// `max_waiting` analyses wait already (their number comes back).
    pub(super) fn join(&self, optional: bool) -> Result<Ticket, usize> {
        if !optional {
            return Ok(Ticket {
                permits: self.permits.clone(),
                waiting: None,
            });
        }
        let before = self.waiting.fetch_add(1, Ordering::Relaxed);
        let ticket = Ticket {
            permits: self.permits.clone(),
            waiting: Some(self.waiting.clone()),
        };
        if before >= self.max_waiting {
            return Err(before);
        }
        Ok(ticket)
    }
}

impl Ticket {
    /// Wait for a worker without holding up the caller, then run `work` on
    /// a blocking thread; `work` gets the worker's permit and should drop
    /// it as soon as its search ends (before handing results to a client
    /// that may be slow to take them).
    pub(super) fn run(mut self, work: impl FnOnce(OwnedSemaphorePermit) + Send + 'static) {
        tokio::spawn(async move {
            let Ok(permit) = self.permits.clone().acquire_owned().await else {
                return;
            };
            self.leave();
            let _ = tokio::task::spawn_blocking(move || work(permit)).await;
        });
    }
}
