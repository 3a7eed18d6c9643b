//! The web page's server: handler tests without a port, server-sent events
//! that resume, a WebSocket game against a tiny network with every kind of
//! bad input, and (when Debian's chromium and chromium-driver are
//! installed) a real headless browser that plays, analyses and watches a
//! run.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::ws::{next, send, start_server};
use damone::run::{read_rows, write_rows, Event, Metrics, Run, RunConfig, Start};
use damone::serve::{player_list, router, ServeConfig};
use futures_util::SinkExt;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;
use tower::ServiceExt;

/// A tiny trained run (two iterations, no evaluation) shared by the tests.
fn tiny_run() -> &'static PathBuf {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("damone-serve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut cfg = RunConfig::load(
            Some(Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/configs/tiny.toml"
            ))),
            &["iterations=2".into(), "eval.interval=0".into()],
        )
        .unwrap();
        cfg.checkpoint_dir = dir.display().to_string();
        let run = Run::<damone::game::damone::Position>::start(cfg, Start::New, &mut |_: &Event| {}).unwrap();
        run.dir().to_path_buf()
    })
}

fn config() -> ServeConfig {
    ServeConfig {
        run: Some(tiny_run().clone()),
        max_sims: 64,
        poll: Duration::from_millis(100),
        ..Default::default()
    }
}

async fn get(uri: &str) -> (StatusCode, String) {
    let resp = router(config())
        .oneshot(Request::builder().uri(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let code = resp.status();
    let body = axum::body::to_bytes(resp.into_body(), 1 << 24).await.unwrap();
    (code, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn handlers_serve_the_page_players_and_run() {
    let (code, html) = get("/").await;
    assert_eq!(code, StatusCode::OK);
    assert!(html.contains("<svg id=\"board\""), "{html}");
    let (code, js) = get("/app.js").await;
    assert_eq!(code, StatusCode::OK);
    assert!(js.contains("new WebSocket"));
    let (_, players) = get("/api/players").await;
    let players: Vec<Value> = serde_json::from_str(&players).unwrap();
    // The game's shipped players first (the learned evaluation, then the
    // network), then the run's newest checkpoint.
    assert_eq!(players[0]["spec"], "shipped:damone");
    assert_eq!(players[1]["spec"], "shipped:damone,kind=net");
    assert_eq!(players[2]["label"], "checkpoint iter_0002");
    assert!(players.iter().any(|p| p["spec"] == "alphabeta:depth=4"));
    let (_, run) = get("/api/run").await;
    let run: Value = serde_json::from_str(&run).unwrap();
    assert_eq!(run["metrics"].as_array().unwrap().len(), 2);
    assert!(run["live"]["fen"].is_string(), "{run}");
    // No `damone rate` yet: no protocol rows (the browser test has some).
    assert_eq!(run["protocol"].as_array().map(Vec::len), Some(0), "{run}");
    let (code, body) = get("/no/such/page").await;
    assert_eq!(code, StatusCode::NOT_FOUND);
    assert!(body.contains("no such page"));
    // Without a run folder, the run API says so.
    let resp = router(ServeConfig::default())
        .oneshot(
            Request::builder()
                .uri("/api/run/events")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert_eq!(player_list(&ServeConfig::default()).len(), 7);
}

/// Read server-sent events from a raw connection until `until` is in the text.
async fn sse(addr: std::net::SocketAddr, last_id: Option<u32>, until: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let extra = last_id.map_or(String::new(), |k| format!("Last-Event-ID: {k}\r\n"));
    s.write_all(format!("GET /api/run/events HTTP/1.1\r\nHost: x\r\n{extra}\r\n").as_bytes())
        .await
        .unwrap();
    let mut text = String::new();
    let mut buf = [0u8; 4096];
    let t = Instant::now();
    while !text.contains(until) {
        assert!(t.elapsed() < Duration::from_secs(20), "no '{until}' in {text}");
        let n = tokio::time::timeout(Duration::from_secs(20), s.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    text
}

#[tokio::test]
async fn run_events_stream_new_rows_and_resume() {
    let dir = std::env::temp_dir().join(format!("damone-serve-sse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rows: Vec<Metrics> = read_rows(&tiny_run().join("metrics.csv")).unwrap();
    write_rows(&dir.join("metrics.csv"), &rows).unwrap();
    let addr = start_server(ServeConfig {
        run: Some(dir.clone()),
        poll: Duration::from_millis(100),
        ..Default::default()
    })
    .await;
    let all = sse(addr, None, "id: 2").await;
    assert!(all.contains("id: 1") && all.contains("\"loss_policy\""), "{all}");
    // A reconnect with Last-Event-ID 1 gets iteration 2 only, then a new row.
    let reader = tokio::spawn(sse(addr, Some(1), "id: 3"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut more = rows.clone();
    more.push(Metrics {
        iteration: 3,
        ..rows[1].clone()
    });
    write_rows(&dir.join("metrics.csv"), &more).unwrap();
    let resumed = reader.await.unwrap();
    assert!(
        !resumed.contains("id: 1\n") && resumed.contains("id: 2") && resumed.contains("id: 3"),
        "{resumed}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn websocket_game_against_a_tiny_network() {
    let addr = start_server(config()).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .unwrap();
    // Bad input first: each gets an error and the connection stays.
    send(&mut ws, json!({"type": "move", "move": "f3-e4"})).await;
    assert!(next(&mut ws, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("no game"));
    ws.send(Message::Text("{not json".into())).await.unwrap();
    assert!(next(&mut ws, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("malformed"));
    ws.send(Message::Text("x".repeat(20_000).into())).await.unwrap();
    assert!(next(&mut ws, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("too long"));
    for bad in ["net:/etc/passwd", "net:../../x.dmp", "nobody"] {
        send(&mut ws, json!({"type": "new", "opponent": bad, "color": "white"})).await;
        let e = next(&mut ws, "error").await;
        assert!(e["message"].as_str().unwrap().contains("unknown player"), "{e}");
    }
    // A game against the newest checkpoint.
    let net = player_list(&config())
        .into_iter()
        .find(|p| p.spec.starts_with("net:"))
        .unwrap()
        .spec;
    send(&mut ws, json!({"type": "new", "opponent": net, "color": "white"})).await;
    let st = next(&mut ws, "state").await;
    assert_eq!(st["board"].as_array().unwrap().len(), 16);
    let first = st["moves"][0]["text"].as_str().unwrap().to_string();
    send(&mut ws, json!({"type": "move", "move": "a1-b2"})).await;
    assert!(next(&mut ws, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("a1"));
    send(&mut ws, json!({"type": "move", "move": first})).await;
    // The engine answers: a state with two moves in the history.
    let mut st = next(&mut ws, "state").await;
    while st["history"].as_array().unwrap().len() < 2 {
        st = next(&mut ws, "state").await;
    }
    assert_eq!(st["side"], "white");
    assert_eq!(st["values"].as_array().unwrap().len(), 1, "{st}");
    assert!(st["pdn"].as_str().unwrap().contains(&format!("1. {first} ")));
    // Analysis streams, capped at the server's budget.
    send(&mut ws, json!({"type": "analyse", "sims": 100000})).await;
    let mut a = next(&mut ws, "analysis").await;
    while a["done"] != true {
        a = next(&mut ws, "analysis").await;
    }
    assert_eq!(a["sims"], 64);
    assert!(!a["lines"].as_array().unwrap().is_empty());
    // Undo takes back the reply and the move.
    send(&mut ws, json!({"type": "undo"})).await;
    let st = next(&mut ws, "state").await;
    assert_eq!(st["history"].as_array().unwrap().len(), 0);
    ws.close(None).await.unwrap();
}

/// An Italian draughts page: the board of men in the federation's
/// places, moves in its numbers, the engine's reply, a king drawn as one.
#[tokio::test]
async fn websocket_italian_game() {
    let cfg = ServeConfig {
        game: damone::game::GameKind::Italian,
        max_sims: 64,
        ..Default::default()
    };
    let addr = start_server(cfg).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .unwrap();
    send(
        &mut ws,
        json!({"type": "new", "opponent": "alphabeta:depth=2", "color": "white"}),
    )
    .await;
    let st = next(&mut ws, "state").await;
    assert_eq!(st["game"], "italian");
    assert_eq!(st["numbers"]["a8"], 1);
    assert_eq!(st["numbers"]["h1"], 32);
    assert_eq!(st["numbers"].as_object().unwrap().len(), 32);
    let board = st["board"].as_array().unwrap();
    assert_eq!(board.len(), 24);
    assert!(board
        .iter()
        .any(|p| p["sq"] == "h1" && p["rank"] == "man" && p["color"] == "white"));
    let texts: Vec<&str> = st["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 7);
    assert!(texts.contains(&"22-18"), "{texts:?}");
    let m = st["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["text"] == "22-18")
        .unwrap();
    assert_eq!(
        (m["from"].as_str(), m["path"][0].as_str()),
        (Some("d3"), Some("c4"))
    );
    send(&mut ws, json!({"type": "move", "move": "f3-e4"})).await;
    assert!(next(&mut ws, "error").await["message"]
        .as_str()
        .unwrap()
        .contains("not a square number"));
    send(&mut ws, json!({"type": "move", "move": "22-18"})).await;
    let mut st = next(&mut ws, "state").await;
    while st["history"].as_array().unwrap().len() < 2 {
        st = next(&mut ws, "state").await;
    }
    assert_eq!(st["history"][0], "22-18");
    assert!(st["pdn"].as_str().unwrap().contains("[Variant \"italian\"]"));
    // A position with a king.
    send(
        &mut ws,
        json!({"type": "new", "opponent": "random", "color": "white", "fen": "W:WK14,22:B3"}),
    )
    .await;
    let st = next(&mut ws, "state").await;
    assert!(st["board"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["rank"] == "king" && p["sq"] == "d5"));
    ws.close(None).await.unwrap();
}

/// The browser test, in a real headless Chromium. It needs Debian's
/// chromium and chromium-driver, so it is ignored by default; `.ci/run`
/// installs them and runs it with `--ignored`, where a missing browser is
/// a failure, not a skip.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromium-driver (Debian packages): cargo test --release --test integration -- --ignored serve::"]
async fn a_real_browser_plays_analyses_and_watches() {
    // The run the page watches: a copy of the tiny run, so rows can be added.
    let dir = std::env::temp_dir().join(format!("damone-serve-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // DAMONE_SCREENSHOT_RUN=DIR shows another run (for the screenshots in docs/web-page.md).
    let source = std::env::var("DAMONE_SCREENSHOT_RUN").map_or_else(|_| tiny_run().clone(), PathBuf::from);
    for entry in std::fs::read_dir(&source).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            let to = dir.join(p.file_name().unwrap());
            std::fs::create_dir_all(&to).unwrap();
            for f in std::fs::read_dir(&p).unwrap() {
                let f = f.unwrap().path();
                std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
            }
        } else {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    // The rating protocol's rows, as `damone rate` writes them: the page
    // charts them when no checkpoint tournament has run.
    let protocol = "iteration,train_minutes,train_games,mode,opponent,sims,net_ms_per_move,games,wins,draws,losses,score,score_95\n\
        1,0.1,8,sims,alphabeta:depth=2,64,0.0,10,5,3,2,0.65,0.2\n\
        2,0.2,16,sims,alphabeta:depth=2,64,0.0,10,6,3,1,0.75,0.18\n";
    std::fs::write(dir.join("rating.csv"), protocol).unwrap();
    let addr = start_server(ServeConfig {
        run: Some(dir.clone()),
        max_sims: 64,
        poll: Duration::from_millis(200),
        ..Default::default()
    })
    .await;
    let (c, mut chromedriver) = browser().await;
    let result = browse(&c, addr, &dir).await;
    let _ = c.close().await;
    let _ = chromedriver.kill();
    let _ = chromedriver.wait();
    let _ = std::fs::remove_dir_all(&dir);
    result.unwrap();
}

/// A headless Chromium driven through chromedriver (Debian's packages),
/// and the chromedriver process to kill at the end.
async fn browser() -> (fantoccini::Client, std::process::Child) {
    let (chrome, driver) = (Path::new("/usr/bin/chromium"), Path::new("/usr/bin/chromedriver"));
    assert!(
        chrome.exists() && driver.exists(),
        "the browser test needs /usr/bin/chromium and /usr/bin/chromedriver: apt-get install chromium chromium-driver"
    );
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let chromedriver = std::process::Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({"binary": chrome, "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"]}),
    );
    for _ in 0..50 {
        match fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
        {
            Ok(c) => return (c, chromedriver),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    panic!("chromedriver does not answer on port {port}");
}

/// Dameo in the browser: the 64-cell board, a line move and a king's long
/// capture of two pieces, each played by clicking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromium-driver (Debian packages): cargo test --release --test integration -- --ignored serve::"]
async fn a_real_browser_plays_dameo_line_moves_and_long_captures() {
    let addr = start_server(ServeConfig {
        game: damone::game::GameKind::Dameo,
        max_sims: 64,
        ..Default::default()
    })
    .await;
    let (c, mut chromedriver) = browser().await;
    let result = browse_dameo(&c, addr).await;
    let _ = c.close().await;
    let _ = chromedriver.kill();
    let _ = chromedriver.wait();
    result.unwrap();
}

/// Click a piece or a cell of the board.
async fn click(c: &fantoccini::Client, css: &str) -> Result<(), String> {
    let e = |e: fantoccini::error::CmdError| format!("{css}: {e}");
    c.find(fantoccini::Locator::Css(css))
        .await
        .map_err(e)?
        .click()
        .await
        .map_err(e)
}

/// The text of the game's first ply in the move list.
async fn first_ply(c: &fantoccini::Client) -> String {
    match c.find(fantoccini::Locator::Css("#history .ply")).await {
        Ok(p) => p.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    }
}

async fn browse_dameo(c: &fantoccini::Client, addr: std::net::SocketAddr) -> Result<(), String> {
    c.goto(&format!("http://{addr}/"))
        .await
        .map_err(|e| e.to_string())?;
    wait_until(c, "36 men", async |c| count(c, "#board .piece").await == 36).await?;
    if count(c, "#board rect").await != 64 {
        return Err("the board should have 64 cells".into());
    }
    wait_until(c, "your move", async |c| {
        match c.find(fantoccini::Locator::Css("#status")).await {
            Ok(s) => s.text().await.unwrap_or_default().starts_with("Your move"),
            Err(_) => false,
        }
    })
    .await?;
    // The line move b1-b3: b1 leaps over b2 (the line advances).
    click(c, "#board .piece[data-sq=\"b1\"]").await?;
    click(c, "#board rect[data-sq=\"b3\"]").await?;
    wait_until(c, "the line move and the reply", async |c| {
        count(c, "#history .ply").await >= 2 && first_ply(c).await == "b1-b3"
    })
    .await?;
    if std::env::var("DAMONE_SCREENSHOTS").is_ok() {
        let png = c.screenshot().await.map_err(|e| e.to_string())?;
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/serve-dameo.png"), png)
            .map_err(|e| e.to_string())?;
    }
    // A king on a4 takes d4 and, landing on e4, g4: a4xe4xh4.
    c.execute(
        "ws.send(JSON.stringify({type: 'new', opponent: 'random', color: 'white', fen: 'W:WKa4:Bd4,g4,a8'}))",
        vec![],
    )
    .await
    .map_err(|e| e.to_string())?;
    wait_until(c, "the king's position", async |c| {
        count(c, "#board .piece").await == 4
    })
    .await?;
    click(c, "#board .piece[data-sq=\"a4\"]").await?;
    click(c, "#board rect[data-sq=\"e4\"]").await?;
    click(c, "#board rect[data-sq=\"h4\"]").await?;
    wait_until(c, "the long capture", async |c| first_ply(c).await == "a4xe4xh4").await?;
    wait_until(c, "two pieces taken", async |c| {
        count(c, "#board .piece").await <= 2
    })
    .await?;
    Ok(())
}

async fn count(c: &fantoccini::Client, css: &str) -> usize {
    c.find_all(fantoccini::Locator::Css(css))
        .await
        .map_or(0, |v| v.len())
}

async fn wait_until(
    c: &fantoccini::Client,
    what: &str,
    f: impl AsyncFn(&fantoccini::Client) -> bool,
) -> Result<(), String> {
    let t = Instant::now();
    while !f(c).await {
        if t.elapsed() > Duration::from_secs(60) {
            return Err(format!("timed out waiting for {what}"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

async fn browse(c: &fantoccini::Client, addr: std::net::SocketAddr, run: &Path) -> Result<(), String> {
    use fantoccini::Locator::Css;
    let e = |e: fantoccini::error::CmdError| e.to_string();
    c.goto(&format!("http://{addr}/")).await.map_err(e)?;
    wait_until(c, "16 pieces", async |c| count(c, "#board .piece").await == 16).await?;
    wait_until(c, "status", async |c| match c.find(Css("#status")).await {
        Ok(s) => s.text().await.unwrap_or_default().starts_with("Your move"),
        Err(_) => false,
    })
    .await?;
    // An illegal click is refused.
    c.find(Css("#board rect[data-sq=\"a1\"]"))
        .await
        .map_err(e)?
        .click()
        .await
        .map_err(e)?;
    let msg = c
        .find(Css("#message"))
        .await
        .map_err(e)?
        .text()
        .await
        .map_err(e)?;
    if !msg.starts_with("Illegal") {
        return Err(format!("illegal click not refused: '{msg}'"));
    }
    // Play f3-e4 by clicking the piece, then its landing square.
    c.find(Css("#board .piece[data-sq=\"f3\"]"))
        .await
        .map_err(e)?
        .click()
        .await
        .map_err(e)?;
    c.find(Css("#board rect[data-sq=\"e4\"]"))
        .await
        .map_err(e)?
        .click()
        .await
        .map_err(e)?;
    wait_until(c, "the engine's reply", async |c| {
        count(c, "#history .ply").await >= 2
    })
    .await?;
    // The move list is numbered by moves: White's and Black's ply in one row.
    if count(c, "#history li").await != 1 {
        return Err("two plies should make one numbered move".into());
    }
    let first = c
        .find(Css("#history .ply"))
        .await
        .map_err(e)?
        .text()
        .await
        .map_err(e)?;
    if first != "f3-e4" {
        return Err(format!("first move shown as '{first}'"));
    }
    // Analysis arrows.
    c.find(Css("#analyse"))
        .await
        .map_err(e)?
        .click()
        .await
        .map_err(e)?;
    wait_until(c, "analysis arrows", async |c| {
        count(c, "#board line.arrow").await > 0
    })
    .await?;
    wait_until(c, "analysis lines", async |c| {
        count(c, "#lines tbody tr").await > 0
    })
    .await?;
    if std::env::var("DAMONE_SCREENSHOTS").is_ok() {
        let png = c.screenshot().await.map_err(e)?;
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/serve-play.png"), png)
            .map_err(|e| e.to_string())?;
    }
    // The dashboard, and a new metrics row appearing on it.
    c.find(Css("#tab-run"))
        .await
        .map_err(e)?
        .click()
        .await
        .map_err(e)?;
    wait_until(c, "loss points", async |c| {
        count(c, "#chart-loss circle.point").await >= 4
    })
    .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Iterations are whole numbers on the axis; the legend is above the
    // plot area (y < 28), not over the data.
    for tick in c.find_all(Css("#chart-loss text.x-tick")).await.map_err(e)? {
        let text = tick.text().await.map_err(e)?;
        if text.contains('.') {
            return Err(format!("a fractional iteration tick: {text}"));
        }
    }
    for legend in c.find_all(Css("#chart-loss text.legend")).await.map_err(e)? {
        let y: f64 = legend
            .attr("y")
            .await
            .map_err(e)?
            .unwrap_or_default()
            .parse()
            .unwrap_or(99.0);
        if y >= 28.0 {
            return Err(format!("a legend inside the plot area (y = {y})"));
        }
    }
    // The rating chart shows damone rate's rows.
    if let Err(why) = wait_until(c, "the rating protocol's points", async |c| {
        count(c, "#chart-rating circle.point").await == 2
    })
    .await
    {
        let svg = c
            .execute("return document.getElementById('chart-rating').outerHTML", vec![])
            .await
            .map_err(e)?;
        return Err(format!("{why}: {svg}"));
    }
    let before = count(c, "#chart-loss circle.point").await;
    let mut rows: Vec<Metrics> = read_rows(&run.join("metrics.csv")).map_err(|e| e.to_string())?;
    let mut extra = rows[rows.len() - 1].clone();
    extra.iteration += 1;
    extra.loss_policy *= 0.9;
    rows.push(extra);
    write_rows(&run.join("metrics.csv"), &rows).map_err(|e| e.to_string())?;
    wait_until(c, "the new row on the chart", async |c| {
        count(c, "#chart-loss circle.point").await == before + 2
    })
    .await?;
    if std::env::var("DAMONE_SCREENSHOTS").is_ok() {
        let png = c.screenshot().await.map_err(e)?;
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/serve-run.png"), png)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A request to a server with `access`: its status, its Set-Cookie and body.
async fn request(
    access: &damone::serve::Access,
    uri: &str,
    headers: &[(&str, &str)],
) -> (StatusCode, Option<String>, String) {
    let cfg = ServeConfig {
        access: access.clone(),
        ..config()
    };
    let mut req = Request::builder().uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = router(cfg)
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let code = resp.status();
    let cookie = resp
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().to_string());
    let body = axum::body::to_bytes(resp.into_body(), 1 << 24).await.unwrap();
    (code, cookie, String::from_utf8_lossy(&body).into_owned())
}

/// With a token, every request and the WebSocket need it (query, bearer
/// header or the cookie the page gets); without it they are refused with
/// a one-line reason.
#[tokio::test]
async fn a_token_is_checked_on_every_request_and_websocket() {
    use damone::serve::Access;
    let token = "0123456789abcdef0123456789abcdef";
    let access = Access::Token(token.into());
    for uri in ["/", "/app.js", "/api/players", "/api/run", "/ws"] {
        let (code, _, body) = request(&access, uri, &[]).await;
        assert_eq!(code, StatusCode::UNAUTHORIZED, "{uri}");
        assert!(
            body.contains("needs its token") && !body.contains('\n'),
            "{uri}: {body}"
        );
        let (code, _, _) = request(&access, &format!("{uri}?token=wrong{token}"), &[]).await;
        assert_eq!(code, StatusCode::UNAUTHORIZED, "{uri} with a wrong token");
    }
    let (code, cookie, _) = request(&access, &format!("/?token={token}"), &[]).await;
    assert_eq!(code, StatusCode::OK);
    let cookie = cookie.expect("the page gets the token's cookie");
    assert!(cookie.starts_with(&format!("damone_token={token}")) && cookie.contains("HttpOnly"));
    let (code, _, body) = request(
        &access,
        "/api/players",
        &[("cookie", &format!("damone_token={token}"))],
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{body}");
    let bearer = format!("Bearer {token}");
    let (code, _, _) = request(&access, "/api/run", &[("authorization", &bearer)]).await;
    assert_eq!(code, StatusCode::OK);
    // A real WebSocket over a port: refused without the token, served with it.
    let addr = start_server(ServeConfig {
        access: access.clone(),
        ..config()
    })
    .await;
    let refused = tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await;
    assert!(refused.is_err(), "a WebSocket without the token was accepted");
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?token={token}"))
        .await
        .unwrap();
    send(
        &mut ws,
        json!({"type": "new", "opponent": "random", "color": "white"}),
    )
    .await;
    next(&mut ws, "state").await;
}

/// Watch-only: the run can be watched, nothing can start a game or search.
#[tokio::test]
async fn watch_only_serves_the_run_and_refuses_play() {
    use damone::serve::Access;
    let access = Access::WatchOnly;
    for uri in ["/", "/api/run"] {
        assert_eq!(request(&access, uri, &[]).await.0, StatusCode::OK, "{uri}");
    }
    let (code, _, body) = request(&access, "/ws", &[]).await;
    assert_eq!(code, StatusCode::FORBIDDEN);
    assert!(body.contains("watch-only"), "{body}");
    // Access for a bind address: open on loopback, a token beyond it.
    let lo: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
    let any: std::net::SocketAddr = "0.0.0.0:8080".parse().unwrap();
    assert_eq!(Access::for_bind(lo, None, false), Ok(Access::Open));
    assert!(matches!(Access::for_bind(any, None, false), Ok(Access::Token(t)) if t.len() == 32));
    assert_eq!(Access::for_bind(any, None, true), Ok(Access::WatchOnly));
    assert!(Access::for_bind(any, Some("short".into()), false)
        .unwrap_err()
        .contains("16"));
    assert!(Access::for_bind(any, Some("0123456789abcdef".into()), true).is_err());
}

/// Under load: analyses beyond the queue's bound are turned away with a
/// "busy" message (not left hanging), games beyond the most the server
/// takes are refused, and a game with no message for the idle timeout is
/// closed with the reason.
#[tokio::test]
async fn busy_full_and_idle_are_answered_not_left_hanging() {
    let addr = start_server(ServeConfig {
        search_workers: 1,
        max_waiting: 1,
        max_sessions: 3,
        max_sims: 1_000_000,
        idle_timeout: Duration::from_secs(2),
        ..config()
    })
    .await;
    let url = format!("ws://{addr}/ws");
    let mut clients = Vec::new();
    for _ in 0..3 {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        send(
            &mut ws,
            json!({"type": "new", "opponent": "random", "color": "white"}),
        )
        .await;
        next(&mut ws, "state").await;
        clients.push(ws);
    }
    // A fourth game is refused while three are open.
    assert!(tokio_tungstenite::connect_async(&url).await.is_err());
    // The first analysis takes the one worker, the second waits, the third
    // is turned away at once. Each update comes after an eighth of the
    // simulations: 25,000 (a fraction of a second) keeps the first well
    // inside the other clients' idle timeout on a slow machine (125,000
    // took 2.7 s on one, and the clients waiting were closed).
    send(&mut clients[0], json!({"type": "analyse", "sims": 200_000})).await;
    next(&mut clients[0], "analysis").await;
    send(&mut clients[1], json!({"type": "analyse", "sims": 200_000})).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    send(&mut clients[2], json!({"type": "analyse", "sims": 64})).await;
    let busy = next(&mut clients[2], "busy").await;
    assert!(busy["message"].as_str().unwrap().contains("busy"), "{busy}");
    // Stopping the first lets the second run.
    send(&mut clients[0], json!({"type": "stop"})).await;
    next(&mut clients[1], "analysis").await;
    send(&mut clients[1], json!({"type": "stop"})).await;
    // A silent game is closed after the idle timeout, saying why; then a
    // new game may open.
    let idle = next(&mut clients[2], "error").await;
    assert!(
        idle["message"].as_str().unwrap().contains("without a message"),
        "{idle}"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(tokio_tungstenite::connect_async(&url).await.is_ok());
}

/// `--search-threads N` gives every network, alpha-beta and shipped opponent N
/// threads per search; the other players are listed as they were.
#[test]
fn search_threads_go_into_the_listed_specs() {
    let cfg = ServeConfig {
        search_threads: 2,
        ..config()
    };
    let list = player_list(&cfg);
    assert!(list.iter().any(|p| p.spec.starts_with("net:")), "{list:?}");
    for p in &list {
        let threaded = ["net:", "alphabeta:", "shipped:"]
            .iter()
            .any(|k| p.spec.starts_with(k));
        assert_eq!(p.spec.ends_with(",threads=2"), threaded, "{}", p.spec);
    }
}

/// A checkpoint with a learned evaluation (the tiny run's last) is also
/// offered as alpha-beta with that evaluation, and the spec listed loads.
#[test]
fn checkpoints_with_a_learned_evaluation_offer_alphabeta_with_it() {
    let list = player_list(&config());
    let learned: Vec<_> = list
        .iter()
        .filter(|p| p.spec.starts_with("alphabeta:eval="))
        .collect();
    assert_eq!(learned.len(), 1, "{list:?}");
    assert!(learned[0].spec.contains("iter_0002") && learned[0].label.contains("learned evaluation"));
    let (make, _) = damone::player::open::<damone::game::damone::Position>(
        &learned[0].spec,
        &damone::net::ComputeDevice::cpu(),
    )
    .unwrap();
    let mut player = make(1);
    let start = <damone::game::damone::Position as damone::game::GamePosition>::start(Default::default());
    let game = damone::game::Game::new(start, Default::default());
    let _ = player.choose(&game);
}
