//! The two examples run as a user runs them: the server binary on a free port, the client
//! binary against it over each binding, and a client without the token is refused.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

struct Kill(std::process::Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_client_example_talks_to_the_server_example() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_example-server")).arg("127.0.0.1:0").stdout(Stdio::piped()).spawn().unwrap();
    let out = server.stdout.take().unwrap();
    let _server = Kill(server);
    let mut line = String::new();
    BufReader::new(out).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("listening on ").expect(&line).to_owned();
    let run = |token: &str| {
        Command::new(env!("CARGO_BIN_EXE_example-client")).args([&url, "make it loud"]).env("EXAMPLE_TOKEN", token).output().unwrap()
    };
    let ok = run("demo-token");
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&ok.stderr));
    assert!(stdout.starts_with("Shouter via JsonRpc 1.0"), "{stdout}");
    for want in ["status TASK_STATE_WORKING", "chunk MAKE ", "chunk LOUD ", "status TASK_STATE_COMPLETED", "has \"MAKE IT LOUD\""] {
        assert!(stdout.contains(want), "{want:?} in {stdout}");
    }
    let refused = run("wrong");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("send Authorization"), "the server's reason reaches the client: {stderr}");
}
