//! The engine line protocol (`damone engine`, documented in
//! `docs/engine-protocol.md`): one command per line in, the answer lines
//! out, every answer ending with a fixed last line (`ready`, `ok`,
//! `bestmove ...` or `error ...`). [`EngineSession`] holds the engine's
//! player and the current game; [`EngineSession::serve`] drives it over any
//! `BufRead`/`Write` pair, so tests and other programs use it without the
//! binary. A malformed line gets `error <message>` and the session goes on.

use crate::arena::{Analysis, Player};
use crate::game::{DrawRules, Game, GamePosition};
use crate::mcts::Budget;
use crate::util::{clip, next_line};
use std::io::{BufRead, Write};
use std::time::Duration;

/// The longest an `error` answer line may be (an error never echoes a huge
/// input back whole).
pub const MAX_ERROR_LINE: usize = 300;

/// Lines listed by `analyse` when the command names no `lines`.
pub const DEFAULT_LINES: usize = 5;

/// The commands the protocol knows, as an unknown command's error lists them.
const COMMANDS: &str = "hello, isready, newgame, position, play, go, analyse, show, quit";

/// One engine: its player, the variant of `position startpos`, the draw
/// rules its games are played under, and the current game.
pub struct EngineSession<P: GamePosition> {
    engine: Box<dyn Player<P>>,
    variant: P::Variant,
    game: Game<P>,
}

/// The budget and line count of a `go` or `analyse` command.
struct SearchRequest {
    budget: Option<Budget>,
    lines: usize,
}

impl<P: GamePosition> EngineSession<P> {
    /// A session at the variant's start position; `rules` are the draw
    /// rules of its games (a network player's own).
    pub fn new(engine: Box<dyn Player<P>>, variant: P::Variant, rules: DrawRules) -> EngineSession<P> {
        EngineSession {
            engine,
            variant,
            game: Game::new(P::start(variant), rules),
        }
    }

    /// The current game.
    pub fn game(&self) -> &Game<P> {
        &self.game
    }

    /// Read commands from `input` until `quit` or the end of input, writing
    /// each answer to `output` (flushed after each command).
    pub fn serve(&mut self, input: &mut impl BufRead, output: &mut impl Write) -> std::io::Result<()> {
        while let Some(line) = next_line(input) {
            let answer = match line {
                Ok(line) => self.handle(line.trim()),
                Err(e) => Some(vec![format!("error {e}")]),
            };
            let Some(lines) = answer else { break };
            for l in lines {
                let l = if l.starts_with("error") {
                    clip(&l, MAX_ERROR_LINE)
                } else {
                    l
                };
                writeln!(output, "{l}")?;
            }
            output.flush()?;
        }
        Ok(())
    }

    /// Answer one command line; None for `quit`.
    pub fn handle(&mut self, line: &str) -> Option<Vec<String>> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else {
            return Some(vec!["error empty line (expected a command)".into()]);
        };
        let args = &words[1..];
        let answer = match cmd {
            "quit" => return None,
            "hello" => Ok(vec![
                format!("id name damone {}", env!("CARGO_PKG_VERSION")),
                format!("id game {}", P::ID.name()),
                "ready".into(),
            ]),
            "isready" => Ok(vec!["ready".into()]),
            "newgame" => {
                self.game = Game::new(P::start(self.variant), self.game.rules());
                Ok(vec!["ok".into()])
            }
            "position" => self.position(args),
            "play" => self.play(args),
            "show" => Ok(self.show()),
            "go" => self.search(args, false),
            "analyse" | "analyze" => self.search(args, true),
            other => Err(format!("unknown command '{other}' (expected {COMMANDS})")),
        };
        Some(answer.unwrap_or_else(|e| vec![format!("error {e}")]))
    }

    /// `position startpos|fen <FEN> [moves ...]`.
    fn position(&mut self, args: &[&str]) -> Result<Vec<String>, String> {
        self.game = game_from_position_command(args, self.variant, self.game.rules())?;
        Ok(vec!["ok".into()])
    }

    /// `play <move>`: one move on the current position.
    fn play(&mut self, args: &[&str]) -> Result<Vec<String>, String> {
        if let Some(o) = self.game.outcome() {
            return Err(o.over_message());
        }
        let text = args.first().ok_or("'play' needs a move")?;
        let mv = self.game.position().parse_move(text).map_err(|e| e.to_string())?;
        self.game.play_unchecked(&mv);
        Ok(vec!["ok".into()])
    }

    /// `show`: the FEN and the result so far.
    fn show(&self) -> Vec<String> {
        let result = match self.game.outcome() {
            Some(o) => format!("result {} {}", o.pdn_result(), o.reason.name()),
            None => "result *".into(),
        };
        vec![
            format!("fen {}", self.game.position().to_setup()),
            result,
            "ok".into(),
        ]
    }

    /// `go` and `analyse`: search with the command's budget (for this
    /// search only) or the player's own.
    fn search(&mut self, args: &[&str], list_lines: bool) -> Result<Vec<String>, String> {
        let request = parse_search_request(args)?;
        if self.game.outcome().is_some() {
            return Ok(vec!["bestmove none".into()]);
        }
        let budget_set = request.budget.is_some() && self.engine.set_budget(request.budget);
        let pos = *self.game.position();
        let answer = match self.engine.analyse(&self.game) {
            Some(a) => analysis_lines(&pos, &a, list_lines.then_some(request.lines)),
            None => vec![format!(
                "bestmove {}",
                pos.move_text(&self.engine.choose(&self.game))
            )],
        };
        if budget_set {
            self.engine.set_budget(None);
        }
        Ok(answer)
    }
}

/// The options of `go` and `analyse`: `sims N`, `time MS`, `lines K`.
fn parse_search_request(words: &[&str]) -> Result<SearchRequest, String> {
    let mut request = SearchRequest {
        budget: None,
        lines: DEFAULT_LINES,
    };
    for pair in words.chunks(2) {
        let [key, value] = pair else {
            return Err(format!("'{}' needs a value", pair[0]));
        };
        let n: u64 = value
            .parse()
            .map_err(|_| format!("'{key}' needs a number, got '{value}'"))?;
        if n == 0 {
            return Err(format!("'{key}' must be at least 1"));
        }
        match *key {
            "sims" => request.budget = Some(Budget::Simulations(n.min(10_000_000) as u32)),
            "time" => request.budget = Some(Budget::Time(Duration::from_millis(n))),
            "lines" => request.lines = n as usize,
            other => return Err(format!("unknown option '{other}' (expected sims, time or lines)")),
        }
    }
    Ok(request)
}

/// The game a `position` command's arguments describe.
pub fn game_from_position_command<P: GamePosition>(
    words: &[&str],
    variant: P::Variant,
    rules: DrawRules,
) -> Result<Game<P>, String> {
    let (start, rest) = match words.first() {
        Some(&"startpos") => (P::start(variant), &words[1..]),
        Some(&"fen") => {
            let fen = words.get(1).ok_or("'position fen' needs a FEN")?;
            let pos = P::from_setup(fen, variant).map_err(|e| format!("bad FEN: {e}"))?;
            (pos, &words[2..])
        }
        _ => return Err("expected 'position startpos' or 'position fen <FEN>' [moves ...]".into()),
    };
    let mut game = Game::new(start, rules);
    match rest.first() {
        None => {}
        Some(&"moves") => {
            for m in &rest[1..] {
                if let Some(o) = game.outcome() {
                    return Err(format!("move {}: {}", clip(m, 40), o.over_message()));
                }
                let mv = game.position().parse_move(m).map_err(|e| e.to_string())?;
                game.play_unchecked(&mv);
            }
        }
        Some(other) => return Err(format!("unexpected '{other}' (expected 'moves')")),
    }
    Ok(game)
}

/// The answer to a search: with `lines`, the top lines first; then the
/// value line and `bestmove`.
fn analysis_lines<P: GamePosition>(pos: &P, a: &Analysis<P::Move>, lines: Option<usize>) -> Vec<String> {
    let mut out = Vec::new();
    for (i, l) in a.lines.iter().take(lines.unwrap_or(0)).enumerate() {
        out.push(format!(
            "info line {} move {} visits {} prior {:.4} q {}",
            i + 1,
            pos.move_text(&l.mv),
            l.visits,
            l.prior,
            l.q.map_or("-".to_string(), |q| format!("{q:.4}"))
        ));
    }
    if let Some(p) = &a.principal {
        let pv = p.pv_text(pos);
        out.push(format!(
            "info depth {} nodes {} score {} pv {}",
            p.depth,
            p.nodes,
            p.score,
            pv.join(" ")
        ));
    }
    if let (Some(w), None) = (a.wdl, &a.principal) {
        out.push(format!(
            "info value win {:.4} draw {:.4} loss {:.4} sims {}",
            w.win, w.draw, w.loss, a.simulations
        ));
    }
    out.push(format!("bestmove {}", pos.move_text(&a.best)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{AlphaBeta, Limits};
    use crate::game::damone::{parse_move, Position, Variant};
    use crate::player;

    fn session(spec: &str) -> EngineSession<Position> {
        let (make, header) = player::open(spec, &crate::net::ComputeDevice::cpu()).unwrap();
        let rules = header.map(|h| h.rules).unwrap_or_default();
        EngineSession::new(make(1), Variant::Standard, rules)
    }

    fn talk(session: &mut EngineSession<Position>, input: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        session.serve(&mut &input[..], &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn hello_position_play_show() {
        let mut s = session("random");
        let out = talk(
            &mut s,
            b"hello\nposition startpos moves f3-e4\nplay c6-d5\nshow\nquit\nshow\n",
        );
        assert_eq!(out[0], format!("id name damone {}", env!("CARGO_PKG_VERSION")));
        assert_eq!(&out[1..5], ["id game damone", "ready", "ok", "ok"]);
        let out = &out[1..];
        assert!(
            out[4].starts_with("fen B:") || out[4].starts_with("fen W:"),
            "{}",
            out[4]
        );
        assert_eq!(out[5], "result *");
        assert_eq!(out[6], "ok");
        // Nothing is answered after quit.
        assert_eq!(out.len(), 7);
        assert_eq!(s.game().ply(), 2);
    }

    #[test]
    fn bad_lines_get_one_error_line_and_the_session_goes_on() {
        let mut s = session("random");
        let input = b"\nfrobnicate\nplay\nplay a1-b2\nposition fen W:Wz9\ngo sims\ngo sims 0\ngo depth 3\n\xff\xfe\nisready\n";
        let out = talk(&mut s, input);
        assert_eq!(out.len(), 10, "{out:?}");
        for l in &out[..9] {
            assert!(l.starts_with("error "), "{l}");
        }
        assert!(out[1].contains("unknown command 'frobnicate'"), "{}", out[1]);
        assert!(out[8].contains("not valid UTF-8"), "{}", out[8]);
        assert_eq!(out[9], "ready");
    }

    #[test]
    fn a_huge_line_is_answered_with_a_clipped_error() {
        let mut s = session("random");
        let mut input = b"play ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100_000));
        input.extend(b"\nisready\n");
        let out = talk(&mut s, &input);
        assert!(out[0].starts_with("error") && out[0].chars().count() <= MAX_ERROR_LINE + 3);
        assert_eq!(out[1], "ready");
    }

    #[test]
    fn tree_searches_report_lines_and_alphabeta_its_principal_variation() {
        let mut s = session("mcts:sims=32");
        let out = talk(&mut s, b"analyse sims 16 lines 2\n");
        assert!(out[0].starts_with("info line 1 move "), "{out:?}");
        assert!(out[1].starts_with("info line 2 move "), "{out:?}");
        assert!(out[2].starts_with("info value win "), "{out:?}");
        assert!(out[2].ends_with("sims 16"), "{out:?}");
        assert!(out[3].starts_with("bestmove "), "{out:?}");
        let mut ab = EngineSession::new(
            Box::new(AlphaBeta::new(
                "ab".into(),
                Limits {
                    depth: Some(2),
                    ..Default::default()
                },
            )),
            Variant::Standard,
            DrawRules::default(),
        );
        let out = talk(&mut ab, b"go\n");
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[0].starts_with("info depth 2 nodes "), "{out:?}");
        let best = out[1].strip_prefix("bestmove ").expect("bestmove");
        assert!(out[0].contains(&format!(" pv {best}")), "{out:?}");
        assert!(
            parse_move(&Position::start(Variant::Standard), best).is_ok(),
            "{best}"
        );
        let mut random = session("random");
        assert_eq!(talk(&mut random, b"go\n").len(), 1);
    }

    #[test]
    fn a_finished_game_says_so_everywhere() {
        let mut s = session("random");
        // White's one Pedina is blocked: Black has won.
        let out = talk(&mut s, b"position fen W:Wh1:Bg2,f3\nshow\ngo\nplay h1-g2\n");
        assert_eq!(out[0], "ok");
        assert!(out[1].starts_with("fen "));
        assert!(out[2].starts_with("result 0-1"), "{}", out[2]);
        assert_eq!(out[4], "bestmove none");
        assert!(out[5].starts_with("error the game is over"), "{}", out[5]);
    }

    #[test]
    fn an_italian_session_speaks_the_federations_notation() {
        use crate::game::italian;
        let (make, _) =
            player::open::<italian::Position>("alphabeta:depth=2", &crate::net::ComputeDevice::cpu())
                .unwrap();
        let mut s = EngineSession::new(make(1), (), DrawRules::default());
        let mut out = Vec::new();
        s.serve(
            &mut &b"position startpos moves 22-18 11-15\nshow\ngo\nplay e3-f4\n"[..],
            &mut out,
        )
        .unwrap();
        let out: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(out[0], "ok");
        assert_eq!(
            out[1],
            "fen W:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"
        );
        assert!(out[4].starts_with("info depth 2 "), "{}", out[4]);
        let best = out[5].strip_prefix("bestmove ").unwrap();
        assert!(s.game().position().parse_move(best).is_ok(), "{best}");
        assert!(out[6].contains("not a square number"), "{}", out[6]);
    }
}
