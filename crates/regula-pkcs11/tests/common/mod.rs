//! What the token's integration tests share: the PINs, the README's configuration with a `gm`
//! slot added, library set-up and tear-down in turns, sessions, and attribute and mechanism
//! builders over the exported C functions. Each test file uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use std::sync::Mutex;

use regula_pkcs11::*;

/// The library is one per process: the tests take turns.
pub static TURN: Mutex<()> = Mutex::new(());

/// The slots of the README's configuration, then the `gm` token [`with_token`] adds.
pub const FIPS: CK_SLOT_ID = 0;
pub const DEFAULT: CK_SLOT_ID = 1;
pub const GM: CK_SLOT_ID = 2;
/// The user and SO PINs the tests set: 14 bytes or more, the shortest PBKDF2 password
/// `fips-140-3` approves.
pub const PIN: &[u8] = b"regula-user-pin-1";
pub const SO_PIN: &[u8] = b"regula-so-pin-0001";
pub const TRUE: CK_BBOOL = 1;
pub const FALSE: CK_BBOOL = 0;

/// prime256v1 and secp384r1 as `CKA_EC_PARAMS` (RFC 5480 named-curve OIDs).
pub const P256_PARAMS: [u8; 10] = hex_literal::hex!("06082a8648ce3d030107");
pub const P384_PARAMS: [u8; 7] = hex_literal::hex!("06052b81040022");

/// A fresh directory for one test's tokens.
pub fn fresh_dir(what: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("regula-pkcs11-{what}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The README's `[[token]]` example.
pub fn readme_config() -> String {
    let readme = include_str!("../../../../README.md");
    let start = readme
        .find("<!-- pkcs11-conf:begin -->\n```toml\n")
        .expect("README has the PKCS#11 configuration example");
    let rest = &readme[start..];
    let body = &rest[rest.find("```toml\n").unwrap() + 8..];
    body[..body.find("```").unwrap()].to_string()
}

/// The README's configuration with its storage in `dir`, a `gm` token added, and the PBKDF2
/// minimum where it names an iteration count (SP 800-132's 1000 rounds: the tests log in often).
pub fn config_in(dir: &Path) -> String {
    readme_config()
        .replace("pbkdf2_iterations = 100000", "pbkdf2_iterations = 1000")
        .replace(
            "storage = \"/var/lib/regula/pkcs11/",
            &format!("storage = \"{}/", dir.display()),
        )
        + &format!(
            "\n[[token]]\nlabel = \"regula-gm\"\npolicy = \"gm\"\npbkdf2_iterations = 1000\n\
             storage = \"{}/gm.db\"\n",
            dir.display()
        )
}

pub fn login(session: CK_SESSION_HANDLE, user: CK_USER_TYPE, pin: &[u8]) -> CK_RV {
    // SAFETY: the PIN's bytes.
    unsafe {
        C_Login(
            session,
            user,
            pin.as_ptr().cast_mut(),
            pin.len() as CK_ULONG,
        )
    }
}

/// A read-write session of `slot`, nobody logged in.
pub fn open_session(slot: CK_SLOT_ID) -> CK_SESSION_HANDLE {
    let mut session = 0;
    let flags = CKF_SERIAL_SESSION | CKF_RW_SESSION;
    // SAFETY: a pointer to a local.
    let rv = unsafe { C_OpenSession(slot, flags, null_mut(), None, &mut session) };
    assert_eq!(rv, CKR_OK);
    session
}

/// A session of `slot` with the user logged in.
pub fn open(slot: CK_SLOT_ID) -> CK_SESSION_HANDLE {
    let session = open_session(slot);
    let rv = login(session, CKU_USER, PIN);
    assert!(
        rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN,
        "login: {rv:#x}"
    );
    session
}

/// `C_InitToken` with the SO PIN and the configuration's label, then the SO sets the user PIN.
pub fn init_token(slot: CK_SLOT_ID) {
    let name = ["regula-fips", "regula-default", "regula-gm"][slot as usize];
    let mut label = [b' '; 32];
    label[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: live locals.
    unsafe {
        let rv = C_InitToken(
            slot,
            SO_PIN.as_ptr().cast_mut(),
            SO_PIN.len() as CK_ULONG,
            label.as_mut_ptr(),
        );
        assert_eq!(rv, CKR_OK);
        let session = open_session(slot);
        assert_eq!(login(session, CKU_SO, SO_PIN), CKR_OK);
        let rv = C_InitPIN(session, PIN.as_ptr().cast_mut(), PIN.len() as CK_ULONG);
        assert_eq!(rv, CKR_OK);
        assert_eq!(C_CloseSession(session), CKR_OK);
    }
}

/// Initializes the library with [`config_in`] a fresh directory, initializes every token,
/// runs `f` with the directory, and finalizes (also when `f` panics).
pub fn with_token(f: impl FnOnce(&Path)) {
    let _turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = fresh_dir("test");
    let path = dir.join("pkcs11.toml");
    std::fs::write(&path, config_in(&dir)).unwrap();
    // SAFETY: the tests take turns (TURN), so no other thread reads the environment meanwhile.
    unsafe { std::env::set_var(config::CONF_ENV, &path) };
    // SAFETY: NULL arguments are allowed.
    assert_eq!(unsafe { C_Initialize(null_mut()) }, CKR_OK);
    /// Finalizes even when the test fails, so that the next test can initialize.
    struct Finalize;
    impl Drop for Finalize {
        fn drop(&mut self) {
            // SAFETY: a NULL argument.
            let rv = unsafe { C_Finalize(null_mut()) };
            if !std::thread::panicking() {
                assert_eq!(rv, CKR_OK);
            }
        }
    }
    let _finalize = Finalize;
    for slot in [FIPS, DEFAULT, GM] {
        init_token(slot);
    }
    f(&dir);
}

pub fn attribute<T>(kind: CK_ATTRIBUTE_TYPE, value: &T) -> CK_ATTRIBUTE {
    CK_ATTRIBUTE {
        type_: kind,
        pValue: (value as *const T).cast_mut().cast(),
        ulValueLen: std::mem::size_of::<T>() as CK_ULONG,
    }
}

pub fn bytes(kind: CK_ATTRIBUTE_TYPE, value: &[u8]) -> CK_ATTRIBUTE {
    CK_ATTRIBUTE {
        type_: kind,
        pValue: value.as_ptr().cast_mut().cast(),
        ulValueLen: value.len() as CK_ULONG,
    }
}

/// One attribute's bytes, by the length protocol of `C_GetAttributeValue`.
pub fn read(
    session: CK_SESSION_HANDLE,
    object: CK_OBJECT_HANDLE,
    kind: CK_ATTRIBUTE_TYPE,
) -> Result<Vec<u8>, CK_RV> {
    let mut template = [CK_ATTRIBUTE {
        type_: kind,
        pValue: null_mut(),
        ulValueLen: 0,
    }];
    // SAFETY: the length protocol with a live buffer.
    unsafe {
        let rv = C_GetAttributeValue(session, object, template.as_mut_ptr(), 1);
        if rv != CKR_OK {
            return Err(rv);
        }
        let mut value = vec![0u8; template[0].ulValueLen as usize];
        template[0].pValue = value.as_mut_ptr().cast();
        let rv = C_GetAttributeValue(session, object, template.as_mut_ptr(), 1);
        if rv != CKR_OK {
            return Err(rv);
        }
        value.truncate(template[0].ulValueLen as usize);
        Ok(value)
    }
}

pub fn mechanism(kind: CK_MECHANISM_TYPE) -> CK_MECHANISM {
    CK_MECHANISM {
        mechanism: kind,
        pParameter: null_mut(),
        ulParameterLen: 0,
    }
}

pub fn with_param<T>(kind: CK_MECHANISM_TYPE, param: &mut T) -> CK_MECHANISM {
    CK_MECHANISM {
        mechanism: kind,
        pParameter: (param as *mut T).cast(),
        ulParameterLen: std::mem::size_of::<T>() as CK_ULONG,
    }
}

/// PKCS#11 3.2's validation flags of the session's last operation (the service indicator).
pub fn validation_flags(session: CK_SESSION_HANDLE) -> CK_FLAGS {
    let mut flags = 0xff;
    // SAFETY: a pointer to a local.
    let rv = unsafe {
        C_GetSessionValidationFlags(session, CKS_LAST_VALIDATION_OK as CK_ULONG, &mut flags)
    };
    assert_eq!(rv, CKR_OK);
    flags
}

/// Single-part `C_Encrypt` (`encrypt`) or `C_Decrypt` after its init, following the length
/// protocol: the output, or the first error.
pub fn crypt(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    data: &[u8],
    encrypt: bool,
) -> Result<Vec<u8>, CK_RV> {
    type Init =
        unsafe extern "C" fn(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE) -> CK_RV;
    type Single =
        unsafe extern "C" fn(CK_SESSION_HANDLE, *mut u8, CK_ULONG, *mut u8, *mut CK_ULONG) -> CK_RV;
    let (init, single): (Init, Single) = if encrypt {
        (C_EncryptInit, C_Encrypt)
    } else {
        (C_DecryptInit, C_Decrypt)
    };
    // SAFETY: live locals; the length protocol is followed.
    unsafe {
        let rv = init(session, mechanism, key);
        if rv != CKR_OK {
            return Err(rv);
        }
        let data_ptr = data.as_ptr().cast_mut();
        let len = data.len() as CK_ULONG;
        let mut out_len = 0;
        let rv = single(session, data_ptr, len, null_mut(), &mut out_len);
        if rv != CKR_OK {
            return Err(rv);
        }
        let mut out = vec![0u8; out_len as usize];
        let rv = single(session, data_ptr, len, out.as_mut_ptr(), &mut out_len);
        if rv != CKR_OK {
            return Err(rv);
        }
        out.truncate(out_len as usize);
        Ok(out)
    }
}

/// `C_SignInit` and single-part `C_Sign` with the length protocol: the signature, or the
/// first error.
pub fn sign_with(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    message: &[u8],
) -> Result<Vec<u8>, CK_RV> {
    // SAFETY: live locals; the length protocol is followed.
    unsafe {
        let rv = C_SignInit(session, mechanism, key);
        if rv != CKR_OK {
            return Err(rv);
        }
        let data = message.as_ptr().cast_mut();
        let len = message.len() as CK_ULONG;
        let mut out_len = 0;
        let rv = C_Sign(session, data, len, null_mut(), &mut out_len);
        if rv != CKR_OK {
            return Err(rv);
        }
        let mut signature = vec![0u8; out_len as usize];
        let rv = C_Sign(session, data, len, signature.as_mut_ptr(), &mut out_len);
        if rv != CKR_OK {
            return Err(rv);
        }
        signature.truncate(out_len as usize);
        Ok(signature)
    }
}

/// `C_VerifyInit` and single-part `C_Verify`: the first code that is not `CKR_OK`, or
/// `CKR_OK`.
pub fn verify_with(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    key: CK_OBJECT_HANDLE,
    message: &[u8],
    signature: &[u8],
) -> CK_RV {
    // SAFETY: live locals.
    unsafe {
        let rv = C_VerifyInit(session, mechanism, key);
        if rv != CKR_OK {
            return rv;
        }
        C_Verify(
            session,
            message.as_ptr().cast_mut(),
            message.len() as CK_ULONG,
            signature.as_ptr().cast_mut(),
            signature.len() as CK_ULONG,
        )
    }
}

/// `C_GenerateKeyPair`: the public and the private key's handles.
pub fn generate_key_pair(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    public: &mut [CK_ATTRIBUTE],
    private: &mut [CK_ATTRIBUTE],
) -> Result<(CK_OBJECT_HANDLE, CK_OBJECT_HANDLE), CK_RV> {
    let (mut public_key, mut private_key) = (0, 0);
    // SAFETY: templates and handles of live locals.
    let rv = unsafe {
        C_GenerateKeyPair(
            session,
            mechanism,
            public.as_mut_ptr(),
            public.len() as CK_ULONG,
            private.as_mut_ptr(),
            private.len() as CK_ULONG,
            &mut public_key,
            &mut private_key,
        )
    };
    if rv != CKR_OK {
        return Err(rv);
    }
    Ok((public_key, private_key))
}

/// `C_DeriveKey`: the derived key's handle.
pub fn derive_key(
    session: CK_SESSION_HANDLE,
    mechanism: &mut CK_MECHANISM,
    base: CK_OBJECT_HANDLE,
    template: &mut [CK_ATTRIBUTE],
) -> Result<CK_OBJECT_HANDLE, CK_RV> {
    let mut key = 0;
    // SAFETY: live locals.
    let rv = unsafe {
        C_DeriveKey(
            session,
            mechanism,
            base,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            &mut key,
        )
    };
    if rv != CKR_OK {
        return Err(rv);
    }
    Ok(key)
}

/// Bytes from hex (an even number of hex digits).
pub fn unhex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "odd hex: {text}");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex digits"))
        .collect()
}

/// The components of the RSA key in `pem`, as `openssl rsa -text` prints them, in the
/// order of `RSAPrivateKey`: n, e, d, p, q, dP, dQ, qInv.
pub fn openssl_rsa_components(pem: &Path) -> Vec<Vec<u8>> {
    let output = std::process::Command::new("openssl")
        .args(["rsa", "-noout", "-text", "-in"])
        .arg(pem)
        .output()
        .expect("openssl runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let names = [
        "modulus:",
        "publicExponent:",
        "privateExponent:",
        "prime1:",
        "prime2:",
        "exponent1:",
        "exponent2:",
        "coefficient:",
    ];
    let mut parts: Vec<Vec<u8>> = vec![Vec::new(); names.len()];
    let mut current = None;
    for line in text.lines() {
        if let Some(index) = names.iter().position(|name| line.starts_with(name)) {
            current = Some(index);
            // "publicExponent: 65537 (0x10001)"
            if let Some(hex) = line.split("(0x").nth(1) {
                let hex = hex.trim_end_matches(')');
                let hex = if hex.len() % 2 == 1 {
                    format!("0{hex}")
                } else {
                    hex.to_string()
                };
                parts[index] = unhex(&hex);
                current = None;
            }
            continue;
        }
        if let Some(index) = current {
            let hex: String = line.trim().split(':').collect();
            parts[index].extend(unhex(&hex));
        }
    }
    parts
}

/// `C_CreateObject` of `template`, which must succeed: the new object's handle.
pub fn create_object(
    session: CK_SESSION_HANDLE,
    template: &mut [CK_ATTRIBUTE],
) -> CK_OBJECT_HANDLE {
    let mut handle = 0;
    // SAFETY: a template and a handle of live locals.
    let rv = unsafe {
        C_CreateObject(
            session,
            template.as_mut_ptr(),
            template.len() as CK_ULONG,
            &mut handle,
        )
    };
    assert_eq!(rv, CKR_OK);
    handle
}
