//! `a2a-wire-testca DIR`: a throwaway CA, a server certificate for 127.0.0.1, ::1 and
//! localhost, and a client certificate, written as PEM files into DIR (`ca.pem`,
//! `server.pem`, `server.key`, `client.pem`, `client.key`) for the TLS tests of every
//! binding. Exit status 2 on bad arguments, 1 when the files cannot be made.

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir] = args.as_slice() else {
        eprintln!("usage: a2a-wire-testca DIR");
        return std::process::ExitCode::from(2);
    };
    match a2a_wire_tests::testca::TestCa::local().and_then(|ca| ca.write(std::path::Path::new(dir)).map_err(|e| e.to_string())) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("a2a-wire-testca: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
