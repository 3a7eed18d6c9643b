//! A load generator for `damone serve`, loopback only: many clients at once,
//! each playing a game against a network player over the WebSocket and
//! asking for analyses on the way, while one client watches the run's
//! event stream. It reports the latency of the engine's move replies and of
//! the first line of each analysis (median and 99th percentile), the
//! "busy" answers, the server's memory, and whether every client finished
//! its game. Bounded in clients and in time (`--deadline`).
//!
//! ```sh
//! scripts/serve-load.sh            # trains a tiny run, serves it, runs this
//! cargo run --release --example serve_load -- --addr 127.0.0.1:8080 --clients 200 --server-pid PID
//! ```

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

#[derive(Parser, Debug, Clone)]
#[command(about = "Load a loopback `damone serve` with many clients at once")]
struct Args {
    /// The server (a loopback address).
    #[arg(long)]
    addr: SocketAddr,
    /// Clients playing at once.
    #[arg(long, default_value_t = 200)]
    clients: usize,
    /// Analyses each client asks for during its game.
    #[arg(long, default_value_t = 2)]
    analyses: usize,
    /// Simulations of each analysis.
    #[arg(long, default_value_t = 64)]
    analysis_sims: u32,
    /// The opponent's spec (default: the first network player the server offers).
    #[arg(long)]
    opponent: Option<String>,
    /// The server's process id, to read its memory from /proc.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 600)]
    deadline: u64,
}

/// What one client saw.
#[derive(Default)]
struct ClientReport {
    finished: bool,
    replies: Vec<f64>,
    first_lines: Vec<f64>,
    busy: u32,
    error: Option<String>,
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn next_text(ws: &mut Ws) -> Result<Value, String> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) => return serde_json::from_str(t.as_str()).map_err(|e| e.to_string()),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(e.to_string()),
            None => return Err("connection closed".into()),
        }
    }
}

async fn send(ws: &mut Ws, v: Value) -> Result<(), String> {
    ws.send(Message::Text(v.to_string().into()))
        .await
        .map_err(|e| e.to_string())
}

/// The game's state after the engine has answered (or the game ended).
async fn settled(ws: &mut Ws, report: &mut ClientReport) -> Result<Value, String> {
    loop {
        let v = next_text(ws).await?;
        match v["type"].as_str() {
            Some("state") if !v["thinking"].as_bool().unwrap_or(false) => return Ok(v),
            Some("busy") => report.busy += 1,
            Some("error") => return Err(v["message"].to_string()),
            _ => {}
        }
    }
}

/// Ask for an analysis, time its first line, then stop it.
async fn analyse(ws: &mut Ws, sims: u32, report: &mut ClientReport) -> Result<(), String> {
    let t = Instant::now();
    send(ws, json!({"type": "analyse", "sims": sims})).await?;
    loop {
        let v = next_text(ws).await?;
        match v["type"].as_str() {
            Some("analysis") => {
                report.first_lines.push(t.elapsed().as_secs_f64() * 1000.0);
                break;
            }
            Some("busy") => {
                report.busy += 1;
                return Ok(());
            }
            Some("error") => return Err(v["message"].to_string()),
            _ => {}
        }
    }
    send(ws, json!({"type": "stop"})).await?;
    // Wait for the analysis to end (its last update has "done").
    loop {
        let v = next_text(ws).await?;
        if v["type"] == "analysis" && v["done"].as_bool().unwrap_or(false) {
            return Ok(());
        }
    }
}

async fn play(args: Args, opponent: String, seed: u64) -> ClientReport {
    let mut report = ClientReport::default();
    if let Err(e) = play_game(&args, &opponent, seed, &mut report).await {
        report.error = Some(e);
    }
    report
}

async fn play_game(args: &Args, opponent: &str, seed: u64, report: &mut ClientReport) -> Result<(), String> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    // As browsers do, small messages go out at once (TCP_NODELAY).
    let url = format!("ws://{}/ws", args.addr);
    let (mut ws, _) = tokio_tungstenite::connect_async_with_config(url, None, true)
        .await
        .map_err(|e| e.to_string())?;
    send(
        &mut ws,
        json!({"type": "new", "opponent": opponent, "color": "white"}),
    )
    .await?;
    let mut state = settled(&mut ws, report).await?;
    let mut ply = 0usize;
    while state["over"].is_null() {
        if report.first_lines.len() + (report.busy as usize) < args.analyses && ply % 6 == 2 {
            analyse(&mut ws, args.analysis_sims, report).await?;
        }
        let moves = state["moves"].as_array().cloned().unwrap_or_default();
        let Some(m) = moves.choose(&mut rng) else { break };
        let t = Instant::now();
        send(&mut ws, json!({"type": "move", "move": m["text"]})).await?;
        state = settled(&mut ws, report).await?;
        report.replies.push(t.elapsed().as_secs_f64() * 1000.0);
        ply += 2;
    }
    report.finished = true;
    Ok(())
}

/// Hold the run's event stream open, counting its events, until `stop`.
async fn watch(addr: SocketAddr, stop: tokio::sync::watch::Receiver<bool>) -> Result<usize, String> {
    let mut s = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let req = format!("GET /api/run/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    s.write_all(req.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; 1 << 16];
    let mut text = String::new();
    let mut stop = stop;
    loop {
        tokio::select! {
            n = s.read(&mut buf) => match n {
                Ok(0) | Err(_) => break,
                Ok(n) => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            },
            _ = stop.changed() => break,
        }
    }
    if !text.starts_with("HTTP/1.1 200") {
        return Err(format!(
            "the event stream answered: {}",
            text.lines().next().unwrap_or("")
        ));
    }
    Ok(text.matches("\ndata:").count())
}

/// (kB) VmRSS and VmHWM of `pid`.
fn memory(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

async fn first_network_player(addr: SocketAddr) -> Result<String, String> {
    let mut s = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let req = format!("GET /api/players HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut text = String::new();
    s.read_to_string(&mut text).await.map_err(|e| e.to_string())?;
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    let players: Value = serde_json::from_str(body).map_err(|e| format!("/api/players: {e}"))?;
    players
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["spec"].as_str())
        .find(|s| s.starts_with("net:"))
        .map(str::to_string)
        .ok_or_else(|| "the server offers no network player (serve with --run or --players)".into())
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    if let Err(e) = run(args).await {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

async fn run(args: Args) -> Result<(), String> {
    if !args.addr.ip().is_loopback() {
        return Err(format!(
            "{} is not a loopback address: this tool loads only this machine",
            args.addr
        ));
    }
    let opponent = match &args.opponent {
        Some(o) => o.clone(),
        None => first_network_player(args.addr).await?,
    };
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let watcher = tokio::spawn(watch(args.addr, stop_rx));
    let t = Instant::now();
    let tasks: Vec<_> = (0..args.clients)
        .map(|i| tokio::spawn(play(args.clone(), opponent.clone(), i as u64)))
        .collect();
    let mut peak = (0, 0);
    let all = futures_util::future::join_all(tasks);
    tokio::pin!(all);
    let deadline = tokio::time::sleep(Duration::from_secs(args.deadline));
    tokio::pin!(deadline);
    let reports: Vec<ClientReport> = loop {
        tokio::select! {
            r = &mut all => break r.into_iter().map(|r| r.unwrap_or_default()).collect(),
            _ = &mut deadline => return Err(format!("not done after {} s", args.deadline)),
            _ = tokio::time::sleep(Duration::from_millis(200)) => {
                if let Some((rss, _)) = args.server_pid.and_then(memory) {
                    peak.0 = peak.0.max(rss);
                }
            }
        }
    };
    let seconds = t.elapsed().as_secs_f64();
    let _ = stop_tx.send(true);
    let events = watcher.await.map_err(|e| e.to_string())??;
    summarise(&args, &opponent, &reports, seconds, events, peak.0);
    match reports.iter().filter(|r| !r.finished).count() {
        0 => Ok(()),
        n => Err(format!("{n} clients did not finish their game")),
    }
}

fn summarise(
    args: &Args,
    opponent: &str,
    reports: &[ClientReport],
    seconds: f64,
    events: usize,
    peak_rss: u64,
) {
    let mut replies: Vec<f64> = reports.iter().flat_map(|r| r.replies.clone()).collect();
    let mut lines: Vec<f64> = reports.iter().flat_map(|r| r.first_lines.clone()).collect();
    let finished = reports.iter().filter(|r| r.finished).count();
    let busy: u32 = reports.iter().map(|r| r.busy).sum();
    for e in reports.iter().filter_map(|r| r.error.as_ref()).take(3) {
        println!("client error: {e}");
    }
    println!("{} clients against {opponent}, {seconds:.1} s", args.clients);
    println!("games finished: {finished} of {}", args.clients);
    let (r50, r99) = (percentile(&mut replies, 0.5), percentile(&mut replies, 0.99));
    println!(
        "move replies: {} , p50 {r50:.0} ms, p99 {r99:.0} ms",
        replies.len()
    );
    let (a50, a99) = (percentile(&mut lines, 0.5), percentile(&mut lines, 0.99));
    println!(
        "first analysis lines: {}, p50 {a50:.0} ms, p99 {a99:.0} ms; busy answers: {busy}",
        lines.len()
    );
    println!("run watcher: {events} events");
    if let Some((rss, hwm)) = args.server_pid.and_then(memory) {
        println!(
            "server memory: {} MB now, {} MB peak (sampled {} MB)",
            rss / 1024,
            hwm / 1024,
            peak_rss / 1024
        );
    }
}
