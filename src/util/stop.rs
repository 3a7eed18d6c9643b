//! Stopping long work at a safe point: [`Stop`], a flag that training,
//! self-play, actors and the learner poll, and [`stop_on_signals`], which
//! raises it on SIGTERM (a scheduler, `kill`) and SIGINT (Ctrl-C).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared stop request. Clones share one flag.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A flag no one has raised yet.
    pub fn new() -> Stop {
        Stop::default()
    }
    /// Ask the work to stop at its next safe point.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    /// True once a stop was requested.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// Sleep for `d`, waking early (within a tenth of a second) if a stop
    /// is requested; true if it was.
    pub fn sleep(&self, d: std::time::Duration) -> bool {
        let end = std::time::Instant::now() + d;
        while !self.requested() {
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            std::thread::sleep(left.min(std::time::Duration::from_millis(100)));
        }
        true
    }
    /// The flag itself (for code that shares an `Arc<AtomicBool>`).
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }
}

impl From<Arc<AtomicBool>> for Stop {
    fn from(flag: Arc<AtomicBool>) -> Stop {
        Stop(flag)
    }
}

/// The signals that ask for a stop. On Unix: SIGTERM (a scheduler,
/// `kill`) and SIGINT (Ctrl-C). On Windows, where no other process sends
/// SIGTERM: Ctrl-C (SIGINT) and Ctrl-Break (SIGBREAK); closing the console
/// window ends the process without a safe point.
#[cfg(not(windows))]
const STOP_SIGNALS: &[std::os::raw::c_int] = &[signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT];
#[cfg(windows)]
const STOP_SIGNALS: &[std::os::raw::c_int] = &[
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGBREAK,
];

/// Raise `stop` on the stop signals (SIGTERM and SIGINT,
/// and Ctrl-Break on Windows). A second signal while the stop is pending
/// ends the process at once (exit status 130), as a second Ctrl-C does in
/// most tools.
pub fn stop_on_signals(stop: &Stop) -> std::io::Result<()> {
    for &signal in STOP_SIGNALS {
        // Registered first, so that it sees the flag before this signal
        // raises it: only a signal that finds a stop pending exits.
        signal_hook::flag::register_conditional_shutdown(signal, 130, stop.flag())?;
        signal_hook::flag::register(signal, stop.flag())?;
    }
    Ok(())
}
