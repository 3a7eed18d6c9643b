//! The network on a board other than 8x8: a small race game on the 50
//! light cells of a 10x10 board (written here, as a game outside the crate
//! would be) is encoded, evaluated (burn's forward pass: the fast path
//! covers the 8x8 boards only), searched and trained on.

use damone::game::grid::cells128;
use damone::game::setup::split_setup;
use damone::game::{Board, BoardCells, Color, Game, GameId, GamePosition, ParseMoveError};
use damone::mcts::{Evaluator, SearchParams, Tree};
use damone::net::{policy_indices, FastNet, Inputs, ModelConfig, NetEvaluator, Observation};
use damone::train::{TrainParams, Trainer};
use std::fmt;

const BOARD: BoardCells = BoardCells::light(10, 10);

/// Ten-race: five men a side on the light cells of their first row, each
/// stepping diagonally forward onto an empty light cell; a side with no
/// step loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Race {
    men: [u128; 2],
    side: Color,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Step {
    from: u8,
    to: u8,
}

#[derive(Debug, thiserror::Error)]
#[error("bad setup: {0}")]
struct BadSetup(String);

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_setup())
    }
}

/// A set of cells as setup strings list it.
fn list(b: u128) -> String {
    cells128(b).map(|c| c.to_string()).collect::<Vec<_>>().join(",")
}

impl GamePosition for Race {
    type Move = Step;
    type Variant = ();
    type SetupError = BadSetup;
    const ID: GameId = GameId::new("ten-race", "Ten-race");
    const REPETITION_DRAW: usize = 3;

    fn variant_code(_: ()) -> u8 {
        250
    }
    fn variant_of_code(code: u8) -> Option<()> {
        (code == 250).then_some(())
    }
    fn variant_name(_: ()) -> &'static str {
        "standard"
    }
    fn variant_named(name: &str) -> Result<(), String> {
        (name == "standard")
            .then_some(())
            .ok_or_else(|| format!("unknown variant '{name}'"))
    }
    fn start(_: ()) -> Race {
        let first = BOARD.mask() & ((1 << 10) - 1);
        Race {
            men: [first, BOARD.turn(first)],
            side: Color::White,
        }
    }
    fn from_setup(text: &str, _: ()) -> Result<Race, BadSetup> {
        let f = split_setup(text).map_err(|e| BadSetup(e.to_string()))?;
        let mut men = [0u128; 2];
        for (c, field) in f.pieces.iter().enumerate() {
            for tok in field.split(',').filter(|t| !t.is_empty()) {
                let cell: u32 = tok.trim().parse().map_err(|_| BadSetup(tok.into()))?;
                if cell >= 100 || BOARD.mask() >> cell & 1 == 0 {
                    return Err(BadSetup(format!("{cell} is not a light cell")));
                }
                men[c] |= 1 << cell;
            }
        }
        Ok(Race { men, side: f.side })
    }
    fn to_setup(&self) -> String {
        format!(
            "{}:W{}:B{}",
            self.side.letter(),
            list(self.men[0]),
            list(self.men[1])
        )
    }
    fn variant(&self) {}
    fn side_to_move(&self) -> Color {
        self.side
    }
    fn hash_key(&self) -> u64 {
        let mix = |b: u128| (b as u64) ^ ((b >> 64) as u64).rotate_left(29);
        mix(self.men[0]).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ mix(self.men[1]) ^ self.side as u64
    }
    fn no_progress(&self) -> u16 {
        0
    }
    fn legal_moves_into(&self, out: &mut Vec<Step>) {
        out.clear();
        let empty = BOARD.mask() & !(self.men[0] | self.men[1]);
        let forward: i32 = if self.side == Color::White { 1 } else { -1 };
        for from in cells128(self.men[self.side.index()]) {
            let (rank, file) = ((from / 10) as i32, (from % 10) as i32);
            for df in [-1, 1] {
                let (r, f) = (rank + forward, file + df);
                if (0..10).contains(&r) && (0..10).contains(&f) {
                    let to = (r * 10 + f) as usize;
                    if empty >> to & 1 == 1 {
                        out.push(Step {
                            from: from as u8,
                            to: to as u8,
                        });
                    }
                }
            }
        }
    }
    fn has_capture(&self) -> bool {
        false
    }
    fn play_unchecked(&mut self, m: &Step) -> bool {
        let me = self.side.index();
        self.men[me] ^= (1 << m.from) | (1 << m.to);
        self.side = self.side.opposite();
        true
    }
    fn move_text(&self, m: &Step) -> String {
        format!("{}-{}", m.from, m.to)
    }
    fn parse_move(&self, text: &str) -> Result<Step, ParseMoveError> {
        let legal = self.legal_moves();
        legal
            .iter()
            .find(|m| self.move_text(m) == text.trim())
            .copied()
            .ok_or_else(|| {
                ParseMoveError::Illegal(text.into(), legal.iter().map(|m| self.move_text(m)).collect())
            })
    }
    fn piece_balance(&self, c: Color) -> f32 {
        (self.men[c.index()].count_ones() as f32 - self.men[c.opposite().index()].count_ones() as f32) / 5.0
    }
    fn material(&self, c: Color) -> i32 {
        100 * self.men[c.index()].count_ones() as i32
    }
    const BENCH_SETUPS: &'static [(&'static str, i32)] = &[];
    const PIECE_KINDS: &'static [&'static str] = &["man"];
    const PIECE_LETTERS: &'static [char] = &['M'];
    const MOVE_EXAMPLES: &'static str = "0-11";
    fn playable(file: i32, rank: i32) -> bool {
        (0..10).contains(&file) && (0..10).contains(&rank) && (file + rank) % 2 == 0
    }
    fn piece_on(&self, file: i32, rank: i32) -> Option<(Color, usize)> {
        let cell = (rank * 10 + file) as u32;
        [Color::White, Color::Black]
            .into_iter()
            .find(|c| self.men[c.index()] >> cell & 1 == 1)
            .map(|c| (c, 0))
    }
    fn move_path(m: &Step) -> Vec<(i32, i32)> {
        [m.from, m.to]
            .map(|c| ((c % 10) as i32, (c / 10) as i32))
            .to_vec()
    }
}

impl Board for Race {
    const CELLS: BoardCells = BOARD;
    const PIECES_PER_SIDE: f32 = 5.0;
    fn kind_cells(&self, c: Color) -> [u128; 3] {
        [self.men[c.index()], 0, 0]
    }
    fn with_side_to_move(&self, c: Color) -> Race {
        Race { side: c, ..*self }
    }
    fn move_cells(m: &Step) -> (usize, usize, u128) {
        (m.from as usize, m.to as usize, 0)
    }
}

fn model() -> ModelConfig {
    ModelConfig {
        blocks: 2,
        channels: 16,
        value_hidden: 16,
        board: BOARD,
        ..ModelConfig::default()
    }
}

/// Positions of a few random games.
fn positions() -> Vec<Game<Race>> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut out = Vec::new();
    let mut g = Game::new(Race::start(()), Default::default());
    while out.len() < 40 {
        let moves = g.position().legal_moves();
        if g.outcome_with(&moves).is_some() {
            g = Game::new(Race::start(()), Default::default());
            continue;
        }
        out.push(g.clone());
        let m = moves[rng.random_range(0..moves.len())];
        g.play_unchecked(&m);
    }
    out
}

#[test]
fn the_network_runs_on_a_ten_by_ten_board() {
    let start = Race::start(());
    assert_eq!(start.legal_moves().len(), 9);
    assert_eq!(Race::from_setup(&start.to_setup(), ()).unwrap(), start);
    let cfg = model();
    cfg.validate().unwrap();
    let net = cfg.init(&burn::tensor::Device::flex());
    assert!(!FastNet::covers(net.board()), "10x10 takes burn's forward pass");
    let games = positions();
    let obs: Vec<Observation> = games
        .iter()
        .map(|g| Observation::of_game(g, Inputs::Basic))
        .collect();
    let x = damone::net::planes_tensor(&obs, Inputs::Basic, &burn::tensor::Device::flex());
    assert_eq!(x.dims(), [40, 9, 10, 10]);
    let (p, v) = net.forward(x);
    assert_eq!((p.dims(), v.dims()), ([40, 2500], [40, 3]));
    // The evaluator a search uses: priors over each position's moves.
    let mut eval = NetEvaluator::new(&net);
    let moves: Vec<Vec<Step>> = games.iter().map(|g| g.position().legal_moves()).collect();
    let requests: Vec<_> = games
        .iter()
        .zip(&moves)
        .map(|(game, moves)| damone::mcts::EvalRequest { game, moves })
        .collect();
    for (e, m) in eval.evaluate(&requests).iter().zip(&moves) {
        assert_eq!(e.priors.len(), m.len());
        assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
    let params = SearchParams::default().for_play(32);
    let mut tree = Tree::new(&games[0], params, damone::util::rng_stream(1, "board", 0));
    let result = damone::mcts::search(&mut tree, &mut eval).expect("a move");
    assert!(moves[0].contains(&result.best));
}

#[test]
fn the_network_trains_on_a_ten_by_ten_board() {
    let games = positions();
    let samples: Vec<damone::data::Sample<Race>> = games
        .iter()
        .map(|g| {
            let pos = *g.position();
            let moves = pos.legal_moves();
            let idx = policy_indices(&pos, &moves);
            // A target the network must learn: the first move.
            let policy = idx
                .iter()
                .enumerate()
                .map(|(i, &j)| (j, (i == 0) as u8 as f32))
                .collect();
            damone::data::Sample {
                pos,
                repeated: false,
                no_progress: 0.0,
                policy,
                z: damone::mcts::Wdl::new(1.0, 0.0, 0.0),
                q: damone::mcts::Wdl::new(1.0, 0.0, 0.0),
                surprise: 0.0,
                aux: None,
                reply: None,
            }
        })
        .collect();
    let refs: Vec<&damone::data::Sample<Race>> = samples.iter().collect();
    let params = TrainParams {
        lr: 0.01,
        warmup_steps: 1,
        ..TrainParams::default()
    };
    let mut trainer = Trainer::seeded(model(), params, burn::tensor::Device::flex(), 5);
    let mut rng = damone::util::rng_stream(5, "board-train", 0);
    let first = trainer.train_step(&refs, &mut rng);
    let mut last = first;
    for _ in 0..60 {
        last = trainer.train_step(&refs, &mut rng);
    }
    assert!(
        last.policy < 0.6 * first.policy && last.value < first.value,
        "losses {first:?} -> {last:?}"
    );
}
