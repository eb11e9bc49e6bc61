//! libregula-pkcs11's entry points under hostile templates and mechanism parameters. A PKCS#11
//! caller hands the token attribute templates and mechanism parameters as raw pointers and
//! lengths; this target builds them from the input — known and unknown attribute types, values of
//! any length, `NULL` values with a non-zero length, structured parameters (GCM, CTR, CCM, ECDH,
//! HKDF, PBKDF2, RSA PSS and OAEP, the SM2 key exchange) whose inner lengths and pointers
//! disagree with what the mechanism wants, and parameter lengths that do not match the
//! structure — and runs `C_CreateObject`,
//! `C_GetAttributeValue` (length queries, short and exact buffers), `C_SetAttributeValue`,
//! `C_FindObjects`, key and key-pair generation, derivation, wrapping and unwrapping, and
//! encryption, decryption, signing, verification and digests with output buffers of any size, on a
//! `default`, a `fips-140-3` and a `gm` slot, token and session objects alike.
//!
//! Every call must answer a `CKR_*` code. A panic inside the library aborts the run (libFuzzer's
//! panic hook fires before the library's guard could turn it into `CKR_GENERAL_ERROR`); a write
//! past the length the caller gave is caught by a guard zone after every output buffer; a memory
//! error by AddressSanitizer. What the caller's side of the contract forbids (a non-NULL pointer to
//! fewer bytes than its length says) is never done here: every length points at that many bytes.

#![no_main]

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Mutex;

use libfuzzer_sys::fuzz_target;
use regula_pkcs11::*;

#[path = "input.rs"]
mod input;
use input::Input;

const SLOTS: [(&str, &str); 3] = [
    ("fuzz-default", "default"),
    ("fuzz-fips", "fips-140-3"),
    ("fuzz-gm", "gm"),
];
const PIN: &[u8] = b"fuzz-user-pin-0001";
const SO_PIN: &[u8] = b"fuzz-so-pin-000001";
/// The guard zone after every output buffer, and the byte it holds.
const GUARD: usize = 64;
const GUARD_BYTE: u8 = 0xa5;

/// Attribute types a template draws from (the input may also give any other number).
const ATTRIBUTES: &[CK_ATTRIBUTE_TYPE] = &[
    CKA_CLASS,
    CKA_TOKEN,
    CKA_PRIVATE,
    CKA_LABEL,
    CKA_ID,
    CKA_VALUE,
    CKA_VALUE_LEN,
    CKA_KEY_TYPE,
    CKA_SENSITIVE,
    CKA_EXTRACTABLE,
    CKA_ALWAYS_SENSITIVE,
    CKA_NEVER_EXTRACTABLE,
    CKA_ENCRYPT,
    CKA_DECRYPT,
    CKA_SIGN,
    CKA_VERIFY,
    CKA_WRAP,
    CKA_UNWRAP,
    CKA_DERIVE,
    CKA_TRUSTED,
    CKA_WRAP_WITH_TRUSTED,
    CKA_MODIFIABLE,
    CKA_COPYABLE,
    CKA_DESTROYABLE,
    CKA_EC_PARAMS,
    CKA_EC_POINT,
    CKA_MODULUS,
    CKA_MODULUS_BITS,
    CKA_PUBLIC_EXPONENT,
    CKA_PRIVATE_EXPONENT,
    CKA_PRIME_1,
    CKA_CERTIFICATE_TYPE,
    CKA_SUBJECT,
    CKA_APPLICATION,
    CKA_OBJECT_ID,
    CKA_PARAMETER_SET,
    CKA_KEY_GEN_MECHANISM,
    CKA_LOCAL,
    CKA_CHECK_VALUE,
    CKA_START_DATE,
];

/// Numbers attributes and parameters are often set to: classes, key types, sizes.
const NUMBERS: &[CK_ULONG] = &[
    0,
    1,
    16,
    24,
    32,
    64,
    256,
    2048,
    CKO_DATA,
    CKO_CERTIFICATE,
    CKO_PUBLIC_KEY,
    CKO_PRIVATE_KEY,
    CKO_SECRET_KEY,
    CKK_AES,
    CKK_GENERIC_SECRET,
    CKK_EC,
    CKK_RSA,
    CKK_EC_EDWARDS,
    CKK_EC_MONTGOMERY,
    CKK_SHA256_HMAC,
    CKK_ML_KEM,
    CKK_ML_DSA,
    // CKP_ML_KEM_768 / CKP_ML_DSA_65 and CKP_ML_KEM_1024 / CKP_ML_DSA_87 (1 is above).
    2,
    3,
    0x8052_4701,
    CK_ULONG::MAX,
];

/// Values that reach the deeper checks: curve names (P-256, P-384, Ed25519 as OID and as
/// PrintableString, SM2), a P-256 point as PKCS#11 wraps it, RSA's usual exponent, key-sized
/// strings.
const BLOBS: &[&[u8]] = &[
    &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07],
    &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22],
    &[0x06, 0x03, 0x2b, 0x65, 0x70],
    &[
        0x13, 0x0c, b'e', b'd', b'w', b'a', b'r', b'd', b's', b'2', b'5', b'5', b'1', b'9',
    ],
    &[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d],
    // The P-256 generator, uncompressed, in a DER OCTET STRING.
    &[
        0x04, 0x41, 0x04, 0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5,
        0x63, 0xa4, 0x40, 0xf2, 0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39,
        0x45, 0xd8, 0x98, 0xc2, 0x96, 0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7,
        0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16, 0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb,
        0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5,
    ],
    &[0x01, 0x00, 0x01],
    &[0x11; 16],
    &[0x22; 32],
    &[0x33; 64],
];

/// The library, its tokens and one logged-in user per slot, made once per process.
struct Token {
    /// Each slot's mechanisms, as `C_GetMechanismList` gives them.
    mechanisms: Vec<Vec<CK_MECHANISM_TYPE>>,
}

static TOKEN: Mutex<Option<Token>> = Mutex::new(None);

fn set_up() -> Token {
    let dir = std::env::temp_dir().join(format!("regula-fuzz-pkcs11-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let mut config = String::new();
    for (label, policy) in SLOTS {
        config += &format!(
            "[[token]]\nlabel = \"{label}\"\npolicy = \"{policy}\"\nstorage = \"{}/{label}.db\"\n\
             pbkdf2_iterations = 1000\n\n",
            dir.display()
        );
    }
    let path = dir.join("pkcs11.toml");
    std::fs::write(&path, config).expect("the configuration");
    // SAFETY: set once, before the library (the only reader) starts.
    unsafe { std::env::set_var(config::CONF_ENV, &path) };
    let mut mechanisms = Vec::new();
    // SAFETY: live locals throughout; the library's documented set-up sequence.
    unsafe {
        assert_eq!(C_Initialize(null_mut()), CKR_OK);
        for (slot, (label, _)) in SLOTS.iter().enumerate() {
            let slot = slot as CK_SLOT_ID;
            let mut padded = [b' '; 32];
            padded[..label.len()].copy_from_slice(label.as_bytes());
            let rv = C_InitToken(
                slot,
                SO_PIN.as_ptr().cast_mut(),
                SO_PIN.len() as CK_ULONG,
                padded.as_mut_ptr(),
            );
            assert_eq!(rv, CKR_OK, "C_InitToken");
            let session = open(slot);
            assert_eq!(login(session, CKU_SO, SO_PIN), CKR_OK);
            let rv = C_InitPIN(session, PIN.as_ptr().cast_mut(), PIN.len() as CK_ULONG);
            assert_eq!(rv, CKR_OK, "C_InitPIN");
            assert_eq!(C_Logout(session), CKR_OK);
            // The user stays logged in on the slot for the whole run (login is per slot).
            assert_eq!(login(session, CKU_USER, PIN), CKR_OK);
            let mut count = 0;
            assert_eq!(C_GetMechanismList(slot, null_mut(), &mut count), CKR_OK);
            let mut list = vec![0; count as usize];
            assert_eq!(
                C_GetMechanismList(slot, list.as_mut_ptr(), &mut count),
                CKR_OK
            );
            list.truncate(count as usize);
            mechanisms.push(list);
        }
    }
    Token { mechanisms }
}

fn open(slot: CK_SLOT_ID) -> CK_SESSION_HANDLE {
    let mut session = 0;
    // SAFETY: a pointer to a local.
    let rv = unsafe {
        C_OpenSession(
            slot,
            CKF_SERIAL_SESSION | CKF_RW_SESSION,
            null_mut(),
            None,
            &mut session,
        )
    };
    assert_eq!(rv, CKR_OK, "C_OpenSession");
    session
}

fn login(session: CK_SESSION_HANDLE, user: CK_USER_TYPE, pin: &[u8]) -> CK_RV {
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

/// An attribute template and the memory its values point to.
struct Template {
    attributes: Vec<CK_ATTRIBUTE>,
    _values: Vec<Vec<u8>>,
}

impl Template {
    fn ptr(&mut self) -> *mut CK_ATTRIBUTE {
        if self.attributes.is_empty() {
            null_mut()
        } else {
            self.attributes.as_mut_ptr()
        }
    }
    fn len(&self) -> CK_ULONG {
        self.attributes.len() as CK_ULONG
    }
}

fn attribute_type(input: &mut Input<'_>) -> CK_ATTRIBUTE_TYPE {
    match input.byte() % 16 {
        0 => CK_ATTRIBUTE_TYPE::from(u32::from_le_bytes([
            input.byte(),
            input.byte(),
            input.byte(),
            input.byte(),
        ])),
        _ => *input.pick(ATTRIBUTES),
    }
}

/// Up to eight attributes with values of every shape: booleans, numbers, known strings, raw bytes
/// of any length, and `NULL` with a non-zero length.
fn template(input: &mut Input<'_>) -> Template {
    let count = input.byte() % 9;
    let mut values: Vec<Vec<u8>> = Vec::new();
    let mut attributes = Vec::new();
    for _ in 0..count {
        let kind = attribute_type(input);
        let value: Option<Vec<u8>> = match input.byte() % 6 {
            0 => Some(vec![input.byte() % 3]),
            1 => Some(input.pick(NUMBERS).to_ne_bytes().to_vec()),
            2 => Some(input.pick(BLOBS).to_vec()),
            3 => Some(input.bytes(200).to_vec()),
            4 => None,
            _ => Some(Vec::new()),
        };
        let attribute = match value {
            Some(value) => {
                let attribute = CK_ATTRIBUTE {
                    type_: kind,
                    pValue: if value.is_empty() {
                        null_mut()
                    } else {
                        value.as_ptr().cast_mut().cast()
                    },
                    ulValueLen: value.len() as CK_ULONG,
                };
                values.push(value);
                attribute
            }
            // NULL with a length: the library must refuse, not read.
            None => CK_ATTRIBUTE {
                type_: kind,
                pValue: null_mut(),
                ulValueLen: CK_ULONG::from(input.byte()) + 1,
            },
        };
        attributes.push(attribute);
    }
    Template {
        attributes,
        _values: values,
    }
}

/// A mechanism and the memory its parameter points to.
struct Mechanism {
    mechanism: CK_MECHANISM,
    _storage: Vec<Vec<u8>>,
    _param: Vec<u8>,
}

/// A buffer of `len` bytes from the input (its pointer is NULL when empty), or NULL with a
/// non-zero length.
fn buffer(input: &mut Input<'_>, storage: &mut Vec<Vec<u8>>) -> (*mut u8, CK_ULONG) {
    if input.byte() % 8 == 0 {
        return (null_mut(), CK_ULONG::from(input.byte()) + 1);
    }
    let data = input.bytes(80).to_vec();
    let pair = if data.is_empty() {
        (null_mut(), 0)
    } else {
        (data.as_ptr().cast_mut(), data.len() as CK_ULONG)
    };
    storage.push(data);
    pair
}

/// The bytes of a parameter structure. Its `ulParameterLen` is the structure's size or, now and
/// then, less (never more: the memory must hold what the length says).
fn structure<T>(value: T) -> Vec<u8> {
    // SAFETY: the structures are plain C data; their bytes are copied out.
    unsafe {
        std::slice::from_raw_parts((&raw const value).cast::<u8>(), std::mem::size_of::<T>())
            .to_vec()
    }
}

fn number(input: &mut Input<'_>) -> CK_ULONG {
    if input.byte() % 4 == 0 {
        CK_ULONG::from(input.byte())
    } else {
        *input.pick(NUMBERS)
    }
}

const HASHES: &[CK_MECHANISM_TYPE] = &[
    CKM_SHA256,
    CKM_SHA384,
    CKM_SHA512,
    CKM_SHA_1,
    CKM_SHA3_256,
    0x8052_4701,
    0,
];

fn mechanism(input: &mut Input<'_>, listed: &[CK_MECHANISM_TYPE]) -> Mechanism {
    let kind = match input.byte() % 8 {
        0 => CK_MECHANISM_TYPE::from(u32::from_le_bytes([
            input.byte(),
            input.byte(),
            input.byte(),
            input.byte(),
        ])),
        _ if listed.is_empty() => CKM_SHA256,
        _ => *input.pick(listed),
    };
    let mut storage = Vec::new();
    let mut arm = input.byte() % 15;
    // A structure with pointers goes only to a mechanism that reads that structure (or none):
    // read as another of the same size, its numbers would be pointers no caller could give
    // (a CK_GCM_PARAMS for CKM_AES_CCM has its IV length where the nonce pointer goes).
    if let Some(expected) = pointer_structure_of(kind)
        && POINTER_STRUCTURE_ARMS.contains(&arm)
    {
        arm = expected;
    }
    let param: Vec<u8> = match arm {
        0 => Vec::new(),
        1 => {
            // The fuzzer's bytes, never of a pointer-bearing structure's size (a multiple of 8
            // from 24 bytes): read as one, they would hand the token pointers no caller could
            // give it (the standard's contract is that parameters point at real memory).
            let mut bytes = input.bytes(80).to_vec();
            if bytes.len() >= 24 && bytes.len() % 8 == 0 {
                bytes.pop();
            }
            bytes
        }
        2 => {
            let (iv, iv_len) = buffer(input, &mut storage);
            let (aad, aad_len) = buffer(input, &mut storage);
            structure(CK_GCM_PARAMS {
                pIv: iv,
                ulIvLen: iv_len,
                ulIvBits: number(input),
                pAAD: aad,
                ulAADLen: aad_len,
                ulTagBits: number(input).wrapping_mul(8) % 257,
            })
        }
        3 => {
            let mut cb = [0u8; 16];
            cb.copy_from_slice(&[input.byte(); 16]);
            structure(CK_AES_CTR_PARAMS {
                ulCounterBits: number(input),
                cb,
            })
        }
        4 => {
            let (nonce, nonce_len) = buffer(input, &mut storage);
            let (aad, aad_len) = buffer(input, &mut storage);
            structure(CK_CCM_PARAMS {
                ulDataLen: number(input),
                pNonce: nonce,
                ulNonceLen: nonce_len,
                pAAD: aad,
                ulAADLen: aad_len,
                ulMACLen: number(input),
            })
        }
        5 => {
            let (shared, shared_len) = buffer(input, &mut storage);
            let (public, public_len) = if input.byte() % 2 == 0 {
                let point = input.pick(BLOBS).to_vec();
                let pair = (point.as_ptr().cast_mut(), point.len() as CK_ULONG);
                storage.push(point);
                pair
            } else {
                buffer(input, &mut storage)
            };
            structure(CK_ECDH1_DERIVE_PARAMS {
                kdf: number(input),
                ulSharedDataLen: shared_len,
                pSharedData: shared,
                ulPublicDataLen: public_len,
                pPublicData: public,
            })
        }
        6 => {
            let (salt, salt_len) = buffer(input, &mut storage);
            let (info, info_len) = buffer(input, &mut storage);
            structure(CK_HKDF_PARAMS {
                bExtract: input.byte() % 3,
                bExpand: input.byte() % 3,
                prfHashMechanism: *input.pick(HASHES),
                ulSaltType: number(input) % 5,
                pSalt: salt,
                ulSaltLen: salt_len,
                hSaltKey: number(input),
                pInfo: info,
                ulInfoLen: info_len,
            })
        }
        7 => {
            let (salt, salt_len) = buffer(input, &mut storage);
            let (password, password_len) = buffer(input, &mut storage);
            let (prf_data, prf_data_len) = buffer(input, &mut storage);
            structure(CK_PKCS5_PBKD2_PARAMS2 {
                saltSource: number(input) % 3,
                pSaltSourceData: salt.cast(),
                ulSaltSourceDataLen: salt_len,
                // Bounded: the count is work, not a shape.
                iterations: 1000 * CK_ULONG::from(input.byte() % 3),
                prf: number(input) % 10,
                pPrfData: prf_data.cast(),
                ulPrfDataLen: prf_data_len,
                pPassword: password,
                ulPasswordLen: password_len,
            })
        }
        8 => structure(CK_RSA_PKCS_PSS_PARAMS {
            hashAlg: *input.pick(HASHES),
            mgf: number(input) % 8,
            sLen: number(input),
        }),
        9 => {
            let (source, source_len) = buffer(input, &mut storage);
            structure(CK_RSA_PKCS_OAEP_PARAMS {
                hashAlg: *input.pick(HASHES),
                mgf: number(input) % 8,
                source: number(input) % 3,
                pSourceData: source.cast::<c_void>(),
                ulSourceDataLen: source_len,
            })
        }
        10 => input.pick(BLOBS).to_vec(),
        11 => sp800_108_params(input, &mut storage),
        12 => {
            let (context, context_len) = buffer(input, &mut storage);
            structure(CK_SIGN_ADDITIONAL_CONTEXT {
                hedgeVariant: number(input) % 4,
                pContext: context,
                ulContextLen: context_len,
            })
        }
        13 => {
            // regula-pkcs11.h's SM2 key exchange: IDs, a handle, the peer's points (curveSM2's
            // generator or the fuzzer's bytes) and two 32-byte outputs, each now and then NULL.
            let (own_id, own_id_len) = buffer(input, &mut storage);
            let (peer_id, peer_id_len) = buffer(input, &mut storage);
            let mut point = |input: &mut Input<'_>| {
                if input.byte() % 2 == 0 {
                    let point = SM2_GENERATOR.to_vec();
                    let pair = (point.as_ptr().cast_mut(), point.len() as CK_ULONG);
                    storage.push(point);
                    pair
                } else {
                    buffer(input, &mut storage)
                }
            };
            let (peer_public, peer_public_len) = point(input);
            let (peer_ephemeral, peer_ephemeral_len) = point(input);
            let mut confirmation = |input: &mut Input<'_>| {
                if input.byte() % 4 == 0 {
                    return null_mut();
                }
                let mut out = vec![0u8; 32];
                let pointer = out.as_mut_ptr();
                storage.push(out);
                pointer
            };
            let (own_confirmation, peer_confirmation) = (confirmation(input), confirmation(input));
            structure(CK_REGULA_SM2_KEY_EXCHANGE_PARAMS {
                isInitiator: input.byte() % 3,
                pOwnId: own_id,
                ulOwnIdLen: own_id_len,
                pPeerId: peer_id,
                ulPeerIdLen: peer_id_len,
                hOwnEphemeralKey: number(input),
                pPeerPublicKey: peer_public,
                ulPeerPublicKeyLen: peer_public_len,
                pPeerEphemeralKey: peer_ephemeral,
                ulPeerEphemeralKeyLen: peer_ephemeral_len,
                pConfirmation: own_confirmation,
                pPeerConfirmation: peer_confirmation,
            })
        }
        _ => {
            // NULL with a length.
            let mechanism = CK_MECHANISM {
                mechanism: kind,
                pParameter: null_mut(),
                ulParameterLen: CK_ULONG::from(input.byte()) + 1,
            };
            return Mechanism {
                mechanism,
                _storage: storage,
                _param: Vec::new(),
            };
        }
    };
    // Now and then a structure is described as shorter than it is.
    let len = match input.byte() % 8 {
        0 => param
            .len()
            .saturating_sub(usize::from(input.byte() % 16) + 1),
        _ => param.len(),
    };
    let mechanism = CK_MECHANISM {
        mechanism: kind,
        pParameter: if param.is_empty() {
            null_mut()
        } else {
            param.as_ptr().cast_mut().cast()
        },
        ulParameterLen: len as CK_ULONG,
    };
    Mechanism {
        mechanism,
        _storage: storage,
        _param: param,
    }
}

/// The arms of [`mechanism`] that build a structure holding pointers.
const POINTER_STRUCTURE_ARMS: [u8; 9] = [2, 4, 5, 6, 7, 9, 11, 12, 13];

/// curveSM2's generator, uncompressed (GB/T 32918.5-2017): a valid peer point.
const SM2_GENERATOR: [u8; 65] = [
    0x04, 0x32, 0xc4, 0xae, 0x2c, 0x1f, 0x19, 0x81, 0x19, 0x5f, 0x99, 0x04, 0x46, 0x6a, 0x39, 0xc9,
    0x94, 0x8f, 0xe3, 0x0b, 0xbf, 0xf2, 0x66, 0x0b, 0xe1, 0x71, 0x5a, 0x45, 0x89, 0x33, 0x4c, 0x74,
    0xc7, 0xbc, 0x37, 0x36, 0xa2, 0xf4, 0xf6, 0x77, 0x9c, 0x59, 0xbd, 0xce, 0xe3, 0x6b, 0x69, 0x21,
    0x53, 0xd0, 0xa9, 0x87, 0x7c, 0xc6, 0x2a, 0x47, 0x40, 0x02, 0xdf, 0x32, 0xe5, 0x21, 0x39, 0xf0,
    0xa0,
];

/// The arm building the pointer-bearing structure `kind` reads, if it reads one.
fn pointer_structure_of(kind: CK_MECHANISM_TYPE) -> Option<u8> {
    // regula-pkcs11.h's SM4-GCM, SM4-CCM, SM2 ECDH and SM2 key exchange.
    const SM4_GCM: CK_MECHANISM_TYPE = 0x8052_4709;
    const SM4_CCM: CK_MECHANISM_TYPE = 0x8052_470A;
    const SM2_ECDH: CK_MECHANISM_TYPE = 0x8052_4714;
    const SM2_KEY_EXCHANGE: CK_MECHANISM_TYPE = 0x8052_4715;
    Some(match kind {
        CKM_AES_GCM | SM4_GCM => 2,
        CKM_AES_CCM | SM4_CCM => 4,
        CKM_ECDH1_DERIVE | SM2_ECDH => 5,
        CKM_HKDF_DERIVE => 6,
        CKM_PKCS5_PBKD2 => 7,
        CKM_RSA_PKCS_OAEP => 9,
        CKM_SP800_108_COUNTER_KDF => 11,
        CKM_ML_DSA => 12,
        SM2_KEY_EXCHANGE => 13,
        _ => return None,
    })
}

/// A `CK_SP800_108_KDF_PARAMS` whose data parameters (up to four, or a NULL array with a
/// count) point to counter and DKM-length formats, byte arrays or the fuzzer's bytes, each with
/// a length that may disagree with what it points to; the nested memory is kept in `storage`.
fn sp800_108_params(input: &mut Input<'_>, storage: &mut Vec<Vec<u8>>) -> Vec<u8> {
    let count = usize::from(input.byte() % 5);
    let mut data_params = Vec::with_capacity(count);
    for _ in 0..count {
        let (kind, value) = match input.byte() % 4 {
            0 => (
                CK_SP800_108_ITERATION_VARIABLE,
                structure(CK_SP800_108_COUNTER_FORMAT {
                    bLittleEndian: input.byte() % 2,
                    ulWidthInBits: number(input),
                }),
            ),
            1 => (
                CK_SP800_108_DKM_LENGTH,
                structure(CK_SP800_108_DKM_LENGTH_FORMAT {
                    dkmLengthMethod: number(input) % 4,
                    bLittleEndian: input.byte() % 2,
                    ulWidthInBits: number(input),
                }),
            ),
            2 => (CK_SP800_108_BYTE_ARRAY, input.bytes(40).to_vec()),
            _ => (number(input), input.bytes(24).to_vec()),
        };
        let claimed = match input.byte() % 6 {
            0 => value.len().saturating_sub(1),
            1 => 0,
            _ => value.len(),
        };
        let pointer = if value.is_empty() || input.byte() % 10 == 0 {
            null_mut()
        } else {
            value.as_ptr().cast_mut().cast::<c_void>()
        };
        data_params.push(CK_PRF_DATA_PARAM {
            type_: kind,
            pValue: pointer,
            ulValueLen: claimed as CK_ULONG,
        });
        storage.push(value);
    }
    let (array, declared) = if data_params.is_empty() && input.byte() % 2 == 0 {
        (null_mut(), CK_ULONG::from(input.byte() % 3))
    } else {
        let bytes: Vec<u8> = data_params.iter().flat_map(|p| structure(*p)).collect();
        let pointer = if bytes.is_empty() {
            null_mut()
        } else {
            bytes.as_ptr().cast_mut().cast::<CK_PRF_DATA_PARAM>()
        };
        storage.push(bytes);
        (pointer, data_params.len() as CK_ULONG)
    };
    structure(CK_SP800_108_KDF_PARAMS {
        prfType: *input.pick(&[CKM_SHA256_HMAC, CKM_SHA384_HMAC, CKM_AES_CMAC, CKM_SHA_1]),
        ulNumberOfDataParams: declared,
        pDataParams: array,
        ulAdditionalDerivedKeys: CK_ULONG::from(input.byte() % 2),
        pAdditionalDerivedKeys: null_mut(),
    })
}

/// An output buffer the caller says holds `len` bytes, followed by a guard zone that must stay
/// untouched; or NULL (a length query).
struct Output {
    memory: Vec<u8>,
    len: CK_ULONG,
    null: bool,
}

impl Output {
    fn new(input: &mut Input<'_>) -> Output {
        let choice = input.byte();
        let len = match choice % 4 {
            0 => 0,
            1 => usize::from(input.byte()),
            2 => usize::from(input.byte()) * 64,
            _ => 4096,
        };
        Output {
            memory: vec![GUARD_BYTE; len + GUARD],
            len: len as CK_ULONG,
            null: choice & 0x80 != 0,
        }
    }
    /// Nothing past the `given` bytes was written.
    fn check_guard(&self, given: CK_ULONG, what: &str) {
        let guard = &self.memory[given as usize..];
        assert!(
            guard.iter().all(|&b| b == GUARD_BYTE),
            "{what} wrote past the caller's {given}-byte buffer"
        );
    }
    fn ptr(&mut self) -> *mut u8 {
        if self.null {
            null_mut()
        } else {
            self.memory.as_mut_ptr()
        }
    }
    /// After a call: nothing past the given length was written, and a success said a length
    /// that fits.
    fn check(&self, rv: CK_RV, given: CK_ULONG, what: &str) {
        self.check_guard(given, what);
        if rv == CKR_OK && !self.null {
            assert!(
                self.len <= given,
                "{what} succeeded with a length {} longer than the buffer ({given})",
                self.len
            );
        }
    }
}

/// Calls an output-producing function with a fresh buffer from the input, and checks it.
fn with_output(
    input: &mut Input<'_>,
    what: &str,
    call: impl FnOnce(*mut u8, *mut CK_ULONG) -> CK_RV,
) -> CK_RV {
    let mut output = Output::new(input);
    let given = output.len;
    let pointer = output.ptr();
    let rv = call(pointer, &mut output.len);
    output.check(rv, given, what);
    rv
}

fn handle(input: &mut Input<'_>, objects: &[CK_OBJECT_HANDLE]) -> CK_OBJECT_HANDLE {
    match input.byte() % 8 {
        0 => CK_OBJECT_HANDLE::from(input.byte()),
        _ if objects.is_empty() => 1,
        _ => *input.pick(objects),
    }
}

/// One run: a fresh session on the slot the input picks, up to 24 calls, then every object the
/// run made is destroyed and the session closed (which also ends any operation left open).
fn drive(token: &Token, input: &mut Input<'_>) {
    let slot = usize::from(input.byte()) % SLOTS.len();
    let listed = &token.mechanisms[slot];
    let session = open(slot as CK_SLOT_ID);
    let mut objects: Vec<CK_OBJECT_HANDLE> = Vec::new();
    for _ in 0..24 {
        if input.0.is_empty() {
            break;
        }
        // SAFETY (every call below): templates, mechanisms and buffers point to live memory of
        // the lengths they give; NULL pointers come with the lengths the fuzzer chose.
        unsafe {
            match input.byte() % 16 {
                0 => {
                    let mut template = template(input);
                    let mut object = 0;
                    if C_CreateObject(session, template.ptr(), template.len(), &mut object)
                        == CKR_OK
                    {
                        objects.push(object);
                    }
                }
                1 => {
                    let object = handle(input, &objects);
                    let count = input.byte() % 6;
                    let mut buffers: Vec<Output> = (0..count).map(|_| Output::new(input)).collect();
                    let mut attributes: Vec<CK_ATTRIBUTE> = buffers
                        .iter_mut()
                        .map(|buffer| CK_ATTRIBUTE {
                            type_: attribute_type(input),
                            pValue: buffer.ptr().cast(),
                            ulValueLen: buffer.len,
                        })
                        .collect();
                    let pointer = if attributes.is_empty() {
                        null_mut()
                    } else {
                        attributes.as_mut_ptr()
                    };
                    let rv =
                        C_GetAttributeValue(session, object, pointer, attributes.len() as CK_ULONG);
                    // Per attribute: a value was written within the buffer, or the length is
                    // "unavailable" (too small, sensitive, unknown); a length query answers any.
                    for (buffer, attribute) in buffers.iter().zip(&attributes) {
                        let given = buffer.len;
                        buffer.check_guard(given, "C_GetAttributeValue");
                        let reported = attribute.ulValueLen;
                        assert!(
                            buffer.null
                                || reported == CK_UNAVAILABLE_INFORMATION
                                || reported <= given,
                            "C_GetAttributeValue: length {reported} for a {given}-byte buffer (rv {rv:#x})"
                        );
                    }
                }
                2 => {
                    let object = handle(input, &objects);
                    let mut template = template(input);
                    C_SetAttributeValue(session, object, template.ptr(), template.len());
                }
                3 => {
                    let mut template = template(input);
                    if C_FindObjectsInit(session, template.ptr(), template.len()) == CKR_OK {
                        let max = usize::from(input.byte() % 8);
                        let mut found = vec![0 as CK_OBJECT_HANDLE; max + 4];
                        let mut count: CK_ULONG = 0;
                        let rv =
                            C_FindObjects(session, found.as_mut_ptr(), max as CK_ULONG, &mut count);
                        assert!(
                            rv != CKR_OK || count as usize <= max,
                            "C_FindObjects overran"
                        );
                        assert!(
                            found[max..].iter().all(|&h| h == 0),
                            "C_FindObjects overran"
                        );
                        C_FindObjectsFinal(session);
                    }
                }
                4 => {
                    let mut mechanism = mechanism(input, listed);
                    let mut template = template(input);
                    let mut object = 0;
                    let rv = C_GenerateKey(
                        session,
                        &mut mechanism.mechanism,
                        template.ptr(),
                        template.len(),
                        &mut object,
                    );
                    if rv == CKR_OK {
                        objects.push(object);
                    }
                }
                5 => {
                    let mut mechanism = mechanism(input, listed);
                    let mut public = template(input);
                    let mut private = template(input);
                    let (mut public_key, mut private_key) = (0, 0);
                    let rv = C_GenerateKeyPair(
                        session,
                        &mut mechanism.mechanism,
                        public.ptr(),
                        public.len(),
                        private.ptr(),
                        private.len(),
                        &mut public_key,
                        &mut private_key,
                    );
                    if rv == CKR_OK {
                        objects.extend([public_key, private_key]);
                    }
                }
                6 => {
                    let mut mechanism = mechanism(input, listed);
                    let base = handle(input, &objects);
                    let mut template = template(input);
                    let mut object = 0;
                    let rv = C_DeriveKey(
                        session,
                        &mut mechanism.mechanism,
                        base,
                        template.ptr(),
                        template.len(),
                        &mut object,
                    );
                    if rv == CKR_OK {
                        objects.push(object);
                    }
                }
                7 => {
                    let mut mechanism = mechanism(input, listed);
                    let (wrapping, key) = (handle(input, &objects), handle(input, &objects));
                    with_output(input, "C_WrapKey", |out, len| {
                        C_WrapKey(session, &mut mechanism.mechanism, wrapping, key, out, len)
                    });
                }
                8 => {
                    let mut mechanism = mechanism(input, listed);
                    let unwrapping = handle(input, &objects);
                    let wrapped = input.bytes(120).to_vec();
                    let mut template = template(input);
                    let mut object = 0;
                    let rv = C_UnwrapKey(
                        session,
                        &mut mechanism.mechanism,
                        unwrapping,
                        if wrapped.is_empty() {
                            null_mut()
                        } else {
                            wrapped.as_ptr().cast_mut()
                        },
                        wrapped.len() as CK_ULONG,
                        template.ptr(),
                        template.len(),
                        &mut object,
                    );
                    if rv == CKR_OK {
                        objects.push(object);
                    }
                }
                9 | 10 => {
                    let encrypt = input.byte() % 2 == 0;
                    let mut mechanism = mechanism(input, listed);
                    let key = handle(input, &objects);
                    let (init, single, update, finish): (
                        unsafe extern "C" fn(_, _, _) -> _,
                        unsafe extern "C" fn(_, _, _, _, _) -> _,
                        unsafe extern "C" fn(_, _, _, _, _) -> _,
                        unsafe extern "C" fn(_, _, _) -> _,
                    ) = if encrypt {
                        (C_EncryptInit, C_Encrypt, C_EncryptUpdate, C_EncryptFinal)
                    } else {
                        (C_DecryptInit, C_Decrypt, C_DecryptUpdate, C_DecryptFinal)
                    };
                    if init(session, &mut mechanism.mechanism, key) != CKR_OK {
                        continue;
                    }
                    crypt_calls(input, session, single, update, finish);
                }
                11 => {
                    let mut mechanism = mechanism(input, listed);
                    let key = handle(input, &objects);
                    if C_SignInit(session, &mut mechanism.mechanism, key) == CKR_OK {
                        let (data, len) = data(input);
                        if input.byte() % 2 == 0 {
                            with_output(input, "C_Sign", |out, out_len| {
                                C_Sign(session, data, len, out, out_len)
                            });
                        } else {
                            C_SignUpdate(session, data, len);
                            with_output(input, "C_SignFinal", |out, out_len| {
                                C_SignFinal(session, out, out_len)
                            });
                        }
                    }
                }
                12 => {
                    let mut mechanism = mechanism(input, listed);
                    let key = handle(input, &objects);
                    if C_VerifyInit(session, &mut mechanism.mechanism, key) == CKR_OK {
                        let (data, len) = data(input);
                        let signature = input.bytes(200).to_vec();
                        let pointer = if signature.is_empty() {
                            null_mut()
                        } else {
                            signature.as_ptr().cast_mut()
                        };
                        if input.byte() % 2 == 0 {
                            C_Verify(session, data, len, pointer, signature.len() as CK_ULONG);
                        } else {
                            C_VerifyUpdate(session, data, len);
                            C_VerifyFinal(session, pointer, signature.len() as CK_ULONG);
                        }
                    }
                }
                13 => {
                    let mut mechanism = mechanism(input, listed);
                    let key = handle(input, &objects);
                    let mut template = template(input);
                    let mut object = 0;
                    let rv = with_output(input, "C_EncapsulateKey", |out, out_len| {
                        C_EncapsulateKey(
                            session,
                            &mut mechanism.mechanism,
                            key,
                            template.ptr(),
                            template.len(),
                            out,
                            out_len,
                            &mut object,
                        )
                    });
                    if rv == CKR_OK {
                        objects.push(object);
                    }
                }
                14 => {
                    let mut mechanism = mechanism(input, listed);
                    let key = handle(input, &objects);
                    let mut template = template(input);
                    let ciphertext = kem_ciphertext(input);
                    let mut object = 0;
                    let rv = C_DecapsulateKey(
                        session,
                        &mut mechanism.mechanism,
                        key,
                        template.ptr(),
                        template.len(),
                        if ciphertext.is_empty() {
                            null_mut()
                        } else {
                            ciphertext.as_ptr().cast_mut()
                        },
                        ciphertext.len() as CK_ULONG,
                        &mut object,
                    );
                    if rv == CKR_OK {
                        objects.push(object);
                    }
                }
                _ => {
                    let mut mechanism = mechanism(input, listed);
                    if C_DigestInit(session, &mut mechanism.mechanism) == CKR_OK {
                        let (data, len) = data(input);
                        with_output(input, "C_Digest", |out, out_len| {
                            C_Digest(session, data, len, out, out_len)
                        });
                    }
                }
            }
        }
    }
    // Handles possibly already gone: the answer is then an error code.
    for object in objects {
        C_DestroyObject(session, object);
    }
    assert_eq!(C_CloseSession(session), CKR_OK);
}

type Single =
    unsafe extern "C" fn(CK_SESSION_HANDLE, *mut u8, CK_ULONG, *mut u8, *mut CK_ULONG) -> CK_RV;
type Final = unsafe extern "C" fn(CK_SESSION_HANDLE, *mut u8, *mut CK_ULONG) -> CK_RV;

/// Input data for an operation: the fuzzer's bytes (borrowed from the input, which outlives the
/// run), or NULL with a length.
fn data(input: &mut Input<'_>) -> (*mut u8, CK_ULONG) {
    if input.byte() % 8 == 0 {
        return (null_mut(), CK_ULONG::from(input.byte()) + 1);
    }
    let bytes = input.bytes(255);
    if bytes.is_empty() {
        (null_mut(), 0)
    } else {
        (bytes.as_ptr().cast_mut(), bytes.len() as CK_ULONG)
    }
}

/// A KEM ciphertext: ML-KEM-768's or ML-KEM-1024's exact length (any bytes of that length
/// decapsulate, to a pseudorandom secret), one byte off, or the fuzzer's bytes.
fn kem_ciphertext(input: &mut Input<'_>) -> Vec<u8> {
    let fill = input.byte();
    match input.byte() % 4 {
        0 => vec![fill; 1088],
        1 => vec![fill; 1568],
        2 => vec![fill; 1088 + usize::from(fill % 3) - 1],
        _ => input.bytes(255).to_vec(),
    }
}

/// Single-part or multi-part encryption or decryption, each call with its own output buffer,
/// retried now and then as the length protocol allows.
unsafe fn crypt_calls(
    input: &mut Input<'_>,
    session: CK_SESSION_HANDLE,
    single: Single,
    update: Single,
    finish: Final,
) {
    if input.byte() % 2 == 0 {
        for _ in 0..1 + input.byte() % 3 {
            let (data, len) = data(input);
            // SAFETY: as in `drive`.
            let rv = with_output(input, "single-part crypt", |out, out_len| unsafe {
                single(session, data, len, out, out_len)
            });
            if rv != CKR_OK && rv != CKR_BUFFER_TOO_SMALL {
                break;
            }
        }
    } else {
        for _ in 0..input.byte() % 4 {
            let (data, len) = data(input);
            // SAFETY: as in `drive`.
            with_output(input, "multi-part crypt update", |out, out_len| unsafe {
                update(session, data, len, out, out_len)
            });
        }
        for _ in 0..1 + input.byte() % 2 {
            // SAFETY: as in `drive`.
            with_output(input, "multi-part crypt final", |out, out_len| unsafe {
                finish(session, out, out_len)
            });
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut token = TOKEN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let token = token.get_or_insert_with(set_up);
    drive(token, &mut Input(data));
});
