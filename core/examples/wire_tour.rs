//! A tour of what the a2a-wire core does with real wire data (`make demo`).

use a2a_wire::v03::{self, ToV03, ToV1};
use a2a_wire::{codec, v1};

fn show(title: &str, bytes: &[u8]) {
    println!("{title}\n  {}\n", String::from_utf8_lossy(bytes));
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. A v0.3 task, as a v0.3 server sends it on JSON-RPC.
    let v03_task = br#"{"kind":"task","id":"t-1","contextId":"c-1",
        "status":{"state":"input-required","timestamp":"2025-04-02T16:59:45+02:00"},
        "history":[{"kind":"message","messageId":"m-1","role":"user",
                    "parts":[{"kind":"file","file":{"bytes":"aGVsbG8","mimeType":"text/plain","name":"a.txt"}}]}]}"#;
    show("v0.3 task on the wire:", v03_task);
    let task: v03::Task = v03::decode(v03_task)?;
    let converted = task.to_v1()?;
    show("the same task as v1.0 ProtoJSON (state, part and timestamp translated):", &codec::json::encode(&converted.value)?);
    println!("losses: {:?}\n", converted.losses.iter().map(|l| l.to_string()).collect::<Vec<_>>());

    // 2. The classic outage: a v1.0 state name given to a v0.3 decoder is refused, not
    //    misread (and the reverse).
    let wrong = br#"{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}"#;
    println!("v0.3 decoder given a v1.0 state name:\n  {}\n", v03::decode::<v03::Task>(wrong).unwrap_err());
    let wrong = br#"{"id":"t-1","status":{"state":"completed"}}"#;
    println!("v1.0 decoder given a v0.3 state name:\n  {}\n", codec::json::decode::<v1::Task>(wrong).unwrap_err());

    // 3. REQUIRED fields are checked with the JSON path of the culprit.
    let bad = br#"{"message":{"messageId":"m-2","role":"ROLE_USER","parts":[{"text":"hi"},{"mediaType":"text/plain"}]}}"#;
    println!("SendMessageRequest with an empty part:\n  {}\n", codec::json::decode::<v1::SendMessageRequest>(bad).unwrap_err());

    // 4. Lossy translations are reported, never silent.
    let v1_part = br#"{"data":[1,2,3],"mediaType":"application/json"}"#;
    let part: v1::Part = codec::json::decode(v1_part)?;
    let back = part.to_v03()?;
    show("v1.0 part whose data is an array, translated for a v0.3 peer:", &v03::encode(&back.value)?);
    println!("losses: {:?}", back.losses.iter().map(|l| l.to_string()).collect::<Vec<_>>());
    Ok(())
}
