//! Differential tests of the SMB3 and legacy algorithms against independent implementations:
//! GnuTLS 3.7 (the library Samba calls for SMB3 signing/encryption and NTLM/netlogon), through
//! the small C helper `tests/peers/gnutls_peer.c` compiled here with `cc` and `pkg-config gnutls`
//! (Debian `libgnutls28-dev`, installed by `scripts/setup-test`), and the OpenSSL 3 CLI for MD4,
//! which GnuTLS does not offer (`openssl dgst -md4 -provider legacy -provider default`).
//!
//! For random keys, nonces, AADs and messages of a dozen lengths from 0 to 64 KiB, Regula's
//! output must equal the peer's byte for byte, and Regula must decrypt/verify what the peer
//! produced: AES-128/256-CCM (16-byte tag with 11-, 12- and 13-byte nonces, 8-byte tag with 11-
//! and 13-byte nonces), AES-128/256-GCM, AES-128/256-GMAC (12- and 16-byte nonces),
//! AES-128/256-CMAC, AES-256-XTS, AES-128/256-CFB8, RC4 (128-bit keys), DES-CBC, 3DES-CBC,
//! MD4, MD5, HMAC-MD5. Inputs come from a fixed-seed generator, so a failure reproduces.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use regula::{Algorithm, Module, Policy, Profile};

/// Message lengths: the edges of one AES block, a page, and SMB3's largest common transform.
const LENGTHS: [usize; 12] = [0, 1, 15, 16, 17, 31, 64, 255, 1000, 4095, 4096, 65536];

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny fixed-seed generator for test inputs.
struct TestRng(u64);

impl TestRng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }
}

/// Compiles the GnuTLS helper once per test binary run.
fn peer_binary() -> &'static PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/gnutls_peer.c");
        let output = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gnutls_peer");
        let flags = Command::new("pkg-config")
            .args(["--cflags", "--libs", "gnutls"])
            .output()
            .expect("pkg-config runs (scripts/setup-test installs it)");
        assert!(
            flags.status.success(),
            "pkg-config finds no gnutls: install libgnutls28-dev (scripts/setup-test does)"
        );
        let flags = String::from_utf8(flags.stdout).expect("utf-8");
        let status = Command::new("cc")
            .args(["-O2", "-Wall", "-Werror", "-o"])
            .arg(&output)
            .arg(&source)
            .args(flags.split_whitespace())
            .status()
            .expect("cc runs");
        assert!(status.success(), "compiling {}", source.display());
        output
    })
}

/// One running GnuTLS helper: a request line in, a result line out.
struct GnuTls {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl GnuTls {
    fn start() -> GnuTls {
        let mut child = Command::new(peer_binary())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("gnutls peer starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        GnuTls {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends `op` with its arguments (byte strings in hex, numbers as they are).
    fn call(&mut self, op: &str, args: &[Arg]) -> Vec<u8> {
        let mut line = op.to_string();
        for arg in args {
            line.push(' ');
            match arg {
                Arg::Bytes([]) => line.push('-'),
                Arg::Bytes(bytes) => line.push_str(&hex::encode(bytes)),
                Arg::Number(number) => line.push_str(&number.to_string()),
            }
        }
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .expect("write to peer");
        self.stdin.flush().expect("flush peer");
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).expect("read from peer");
        let answer = answer.trim();
        assert!(
            !answer.starts_with("ERR") && !answer.is_empty(),
            "GnuTLS refused {op}: {answer}"
        );
        if answer == "-" {
            Vec::new()
        } else {
            hex::decode(answer).expect("peer answers hex")
        }
    }
}

impl Drop for GnuTls {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

enum Arg<'a> {
    Bytes(&'a [u8]),
    Number(usize),
}
use Arg::{Bytes, Number};

/// Under `default` every algorithm here is served (the legacy ones flagged not approved).
fn module() -> Module {
    let module = Module::load(Policy::builtin(Profile::Default));
    assert!(module.failed_test().is_none(), "self-tests pass");
    module
}

/// Sets each byte's low bit for odd parity, as DES keys are written (FIPS 46-3 §2).
fn des_parity(mut key: Vec<u8>) -> Vec<u8> {
    for byte in &mut key {
        *byte = (*byte & 0xfe) | u8::from((*byte >> 1).count_ones() % 2 == 0);
    }
    key
}

#[track_caller]
fn same(what: &str, regula: &[u8], peer: &[u8]) {
    assert!(
        regula == peer,
        "{what}: Regula and the peer differ (Regula {} bytes, peer {} bytes; first bytes {} vs {})",
        regula.len(),
        peer.len(),
        hex::encode(&regula[..regula.len().min(32)]),
        hex::encode(&peer[..peer.len().min(32)])
    );
}

#[test]
fn aes_ccm_and_gcm_match_gnutls() {
    let module = module();
    let mut gnutls = GnuTls::start();
    let mut rng = TestRng(0x5342_3343_434d_0001);
    let mut checked = 0;
    for len in LENGTHS {
        for (algorithm, key_len) in [(Algorithm::Aes128Ccm, 16), (Algorithm::Aes256Ccm, 32)] {
            // (nonce length, tag length): SMB3's (11, 16), then 12 and 13 bytes, and the 8-byte
            // tag of RFC 4309.
            for (nonce_len, tag_len) in [(11, 16), (12, 16), (13, 16), (11, 8), (13, 8)] {
                let what = format!("{algorithm} nonce {nonce_len} tag {tag_len} len {len}");
                let key_bytes = rng.bytes(key_len);
                let nonce = rng.bytes(nonce_len);
                let aad_len = rng.below(80);
                let aad = rng.bytes(aad_len);
                let plaintext = rng.bytes(len);
                let key = module
                    .aead_key_with_tag_len(algorithm, &key_bytes, tag_len)
                    .expect("CCM key");
                // SP 800-38C §A.1: a 13-byte nonce leaves 2 length bytes, so < 65536 bytes.
                if nonce_len == 13 && len >= 1 << 16 {
                    assert!(
                        key.seal_with_nonce(&nonce, &aad, &plaintext).is_err(),
                        "{what}: longer than the 2-byte length field allows"
                    );
                    continue;
                }
                let sealed = key
                    .seal_with_nonce(&nonce, &aad, &plaintext)
                    .expect("CCM seal")
                    .into_value();
                let peer = gnutls.call(
                    "ccm",
                    &[
                        Bytes(&key_bytes),
                        Bytes(&nonce),
                        Bytes(&aad),
                        Bytes(&plaintext),
                        Number(tag_len),
                    ],
                );
                same(&what, &sealed, &peer);
                let opened = key.open(&nonce, &aad, &peer).expect("open GnuTLS's");
                same(&what, &opened, &plaintext);
                checked += 1;
            }
        }
        for (algorithm, key_len) in [(Algorithm::Aes128Gcm, 16), (Algorithm::Aes256Gcm, 32)] {
            let what = format!("{algorithm} len {len}");
            let key_bytes = rng.bytes(key_len);
            let nonce = rng.bytes(12);
            let aad_len = rng.below(80);
            let aad = rng.bytes(aad_len);
            let plaintext = rng.bytes(len);
            let key = module.aead_key(algorithm, &key_bytes).expect("GCM key");
            let sealed = key
                .seal_with_nonce(&nonce, &aad, &plaintext)
                .expect("GCM seal")
                .into_value();
            let peer = gnutls.call(
                "gcm",
                &[
                    Bytes(&key_bytes),
                    Bytes(&nonce),
                    Bytes(&aad),
                    Bytes(&plaintext),
                ],
            );
            same(&what, &sealed, &peer);
            let opened = key.open(&nonce, &aad, &peer).expect("open GnuTLS's");
            same(&what, &opened, &plaintext);
            checked += 1;
        }
    }
    assert_eq!(checked, LENGTHS.len() * 12 - 4);
}

#[test]
fn aes_gmac_and_cmac_match_gnutls() {
    let module = module();
    let mut gnutls = GnuTls::start();
    let mut rng = TestRng(0x5342_3343_4d41_0002);
    for len in LENGTHS {
        for (algorithm, key_len) in [(Algorithm::Aes128Gmac, 16), (Algorithm::Aes256Gmac, 32)] {
            // SMB 3.1.1 signing uses a 12-byte nonce; GMAC takes others too (SP 800-38D).
            for nonce_len in [12, 16] {
                let what = format!("{algorithm} nonce {nonce_len} len {len}");
                let key_bytes = rng.bytes(key_len);
                let nonce = rng.bytes(nonce_len);
                let data = rng.bytes(len);
                let key = module.mac_key(algorithm, &key_bytes).expect("GMAC key");
                let tag = key
                    .sign_with_nonce(&nonce, &data)
                    .expect("GMAC sign")
                    .into_value();
                let peer = gnutls.call("gmac", &[Bytes(&key_bytes), Bytes(&nonce), Bytes(&data)]);
                same(&what, &tag, &peer);
                key.verify_with_nonce(&nonce, &data, &peer)
                    .expect("verify GnuTLS's tag");
            }
        }
        for (algorithm, key_len) in [(Algorithm::Aes128Cmac, 16), (Algorithm::Aes256Cmac, 32)] {
            let what = format!("{algorithm} len {len}");
            let key_bytes = rng.bytes(key_len);
            let data = rng.bytes(len);
            let key = module.mac_key(algorithm, &key_bytes).expect("CMAC key");
            let tag = key.sign(&data).expect("CMAC sign").into_value();
            let peer = gnutls.call("cmac", &[Bytes(&key_bytes), Bytes(&data)]);
            same(&what, &tag, &peer);
            key.verify(&data, &peer).expect("verify GnuTLS's tag");
        }
    }
}

#[test]
fn aes_xts_cfb8_rc4_des_match_gnutls() {
    let module = module();
    let mut gnutls = GnuTls::start();
    let mut rng = TestRng(0x5342_3343_5854_0003);
    for len in LENGTHS {
        let plaintext = rng.bytes(len);

        // AES-256-XTS: a data unit of at least one block (SP 800-38E), ciphertext stealing for
        // a partial last block, as GnuTLS (nettle) does it.
        let key_bytes = rng.bytes(64);
        let tweak = rng.bytes(16);
        let key = module
            .cipher_key(Algorithm::Aes256Xts, &key_bytes)
            .expect("XTS key");
        if len < 16 {
            assert!(
                key.encrypt(Some(&tweak), &plaintext).is_err(),
                "aes-256-xts must refuse a {len}-byte data unit"
            );
        } else {
            let what = format!("aes-256-xts len {len}");
            let ciphertext = key
                .encrypt(Some(&tweak), &plaintext)
                .expect("XTS encrypt")
                .into_value()
                .ciphertext;
            let peer = gnutls.call(
                "xts",
                &[Bytes(&key_bytes), Bytes(&tweak), Bytes(&plaintext)],
            );
            same(&what, &ciphertext, &peer);
            let decrypted = key
                .decrypt(&tweak, &peer)
                .expect("XTS decrypt")
                .into_value();
            same(&what, &decrypted, &plaintext);
        }

        for (algorithm, key_len) in [(Algorithm::Aes128Cfb8, 16), (Algorithm::Aes256Cfb8, 32)] {
            let what = format!("{algorithm} len {len}");
            let key_bytes = rng.bytes(key_len);
            let iv = rng.bytes(16);
            let key = module.cipher_key(algorithm, &key_bytes).expect("CFB8 key");
            let ciphertext = key
                .encrypt(Some(&iv), &plaintext)
                .expect("CFB8 encrypt")
                .into_value()
                .ciphertext;
            let peer = gnutls.call("cfb8", &[Bytes(&key_bytes), Bytes(&iv), Bytes(&plaintext)]);
            same(&what, &ciphertext, &peer);
            let decrypted = key.decrypt(&iv, &peer).expect("CFB8 decrypt").into_value();
            same(&what, &decrypted, &plaintext);
        }

        // RC4 with a 128-bit key (GnuTLS's ARCFOUR_128; NTLM's key exchange uses 16 bytes).
        let what = format!("rc4 len {len}");
        let key_bytes = rng.bytes(16);
        let key = module
            .cipher_key(Algorithm::Rc4, &key_bytes)
            .expect("RC4 key");
        let ciphertext = key
            .encrypt(None, &plaintext)
            .expect("RC4 encrypt")
            .into_value()
            .ciphertext;
        let peer = gnutls.call("rc4", &[Bytes(&key_bytes), Bytes(&plaintext)]);
        same(&what, &ciphertext, &peer);
        let decrypted = key.decrypt(&[], &peer).expect("RC4 decrypt").into_value();
        same(&what, &decrypted, &plaintext);

        // DES and 3DES in CBC take whole 8-byte blocks and no padding.
        let whole = &plaintext[..len - len % 8];
        for (algorithm, op, key_len) in [
            (Algorithm::DesCbc, "des", 8),
            (Algorithm::DesEde3Cbc, "3des", 24),
        ] {
            let what = format!("{algorithm} len {}", whole.len());
            let key_bytes = des_parity(rng.bytes(key_len));
            let iv = rng.bytes(8);
            let key = module.cipher_key(algorithm, &key_bytes).expect("DES key");
            let ciphertext = key
                .encrypt(Some(&iv), whole)
                .expect("DES encrypt")
                .into_value()
                .ciphertext;
            let peer = gnutls.call(op, &[Bytes(&key_bytes), Bytes(&iv), Bytes(whole)]);
            same(&what, &ciphertext, &peer);
            let decrypted = key.decrypt(&iv, &peer).expect("DES decrypt").into_value();
            same(&what, &decrypted, whole);
        }
    }
}

#[test]
fn md5_and_hmac_md5_match_gnutls_and_md4_matches_openssl() {
    let module = module();
    let mut gnutls = GnuTls::start();
    let mut rng = TestRng(0x5342_3343_4d44_0004);
    for len in LENGTHS {
        let data = rng.bytes(len);

        let digest = module
            .digest(Algorithm::Md5, &data)
            .expect("MD5")
            .into_value();
        same(
            &format!("md5 len {len}"),
            &digest,
            &gnutls.call("md5", &[Bytes(&data)]),
        );

        let key_bytes = rng.bytes(16); // NTLM keys HMAC-MD5 with 16-byte hashes
        let key = module.mac_key(Algorithm::HmacMd5, &key_bytes).expect("key");
        let tag = key.sign(&data).expect("HMAC-MD5").into_value();
        let peer = gnutls.call("hmacmd5", &[Bytes(&key_bytes), Bytes(&data)]);
        same(&format!("hmac-md5 len {len}"), &tag, &peer);

        let digest = module
            .digest(Algorithm::Md4, &data)
            .expect("MD4")
            .into_value();
        same(&format!("md4 len {len}"), &digest, &openssl_md4(&data));
    }
}

/// `openssl dgst -md4 -binary`; MD4 lives in OpenSSL 3's legacy provider.
fn openssl_md4(data: &[u8]) -> Vec<u8> {
    let mut child = Command::new("openssl")
        .args([
            "dgst",
            "-md4",
            "-binary",
            "-provider",
            "legacy",
            "-provider",
            "default",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("openssl runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let output = child.wait_with_output().expect("openssl finishes");
    writer.join().expect("writer").expect("write to openssl");
    assert!(
        output.status.success(),
        "openssl dgst -md4: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.stdout.len(), 16, "an MD4 digest");
    output.stdout
}
