//! Token objects at rest: a key stored under the PINs survives `C_Finalize`/`C_Initialize` and
//! gives SP 800-38A's answer (F.2.5, CBC-AES256) and GB/T 32907's (SM4, the `gm` slot); the PIN
//! rules (wrong PIN, counter flags, lockout, `C_SetPIN`, `C_InitToken` wiping); no key byte in
//! the database files; and, with child processes of this test binary, SIGKILL at random points
//! of a create/destroy loop and four processes of four threads sharing one token.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use hex_literal::hex;
use regula_pkcs11::*;

mod common;
use common::{
    FALSE, PIN, SO_PIN, TRUE, TURN, attribute, bytes, fresh_dir, login, open_session, read,
};

const DEFAULT: CK_SLOT_ID = 0;
const FIPS: CK_SLOT_ID = 1;
const GM: CK_SLOT_ID = 2;
const NEW_PIN: &[u8] = b"regula-user-pin-2";
const MAX_ATTEMPTS: u32 = 3;

/// Child processes find their token through these.
const WORKER_DIR: &str = "REGULA_PKCS11_TEST_DIR";
const CONFIG_FILE: &str = "pkcs11.toml";

/// Writes the configuration of three tokens in `dir` and points the library at it.
fn configure(dir: &Path) {
    let mut config = String::new();
    for (label, policy) in [
        ("store-default", "default"),
        ("store-fips", "fips-140-3"),
        ("store-gm", "gm"),
    ] {
        config += &format!(
            "[[token]]\nlabel = \"{label}\"\npolicy = \"{policy}\"\nstorage = \"{}/{policy}.db\"\n\
             max_pin_attempts = {MAX_ATTEMPTS}\npbkdf2_iterations = 1000\n",
            dir.display()
        );
    }
    let path = dir.join(CONFIG_FILE);
    std::fs::write(&path, config).unwrap();
    // A test that failed before finalizing does not hold the next one up.
    // SAFETY: a NULL argument.
    let _ = unsafe { C_Finalize(null_mut()) };
    // SAFETY: the tests take turns (TURN); workers set it before any thread starts.
    unsafe { std::env::set_var(config::CONF_ENV, &path) };
}

fn initialize() {
    // SAFETY: a NULL argument is allowed.
    assert_eq!(unsafe { C_Initialize(null_mut()) }, CKR_OK);
}

fn finalize() {
    // SAFETY: a NULL argument.
    assert_eq!(unsafe { C_Finalize(null_mut()) }, CKR_OK);
}

fn init_token(slot: CK_SLOT_ID, so_pin: &[u8]) -> CK_RV {
    let mut label = [b' '; 32];
    label[..5].copy_from_slice(b"tests");
    // SAFETY: the PIN's bytes and a 32-byte label.
    unsafe {
        C_InitToken(
            slot,
            so_pin.as_ptr().cast_mut(),
            so_pin.len() as CK_ULONG,
            label.as_mut_ptr(),
        )
    }
}

fn init_pin(session: CK_SESSION_HANDLE, pin: &[u8]) -> CK_RV {
    // SAFETY: the PIN's bytes.
    unsafe { C_InitPIN(session, pin.as_ptr().cast_mut(), pin.len() as CK_ULONG) }
}

/// Initializes `slot` with the SO PIN and sets the user PIN.
fn set_up(slot: CK_SLOT_ID) {
    assert_eq!(init_token(slot, SO_PIN), CKR_OK);
    let so = open_session(slot);
    assert_eq!(login(so, CKU_SO, SO_PIN), CKR_OK);
    assert_eq!(init_pin(so, PIN), CKR_OK);
    assert_eq!(C_CloseSession(so), CKR_OK);
}

fn token_flags(slot: CK_SLOT_ID) -> CK_FLAGS {
    // SAFETY: a zeroed plain C struct and a pointer to it.
    unsafe {
        let mut info: CK_TOKEN_INFO = std::mem::zeroed();
        assert_eq!(C_GetTokenInfo(slot, &mut info), CKR_OK);
        info.flags
    }
}

/// Stores a secret key on the token; the return code and handle.
fn create(
    session: CK_SESSION_HANDLE,
    key_type: CK_KEY_TYPE,
    value: &[u8],
    label: &[u8],
    sensitive: bool,
) -> (CK_RV, CK_OBJECT_HANDLE) {
    let class = CKO_SECRET_KEY;
    let sensitive = if sensitive { TRUE } else { FALSE };
    let mut template = [
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
        bytes(CKA_VALUE, value),
        attribute(CKA_TOKEN, &TRUE),
        attribute(CKA_PRIVATE, &TRUE),
        attribute(CKA_SENSITIVE, &sensitive),
        bytes(CKA_LABEL, label),
    ];
    let mut handle = 0;
    // SAFETY: a template of live locals.
    let rv = unsafe {
        C_CreateObject(
            session,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            &mut handle,
        )
    };
    (rv, handle)
}

/// The objects whose label is `label` (every object when `None`), the validation object aside.
fn find(session: CK_SESSION_HANDLE, label: Option<&[u8]>) -> Result<Vec<CK_OBJECT_HANDLE>, CK_RV> {
    let mut template: Vec<CK_ATTRIBUTE> = label.map(|l| bytes(CKA_LABEL, l)).into_iter().collect();
    let mut found = Vec::new();
    // SAFETY: live locals.
    unsafe {
        let rv = C_FindObjectsInit(session, template.as_mut_ptr(), template.len() as CK_ULONG);
        if rv != CKR_OK {
            return Err(rv);
        }
        loop {
            let mut batch = [0; 64];
            let mut count = 0;
            let rv = C_FindObjects(session, batch.as_mut_ptr(), 64, &mut count);
            if rv != CKR_OK {
                return Err(rv);
            }
            if count == 0 {
                break;
            }
            found.extend_from_slice(&batch[..count as usize]);
        }
        let rv = C_FindObjectsFinal(session);
        if rv != CKR_OK {
            return Err(rv);
        }
    }
    // The slot's validation object is part of the token, not an object anyone made (and
    // C_InitToken keeps it).
    found.retain(|&handle| {
        read(session, handle, CKA_CLASS) != Ok(CKO_VALIDATION.to_ne_bytes().to_vec())
    });
    Ok(found)
}

/// One-shot encryption with `mechanism` and an optional 16-byte IV.
fn encrypt(
    session: CK_SESSION_HANDLE,
    key: CK_OBJECT_HANDLE,
    kind: CK_MECHANISM_TYPE,
    iv: Option<&[u8; 16]>,
    data: &[u8],
) -> Result<Vec<u8>, CK_RV> {
    let mut iv = iv.copied();
    let mut mechanism = CK_MECHANISM {
        mechanism: kind,
        pParameter: iv.as_mut().map_or(null_mut(), |iv| iv.as_mut_ptr().cast()),
        ulParameterLen: if iv.is_some() { 16 } else { 0 },
    };
    let mut out = vec![0u8; data.len() + 32];
    let mut len = out.len() as CK_ULONG;
    // SAFETY: live locals.
    unsafe {
        let rv = C_EncryptInit(session, &mut mechanism, key);
        if rv != CKR_OK {
            return Err(rv);
        }
        let rv = C_Encrypt(
            session,
            data.as_ptr().cast_mut(),
            data.len() as CK_ULONG,
            out.as_mut_ptr(),
            &mut len,
        );
        if rv != CKR_OK {
            return Err(rv);
        }
    }
    out.truncate(len as usize);
    Ok(out)
}

/// SP 800-38A F.2.5 (CBC-AES256.Encrypt), first block.
const AES256_KEY: [u8; 32] =
    hex!("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
const CBC_IV: [u8; 16] = hex!("000102030405060708090a0b0c0d0e0f");
const CBC_PLAIN: [u8; 16] = hex!("6bc1bee22e409f96e93d7e117393172a");
const CBC_CIPHER: [u8; 16] = hex!("f58c4c04d6e5f1ba779eabfb5f7bfbd6");
/// GB/T 32907 Appendix A example 1: the key is also the plaintext.
const SM4_KEY: [u8; 16] = hex!("0123456789abcdeffedcba9876543210");
const SM4_CIPHER: [u8; 16] = hex!("681edf34d206965e86b3e94f536e4246");

fn sm4_ecb() -> CK_MECHANISM_TYPE {
    CK_MECHANISM_TYPE::from(regula::registry::pkcs11::CKM_REGULA_SM4_ECB.value)
}

/// Every file of `dir` (the database, its WAL and shared-memory files) holds neither `key` nor
/// any 16-byte window of it.
fn assert_no_key_bytes(dir: &Path, key: &[u8]) {
    let mut scanned = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "toml") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        scanned += data.len();
        for window in key.windows(16.min(key.len())) {
            assert!(
                !data.windows(window.len()).any(|bytes| bytes == window),
                "{} holds key bytes in clear",
                path.display()
            );
        }
    }
    assert!(scanned > 0, "no database file was scanned");
}

#[test]
fn a_token_key_survives_a_restart_gives_the_known_answers_and_is_never_on_disk_in_clear() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = fresh_dir("restart");
    configure(&dir);
    initialize();
    let flags = token_flags(DEFAULT);
    assert_eq!(flags & CKF_TOKEN_INITIALIZED, 0);
    for slot in [DEFAULT, FIPS, GM] {
        set_up(slot);
        let flags = token_flags(slot);
        assert_ne!(flags & CKF_TOKEN_INITIALIZED, 0);
        assert_ne!(flags & CKF_USER_PIN_INITIALIZED, 0);
    }
    for slot in [DEFAULT, FIPS] {
        let user = open_session(slot);
        assert_eq!(login(user, CKU_USER, PIN), CKR_OK);
        let (rv, key) = create(user, CKK_AES, &AES256_KEY, b"first label", true);
        assert_eq!(rv, CKR_OK);
        // A change to a token object is stored too.
        let mut template = [bytes(CKA_LABEL, b"aes")];
        // SAFETY: a template of live locals.
        let rv = unsafe { C_SetAttributeValue(user, key, template.as_mut_ptr(), 1) };
        assert_eq!(rv, CKR_OK);
    }
    let gm = open_session(GM);
    assert_eq!(login(gm, CKU_USER, PIN), CKR_OK);
    assert_eq!(create(gm, CKK_REGULA_SM4, &SM4_KEY, b"sm4", true).0, CKR_OK);
    assert_no_key_bytes(&dir, &AES256_KEY);
    assert_no_key_bytes(&dir, &SM4_KEY);
    finalize();

    initialize();
    for slot in [DEFAULT, FIPS] {
        let user = open_session(slot);
        // A private object is not there before the login.
        assert_eq!(find(user, Some(b"aes")), Ok(vec![]));
        assert_eq!(login(user, CKU_USER, PIN), CKR_OK);
        let found = find(user, Some(b"aes")).unwrap();
        assert_eq!(found.len(), 1, "slot {slot}");
        assert_eq!(read(user, found[0], CKA_TOKEN), Ok(vec![TRUE]));
        assert_eq!(
            read(user, found[0], CKA_VALUE),
            Err(CKR_ATTRIBUTE_SENSITIVE)
        );
        assert_eq!(
            encrypt(user, found[0], CKM_AES_CBC, Some(&CBC_IV), &CBC_PLAIN),
            Ok(CBC_CIPHER.to_vec())
        );
    }
    let gm = open_session(GM);
    assert_eq!(login(gm, CKU_USER, PIN), CKR_OK);
    let found = find(gm, Some(b"sm4")).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(
        encrypt(gm, found[0], sm4_ecb(), None, &SM4_KEY),
        Ok(SM4_CIPHER.to_vec())
    );
    finalize();
    assert_no_key_bytes(&dir, &AES256_KEY);
    assert_no_key_bytes(&dir, &SM4_KEY);
}

#[test]
fn wrong_pins_are_counted_and_lock_and_the_so_unlocks() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = fresh_dir("lockout");
    configure(&dir);
    initialize();
    set_up(FIPS);
    let user = open_session(FIPS);
    // fips-140-3 approves PBKDF2 passwords of 14 bytes or more: a shorter PIN is not set.
    let so = open_session(FIPS);
    assert_eq!(login(so, CKU_SO, SO_PIN), CKR_OK);
    assert_eq!(init_pin(so, b"123456"), CKR_PIN_LEN_RANGE);
    assert_eq!(
        login(user, CKU_USER, PIN),
        CKR_USER_ANOTHER_ALREADY_LOGGED_IN
    );
    assert_eq!(C_Logout(so), CKR_OK);

    let wrong = b"regula-user-pin-X";
    let pin_flags = CKF_USER_PIN_COUNT_LOW | CKF_USER_PIN_FINAL_TRY | CKF_USER_PIN_LOCKED;
    assert_eq!(token_flags(FIPS) & pin_flags, 0);
    assert_eq!(login(user, CKU_USER, wrong), CKR_PIN_INCORRECT);
    assert_eq!(token_flags(FIPS) & pin_flags, CKF_USER_PIN_COUNT_LOW);
    // The count is in the database: a restart keeps it.
    finalize();
    initialize();
    let user = open_session(FIPS);
    assert_eq!(
        token_flags(FIPS) & pin_flags,
        CKF_USER_PIN_COUNT_LOW,
        "the failure count did not survive a restart"
    );
    assert_eq!(login(user, CKU_USER, wrong), CKR_PIN_INCORRECT);
    assert_eq!(
        token_flags(FIPS) & pin_flags,
        CKF_USER_PIN_COUNT_LOW | CKF_USER_PIN_FINAL_TRY
    );
    assert_eq!(login(user, CKU_USER, b"short"), CKR_PIN_INCORRECT);
    assert_eq!(token_flags(FIPS) & pin_flags, CKF_USER_PIN_LOCKED);
    assert_eq!(login(user, CKU_USER, PIN), CKR_PIN_LOCKED);

    // The SO sets the PIN again, which unlocks it.
    assert_eq!(C_CloseSession(user), CKR_OK);
    let so = open_session(FIPS);
    assert_eq!(login(so, CKU_SO, SO_PIN), CKR_OK);
    assert_eq!(init_pin(so, PIN), CKR_OK);
    assert_eq!(C_Logout(so), CKR_OK);
    assert_eq!(token_flags(FIPS) & pin_flags, 0);
    assert_eq!(login(so, CKU_USER, wrong), CKR_PIN_INCORRECT);
    assert_eq!(login(so, CKU_USER, PIN), CKR_OK);
    // A success clears the count.
    assert_eq!(token_flags(FIPS) & pin_flags, 0);
    finalize();
}

#[test]
fn set_pin_rewraps_the_token_key_and_the_old_pin_is_refused() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = fresh_dir("setpin");
    configure(&dir);
    initialize();
    set_up(DEFAULT);
    let user = open_session(DEFAULT);
    assert_eq!(login(user, CKU_USER, PIN), CKR_OK);
    assert_eq!(create(user, CKK_AES, &AES256_KEY, b"aes", true).0, CKR_OK);
    // SAFETY: the PINs' bytes.
    let rv = unsafe {
        C_SetPIN(
            user,
            PIN.as_ptr().cast_mut(),
            PIN.len() as CK_ULONG,
            NEW_PIN.as_ptr().cast_mut(),
            NEW_PIN.len() as CK_ULONG,
        )
    };
    assert_eq!(rv, CKR_OK);
    finalize();
    initialize();
    let user = open_session(DEFAULT);
    assert_eq!(login(user, CKU_USER, PIN), CKR_PIN_INCORRECT);
    assert_eq!(login(user, CKU_USER, NEW_PIN), CKR_OK);
    let found = find(user, Some(b"aes")).unwrap();
    assert_eq!(
        encrypt(user, found[0], CKM_AES_CBC, Some(&CBC_IV), &CBC_PLAIN),
        Ok(CBC_CIPHER.to_vec())
    );
    // The SO's PIN changes in an SO session.
    assert_eq!(C_CloseSession(user), CKR_OK);
    let so = open_session(DEFAULT);
    assert_eq!(login(so, CKU_SO, SO_PIN), CKR_OK);
    let new_so = b"regula-so-pin-0002";
    // SAFETY: the PINs' bytes.
    let rv = unsafe {
        C_SetPIN(
            so,
            SO_PIN.as_ptr().cast_mut(),
            SO_PIN.len() as CK_ULONG,
            new_so.as_ptr().cast_mut(),
            new_so.len() as CK_ULONG,
        )
    };
    assert_eq!(rv, CKR_OK);
    assert_eq!(C_CloseAllSessions(DEFAULT), CKR_OK);
    assert_eq!(init_token(DEFAULT, SO_PIN), CKR_PIN_INCORRECT);
    assert_eq!(init_token(DEFAULT, new_so), CKR_OK);
    finalize();
}

#[test]
fn init_token_wipes_every_object_and_the_user_pin() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = fresh_dir("wipe");
    configure(&dir);
    initialize();
    set_up(GM);
    let user = open_session(GM);
    assert_eq!(login(user, CKU_USER, PIN), CKR_OK);
    assert_eq!(
        create(user, CKK_REGULA_SM4, &SM4_KEY, b"sm4", false).0,
        CKR_OK
    );
    assert_eq!(find(user, None).unwrap().len(), 1);
    assert_eq!(init_token(GM, SO_PIN), CKR_SESSION_EXISTS);
    assert_eq!(C_CloseAllSessions(GM), CKR_OK);
    assert_eq!(init_token(GM, b"regula-so-pin-XXXX"), CKR_PIN_INCORRECT);
    assert_eq!(init_token(GM, SO_PIN), CKR_OK);
    assert_eq!(token_flags(GM) & CKF_USER_PIN_INITIALIZED, 0);
    let user = open_session(GM);
    assert_eq!(login(user, CKU_USER, PIN), CKR_USER_PIN_NOT_INITIALIZED);
    assert_eq!(C_CloseSession(user), CKR_OK);
    set_up(GM);
    let user = open_session(GM);
    assert_eq!(login(user, CKU_USER, PIN), CKR_OK);
    assert_eq!(find(user, None), Ok(vec![]));
    finalize();
    assert_no_key_bytes(&dir, &SM4_KEY);
}

// ---- Several processes ------------------------------------------------------------------------

/// The value a worker gives the object it labels `label` (32 bytes: the label is 32 bytes), so
/// that the parent can tell an intact object from a damaged one.
fn value_of(label: &[u8]) -> Vec<u8> {
    label.iter().map(|byte| byte ^ 0x5a).collect()
}

/// Runs this binary's ignored test `name` as a child process on the token in `dir`.
fn spawn_worker(name: &str, dir: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WORKER_DIR, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A worker's set-up: the token in `REGULA_PKCS11_TEST_DIR`, initialized, logged in.
fn worker_session() -> Option<CK_SESSION_HANDLE> {
    let dir = PathBuf::from(std::env::var_os(WORKER_DIR)?);
    // The parent wrote the configuration; workers only read it. (Four workers rewriting one
    // file let a reader see it truncated.)
    // SAFETY: set before any thread of this worker starts.
    unsafe { std::env::set_var(config::CONF_ENV, dir.join(CONFIG_FILE)) };
    initialize();
    let session = open_session(DEFAULT);
    let rv = login(session, CKU_USER, PIN);
    assert!(rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN, "{rv:#x}");
    Some(session)
}

/// Creates token objects and destroys every other one, saying on stdout what it starts and
/// what is committed, until it is killed.
#[test]
#[ignore = "a child process of kill_9_at_random_points_leaves_the_token_consistent"]
fn worker_create_destroy_until_killed() {
    let Some(session) = worker_session() else {
        return;
    };
    // The test harness's "test ... " has no line end of its own.
    println!();
    let pid = std::process::id();
    let mut previous: Option<(Vec<u8>, CK_OBJECT_HANDLE)> = None;
    for n in 0u64.. {
        let label = format!("{pid:010}{n:022}").into_bytes();
        println!("creating {}", String::from_utf8_lossy(&label));
        let (rv, handle) = create(session, CKK_AES, &value_of(&label), &label, false);
        assert_eq!(rv, CKR_OK);
        println!("created {}", String::from_utf8_lossy(&label));
        if let Some((old, old_handle)) = previous.take() {
            println!("destroying {}", String::from_utf8_lossy(&old));
            assert_eq!(C_DestroyObject(session, old_handle), CKR_OK);
        } else {
            previous = Some((label, handle));
        }
    }
}

/// A small xorshift generator for the kill times (the schedule need not be secret).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn kill_9_at_random_points_leaves_the_token_consistent() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = fresh_dir("kill");
    configure(&dir);
    initialize();
    set_up(DEFAULT);
    finalize();
    let mut seed = u64::from(std::process::id()).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let (mut started, mut committed, mut destroying) =
        (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    const KILLS: usize = 30;
    for _ in 0..KILLS {
        let mut child = spawn_worker("worker_create_destroy_until_killed", &dir);
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut output = String::new();
        // The start-up is not what is under test: wait for the loop's first commit, then kill
        // at a random point of what follows.
        loop {
            let mut line = String::new();
            if stdout.read_line(&mut line).unwrap() == 0 {
                break;
            }
            output += &line;
            if line.starts_with("created ") {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(next(&mut seed) % 100));
        child.kill().unwrap();
        child.wait().unwrap();
        stdout.read_to_string(&mut output).unwrap();
        for line in output.lines() {
            match line.split_once(' ') {
                Some(("creating", label)) => started.insert(label.to_string()),
                Some(("created", label)) => committed.insert(label.to_string()),
                Some(("destroying", label)) => destroying.insert(label.to_string()),
                _ => false,
            };
        }
    }
    eprintln!(
        "{KILLS} kills: {} objects committed, {} creations cut short",
        committed.len(),
        started.difference(&committed).count()
    );
    assert!(
        committed.len() >= KILLS,
        "the workers committed only {} objects",
        committed.len()
    );
    initialize();
    let user = open_session(DEFAULT);
    assert_eq!(login(user, CKU_USER, PIN), CKR_OK);
    let mut found = BTreeMap::new();
    for handle in find(user, None).unwrap() {
        let label = String::from_utf8(read(user, handle, CKA_LABEL).unwrap()).unwrap();
        let value = read(user, handle, CKA_VALUE).unwrap();
        assert_eq!(
            value,
            value_of(label.as_bytes()),
            "object {label} is damaged"
        );
        found.insert(label, handle);
    }
    for label in committed.difference(&destroying) {
        assert!(
            found.contains_key(label),
            "committed object {label} is lost"
        );
    }
    for label in found.keys() {
        assert!(started.contains(label), "object {label} was never created");
    }
    finalize();
}

/// Four threads of one process, each creating, using, finding and destroying token objects for
/// a bounded time; every fourth object is kept and named on stdout.
#[test]
#[ignore = "a child process of four_processes_of_four_threads_share_a_token"]
fn worker_four_threads() {
    if worker_session().is_none() {
        return;
    }
    // The test harness's "test ... " has no line end of its own.
    println!();
    let pid = std::process::id();
    let deadline = Instant::now() + Duration::from_secs(5);
    let threads: Vec<_> = (0..4)
        .map(|thread| {
            std::thread::spawn(move || {
                let session = open_session(DEFAULT);
                let mut kept = Vec::new();
                let mut n = 0u64;
                while Instant::now() < deadline {
                    let label = format!("{pid:010}{thread:02}{n:020}").into_bytes();
                    let (rv, handle) = create(session, CKK_AES, &value_of(&label), &label, false);
                    assert_eq!(rv, CKR_OK, "create");
                    assert!(
                        encrypt(session, handle, CKM_AES_CBC, Some(&CBC_IV), &CBC_PLAIN).is_ok(),
                        "encrypt"
                    );
                    assert_eq!(find(session, Some(&label)), Ok(vec![handle]), "find");
                    assert_eq!(read(session, handle, CKA_VALUE), Ok(value_of(&label)));
                    if n.is_multiple_of(4) {
                        kept.push(String::from_utf8(label).unwrap());
                    } else {
                        assert_eq!(C_DestroyObject(session, handle), CKR_OK);
                    }
                    n += 1;
                }
                kept
            })
        })
        .collect();
    for thread in threads {
        for label in thread.join().expect("a worker thread failed") {
            println!("kept {label}");
        }
    }
    println!("worker done");
}

#[test]
fn four_processes_of_four_threads_share_a_token() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = fresh_dir("share");
    configure(&dir);
    initialize();
    set_up(DEFAULT);
    finalize();
    let children: Vec<_> = (0..4)
        .map(|_| spawn_worker("worker_four_threads", &dir))
        .collect();
    let mut kept = BTreeSet::new();
    for mut child in children {
        let mut output = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut output)
            .unwrap();
        let mut errors = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut errors)
            .unwrap();
        assert!(
            child.wait().unwrap().success(),
            "a worker failed: {output}\n{errors}"
        );
        assert!(output.contains("worker done"), "a worker did not finish");
        kept.extend(
            output
                .lines()
                .filter_map(|line| line.strip_prefix("kept "))
                .map(str::to_string),
        );
    }
    assert!(kept.len() >= 4, "only {} objects were kept", kept.len());
    initialize();
    let user = open_session(DEFAULT);
    assert_eq!(login(user, CKU_USER, PIN), CKR_OK);
    let mut found = BTreeSet::new();
    for handle in find(user, None).unwrap() {
        let label = String::from_utf8(read(user, handle, CKA_LABEL).unwrap()).unwrap();
        assert_eq!(
            read(user, handle, CKA_VALUE),
            Ok(value_of(label.as_bytes()))
        );
        found.insert(label);
    }
    assert_eq!(found, kept, "objects were lost or left behind");
    finalize();
}

#[test]
fn a_public_token_object_is_seen_without_login_but_its_value_opens_only_with_one() {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = fresh_dir("public");
    configure(&dir);
    initialize();
    set_up(DEFAULT);
    // A read-only session stores no token object.
    let mut read_only = 0;
    // SAFETY: a pointer to a local.
    let rv = unsafe {
        C_OpenSession(
            DEFAULT,
            CKF_SERIAL_SESSION,
            null_mut(),
            None,
            &mut read_only,
        )
    };
    assert_eq!(rv, CKR_OK);
    assert_eq!(login(read_only, CKU_USER, PIN), CKR_OK);
    assert_eq!(
        create(read_only, CKK_AES, &AES256_KEY, b"aes", true).0,
        CKR_SESSION_READ_ONLY
    );
    let user = open_session(DEFAULT);
    let class = CKO_SECRET_KEY;
    let key_type = CKK_AES;
    let mut template = [
        attribute(CKA_CLASS, &class),
        attribute(CKA_KEY_TYPE, &key_type),
        bytes(CKA_VALUE, &AES256_KEY),
        attribute(CKA_TOKEN, &TRUE),
        attribute(CKA_PRIVATE, &FALSE),
        bytes(CKA_LABEL, b"public"),
    ];
    let mut handle = 0;
    // SAFETY: a template of live locals.
    let rv = unsafe { C_CreateObject(user, template.as_mut_ptr(), 6, &mut handle) };
    assert_eq!(rv, CKR_OK);
    finalize();
    assert_no_key_bytes(&dir, &AES256_KEY);

    initialize();
    let user = open_session(DEFAULT);
    let found = find(user, Some(b"public")).unwrap();
    assert_eq!(
        found.len(),
        1,
        "a public token object is visible without login"
    );
    assert_eq!(
        encrypt(user, found[0], CKM_AES_CBC, Some(&CBC_IV), &CBC_PLAIN),
        Err(CKR_USER_NOT_LOGGED_IN)
    );
    assert_eq!(login(user, CKU_USER, PIN), CKR_OK);
    assert_eq!(
        encrypt(user, found[0], CKM_AES_CBC, Some(&CBC_IV), &CBC_PLAIN),
        Ok(CBC_CIPHER.to_vec())
    );
    assert_eq!(C_Logout(user), CKR_OK);
    assert_eq!(
        encrypt(user, found[0], CKM_AES_CBC, Some(&CBC_IV), &CBC_PLAIN),
        Err(CKR_USER_NOT_LOGGED_IN)
    );
    finalize();
}
