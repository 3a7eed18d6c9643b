//! The draughts world's protocols in process: the Hub session over byte
//! streams (answers, bad lines, `stop` ending an unbounded search) and the
//! DXP engine over a loopback socket (a game request, moves both ways, a
//! bad message answered with a chat line), every move checked against
//! damone's rules. pydraughts drives the binary through both in
//! `scripts/pydraughts-check.sh`.

use damone::game::italian;
use damone::game::GamePosition;
use damone::player;
use damone::protocols::dxp::{move_message, read_move, DxpEngine};
use damone::protocols::{HubNotation, HubSession};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

type Italian = italian::Position;

fn hub_session(spec: &str) -> HubSession<Italian> {
    let (make, _) = player::open::<Italian>(spec, &damone::net::ComputeDevice::cpu()).unwrap();
    HubSession::new(make(1), "damone".into(), (), Default::default())
}

fn talk(session: &mut HubSession<Italian>, input: &str) -> Vec<String> {
    let mut out = Vec::new();
    session.serve(&mut input.as_bytes(), &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The value of `key=` in a Hub line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
}

#[test]
fn a_hub_session_answers_and_plays_legal_moves() {
    let mut s = hub_session("shipped");
    let out = talk(
        &mut s,
        "hub\ninit\nping\npos start moves=\"22-18 11-15\"\nlevel depth=3\ngo think\nquit\n",
    );
    assert!(out[0].starts_with("id name=\"damone\" version="), "{out:?}");
    assert_eq!(
        out[1],
        "param name=variant value=italian type=enum values=\"italian\""
    );
    assert_eq!(&out[2..5], ["wait", "ready", "pong"]);
    assert!(out[5].starts_with("info depth=3 score="), "{out:?}");
    let best = field(&out[6], "move").expect("done move=");
    let pos = *s.game().position();
    assert_eq!(
        pos,
        Italian::start(())
            .after(&pos_move("22-18"))
            .after(&pos_move_after("22-18", "11-15"))
    );
    assert!(pos.read_hub_move(best).is_ok(), "{best} in {pos}");
    let pv = out[5].split("pv=\"").nth(1).unwrap().trim_end_matches('"');
    assert_eq!(pv.split_whitespace().next(), Some(best), "{out:?}");
}

fn pos_move(text: &str) -> italian::Move {
    Italian::start(()).read_hub_move(text).unwrap()
}

fn pos_move_after(first: &str, text: &str) -> italian::Move {
    Italian::start(())
        .after(&pos_move(first))
        .read_hub_move(text)
        .unwrap()
}

#[test]
fn bad_hub_lines_get_an_error_line_and_the_session_goes_on() {
    let mut s = hub_session("alphabeta:depth=2");
    let out = talk(
        &mut s,
        "frobnicate\npos pos=Wxyz\npos moves=\"22-15\"\nlevel time=-1\ngo sideways\nset-param name=variant value=dameo\nlevel nodes=100\ngo\nping\n",
    );
    for line in &out[..6] {
        assert!(line.starts_with("error message=\""), "{out:?}");
    }
    assert!(
        out[2].contains("22-15") && out[2].contains("not one legal move"),
        "{}",
        out[2]
    );
    assert!(out[5].contains("plays Italian draughts"), "{}", out[5]);
    assert!(out.iter().any(|l| l.starts_with("done move=")), "{out:?}");
    assert!(out.contains(&"pong".to_string()), "{out:?}");
}

/// `go analyze` has no limit: only `stop` ends it, with its move.
#[test]
fn stop_ends_an_unbounded_search_with_its_move() {
    let mut s = hub_session("shipped");
    let started = Instant::now();
    let out = talk(&mut s, "go analyze\nping\nstop\npos start\nquit\n");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out[0], "pong");
    let best = field(out.last().unwrap(), "move").expect("done");
    assert!(Italian::start(()).read_hub_move(best).is_ok());
}

/// A NUL-terminated DXP message.
fn send(stream: &mut TcpStream, message: &str) {
    stream.write_all(message.as_bytes()).unwrap();
    stream.write_all(&[0]).unwrap();
}

fn receive(reader: &mut BufReader<TcpStream>) -> String {
    let mut buf = Vec::new();
    reader.read_until(0, &mut buf).unwrap();
    buf.pop();
    String::from_utf8(buf).unwrap()
}

/// A game request of the start position: damone (the follower) White or
/// Black (`W` / `Z`), no clock.
fn game_request(follower: char) -> String {
    let start = Italian::start(());
    let letters: String = start.hub_position()[1..].replace('b', "z");
    format!("R01{:<32}{follower}000000BW{letters}", "test client")
}

#[test]
fn dxp_plays_a_game_over_loopback() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (make, _) =
            player::open::<Italian>("alphabeta:depth=2", &damone::net::ComputeDevice::cpu()).unwrap();
        let mut engine = DxpEngine::new(make(1), "damone".into(), Default::default());
        engine.listen(&listener, Some(1)).unwrap();
    });
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    // A message that does not read: a chat line says so.
    send(&mut stream, "Q?");
    assert!(receive(&mut reader).starts_with("Cunknown message"));
    // damone White: accepted, then its first move.
    send(&mut stream, &game_request('W'));
    let accept = receive(&mut reader);
    assert!(accept.starts_with("Adamone") && accept.ends_with('0'), "{accept}");
    let mut pos = Italian::start(());
    for _ in 0..6 {
        let theirs = receive(&mut reader);
        let mv = read_move(&pos, &theirs).unwrap_or_else(|e| panic!("{theirs}: {e}"));
        pos = pos.after(&mv);
        if pos.legal_moves().is_empty() {
            break;
        }
        let reply = pos.legal_moves()[0];
        send(&mut stream, &move_message::<Italian>(&reply, 0.0));
        pos = pos.after(&reply);
    }
    // damone's answer to the last move, then an illegal move of ours: a
    // chat line says so, and the game goes on.
    let theirs = receive(&mut reader);
    assert!(read_move(&pos, &theirs).is_ok(), "{theirs}");
    send(&mut stream, "M00000101000");
    assert!(receive(&mut reader).starts_with('C'));
    send(&mut stream, "E01");
    assert_eq!(receive(&mut reader), "E01");
    drop((stream, reader));
    server.join().unwrap();
}
