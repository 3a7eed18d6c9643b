//! What the tests of the web page's server share: a server started on a
//! free loopback port, a WebSocket to it, and its messages sent and awaited.

use damone::serve::{serve, ServeConfig};
use damone::util::stop::Stop;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::net::SocketAddr;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// A WebSocket client connection.
pub type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Serve `cfg` on a free loopback port until `stop` is requested: the
/// address it listens on.
pub async fn start_server_until(cfg: ServeConfig, stop: Stop) -> SocketAddr {
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        serve(
            cfg,
            "127.0.0.1:0".parse().unwrap(),
            |a| {
                let _ = tx.send(a);
            },
            stop,
        )
        .await
        .unwrap();
    });
    rx.await.unwrap()
}

/// Serve `cfg` on a free loopback port for the rest of the test.
pub async fn start_server(cfg: ServeConfig) -> SocketAddr {
    start_server_until(cfg, Stop::new()).await
}

/// A WebSocket to the server at `addr` (`query`: the URL's query, e.g.
/// `?token=...`, or empty).
pub async fn connect(addr: SocketAddr, query: &str) -> Ws {
    tokio_tungstenite::connect_async(format!("ws://{addr}/ws{query}"))
        .await
        .unwrap()
        .0
}

/// Send one JSON message.
pub async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next message of type `kind`, skipping the others; an `error`
/// message while waiting for another kind fails the test.
pub async fn next(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(60), ws.next())
            .await
            .expect("a message in time")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == kind {
                return v;
            }
            assert_ne!(v["type"], "error", "waiting for '{kind}': {v}");
        }
    }
}
