//! ML-KEM through OpenSSL 3.5's unchanged programs with Regula loaded (with `base` only, for
//! the TLS handshakes): TLS 1.3 on the ML-KEM groups and the hybrids of
//! draft-ietf-tls-ecdhe-mlkem between `openssl s_server` and `s_client`, each side Regula or
//! OpenSSL 3.5's own default provider (the independent peer, whose hybrids fix the order of the
//! halves), and `openssl pkeyutl -encap/-decap` across the two. Each Regula process writes its
//! CBOM, whose counters show ML-KEM (and the classical half) went through the module.
//!
//! Needs the OpenSSL 3.5 build of `scripts/openssl35` (`REGULA_OPENSSL35`, by default
//! ~/.cache/regula/openssl-3.5.4): without it these tests print why and pass, as the
//! OpenSSL 3.5 steps of scripts/test-ossl-provider skip.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;

/// OpenSSL 3.5's prefix, or None (with the reason printed) when it has not been built.
fn openssl35() -> Option<PathBuf> {
    let prefix = std::env::var_os("REGULA_OPENSSL35")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|home| PathBuf::from(home).join(".cache/regula/openssl-3.5.4"))
        })?;
    if prefix.join("bin/openssl").exists() && prefix.join("lib/libcrypto.so.3").exists() {
        Some(prefix)
    } else {
        eprintln!(
            "skipped: no OpenSSL 3.5 build in {} (scripts/openssl35 makes one); the ML-KEM TLS \
             groups need libssl 3.5",
            prefix.display()
        );
        None
    }
}

/// The configurations a process is started with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    /// Regula under the default policy, with `base`.
    Regula,
    /// Regula under fips-140-3 with `default_properties = fips=yes`, with `base`.
    RegulaFips,
    /// OpenSSL 3.5's default provider alone.
    Peer,
    /// Regula preferred (`?provider=regula`) beside the default provider, which reads and
    /// writes the key files.
    RegulaWithDefault,
}

struct Setup {
    openssl: PathBuf,
    lib: PathBuf,
    dir: PathBuf,
}

impl Setup {
    fn new(test: &str) -> Option<Setup> {
        let prefix = openssl35()?;
        Some(Setup {
            openssl: prefix.join("bin/openssl"),
            lib: prefix.join("lib"),
            dir: common::provider_dir(test),
        })
    }

    /// Writes the configuration of `side` as `name`.cnf, its CBOM going to `name`.json.
    fn config(&self, side: Side, name: &str) -> PathBuf {
        let regula = |policy: &str, extra: &str, others: &str| {
            format!(
                "openssl_conf = openssl_init\n\
                 [openssl_init]\nproviders = provider_sect\n{alg}\
                 [provider_sect]\nregula = regula_sect\n{others}\
                 [regula_sect]\nmodule = {module}\n{policy}cbom = {cbom}\nactivate = 1\n\
                 [other_sect]\nactivate = 1\n{extra}",
                alg = if extra.is_empty() {
                    ""
                } else {
                    "alg_section = algorithm_sect\n"
                },
                module = self.dir.join("regula.so").display(),
                cbom = self.dir.join(format!("{name}.json")).display(),
            )
        };
        let text = match side {
            // No `policy =` line: the provider's default is the default policy (and OpenSSL
            // 3.5 would read `default` as a reference to the configuration's default section).
            Side::Regula => regula("", "", "base = other_sect\n"),
            Side::RegulaFips => regula(
                "policy = fips-140-3\n",
                "[algorithm_sect]\ndefault_properties = fips=yes\n",
                "base = other_sect\n",
            ),
            Side::RegulaWithDefault => regula(
                "",
                "[algorithm_sect]\ndefault_properties = ?provider=regula\n",
                "default = other_sect\n",
            ),
            Side::Peer => "openssl_conf = openssl_init\n[openssl_init]\nproviders = p\n\
                           [p]\ndefault = d\n[d]\nactivate = 1\n"
                .to_owned(),
        };
        let path = self.dir.join(format!("{name}.cnf"));
        let _ = std::fs::remove_file(self.dir.join(format!("{name}.json")));
        std::fs::write(&path, text).expect("configuration");
        path
    }

    fn command(&self, config: &Path) -> Command {
        let mut command = Command::new("timeout");
        command
            .arg("30")
            .arg(&self.openssl)
            .env("LD_LIBRARY_PATH", &self.lib)
            .env("OPENSSL_CONF", config)
            .env_remove("OPENSSL_MODULES");
        command
    }

    fn run(&self, config: &Path, args: &[&str]) -> Output {
        let output = self
            .command(config)
            .args(args)
            .current_dir(&self.dir)
            .output()
            .expect("openssl");
        assert!(
            output.status.success(),
            "openssl {args:?} with {config:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// A P-256 certificate and key made by the system's OpenSSL with its default provider.
    fn certificate(&self) -> (PathBuf, PathBuf) {
        let (cert, key) = (self.dir.join("cert.pem"), self.dir.join("key.pem"));
        let made = Command::new("openssl")
            .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
            .args(["ec_paramgen_curve:P-256", "-nodes", "-days", "2"])
            .args(["-subj", "/CN=localhost"])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .env_remove("OPENSSL_CONF")
            .output()
            .expect("the system's openssl program (Debian package openssl)");
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        (cert, key)
    }

    /// One TLS 1.3 handshake on `group` (each side offering only it) and an HTTP request:
    /// s_client's report (stderr and stdout) and whether the page came back.
    fn handshake(&self, group: &str, server: (Side, &str), client: (Side, &str)) -> (String, bool) {
        let (cert, key) = self.certificate();
        let server_config = self.config(server.0, server.1);
        let client_config = self.config(client.0, client.1);
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let mut server = self
            .command(&server_config)
            .args(["s_server", "-naccept", "1", "-tls1_3", "-www"])
            .args(["-accept", &format!("127.0.0.1:{port}"), "-groups", group])
            .arg("-cert")
            .arg(&cert)
            .arg("-key")
            .arg(&key)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("openssl s_server");
        // s_server prints ACCEPT once it listens (a probe would use up -naccept 1).
        let mut server_out = std::io::BufReader::new(server.stdout.take().unwrap());
        let mut server_text = String::new();
        while !server_text.contains("ACCEPT") {
            let read = server_out.read_line(&mut server_text).unwrap();
            assert!(read > 0, "s_server ended before listening: {server_text}");
        }
        let mut client = self
            .command(&client_config)
            .args(["s_client", "-tls1_3", "-ign_eof", "-verify_return_error"])
            .args(["-connect", &format!("127.0.0.1:{port}"), "-groups", group])
            .arg("-CAfile")
            .arg(&cert)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("openssl s_client");
        client
            .stdin
            .take()
            .unwrap()
            .write_all(b"GET / HTTP/1.0\r\n\r\n")
            .unwrap();
        let client = client.wait_with_output().unwrap();
        // After its one connection s_server exits (and writes its CBOM); one whose handshake
        // failed waits for another: end it (TERM to `timeout`, which passes it on).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while server.try_wait().ok().flatten().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if server.try_wait().ok().flatten().is_none() {
            let _ = Command::new("kill").arg(server.id().to_string()).status();
        }
        let _ = std::io::Read::read_to_string(&mut server_out, &mut server_text);
        let server = server.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&client.stdout);
        let report = format!(
            "client: {}{stdout}\nserver: {server_text}{}",
            String::from_utf8_lossy(&client.stderr),
            String::from_utf8_lossy(&server.stderr)
        );
        (report, stdout.contains("HTTP/1.0 200 ok"))
    }

    /// `(operations of `service` on `row`, not-approved operations of any row)` in the CBOM
    /// the process configured as `name` wrote.
    fn counts(&self, name: &str, row: &str, service: &str) -> (u64, u64) {
        let path = self.dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let document: serde_json::Value = serde_json::from_str(&text).expect("CBOM is JSON");
        let (mut used, mut not_approved) = (0, 0);
        for component in document["components"].as_array().into_iter().flatten() {
            let property = |name: &str| {
                component["properties"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|p| p["name"] == name)
                    .and_then(|p| p["value"].as_str()?.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            not_approved += property("regula:operations:not-approved");
            if component["bom-ref"] == format!("crypto/algorithm/{row}") {
                used = property(&format!("regula:operations:{service}"));
            }
        }
        (used, not_approved)
    }
}

fn negotiated(report: &str, group: &str) -> bool {
    report.contains(&format!("Negotiated TLS1.3 group: {group}\n"))
}

/// X25519MLKEM768 and MLKEM768 under the default policy: Regula on both sides, and Regula
/// against OpenSSL 3.5's default provider in both roles. The server encapsulates, the client
/// decapsulates; the hybrid's X25519 half is counted too.
#[test]
fn ml_kem_groups_with_regula_and_openssl_default_provider() {
    let Some(setup) = Setup::new("mlkem-tls") else {
        return;
    };
    for (group, kem) in [
        ("X25519MLKEM768", "ml-kem-768"),
        ("MLKEM768", "ml-kem-768"),
        ("SecP384r1MLKEM1024", "ml-kem-1024"),
    ] {
        for (server, client) in [
            (Side::Regula, Side::Regula),
            (Side::Regula, Side::Peer),
            (Side::Peer, Side::Regula),
        ] {
            let (report, served) = setup.handshake(group, (server, "server"), (client, "client"));
            let context = format!("{group}, server {server:?}, client {client:?}:\n{report}");
            assert!(negotiated(&report, group), "{context}");
            assert!(served, "{context}");
            if server == Side::Regula {
                let (encapsulated, _) = setup.counts("server", kem, "encapsulate");
                assert!(
                    encapsulated >= 1,
                    "no {kem} encapsulation counted: {context}"
                );
            }
            if client == Side::Regula {
                let (generated, _) = setup.counts("client", kem, "key-generation");
                let (decapsulated, _) = setup.counts("client", kem, "decapsulate");
                assert!(
                    generated >= 1 && decapsulated >= 1,
                    "no {kem} key generation and decapsulation counted: {context}"
                );
                if group == "X25519MLKEM768" {
                    let (agreed, _) = setup.counts("client", "x25519", "key-agreement");
                    assert!(agreed >= 1, "no X25519 agreement counted: {context}");
                }
            }
        }
    }
}

/// Under fips-140-3 (`default_properties = fips=yes`) SecP256r1MLKEM768 against the default
/// provider in both roles, with nothing counted as not approved; X25519MLKEM768 is not offered
/// (the policy does not serve X25519), so a Regula client asking only for it cannot connect.
#[test]
fn secp256r1mlkem768_under_fips_140_3() {
    let Some(setup) = Setup::new("mlkem-tls-fips") else {
        return;
    };
    let group = "SecP256r1MLKEM768";
    for (server, client) in [
        (Side::RegulaFips, Side::Peer),
        (Side::Peer, Side::RegulaFips),
    ] {
        let (report, served) = setup.handshake(group, (server, "server"), (client, "client"));
        let context = format!("server {server:?}, client {client:?}:\n{report}");
        assert!(negotiated(&report, group), "{context}");
        assert!(served, "{context}");
        let (name, service) = if server == Side::RegulaFips {
            ("server", "encapsulate")
        } else {
            ("client", "decapsulate")
        };
        let (used, not_approved) = setup.counts(name, "ml-kem-768", service);
        assert!(used >= 1, "no ml-kem-768 {service} counted: {context}");
        let (agreed, _) = setup.counts(name, "ecdh-p256", "key-agreement");
        assert!(agreed >= 1, "no P-256 agreement counted: {context}");
        assert_eq!(not_approved, 0, "not approved: {context}");
    }
    let (report, served) = setup.handshake(
        "X25519MLKEM768",
        (Side::Peer, "server"),
        (Side::RegulaFips, "client"),
    );
    assert!(
        !served && !negotiated(&report, "X25519MLKEM768"),
        "X25519MLKEM768 under fips-140-3: {report}"
    );
}

/// `openssl pkeyutl -encap` with Regula to a key the default provider made, `-decap` with
/// the default provider, and the other way round: the same secret each time, and Regula's
/// CBOM counts the encapsulation and the decapsulation.
#[test]
fn pkeyutl_encapsulation_round_trips_with_the_default_provider() {
    let Some(setup) = Setup::new("mlkem-pkeyutl") else {
        return;
    };
    let peer = setup.config(Side::Peer, "peer");
    for (algorithm, row) in [("ML-KEM-768", "ml-kem-768"), ("ML-KEM-1024", "ml-kem-1024")] {
        setup.run(
            &peer,
            &["genpkey", "-algorithm", algorithm, "-out", "priv.pem"],
        );
        setup.run(
            &peer,
            &["pkey", "-in", "priv.pem", "-pubout", "-out", "pub.pem"],
        );
        // Regula encapsulates, the default provider decapsulates.
        let regula = setup.config(Side::RegulaWithDefault, "encap");
        setup.run(
            &regula,
            &[
                "pkeyutl", "-encap", "-inkey", "pub.pem", "-pubin", "-out", "ct1", "-secret", "ss1",
            ],
        );
        setup.run(
            &peer,
            &[
                "pkeyutl", "-decap", "-inkey", "priv.pem", "-in", "ct1", "-secret", "ss1-peer",
            ],
        );
        // The default provider encapsulates, Regula decapsulates (the key imported from the
        // default provider's seed and private key).
        setup.run(
            &peer,
            &[
                "pkeyutl", "-encap", "-inkey", "pub.pem", "-pubin", "-out", "ct2", "-secret", "ss2",
            ],
        );
        let regula_decap = setup.config(Side::RegulaWithDefault, "decap");
        setup.run(
            &regula_decap,
            &[
                "pkeyutl",
                "-decap",
                "-inkey",
                "priv.pem",
                "-in",
                "ct2",
                "-secret",
                "ss2-regula",
            ],
        );
        let read = |name: &str| std::fs::read(setup.dir.join(name)).expect(name);
        assert_eq!(read("ss1").len(), 32, "{algorithm}");
        assert_eq!(
            read("ss1"),
            read("ss1-peer"),
            "{algorithm}: Regula's encapsulation"
        );
        assert_eq!(
            read("ss2"),
            read("ss2-regula"),
            "{algorithm}: Regula's decapsulation"
        );
        assert_eq!(
            setup.counts("encap", row, "encapsulate").0,
            1,
            "{algorithm}"
        );
        // The import of the private key runs its pairwise test (an encapsulation and a
        // decapsulation, as OpenSSL's key manager does), then pkeyutl decapsulates.
        assert!(
            setup.counts("decap", row, "decapsulate").0 >= 1,
            "{algorithm}"
        );
    }
}
