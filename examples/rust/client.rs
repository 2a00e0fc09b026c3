//! An A2A client on a2a-wire: reads the card, picks an interface, sends a message and prints
//! the streamed answer; then runs a unary call on a clone of the same client.
//!
//! ```text
//! cargo run -p a2a-wire-examples --bin example-client -- http://127.0.0.1:7420 "hello there"
//! ```

use a2a_wire::card::ClientSupport;
use a2a_wire::v1;
use a2a_wire_smol::agent::{new_id, text_part};
use a2a_wire_smol::client::CallOptions;
use a2a_wire_smol::Client;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).unwrap_or_else(|| "http://127.0.0.1:7420".into());
    let text = std::env::args().nth(2).unwrap_or_else(|| "hello from rust".into());
    let token = std::env::var("EXAMPLE_TOKEN").unwrap_or_else(|_| "demo-token".into());
    smol::block_on(async {
        let (client, card) = Client::connect(&url, &ClientSupport::default()).await?;
        // Asked before every request: where a token would be refreshed.
        let client = client.with_header_provider(move || {
            let token = token.clone();
            async move { Ok(vec![(String::from("Authorization"), format!("Bearer {token}"))]) }
        });
        let iface = client.interface();
        println!("{} via {:?} {} at {}", card.name, iface.binding, iface.version, iface.url);
        let message =
            v1::Message { message_id: new_id(), role: v1::Role::User as i32, parts: vec![text_part(&text)], ..Default::default() };
        let mut stream = client.send_streaming_message(v1::SendMessageRequest { message: Some(message), ..Default::default() }).await?;
        while let Some(event) = stream.next().await {
            match event?.payload {
                Some(v1::stream_response::Payload::StatusUpdate(u)) => {
                    let state = u.status.map(|s| s.state).and_then(|s| v1::TaskState::try_from(s).ok()).unwrap_or_default();
                    println!("status {}", state.as_str_name());
                }
                Some(v1::stream_response::Payload::ArtifactUpdate(u)) => {
                    for p in u.artifact.map(|a| a.parts).unwrap_or_default() {
                        if let Some(v1::part::Content::Text(t)) = p.content {
                            println!("chunk {t}");
                        }
                    }
                }
                _ => {}
            }
        }
        let task = stream.task().task().clone();
        // A clone shares the connections; this call gets its own deadline.
        let again = client.with_call_options(CallOptions::timeout(Duration::from_secs(5)));
        let stored = again.get_task(v1::GetTaskRequest { id: task.id.clone(), ..Default::default() }).await?;
        let text: String = stored
            .artifacts
            .iter()
            .flat_map(|a| &a.parts)
            .filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None })
            .collect();
        println!("task {} has {:?}", stored.id, text.trim_end());
        Ok(())
    })
}
