//! The Hub protocol (version 2, Scan's; spoken by the Hub and Damage
//! interfaces and by pydraughts' `HubEngine`): `damone hub`, documented in
//! `docs/protocols.md`. Lines of `command key=value ...` (a value with
//! spaces in double quotes) in, answers out; a search runs on its own
//! thread, so `ping` and `stop` are answered while it thinks; the other
//! commands wait for a timed search to end (and stop a ponder or analysis
//! search) so that they are carried out in order. A line the
//! protocol does not know, or one that does not read, gets
//! `error message="..."` and the session goes on.
//!
//! | command | answer |
//! | --- | --- |
//! | `hub` | `id name=... version=...`, `param name=variant ...`, `wait` |
//! | `init` | `ready` |
//! | `ping` | `pong` (also during a search) |
//! | `set-param name=variant value=V` | nothing (an error for another game) |
//! | `new-game` | nothing: the start position |
//! | `pos [start] [pos=P] [moves="M1 M2 ..."]` | nothing |
//! | `level [depth=D] [nodes=N] [move-time=S] [time=S [inc=S] [moves=N]] [infinite]` | nothing |
//! | `go think`, `go ponder`, `go analyze` | `info depth=.. score=.. nodes=.. time=.. nps=.. pv=".."`, then `done move=M [ponder=M2]` |
//! | `stop`, `ponder-hit` | the running search ends (`done`), or a ponder search turns into a timed one |
//! | `quit` | the session ends |

use super::notation::HubNotation;
use crate::arena::{Analysis, Player, Score, SearchLimit};
use crate::game::{DrawRules, Game, GamePosition};
use crate::util::stop::Stop;
use crate::util::{clip, next_line};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// The commands the protocol knows, as an unknown command's error lists them.
const COMMANDS: &str = "hub, init, ping, set-param, new-game, pos, level, go, stop, ponder-hit, quit";
/// The commands that wait for a running search to end.
const KNOWN: [&str; 7] = ["hub", "init", "set-param", "new-game", "pos", "level", "go"];

/// How long a search with no limit (`go analyze`, `go ponder`) runs before
/// it ends by itself: a day.
const UNBOUNDED: Duration = Duration::from_secs(86_400);

/// One argument of a command: `key` or `key=value`.
pub type Arg = (String, Option<String>);

/// The time a move of a `level` command.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Level {
    /// The search's limit; None: the player's own.
    pub limit: Option<SearchLimit>,
}

impl Level {
    /// A `level` command's arguments. `time` is the time left on the
    /// clock (for `moves` more moves, or for the game: 30), `inc` the
    /// increment a move; the move gets four fifths of its share of the time
    /// left plus the increment, never more than a third of the time left.
    pub fn parse(args: &[Arg]) -> Result<Level, String> {
        let mut clock: (Option<f64>, f64, Option<f64>) = (None, 0.0, None);
        let mut limit = None;
        for (key, value) in args {
            let number = || -> Result<f64, String> {
                let v = value
                    .as_deref()
                    .ok_or_else(|| format!("'{key}' needs a value ({key}=N)"))?;
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| format!("'{key}' needs a number at least 0, got '{}'", clip(v, 20)))
            };
            match key.as_str() {
                "depth" => limit = Some(SearchLimit::Depth(number()?.clamp(1.0, 64.0) as u32)),
                "nodes" => limit = Some(SearchLimit::Nodes(number()?.max(1.0) as u64)),
                "move-time" => limit = Some(SearchLimit::Time(seconds(number()?))),
                "time" => clock.0 = Some(number()?),
                "inc" => clock.1 = number()?,
                "moves" => clock.2 = Some(number()?.max(1.0)),
                "infinite" => limit = Some(SearchLimit::Time(UNBOUNDED)),
                other => {
                    return Err(format!(
                        "unknown level '{}' (expected depth, nodes, move-time, time, inc, moves or infinite)",
                        clip(other, 30)
                    ))
                }
            }
        }
        if let (Some(left), inc, moves) = clock {
            // A fifth is kept back for the time the move takes to travel,
            // and no move takes more than a third of the time left.
            let share = (left / moves.unwrap_or(30.0) + inc) * 0.8;
            limit = Some(SearchLimit::Time(seconds(share.min((left + inc) / 3.0))));
        }
        Ok(Level { limit })
    }
}

/// At least a millisecond.
fn seconds(s: f64) -> Duration {
    Duration::from_secs_f64(s.clamp(0.001, UNBOUNDED.as_secs_f64()))
}

/// One command's words: the command, then `key` or `key=value` pairs (a
/// value in double quotes may hold spaces).
pub fn split_command(line: &str) -> Result<(String, Vec<Arg>), String> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if quoted {
        return Err("a value's double quote is not closed".into());
    }
    if !current.is_empty() {
        words.push(current);
    }
    let mut words = words.into_iter();
    let command = words.next().ok_or("empty line (expected a command)")?;
    let args = words
        .map(|w| match w.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (w, None),
        })
        .collect();
    Ok((command, args))
}

/// What a search was started as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GoKind {
    Think,
    Ponder,
    Analyze,
}

/// A search running on its thread.
struct Running<'scope, P: GamePosition> {
    handle: ScopedJoinHandle<'scope, Box<dyn Player<P>>>,
    stop: Stop,
    /// Raised when its `done` line must not be sent (a ponder hit).
    silent: Arc<AtomicBool>,
    kind: GoKind,
}

/// One Hub engine: its player, the game being searched and the level.
pub struct HubSession<P: HubNotation> {
    engine: Option<Box<dyn Player<P>>>,
    name: String,
    variant: P::Variant,
    game: Game<P>,
    level: Level,
}

impl<P: HubNotation> HubSession<P> {
    /// A session at the variant's start position; `rules` are the draw
    /// rules of its games; `name` the engine's name in `id`.
    pub fn new(engine: Box<dyn Player<P>>, name: String, variant: P::Variant, rules: DrawRules) -> Self {
        HubSession {
            engine: Some(engine),
            name,
            variant,
            game: Game::new(P::start(variant), rules),
            level: Level::default(),
        }
    }

    /// The game the next search starts from.
    pub fn game(&self) -> &Game<P> {
        &self.game
    }

    /// Read commands from `input` until `quit` or the end of input; answers
    /// (and a search's lines, from its thread) go to `output`, a line at a
    /// time, flushed.
    pub fn serve(
        &mut self,
        input: &mut impl BufRead,
        output: &mut (impl Write + Send),
    ) -> std::io::Result<()> {
        let out = Mutex::new(output);
        std::thread::scope(|scope| {
            let mut running: Option<Running<'_, P>> = None;
            while let Some(line) = next_line(input) {
                let answer = match line {
                    Ok(line) => self.handle(line.trim(), scope, &out, &mut running),
                    Err(e) => Err(e),
                };
                match answer {
                    Ok(Some(lines)) => send(&out, &lines)?,
                    Ok(None) => break,
                    Err(e) => send(&out, &[error_line(&e)])?,
                }
            }
            if let Some(r) = running.take() {
                r.stop.request();
                self.engine = Some(r.handle.join().expect("the search thread does not panic"));
            }
            Ok(())
        })
    }

    /// One command: its answer lines, None for `quit`.
    fn handle<'scope, W: Write + Send>(
        &mut self,
        line: &str,
        scope: &'scope Scope<'scope, '_>,
        out: &'scope Mutex<&mut W>,
        running: &mut Option<Running<'scope, P>>,
    ) -> Result<Option<Vec<String>>, String> {
        let (command, args) = split_command(line)?;
        match command.as_str() {
            "ping" => return Ok(Some(vec!["pong".into()])),
            "stop" => {
                if let Some(r) = running {
                    r.stop.request();
                }
                return Ok(Some(vec![]));
            }
            "quit" => return Ok(None),
            "ponder-hit" => {
                self.ponder_hit(scope, out, running)?;
                return Ok(Some(vec![]));
            }
            _ => {}
        }
        if !KNOWN.contains(&command.as_str()) {
            return Err(format!(
                "unknown command '{}' (expected {COMMANDS})",
                clip(&command, 40)
            ));
        }
        self.finish(running);
        let lines = match command.as_str() {
            "hub" => self.hello(),
            "init" => vec!["ready".into()],
            "set-param" => {
                self.set_param(&args)?;
                vec![]
            }
            "new-game" => {
                self.game = Game::new(P::start(self.variant), self.game.rules());
                vec![]
            }
            "pos" => {
                self.game = self.position(&args)?;
                vec![]
            }
            "level" => {
                self.level = Level::parse(&args)?;
                vec![]
            }
            "go" => {
                let kind = match args.first().map(|a| a.0.as_str()) {
                    Some("think") | None => GoKind::Think,
                    Some("ponder") => GoKind::Ponder,
                    Some("analyze" | "analyse") => GoKind::Analyze,
                    Some(other) => {
                        return Err(format!(
                            "unknown go '{}' (expected think, ponder or analyze)",
                            clip(other, 20)
                        ))
                    }
                };
                *running = Some(self.start(kind, scope, out)?);
                vec![]
            }
            _ => unreachable!("every known command is answered above"),
        };
        Ok(Some(lines))
    }

    /// The `hub` command's answer.
    fn hello(&self) -> Vec<String> {
        let variants: Vec<&str> = (0..=u8::MAX)
            .filter_map(P::variant_of_code)
            .map(variant_name::<P>)
            .collect();
        vec![
            // No value holds '=' (pydraughts splits each pair at every one).
            format!(
                "id name=\"{}\" version={} author=\"the damone developers\"",
                clip(&self.name.replace('=', ":"), 60),
                env!("CARGO_PKG_VERSION")
            ),
            format!(
                "param name=variant value={} type=enum values=\"{}\"",
                variant_name::<P>(self.variant),
                variants.join(" ")
            ),
            "wait".into(),
        ]
    }

    /// `set-param name=variant value=V`: one of this game's variants.
    fn set_param(&mut self, args: &[Arg]) -> Result<(), String> {
        let get = |k: &str| args.iter().find(|a| a.0 == k).and_then(|a| a.1.clone());
        let name = get("name").ok_or("set-param needs name=...")?;
        let value = get("value").ok_or("set-param needs value=...")?;
        if name != "variant" {
            return Err(format!("unknown param '{}' (expected variant)", clip(&name, 30)));
        }
        let variant = (0..=u8::MAX)
            .filter_map(P::variant_of_code)
            .find(|v| variant_name::<P>(*v) == value)
            .ok_or_else(|| {
                format!(
                    "this engine plays {} (variant '{}' is not one of its; start damone hub with --game for another game)",
                    P::ID.title(),
                    clip(&value, 30)
                )
            })?;
        self.variant = variant;
        self.game = Game::new(P::start(variant), self.game.rules());
        Ok(())
    }

    /// The game a `pos` command describes.
    fn position(&self, args: &[Arg]) -> Result<Game<P>, String> {
        let mut start = P::start(self.variant);
        let mut moves = "";
        for (key, value) in args {
            match (key.as_str(), value) {
                ("start", None) => start = P::start(self.variant),
                ("pos", Some(v)) => start = P::read_hub_position(v, self.variant)?,
                ("moves", Some(v)) => moves = v,
                _ => {
                    return Err(format!(
                        "unknown pos argument '{}' (expected start, pos=... or moves=\"...\")",
                        clip(key, 30)
                    ))
                }
            }
        }
        let mut game = Game::new(start, self.game.rules());
        for text in moves.split_whitespace() {
            if let Some(o) = game.outcome() {
                return Err(format!("move {}: {}", clip(text, 40), o.over_message()));
            }
            let mv = game.position().read_hub_move(text)?;
            game.play_unchecked(&mv);
        }
        Ok(game)
    }

    /// Take the player back from the running search, if any: a timed
    /// search is waited for (commands are carried out in order), a ponder
    /// or analysis search, which would not end by itself, is stopped.
    fn finish(&mut self, running: &mut Option<Running<'_, P>>) {
        if let Some(r) = running.take() {
            if r.kind != GoKind::Think {
                r.stop.request();
            }
            self.engine = Some(r.handle.join().expect("the search thread does not panic"));
        }
    }

    /// `ponder-hit`: the ponder search ends without a word and a timed
    /// search of the same position starts (alpha-beta finds its work in
    /// its table).
    fn ponder_hit<'scope, W: Write + Send>(
        &mut self,
        scope: &'scope Scope<'scope, '_>,
        out: &'scope Mutex<&mut W>,
        running: &mut Option<Running<'scope, P>>,
    ) -> Result<(), String> {
        match running {
            Some(r) if r.kind == GoKind::Ponder => {
                r.silent.store(true, Ordering::Relaxed);
                r.stop.request();
            }
            _ => return Err("ponder-hit without a ponder search".into()),
        }
        self.finish(running);
        *running = Some(self.start(GoKind::Think, scope, out)?);
        Ok(())
    }

    /// A search of the current game on its own thread.
    fn start<'scope, W: Write + Send>(
        &mut self,
        kind: GoKind,
        scope: &'scope Scope<'scope, '_>,
        out: &'scope Mutex<&mut W>,
    ) -> Result<Running<'scope, P>, String> {
        if let Some(o) = self.game.outcome() {
            return Err(format!("no move to search: {}", o.over_message()));
        }
        let mut player = self.engine.take().expect("the player is home between searches");
        let stop = Stop::new();
        let stoppable = player.set_stop(Some(stop.clone()));
        let limit = match kind {
            GoKind::Think => self.level.limit,
            _ if stoppable => Some(SearchLimit::Time(UNBOUNDED)),
            _ => self.level.limit,
        };
        if let Some(limit) = limit {
            if !player.set_limit(limit) {
                player.set_stop(None);
                self.engine = Some(player);
                return Err(format!("this player takes no {limit:?} limit"));
            }
        }
        let silent = Arc::new(AtomicBool::new(false));
        let (game, quiet) = (self.game.clone(), silent.clone());
        let handle = scope.spawn(move || {
            let started = Instant::now();
            let analysis = player.analyse(&game);
            let lines = search_lines(&game, analysis, started, &mut *player);
            if !quiet.load(Ordering::Relaxed) {
                // The client may have gone; the session ends at its next read.
                let _ = send(out, &lines);
            }
            player.set_budget(None);
            player.set_stop(None);
            player
        });
        Ok(Running {
            handle,
            stop,
            silent,
            kind,
        })
    }
}

/// A variant's name in the protocol: the game's name for its standard rules.
fn variant_name<P: GamePosition>(v: P::Variant) -> &'static str {
    match P::variant_name(v) {
        "standard" => P::ID.name(),
        other => other,
    }
}

/// The `info` and `done` lines of a finished search.
fn search_lines<P: HubNotation>(
    game: &Game<P>,
    analysis: Option<Analysis<P::Move>>,
    started: Instant,
    player: &mut dyn Player<P>,
) -> Vec<String> {
    let pos = *game.position();
    let Some(a) = analysis else {
        let mv = player.choose(game);
        return vec![format!("done move={}", pos.hub_move(&mv))];
    };
    let seconds = started.elapsed().as_secs_f64();
    let mut lines = Vec::new();
    let mut pv = vec![a.best];
    let (depth, nodes, score) = match &a.principal {
        Some(p) => {
            pv = p.pv.clone();
            (p.depth, p.nodes, hub_score(p.score))
        }
        None => {
            let w = a.wdl.unwrap_or_default();
            (0, a.simulations as u64, format!("{:.2}", w.win - w.loss))
        }
    };
    let mut at = pos;
    let pv_text: Vec<String> = pv
        .iter()
        .map(|m| {
            let t = at.hub_move(m);
            at = at.after(m);
            t
        })
        .collect();
    lines.push(format!(
        "info depth={depth} score={score} nodes={nodes} time={seconds:.3} nps={:.0} pv=\"{}\"",
        nodes as f64 / seconds.max(1e-6),
        pv_text.join(" ")
    ));
    let mut done = format!("done move={}", pos.hub_move(&a.best));
    if let (Some(second), true) = (pv.get(1), pv.first() == Some(&a.best)) {
        done.push_str(&format!(" ponder={}", pos.after(&a.best).hub_move(second)));
    }
    lines.push(done);
    lines
}

/// A score as Scan writes it: the evaluation in men (hundredths of a man
/// for the hand-written evaluations), `99.xx` for a win in `100 - 99.xx`
/// hundred plies, `89.xx` for a won position of the endgame tables.
pub fn hub_score(s: Score) -> String {
    let value = match s {
        Score::Eval(e) => e as f64 / 100.0,
        Score::WinIn(n) => 100.0 - n as f64 / 100.0,
        Score::LossIn(n) => -(100.0 - n as f64 / 100.0),
        Score::TableWinIn(n) => 90.0 - n as f64 / 100.0,
        Score::TableLossIn(n) => -(90.0 - n as f64 / 100.0),
    };
    format!("{value:.2}")
}

/// `error message="..."`, the message's double quotes turned single.
fn error_line(message: &str) -> String {
    format!("error message=\"{}\"", clip(&message.replace('"', "'"), 300))
}

/// Write `lines` and flush.
fn send<W: Write>(out: &Mutex<&mut W>, lines: &[String]) -> std::io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    for l in lines {
        writeln!(out, "{l}")?;
    }
    out.flush()
}
