//! The `a2a-wire` command as a newcomer uses it: `serve` with a file store, `send`, errors
//! with their A2A meaning, and a server killed mid-stream and restarted on the same store.

use a2a_wire::card::ClientSupport;
use a2a_wire::client::TaskTracker;
use a2a_wire::v1;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::Client;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::{free_addr, Served, BIN};

fn serve(addr: SocketAddr, store: &Path) -> Served {
    serve_with(addr, store, &[])
}

fn serve_with(addr: SocketAddr, store: &Path, extra: &[&str]) -> Served {
    let mut args: Vec<&std::ffi::OsStr> = vec!["--store".as_ref(), store.as_os_str()];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    common::serve_args(addr, &args)
}

fn temp_store(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("a2a-wire-cli-{}-{name}.db", std::process::id()));
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", p.display()));
    }
    p
}

/// A user message `id` with `text`, to task `task` ("" for a new one).
fn user_message(id: &str, text: &str, task: &str) -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: id.into(),
            role: v1::Role::User as i32,
            parts: vec![text_part(text)],
            task_id: task.into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn send_prints_the_echo_and_errors_keep_their_a2a_meaning() {
    let addr = free_addr();
    let store = temp_store("send");
    let _server = serve(addr, &store);
    let url = format!("http://{addr}");
    for binding in ["jsonrpc", "rest", "grpc"] {
        for version in ["1.0", "0.3"] {
            let (code, out, err) = run(&["send", &url, "hello", "world", "--binding", binding, "--version", version]);
            assert_eq!(code, 0, "{binding} {version}: {err}");
            assert!(out.contains("COMPLETED") && out.contains("artifact echo: hello world"), "{binding} {version}: {out}");
        }
    }
    let (code, out, _) = run(&["send", &url, "slow", "--stream"]);
    assert_eq!(code, 0);
    assert!(out.contains("artifact echo: one two three"), "{out}");
    let (code, _, err) = run(&["get", &url, "no-such-task"]);
    assert_eq!(code, 1, "an A2A error exits 1");
    assert!(err.contains("TaskNotFound") && err.contains("-32001"), "{err}");
    let (code, out, _) = run(&["send", &url, "hi", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["status"]["state"], "TASK_STATE_COMPLETED");
    let (code, _, err) = run(&["send", &url, "hi", "--binding", "carrier-pigeon"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["get", "http://127.0.0.1:1", "x"]);
    assert_eq!(code, 3, "an unreachable agent exits 3: {err}");
}

#[test]
fn bearer_tokens_are_required_and_each_principal_sees_only_its_tasks() {
    let dir = std::env::temp_dir().join(format!("a2a-wire-cli-{}-tokens", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "alice-token alice\nbob-token\n").unwrap();
    let (code, _, err) = run(&["serve", "--store", "memory", "--bearer-tokens", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "a bad token file is a usage error: {err}");
    assert!(err.contains("line 2"), "the error names the line: {err}");

    let tokens = dir.join("tokens.txt");
    std::fs::write(&tokens, "# TOKEN PRINCIPAL\nalice-token alice\nbob-token bob\n").unwrap();
    let addr = free_addr();
    let _server = serve_with(addr, Path::new("memory"), &["--bearer-tokens", tokens.to_str().unwrap()]);
    let url = format!("http://{addr}");
    let (code, out, _) = run(&["card", &url, "--json"]);
    assert_eq!(code, 0, "the public card needs no token");
    let card: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"], "Bearer", "{card}");
    assert_eq!(card["securityRequirements"][0]["schemes"]["bearer"], serde_json::json!({}), "{card}");
    for binding in ["jsonrpc", "rest", "grpc"] {
        for version in ["1.0", "0.3"] {
            let with = |token: &str| format!("Authorization: Bearer {token}");
            let (code, _, err) = run(&["send", &url, "hi", "--binding", binding, "--version", version]);
            assert_eq!(code, 1, "{binding} {version}: no token is an A2A error: {err}");
            assert!(err.contains("Unauthenticated"), "{binding} {version}: {err}");
            let (code, _, err) = run(&["send", &url, "hi", "--binding", binding, "--version", version, "--header", &with("guess")]);
            assert!(code == 1 && err.contains("Unauthenticated"), "{binding} {version}: an unknown token: {err}");
            let (code, out, err) =
                run(&["send", &url, "hi", "--binding", binding, "--version", version, "--header", &with("alice-token"), "--json"]);
            assert_eq!(code, 0, "{binding} {version}: {err}");
            let task: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
            let id = task["id"].as_str().unwrap();
            let flags = ["--binding", binding, "--version", version, "--header"];
            let (code, _, err) = run(&[&["get", &url, id], &flags[..], &[&with("bob-token")]].concat());
            assert!(code == 1 && err.contains("TaskNotFound"), "{binding} {version}: bob reads alice's task: {err}");
            let (code, out, err) = run(&[&["get", &url, id], &flags[..], &[&with("alice-token")]].concat());
            assert!(code == 0 && out.contains("COMPLETED"), "{binding} {version}: alice reads her task: {out} {err}");
        }
    }
    // A header that would end its line and write another field is a usage error, never sent.
    let (code, _, err) = run(&["send", &url, "hi", "--header", "Authorization: Bearer alice-token\r\nX-Injected: 1"]);
    assert!(code == 2 && err.contains("line break"), "{err}");
}

#[test]
fn serve_with_tls_answers_https_on_every_binding_and_reloads_a_renewed_certificate() {
    let dir = std::env::temp_dir().join(format!("a2a-wire-cli-{}-tls", std::process::id()));
    let first = a2a_wire_tests::testca::TestCa::local().unwrap();
    first.write(&dir).unwrap();
    let (cert, key, ca) = (dir.join("server.pem"), dir.join("server.key"), dir.join("ca.pem"));
    let (code, _, err) = run(&["serve", "--store", "memory", "--tls-cert", cert.to_str().unwrap()]);
    assert_eq!(code, 2, "a certificate without its key is a usage error: {err}");
    let addr = free_addr();
    let _server = serve_with(addr, Path::new("memory"), &["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()]);
    let url = format!("https://{addr}");
    let ca_arg = ["--ca-file", ca.to_str().unwrap()];
    let (code, out, err) = run(&[&["card", &url, "--json"], &ca_arg[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("\"https://{addr}/a2a/jsonrpc\"")) && out.contains(&format!("\"https://{addr}\"")), "{out}");
    for binding in ["jsonrpc", "rest", "grpc"] {
        for version in ["1.0", "0.3"] {
            let (code, out, err) = run(&[&["send", &url, "hello", "--binding", binding, "--version", version], &ca_arg[..]].concat());
            assert_eq!(code, 0, "{binding} {version}: {err}");
            assert!(out.contains("artifact echo: hello"), "{binding} {version}: {out}");
        }
    }
    let (code, _, err) = run(&["send", &url, "hello"]);
    assert_eq!(code, 3, "the platform's roots do not trust the test CA: {err}");
    assert!(err.contains("TLS"), "{err}");

    // A renewed certificate from another CA: the server reads the files again.
    let second = a2a_wire_tests::testca::TestCa::local().unwrap();
    let renewed = dir.join("renewed");
    second.write(&renewed).unwrap();
    std::fs::write(&cert, &second.server_cert_pem).unwrap();
    std::fs::write(&key, &second.server_key_pem).unwrap();
    let new_ca_file = renewed.join("ca.pem");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (code, _, err) = run(&["card", &url, "--ca-file", new_ca_file.to_str().unwrap()]);
        if code == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "the renewed certificate was not picked up: {err}");
        std::thread::sleep(Duration::from_millis(500));
    }
    let (code, _, err) = run(&[&["card", &url], &ca_arg[..]].concat());
    assert_eq!(code, 3, "the old CA no longer verifies the server: {err}");
}

#[test]
fn serve_with_tls_declares_push_notifications_and_delivers_them_to_an_https_receiver() {
    let dir = std::env::temp_dir().join(format!("a2a-wire-cli-{}-tls-push", std::process::id()));
    let server_ca = a2a_wire_tests::testca::TestCa::local().unwrap();
    let receiver_ca = a2a_wire_tests::testca::TestCa::local().unwrap();
    server_ca.write(&dir.join("server")).unwrap();
    receiver_ca.write(&dir.join("receiver")).unwrap();
    let receiver = a2a_wire_tests::testca::HttpsReceiver::start(&receiver_ca, None).unwrap();
    let addr = free_addr();
    let p = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let _server = serve_with(
        addr,
        Path::new("memory"),
        &[
            "--tls-cert",
            &p("server/server.pem"),
            "--tls-key",
            &p("server/server.key"),
            "--ca-file",
            &p("receiver/ca.pem"),
            "--allow-webhook",
            "127.0.0.1",
        ],
    );
    let tls = a2a_wire_smol::tls::ClientTls::from_ca_pem(server_ca.ca_pem.as_bytes()).unwrap();
    let options = a2a_wire_smol::ClientOptions { tls: Some(tls), ..Default::default() };
    smol::block_on(async {
        let support =
            ClientSupport { bindings: vec![a2a_wire::card::Binding::JsonRpc], versions: vec![a2a_wire::version::ProtocolVersion::V1_0] };
        let (client, card) = Client::connect_with(&format!("https://{addr}"), &support, options).await.unwrap();
        assert_eq!(card.capabilities.and_then(|c| c.push_notifications), Some(true), "the card declares push notifications");
        let message = |text: &str, task: &str| user_message(&format!("push-{text}-{task}"), text, task);
        let a2a_wire::client::Reply::Task(t) = client.send_message(message("need-input", "")).await.unwrap() else { panic!("a task") };
        let task_id = t.task().id.clone();
        let cfg = v1::TaskPushNotificationConfig {
            task_id: task_id.clone(),
            url: receiver.url.clone(),
            token: "t0k".into(),
            ..Default::default()
        };
        client.create_push_config(cfg).await.unwrap();
        client.send_message(message("go on", &task_id)).await.unwrap();
    });
    // Deliveries arrive over TLS, verified against --ca-file, until the completed one.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let got = receiver.requests.recv_timeout(left).expect("a webhook delivery within 20 s");
        let text = String::from_utf8_lossy(&got).to_string();
        assert!(text.to_ascii_lowercase().contains("a2a-notification-token: t0k"), "{text}");
        if text.contains("TASK_STATE_COMPLETED") {
            break;
        }
    }
}

#[test]
fn a_server_killed_mid_stream_loses_no_task_and_the_client_resubscribes() {
    let addr = free_addr();
    let store = temp_store("kill");
    let url = format!("http://{addr}");
    let mut server = serve(addr, &store);
    let (done_id, slow_id) = smol::block_on(async {
        let (client, _) = Client::connect(&url, &ClientSupport::default()).await.unwrap();
        let req = |text: &str, id: &str| user_message(id, text, "");
        let a2a_wire::client::Reply::Task(done) = client.send_message(req("kept", "m-kept")).await.unwrap() else { panic!() };
        let mut stream = client.send_streaming_message(req("slow", "m-slow")).await.unwrap();
        let Some(v1::stream_response::Payload::Task(t)) = stream.next().await.unwrap().unwrap().payload else { panic!("task first") };
        // Wait for the first chunk, so the kill lands in the middle of the run.
        loop {
            let ev = stream.next().await.unwrap().unwrap();
            if matches!(ev.payload, Some(v1::stream_response::Payload::ArtifactUpdate(_))) {
                break;
            }
        }
        (done.task().id.clone(), t.id)
    });
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    drop(server);

    let _server = serve(addr, &store);
    smol::block_on(async {
        let (client, _) = Client::connect(&url, &ClientSupport::default()).await.unwrap();
        let kept = client.get_task(v1::GetTaskRequest { id: done_id, ..Default::default() }).await.unwrap();
        assert_eq!(kept.status.unwrap().state, v1::TaskState::Completed as i32);
        let mid = client.get_task(v1::GetTaskRequest { id: slow_id.clone(), ..Default::default() }).await.unwrap();
        assert_eq!(mid.artifacts.len(), 1, "the chunk sent before the kill is kept");
        let mut stream = client.subscribe_to_task(v1::SubscribeToTaskRequest { id: slow_id.clone(), ..Default::default() }).await.unwrap();
        let mut tracker = TaskTracker::empty();
        while let Some(ev) = stream.next().await {
            tracker.on_event(&ev.unwrap(), a2a_wire_smol::server::now()).unwrap();
        }
        assert_eq!(tracker.state(), Some(v1::TaskState::Completed));
        let text: String = tracker.task().artifacts[0]
            .parts
            .iter()
            .filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None })
            .collect();
        assert_eq!(text, "one two three", "the resumed run continued after the last stored chunk");
    });
    let (code, out, _) = run(&["get", &url, &slow_id]);
    assert_eq!(code, 0);
    assert!(out.contains("COMPLETED"), "{out}");
}

#[test]
fn a_malicious_server_gets_a_clean_error_not_a_crash_and_a_dripping_one_times_out() {
    // A streaming answer with chunk size ffffffffffffffff made `send --stream` panic (exit
    // 101); now every hostile framing is a clean error and exit status 3.
    for scenario in ["huge-chunk", "overflow-chunk", "endless-head", "sse-3mb-line", "deep-json", "lying-length"] {
        let addr = a2a_wire_tests::hostile::start(scenario);
        let url = format!("http://{addr}");
        for extra in [&["--stream"][..], &[]] {
            let mut args = vec!["send", url.as_str(), "hi", "--timeout", "10"];
            args.extend_from_slice(extra);
            let (code, _, err) = run(&args);
            assert_eq!(code, 3, "{scenario} {extra:?}: {err}");
            assert!(!err.contains("panicked"), "{scenario}: {err}");
        }
    }
    let addr = a2a_wire_tests::hostile::start("drip");
    let started = Instant::now();
    let (code, _, err) = run(&["send", &format!("http://{addr}"), "hi", "--timeout", "2"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("timed out"), "{err}");
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(5), "{took:?}");
    let (code, _, err) = run(&["send", "http://127.0.0.1:1", "hi", "--timeout", "zero"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_webhook_delivery_the_receiver_failed_is_retried_after_a_kill_and_restart_and_taken_once() {
    use a2a_wire::webhook::receiver::{Delivery, Receiver};
    use std::sync::{mpsc, Arc, Mutex};
    let addr = free_addr();
    let store = temp_store("push-kill");
    let url = format!("http://{addr}");
    // The application behind the receiver helper: it fails on the first event it is given
    // (503: "retry later"), takes every other one.
    let helper = Arc::new(Mutex::new(Receiver::with_token("t0k")));
    let taken: Arc<Mutex<Vec<v1::StreamResponse>>> = Arc::default();
    let (failed_tx, failed_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let (h, t) = (helper.clone(), taken.clone());
    let mut failed_once = false;
    let receiver = a2a_wire_tests::receiver::PlainReceiver::start(move |req| {
        let Ok(mut rx) = h.lock() else { return 500 };
        let (verdict, response) = req.with_request(|r| rx.handle(r));
        match verdict {
            Ok(d @ Delivery::Event { .. }) if !failed_once => {
                failed_once = true;
                let _ = failed_tx.send(());
                rx.retry_later(&d).status
            }
            Ok(Delivery::Event { event, .. }) => {
                let completed = matches!(&event.payload, Some(v1::stream_response::Payload::StatusUpdate(u))
                    if u.status.as_ref().is_some_and(|s| s.state == v1::TaskState::Completed as i32));
                if let Ok(mut list) = t.lock() {
                    list.push(event);
                }
                if completed {
                    let _ = done_tx.send(());
                }
                response.status
            }
            _ => response.status,
        }
    })
    .unwrap();
    let mut server = serve_with(addr, &store, &["--allow-webhook", "127.0.0.1"]);
    let task_id = smol::block_on(async {
        let (client, _) = Client::connect(&url, &ClientSupport::default()).await.unwrap();
        let message = |text: &str, task: &str| user_message(&format!("push-kill-{text}"), text, task);
        let a2a_wire::client::Reply::Task(t) = client.send_message(message("need-input", "")).await.unwrap() else { panic!("a task") };
        let task_id = t.task().id.clone();
        if let Ok(mut rx) = helper.lock() {
            rx.expect_task(&task_id);
        }
        let cfg = v1::TaskPushNotificationConfig {
            task_id: task_id.clone(),
            url: receiver.url.clone(),
            token: "t0k".into(),
            ..Default::default()
        };
        client.create_push_config(cfg).await.unwrap();
        client.send_message(message("go on", &task_id)).await.unwrap();
        task_id
    });
    // The first attempt was answered 503; the retry is due in a few hundred milliseconds.
    failed_rx.recv_timeout(Duration::from_secs(20)).expect("a first delivery within 20 s");
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    drop(server);
    // The restarted server has the deliveries from its store and makes them again.
    let _server = serve_with(addr, &store, &["--allow-webhook", "127.0.0.1"]);
    done_rx.recv_timeout(Duration::from_secs(20)).expect("the completed event delivered after the restart");
    let taken = taken.lock().unwrap().clone();
    let digests: Vec<String> =
        taken.iter().map(|e| a2a_wire::codec::json::encode(e).map(|b| String::from_utf8_lossy(&b).to_string()).unwrap()).collect();
    let unique: std::collections::BTreeSet<&String> = digests.iter().collect();
    assert_eq!(unique.len(), digests.len(), "each event taken once: {digests:#?}");
    assert!(taken.len() >= 2, "the failed first event and the ones after it: {digests:#?}");
    assert!(digests.iter().all(|d| d.contains(&task_id)), "{digests:#?}");
    let last =
        taken
            .last()
            .and_then(|e| if let Some(v1::stream_response::Payload::StatusUpdate(u)) = &e.payload { u.status.clone() } else { None });
    assert_eq!(last.map(|s| s.state), Some(v1::TaskState::Completed as i32), "in order: the completed event last");
}

#[test]
fn serve_with_a_public_url_publishes_the_balancers_origin_and_refuses_a_path() {
    let addr = free_addr();
    let _server =
        common::serve_args(addr, &["--store".as_ref(), "memory".as_ref(), "--public-url".as_ref(), "https://agents.example/".as_ref()]);
    let card = smol::block_on(a2a_wire_smol::client::fetch_card(&format!("http://{addr}/.well-known/agent-card.json"))).unwrap().card;
    assert_eq!(card.supported_interfaces.len(), 6);
    for i in &card.supported_interfaces {
        assert!(i.url.starts_with("https://agents.example"), "{} {}: {}", i.protocol_binding, i.protocol_version, i.url);
        assert!(!i.url.contains(&addr.port().to_string()), "the replica's port leaked: {}", i.url);
    }
    let (code, _, err) =
        run(&["serve", "--addr", &free_addr().to_string(), "--store", "memory", "--public-url", "https://agents.example/a2a"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--public-url") && err.contains("the origin only"), "{err}");
}
