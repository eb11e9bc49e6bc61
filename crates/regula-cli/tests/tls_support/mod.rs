//! What the TLS interop tests share: running `regula`, issuing certificates for a policy, a
//! `regula tls serve` on a free port, and feeding a peer's command line.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

/// `regula ARGS`, never with a self-test break switch inherited from the environment.
pub fn regula(args: &[&str]) -> Command {
    let mut command = Command::new(REGULA);
    command.args(args).env_remove("REGULA_BREAK_SELFTEST");
    command
}

/// `regula tls certgen --policy POLICY` into a temporary directory: (dir, ca, cert, key); the
/// client certificate and key are `client.pem` and `client.key` beside them.
pub fn certgen(policy: &str) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let output = regula(&["tls", "certgen", "--policy", policy, "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = |name: &str| dir.path().join(name);
    let (ca, cert, key) = (path("ca.pem"), path("server.pem"), path("server.key"));
    (dir, ca, cert, key)
}

/// Spawns a `regula tls serve|proxy` listening on port 0 and reads its one stdout line,
/// `listening 127.0.0.1:PORT`: the child and the port it bound.
pub fn spawn_listening(command: &mut Command) -> (Child, u16) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("listening 127.0.0.1:")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .parse()
        .unwrap();
    (child, port)
}

/// SIGTERM to a `regula tls serve|proxy`, then its exit status and everything it wrote on
/// stderr; `what` names it if it outlives `patience`.
pub fn terminate(child: &mut Child, patience: Duration, what: &str) -> (i32, String) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + patience;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "{what} ignored SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    (status.code().unwrap_or(-1), log)
}

/// `regula tls serve` on a free port; killed on drop if not stopped.
pub struct Server {
    child: Child,
    pub port: u16,
}

impl Server {
    /// `mode` is `--echo`, `--http` or `--discard`.
    pub fn start(policy: &str, cert: &Path, key: &Path, mode: &str) -> Server {
        Server::start_with(policy, cert, key, &[mode])
    }

    /// `regula tls serve` with further arguments (a mode among them).
    pub fn start_with(policy: &str, cert: &Path, key: &Path, args: &[&str]) -> Server {
        let mut command = regula(&[
            "tls",
            "serve",
            "--policy",
            policy,
            "--listen",
            "127.0.0.1:0",
        ]);
        command
            .args(args)
            .arg("--cert")
            .arg(cert)
            .arg("--key")
            .arg(key);
        let (child, port) = spawn_listening(&mut command);
        Server { child, port }
    }

    /// Sends a signal (`HUP`, `TERM`, ...) to the server (not every test binary uses it).
    #[allow(dead_code)]
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// SIGTERM, then the exit status and everything the server wrote on stderr.
    pub fn stop(mut self) -> (i32, String) {
        terminate(&mut self.child, Duration::from_secs(20), "server")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `command` with `stdin` as its input, collecting its output.
pub fn with_stdin(mut command: Command, stdin: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// stdout then stderr, as one string to search.
pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A free loopback port for a peer server (released just before the peer binds it).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
