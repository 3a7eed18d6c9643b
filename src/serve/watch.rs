//! Watching a run folder: its rows so far (`/api/run`), then new rows and
//! the live self-play game as server-sent events (`/api/run/events`).

use super::messages::{board, cell_numbers, PieceMsg};
use super::{error, AppState};
use crate::game::interface::parse_stored_variant;
use crate::game::GamePosition;
use crate::player::rate::RatingRow;
use crate::run::{read_rows, EvalRow, Metrics, RunDir};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The run's rows so far: metrics, evaluations, ratings (if a checkpoint
/// tournament wrote them into the run folder), the rating protocol's rows
/// (`rating.csv`, from `damone rate`) and the live game.
pub(super) async fn run_snapshot(State(st): State<Arc<AppState>>) -> Response {
    let Some(run) = st.cfg.run.clone() else {
        return Json(json!({ "run": null })).into_response();
    };
    let dir = RunDir::new(&run);
    let metrics: Vec<Metrics> = read_rows(&dir.metrics_path()).unwrap_or_default();
    let evals: Vec<EvalRow> = read_rows(&dir.evals_path()).unwrap_or_default();
    let ratings = std::fs::read_to_string(run.join("ratings_by_iteration.csv")).ok();
    // Each row with the curve it belongs to, named as the library's charts
    // name it (`RatingRow::series_name`).
    let protocol: Vec<Value> = read_rows::<RatingRow>(&run.join("rating.csv"))
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let series = r.series_name();
            let mut row = json!(r);
            row["series"] = json!(series);
            row
        })
        .collect();
    Json(json!({
        "run": run.file_name().map(|n| n.to_string_lossy().into_owned()),
        "metrics": metrics,
        "evals": evals,
        "ratings_csv": ratings,
        "protocol": protocol,
        "live": read_live(&run),
    }))
    .into_response()
}

fn read_live(run: &Path) -> Option<Value> {
    let live = RunDir::new(run).live()?;
    let (fen, variant) = (live.fen.as_str(), live.variant.as_str());
    let (board, numbers) =
        crate::with_game!(live.game.kind().ok()?, P => (live_board::<P>(fen, variant)?, cell_numbers::<P>()));
    Some(json!({
        "game": live.game.name(),
        "fen": fen,
        "board": board,
        "numbers": numbers,
        "ply": live.ply,
        "iteration": live.iteration,
    }))
}

/// The board of the live game's position, if its FEN reads in its game.
fn live_board<P: GamePosition>(fen: &str, variant: &str) -> Option<Vec<PieceMsg>> {
    let variant = parse_stored_variant::<P>(variant).ok()?;
    Some(board(&P::from_setup(fen, variant).ok()?))
}

/// New metrics and evaluation rows as server-sent events (id = the
/// iteration; `Last-Event-ID` resumes after it), and the live game when it
/// changes.
pub(super) async fn run_events(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let Some(run) = st.cfg.run.clone() else {
        return error(
            StatusCode::NOT_FOUND,
            "no run folder: start the server with --run DIR",
        );
    };
    let mut after: u32 = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let poll = st.cfg.poll;
    let (tx, rx) = mpsc::channel::<Result<SseEvent, Infallible>>(64);
    tokio::spawn(async move {
        let dir = RunDir::new(&run);
        let mut live_seen = String::new();
        loop {
            let metrics: Vec<Metrics> = read_rows(&dir.metrics_path()).unwrap_or_default();
            let evals: Vec<EvalRow> = read_rows(&dir.evals_path()).unwrap_or_default();
            let mut newest = after;
            for m in metrics.iter().filter(|m| m.iteration > after) {
                let evs: Vec<&EvalRow> = evals.iter().filter(|e| e.iteration == m.iteration).collect();
                let data = json!({ "metrics": m, "evals": evs }).to_string();
                let ev = SseEvent::default()
                    .event("iteration")
                    .id(m.iteration.to_string())
                    .data(data);
                if tx.send(Ok(ev)).await.is_err() {
                    return;
                }
                newest = newest.max(m.iteration);
            }
            after = newest;
            if let Some(live) = read_live(&run) {
                let text = live.to_string();
                if text != live_seen {
                    if tx
                        .send(Ok(SseEvent::default().event("live").data(text.clone())))
                        .await
                        .is_err()
                    {
                        return;
                    }
                    live_seen = text;
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(poll) => {}
                _ = tx.closed() => return,
            }
        }
    });
    Sse::new(tokio_stream::wrappers::ReceiverStream::new(rx))
        .keep_alive(KeepAlive::default())
        .into_response()
}
