//! SMB 3.x through the `regula` binary: Microsoft's published key-derivation and encrypted-message
//! samples, reproduced with `regula kdf -a kbkdf-ctr-hmac-sha256`, `regula dec`/`enc -a
//! aes-128-ccm|aes-128-gcm` and `regula dgst -a sha512`, plus the NTLMv2 session-key computation
//! that produced one of those SessionKeys (MD4, HMAC-MD5, RC4, MD5 under the default policy).
//!
//! Sources (Microsoft Open Specifications blog, author Edgar A. Olougouna; sample data published
//! "as-is", normative reference [MS-SMB2]); every expected value below is copied from them:
//! - [ANATOMY] "SMB 2 and SMB 3 security in Windows 10: the anatomy of signing and cryptographic
//!   keys" (2017-05-26), appendix "Key derivation examples" (SMB 3.0 and 3.1.1 multichannel,
//!   with the whole pre-authentication hash chain) and "NTLMv2 SessionKey calculation example".
//!   <https://learn.microsoft.com/en-us/archive/blogs/openspecification/smb-2-and-smb-3-security-in-windows-10-the-anatomy-of-signing-and-cryptographic-keys>
//! - [SMB30] "Encryption in SMB 3.0: a protocol perspective" (2012-10-05), its sample: the
//!   session's four keys and the WRITE/READ requests and responses, AES-128-CCM.
//!   <https://learn.microsoft.com/en-us/archive/blogs/openspecification/encryption-in-smb-3-0-a-protocol-perspective>
//! - [SMB311] "SMB 3.1.1 Encryption in Windows 10" (2015-09-09), appendix A.1 (AES-128-GCM) and
//!   A.2 (AES-128-CCM): keys and the WRITE/READ requests and responses.
//!   <https://learn.microsoft.com/en-us/archive/blogs/openspecification/smb-3-1-1-encryption-in-windows-10>
//!
//! emc-isilon/pike's `pike/test/test_smb3_encryption_vector.py` embeds most of the same data.
//!
//! SMB3 KDF ([MS-SMB2] §3.1.4.2): SP 800-108 counter mode, HMAC-SHA256, r = 32, L = 128, fixed
//! input `Label ‖ 0x00 ‖ Context ‖ [L]₃₂`. The labels and the 3.0 contexts are NUL-terminated
//! strings and their NUL is part of them ("SMB2AESCMAC\0"), so `--label` carries it and the
//! separator byte follows it. SMB 3.1.1's context is the 64-byte pre-authentication hash.
//!
//! Transform header ([MS-SMB2] §2.2.41): ProtocolId (4) ‖ Signature (16) ‖ Nonce (16) ‖
//! OriginalMessageSize (4) ‖ Reserved (2) ‖ Flags (2) ‖ SessionId (8), then the ciphertext. The
//! AEAD nonce is the first 11 (CCM) or 12 (GCM) bytes of Nonce, the AAD is bytes 20..52 (the
//! header without ProtocolId and Signature), the tag is Signature.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const REGULA: &str = env!("CARGO_BIN_EXE_regula");

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(REGULA)
        .args(args)
        .env_remove("REGULA_BREAK_SELFTEST")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("regula binary runs");
    if let Err(error) = child.stdin.take().expect("stdin").write_all(stdin) {
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::BrokenPipe,
            "stdin: {error}"
        );
    }
    child.wait_with_output().expect("regula finishes")
}

/// Runs `regula`, requires exit 0, returns stdout.
#[track_caller]
fn run_ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let output = run(args, stdin);
    assert_eq!(
        output.status.code(),
        Some(0),
        "regula {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn unhex(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap_or_else(|error| panic!("bad hex in a vector ({error}): {text}"))
}

/// An ASCII string with its terminating NUL, in hex, as SMB3's labels and 3.0 contexts are.
fn nul_terminated(text: &str) -> String {
    hex::encode([text.as_bytes(), &[0]].concat())
}

/// `regula kdf -a kbkdf-ctr-hmac-sha256 --secret … --label … --context … -l 16`.
#[track_caller]
fn smb3kdf(session_key: &str, label: &str, context_hex: &str) -> String {
    let label = nul_terminated(label);
    let stdout = run_ok(
        &[
            "kdf",
            "-a",
            "kbkdf-ctr-hmac-sha256",
            "--secret",
            session_key,
            "--label",
            &label,
            "--context",
            context_hex,
            "-l",
            "16",
        ],
        b"",
    );
    String::from_utf8(stdout)
        .expect("utf-8")
        .trim()
        .to_uppercase()
}

/// The keys a session sample lists.
struct Keys {
    session_key: &'static str,
    signing: &'static str,
    encryption: &'static str,
    decryption: &'static str,
    application: &'static str,
}

#[track_caller]
fn check_smb30_keys(keys: &Keys) {
    let s = keys.session_key;
    let sign = nul_terminated("SmbSign");
    let server_in = nul_terminated("ServerIn "); // the trailing space is part of the context
    let server_out = nul_terminated("ServerOut");
    let rpc = nul_terminated("SmbRpc");
    assert_eq!(smb3kdf(s, "SMB2AESCMAC", &sign), keys.signing, "SigningKey");
    assert_eq!(
        smb3kdf(s, "SMB2AESCCM", &server_in),
        keys.encryption,
        "EncryptionKey"
    );
    assert_eq!(
        smb3kdf(s, "SMB2AESCCM", &server_out),
        keys.decryption,
        "DecryptionKey"
    );
    assert_eq!(
        smb3kdf(s, "SMB2APP", &rpc),
        keys.application,
        "ApplicationKey"
    );
}

#[track_caller]
fn check_smb311_keys(keys: &Keys, preauth_hash: &str) {
    let s = keys.session_key;
    assert_eq!(preauth_hash.len(), 128, "a SHA-512 pre-authentication hash");
    assert_eq!(
        smb3kdf(s, "SMBSigningKey", preauth_hash),
        keys.signing,
        "SigningKey"
    );
    assert_eq!(
        smb3kdf(s, "SMBC2SCipherKey", preauth_hash),
        keys.encryption,
        "EncryptionKey"
    );
    assert_eq!(
        smb3kdf(s, "SMBS2CCipherKey", preauth_hash),
        keys.decryption,
        "DecryptionKey"
    );
    assert_eq!(
        smb3kdf(s, "SMBAppKey", preauth_hash),
        keys.application,
        "ApplicationKey"
    );
}

/// [SMB30] sample session 0x8e40014000011.
const SMB30_SESSION: Keys = Keys {
    session_key: "B4546771B515F766A86735532DD6C4F0",
    signing: "F773CD23C18FD1E08EE510CADA7CF852",
    encryption: "261B72350558F2E9DCF613070383EDBF",
    decryption: "8FE2B57EC34D2DB5B1A9727F526BBDB5",
    application: "77432F808CE99156B5BC6A3676D730D1",
};

/// [SMB311] A.1 (cipher 0x0002, AES-128-GCM), session 0x100000000025.
const SMB311_GCM_SESSION: Keys = Keys {
    session_key: "419FDDF34C1E001909D362AE7FB6AF79",
    signing: "8765949DFEAEE105CE9118B45BE988F0",
    encryption: "A2F5E80E5D59103034F32E52F698E5EC",
    decryption: "748C50868C90F302962A5C35F5F9A8BF",
    application: "099D610789FBE82055B313601C3E8CC4",
};
const SMB311_GCM_PREAUTH: &str = concat!(
    "B23F3CBFD69487D9832B79B1594A367CDD950909B774C3A4C412B4FCEA9EDDDBA7DB256BA2EA30E9",
    "77F11F9B113247578E0E915C6D2A513B8F2FCA5707DC8770"
);

/// [SMB311] A.2 (cipher 0x0001, AES-128-CCM), session 0x100000000021.
const SMB311_CCM_SESSION: Keys = Keys {
    session_key: "07B7F69C1E2581662DF6987E88F9E891",
    signing: "3DCC82C5795AE27F383242761078C59B",
    encryption: "DFAAA31AAE40A2485D47AC4DF09FDA1D",
    decryption: "95C544AEF6072680DA1CE49A68A97FA6",
    application: "7A2F0F73EC2D530879B2913BBFCE242F",
};
const SMB311_CCM_PREAUTH: &str = concat!(
    "DECF98A420718718F22090D3580FCC5E484BD310FA1268210C6E86335A8891E767F5BCD99FA5A785",
    "9D665AD07A73EA94E1BCDB7CFA69A6962A28A244138340B1"
);

#[test]
fn smb30_keys_from_the_anatomy_and_encryption_posts() {
    // [ANATOMY] "Key derivation example for SMB 3.0 multichannel", master session (dialect
    // 0x0300).
    check_smb30_keys(&Keys {
        session_key: "7CD451825D0450D235424E44BA6E78CC",
        signing: "0B7E9C5CAC36C0F6EA9AB275298CEDCE",
        encryption: "FAD27796665B313EBB578F388632B4F7",
        decryption: "B0F0427F7CEB416D1D9DCC0CD4F99447",
        application: "BB23A4575AA26C721AF525AF15A87B4F",
    });
    // Its second channel derives only Channel.SigningKey (the other keys are copied from the
    // master session).
    assert_eq!(
        smb3kdf(
            "4E01A2B313BCF660CC250BEF021AEDE6",
            "SMB2AESCMAC",
            &nul_terminated("SmbSign")
        ),
        "BA1A17DBBFEC349BCA105563D598952F"
    );
    check_smb30_keys(&SMB30_SESSION);
}

#[test]
fn smb311_keys_from_the_anatomy_and_encryption_posts() {
    // [ANATOMY] "Key derivation example for SMB 3.1.1 multichannel", master session.
    check_smb311_keys(
        &Keys {
            session_key: "270E1BA896585EEB7AF3472D3B4C75A7",
            signing: "73FE7A9A77BEF0BDE49C650D8CCB5F76",
            encryption: "629BCBC54422A0F572B97F45989B6073",
            decryption: "E2AF0DCEFAC68DA71A0DFBD0D1350D74",
            application: "6D7AD7954E9EC61E907B4D473DC178FF",
        },
        ANATOMY_PREAUTH[4],
    );
    // Its second channel (session binding): Channel.SigningKey from that channel's SessionKey
    // and its own pre-authentication hash.
    assert_eq!(
        smb3kdf(
            "84B9DBB730116A8FA6E9889555C265F9",
            "SMBSigningKey",
            concat!(
                "EA3BF912B11CBFEC5B1889E8209614218687F82FA5294521AD3063425E49E88A10BD022124CE2512",
                "3BC9111F52D9566BA88BF46344E6063DC5E3FF0389026F6C"
            )
        ),
        "C962BCA1A9DD1697B030644199705431"
    );
    check_smb311_keys(&SMB311_GCM_SESSION, SMB311_GCM_PREAUTH);
    check_smb311_keys(&SMB311_CCM_SESSION, SMB311_CCM_PREAUTH);
}

/// [ANATOMY] SMB 3.1.1 master session: the messages hashed into the pre-authentication hash,
/// in order (NEGOTIATE request, response, SESSION_SETUP request, response, request).
const ANATOMY_PREAUTH_MESSAGES: [&str; 5] = [
    concat!(
        "FE534D4240000100000000000000800000000000000000000100000000000000FFFE000000000000",
        "00000000000000000000000000000000000000000000000024000500000000003F000000ECD86F32",
        "6276024F9F7752B89BB33F3A70000000020000000202100200030203110300000100260000000000",
        "010020000100FA49E6578F1F3A9F4CD3E9CC14A67AA884B3D05844E0E5A118225C15887F32FF0000",
        "0200060000000000020002000100"
    ),
    concat!(
        "FE534D4240000100000000000000010001000000000000000100000000000000FFFE000000000000",
        "000000000000000000000000000000000000000000000000410001001103020039CBCAF329714942",
        "BDCE5D60F09AB3FB2F000000000080000000800000008000D8DAE5ADCBAED00109094AB095AED001",
        "80004001C00100006082013C06062B0601050502A08201303082012CA01A3018060A2B0601040182",
        "3702021E060A2B06010401823702020AA282010C048201084E45474F455854530100000000000000",
        "60000000700000007C7CC0FD06D6362D02DDE1CF343BFE292900F49750B4AA97934D9C4296B26E51",
        "FD370471B235E15A50DAE15BD5489C87000000000000000060000000010000000000000000000000",
        "5C33530DEAF90D4DB2EC4AE3786EC3084E45474F4558545303000000010000004000000098000000",
        "7C7CC0FD06D6362D02DDE1CF343BFE295C33530DEAF90D4DB2EC4AE3786EC3084000000058000000",
        "3056A05430523027802530233121301F06035504031318546F6B656E205369676E696E6720507562",
        "6C6963204B65793027802530233121301F06035504031318546F6B656E205369676E696E67205075",
        "626C6963204B6579010026000000000001002000010060A3C3B95C3C7CCD51EC536648D9B3AC74C4",
        "83CA5B65385A251117BEB30712E50000020004000000000001000200"
    ),
    concat!(
        "FE534D4240000100000000000100800000000000000000000200000000000000FFFE000000000000",
        "00000000000000000000000000000000000000000000000019000001010000000000000058004A00",
        "0000000000000000604806062B0601050502A03E303CA00E300C060A2B06010401823702020AA22A",
        "04284E544C4D5353500001000000978208E200000000000000000000000000000000060380250000",
        "000F"
    ),
    concat!(
        "FE534D4240000100160000C00100010001000000000000000200000000000000FFFE000000000000",
        "190000000010000000000000000000000000000000000000090000004800B300A181B03081ADA003",
        "0A0101A10C060A2B06010401823702020AA281970481944E544C4D53535000020000000C000C0038",
        "00000015828AE20D1D8BA31179D008000000000000000050005000440000000A0092270000000F53",
        "005500540033003100310002000C0053005500540033003100310001000C00530055005400330031",
        "00310004000C0053005500540033003100310003000C0053005500540033003100310007000800A1",
        "A1F5ADCBAED00100000000"
    ),
    concat!(
        "FE534D4240000100000000000100800000000000000000000300000000000000FFFE000000000000",
        "1900000000100000000000000000000000000000000000001900000101000000000000005800CF01",
        "0000000000000000A18201CB308201C7A0030A0101A28201AA048201A64E544C4D53535000030000",
        "001800180090000000EE00EE00A80000000C000C00580000001A001A0064000000120012007E0000",
        "001000100096010000158288E2060380250000000FECAC77A5F385A8BF9C38C706EEEDDCD3530055",
        "005400330031003100610064006D0069006E006900730074007200610074006F0072004400520049",
        "0056004500520033003100310000000000000000000000000000000000000000000000000063078E",
        "B639FE03E20A231C3AE3BF23080101000000000000A1A1F5ADCBAED001BC4AD05F223CC90F000000",
        "0002000C0053005500540033003100310001000C0053005500540033003100310004000C00530055",
        "00540033003100310003000C0053005500540033003100310007000800A1A1F5ADCBAED001060004",
        "00020000000800300030000000000000000000000000300000B61FEFCAA857EA57BF1EDCEBF8974B",
        "8E0EBA5A6DFD9D07A31D11B548F8C9D0CC0A00100000000000000000000000000000000000090016",
        "0063006900660073002F005300550054003300310031000000000000000000000000003B9BDFF38F",
        "5EE8F9663F11A0F4C03A78A31204100100000063775A9A5FD97F0600000000"
    ),
];

/// [ANATOMY] the pre-authentication hash after each of those messages.
const ANATOMY_PREAUTH: [&str; 5] = [
    concat!(
        "DD94EFC5321BB618A2E208BA8920D2F422992526947A409B5037DE1E0FE8C7362B8C47122594CDE0",
        "CE26AA9DFC8BCDBDE0621957672623351A7540F1E54A0426"
    ),
    concat!(
        "324BFA92A4F3A190E466EBEA08D9C110DC88BFED758D9846ECC6F541CC1D02AE3C94A79F36011E99",
        "7E13F841B91B50957AD07B19C8E2539C0B23FDAE09D2C513"
    ),
    concat!(
        "AC0B0F2B9986257700365E416D142A6EDC96DF03594A19E52A15F6BD0D041CD5D432F8ED42C55E33",
        "197A50C9EC00F1462B50C592211B1471A04B56088FDFD5F9"
    ),
    concat!(
        "2729E3440DFDDD839E37193F6E8F20C20CEFB3469E453A70CD980EEC06B8835740A7376008563336",
        "4C8989895ECE81BF102DEEB14D4B7D48AFA76901A7A38387"
    ),
    concat!(
        "0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909DB7928622DDDAD522D97",
        "51640A459762C5A9D6BB084CBB3CE6BDADEF5D5BCE3C6C01"
    ),
];

/// [MS-SMB2] §3.2.5.2 / §3.3.5.4: PreauthIntegrityHashValue = SHA-512(previous ‖ message),
/// starting from 64 zero bytes; the last value is the 3.1.1 KDF context checked above.
#[test]
fn smb311_preauth_hash_chain_with_regula_dgst_sha512() {
    let mut hash = vec![0u8; 64];
    for (message, expected) in ANATOMY_PREAUTH_MESSAGES.iter().zip(ANATOMY_PREAUTH) {
        let input = [hash.as_slice(), &unhex(message)].concat();
        let stdout = run_ok(&["dgst", "-a", "sha512"], &input);
        let line = String::from_utf8(stdout).expect("utf-8");
        let digest = line.split_whitespace().next().expect("a digest");
        assert_eq!(digest.to_uppercase(), expected);
        hash = unhex(digest);
    }
}

/// One encrypted SMB2 message of a sample: the whole transformed message and the SMB2 message
/// it carries.
struct Transformed {
    what: &'static str,
    transformed: &'static str,
    plaintext: &'static str,
}

/// Decrypts `message` with `regula dec`, checks the plaintext, and re-encrypts it with `regula
/// enc` to the same ciphertext and Signature; a flipped Signature bit must fail with exit 1 and
/// no output.
#[track_caller]
fn check_message(algorithm: &str, key: &str, message: &Transformed) {
    let what = message.what;
    let transformed = unhex(message.transformed);
    let plaintext = unhex(message.plaintext);
    assert_eq!(&transformed[..4], b"\xfdSMB", "{what}: ProtocolId");
    let original_size = u32::from_le_bytes(transformed[36..40].try_into().unwrap()) as usize;
    assert_eq!(
        original_size,
        plaintext.len(),
        "{what}: OriginalMessageSize"
    );
    assert_eq!(
        transformed.len(),
        52 + plaintext.len(),
        "{what}: message length"
    );
    let signature = &transformed[4..20];
    let nonce_len = if algorithm.ends_with("gcm") { 12 } else { 11 };
    let nonce = hex::encode(&transformed[20..20 + nonce_len]);
    let aad = hex::encode(&transformed[20..52]);
    let ciphertext = &transformed[52..];
    let sealed = [ciphertext, signature].concat();
    let args = |command: &'static str| {
        vec![
            command.to_string(),
            "-a".into(),
            algorithm.into(),
            "-k".into(),
            key.into(),
            "--iv".into(),
            nonce.clone(),
            "--aad".into(),
            aad.clone(),
        ]
    };
    let dec = args("dec");
    let dec: Vec<&str> = dec.iter().map(String::as_str).collect();
    assert_eq!(run_ok(&dec, &sealed), plaintext, "{what}: regula dec");

    let enc = args("enc");
    let enc: Vec<&str> = enc.iter().map(String::as_str).collect();
    assert_eq!(run_ok(&enc, &plaintext), sealed, "{what}: regula enc");

    let mut forged = sealed.clone();
    *forged.last_mut().unwrap() ^= 1;
    let output = run(&dec, &forged);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{what}: forged Signature must fail"
    );
    assert!(
        output.stdout.is_empty(),
        "{what}: no plaintext from a forgery"
    );
}

/// [SMB30]: AES-128-CCM, 11-byte nonce, 16-byte tag. The client encrypts requests with
/// EncryptionKey and decrypts responses with DecryptionKey.
#[test]
fn smb30_messages_aes_128_ccm() {
    let write_request = Transformed {
        what: "3.0 WRITE request",
        transformed: concat!(
            "FD534D4281A286535415445DAE393921E44FA42E66E69A111892584FB5ED524A",
            "744DA3EE87000000000001001100001400E4080025C8FEE16605A437832D1CD5",
            "2DA9F4645333482A175FE5384563F45FCDAFAEF38BC62BA4D5C62897996625A4",
            "4C29BE5658DE2E6117585779E7B59FFD971278D08580D7FA899E410E910EABF5",
            "AA1DB43050B33B49182637759AC15D84BFCDF5B6B238993C0F4CF4D6012023F6",
            "C627297075D84B7803912D0A9639634453595EF3E33FFE4E7AC2AB"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000900400008000000000000000400000000000000",
            "FFFE0000010000001100001400E4080000000000000000000000000000000000",
            "3100700017000000000000000000000015010000390000020100000039020000",
            "00000000000000007000000000000000536D623320656E6372797074696F6E20",
            "74657374696E67"
        ),
    };
    let write_response = Transformed {
        what: "3.0 WRITE response",
        transformed: concat!(
            "FD534D42A6015530A18F6D9AFFE22AFAE8E66484860000000000000011000014",
            "00E4080050000000000001001100001400E40800DBF46435C5F14169293CE079",
            "E344479BF670227E49873F458672C3098DAC467DD5809F369D67409166515787",
            "1483E01F7BECD02064EAC3E235F913668BBC2F097980D4B378F1993EFF6E60D1",
            "77309E5B"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000900210009000000000000000400000000000000",
            "FFFE0000010000001100001400E4080000000000000000000000000000000000",
            "11000000170000000000000000000000"
        ),
    };
    let read_request = Transformed {
        what: "3.0 READ request",
        transformed: concat!(
            "FD534D42E93601498B76D6F7A72D5EF9B6C79FAFA5123A25F983E245983F413B",
            "8B429AF271000000000001001100001400E408009A464F709AA663F8C2FC3907",
            "D63CBF6F98B1E3DD649ED366009FD0B40A365224718E5440E053F6E01AE462FD",
            "B721BF91C3A6E52E14F9EFF005F445761289FF1272908B52754C8FCB949F228A",
            "C104A66204289A205BCBC47509D04AF9A907002B96863358B3B7CBA5E3779300",
            "74FCDF3550"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000800400008000000000000000500000000000000",
            "FFFE0000010000001100001400E4080000000000000000000000000000000000",
            "3100000017000000000000000000000015010000390000020100000039020000",
            "0000000000000000000000000000000000"
        ),
    };
    let read_response = Transformed {
        what: "3.0 READ response",
        transformed: concat!(
            "FD534D42ABD518B68C2F04D7879F482B689EB83F870000000000000011000014",
            "00E4080067000000000001001100001400E40800493D6FE2BDBEB435CF5F5469",
            "70C7BB57BF20E713C75A3D045507E0D68E5C0346659D6FFB8AC1504A786CA2BB",
            "89C9E7FE4F313E910A04180D2D0EA7DF636329E5A3285984500EF86FE9D55DA4",
            "FAB9531CFDD4C551D47F3C73124BB4590A45052B694048B991CCF5"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000800210009000000000000000500000000000000",
            "FFFE0000010000001100001400E4080000000000000000000000000000000000",
            "11005000170000000000000000000000536D623320656E6372797074696F6E20",
            "74657374696E67"
        ),
    };
    let keys = &SMB30_SESSION;
    check_message("aes-128-ccm", keys.encryption, &write_request);
    check_message("aes-128-ccm", keys.decryption, &write_response);
    check_message("aes-128-ccm", keys.encryption, &read_request);
    check_message("aes-128-ccm", keys.decryption, &read_response);
}

/// [SMB311] appendix A.1: AES-128-GCM, 12-byte nonce.
#[test]
fn smb311_messages_aes_128_gcm() {
    let write_request = Transformed {
        what: "3.1.1 GCM WRITE request",
        transformed: concat!(
            "FD534D42BD73D97D2BC9001BCAFAC0FDFF5FEEBCC7D6822D269CAF48904C664C0000000087000000",
            "000001002500000000100000",
            "6ECDD2A7AFC7B47763057A041B8FD4DAFFE990B70C9E09D36C084E02D14EF247F8BDE38ACF6256F8",
            "B1D3B56F77FBDEB312FEA5E92CBCC1ED8FB2EBBFAA75E49A4A394BB44576545567C24D4C014D47C9",
            "FBDFDAFD2C4F9B72F8D256452620A299F48E29E53D6B61D1C13A19E91AF013F00D17E3ABC2FC3D36",
            "C8C1B6B93973253852DBD442E46EE8"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000900010008000000000000000500000000000000FFFE000001000000",
            "25000000001000000000000000000000000000000000000031007000170000000000000000000000",
            "0600000004000000010000000400000000000000000000007000000000000000536D623320656E63",
            "72797074696F6E2074657374696E67"
        ),
    };
    let write_response = Transformed {
        what: "3.1.1 GCM WRITE response",
        transformed: concat!(
            "FD534D42ACBE1CB7ED343ADF1725EF144D90D4B0E06831DD2E8EB7B4000000000000000050000000",
            "00000100250000000010000026BBBF949983A6C1C796559D0F2C510CB651D1F7B6AC8DED32A2A0B8",
            "F2D793A815C6F6B848D69767A215841A42D400AE6DDB5F0B44173A014973321FDD7950DA6179159B",
            "82E03C9E18A050FF0EA1C967"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000900010001000000000000000500000000000000FFFE000001000000",
            "25000000001000000000000000000000000000000000000011000000170000000000000000000000"
        ),
    };
    let read_request = Transformed {
        what: "3.1.1 GCM READ request",
        transformed: concat!(
            "FD534D426DAC0B6FD85A3ED42BB917DA38FE0386D7AA8C6D36859243B715E0A60000000071000000",
            "000001002500000000100000",
            "88A47BF09CA3C3141CDD7306BE9D9475AB24FCCB833D77461C041F8FB983D0C188F0729272B31D9D",
            "3D0DC6B687C069EEE0CC8EACA2C536D019ACC9E185D1EB630E0FCB793EEECEB06D82A1D77706E700",
            "DBEBFB4FEB54D7AD2D97E7288804F90757FE4D08D6A84A3FF433E7451E768E4699"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000800010008000000000000000600000000000000FFFE000001000000",
            "25000000001000000000000000000000000000000000000031000000170000000000000000000000",
            "060000000400000001000000040000000000000000000000000000000000000000"
        ),
    };
    let read_response = Transformed {
        what: "3.1.1 GCM READ response",
        transformed: concat!(
            "FD534D427F714B3B9D8FA1198584E71C2BAA1CB6E16831DD2E8EB7B4000000000000000067000000",
            "000001002500000000100000FECEDF4D03BB11A6CC5D8A53BE33D6D8701986342B4197D306E16F9C",
            "BB218E92F7F8281F51CE68BB85A20D87DE90EBBF80538066D1C37513C0A58D70936D537B624F5500",
            "202A612B6CD30D448A82791A0B2E049ED512AFAEFB06E98AB3D6F931D7D50DB2DBD36A"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000800010001000000000000000600000000000000FFFE000001000000",
            "25000000001000000000000000000000000000000000000011005000170000000000000000000000",
            "536D623320656E6372797074696F6E2074657374696E67"
        ),
    };
    let keys = &SMB311_GCM_SESSION;
    check_message("aes-128-gcm", keys.encryption, &write_request);
    check_message("aes-128-gcm", keys.decryption, &write_response);
    check_message("aes-128-gcm", keys.encryption, &read_request);
    check_message("aes-128-gcm", keys.decryption, &read_response);
}

/// [SMB311] appendix A.2: AES-128-CCM, 11-byte nonce.
#[test]
fn smb311_messages_aes_128_ccm() {
    let write_request = Transformed {
        what: "3.1.1 CCM WRITE request",
        transformed: concat!(
            "FD534D42E89551D666DAB8993488F5A97103116C9F6F1EAAD7E9F24AACD38F000000000087000000",
            "000001002100000000100000",
            "56A74778199A9D2B6E9C3A376FD88D27680694FED253A313BEB07381AE8689F973ACDB8D716E4477",
            "803BCE53A92E1B81FA3E965AD9AF2C89C08CE66A344664453B8FC88118EDC9814CF58E92AA465E6E",
            "FB09958A9FDAD96FBD55B36A710C30D5E7C64AD7B9449F9F17EDD024FE8BA79154F340A82740D1D5",
            "180C69B0A2DE6A4BA893BD55D3210E"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000900010008000000000000000500000000000000FFFE000001000000",
            "21000000001000000000000000000000000000000000000031007000170000000000000000000000",
            "0500000004000000010000000400000000000000000000007000000000000000536D623320656E63",
            "72797074696F6E2074657374696E67"
        ),
    };
    let write_response = Transformed {
        what: "3.1.1 CCM WRITE response",
        transformed: concat!(
            "FD534D42DD33EC41A927DD51476FE887C2D3C136D96831DD2E8EB7B4000000000000000050000000",
            "000001002100000000100000F783157E0F6F1C055D746753CA16D20C21088E2A67564E056C2F68A7",
            "F14F226C3BD809B7A2D52E5FE4ECF49821BC6001733430CF174E2764B3CCB213AAD8BB9FBAF6C15E",
            "13D9120965390E004A96A3F7"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000900010001000000000000000500000000000000FFFE000001000000",
            "21000000001000000000000000000000000000000000000011000000170000000000000000000000"
        ),
    };
    let read_request = Transformed {
        what: "3.1.1 CCM READ request",
        transformed: concat!(
            "FD534D4235BF9600C841F0CDA9BD1BC3727B7E36A0F92E964EDC3049B86E19000000000071000000",
            "000001002100000000100000",
            "C4CCD3EB483A0638E69C99E391E7F64BCC10D6BEE46FEEA258C4BCAF792CB5A6E69283924081806D",
            "AB64827E9D14A5345D5221AB6DAFCB0E89FC2606B63D92163F4F6C93D1213D86ABF123B93EAD3AEF",
            "9A3471EFD68A423A00A6E0064D9AE3C842EFFFAD236A3BF25D37F4CD054C97DE18"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000800010008000000000000000600000000000000FFFE000001000000",
            "21000000001000000000000000000000000000000000000031000000170000000000000000000000",
            "050000000400000001000000040000000000000000000000000000000000000000"
        ),
    };
    let read_response = Transformed {
        what: "3.1.1 CCM READ response",
        transformed: concat!(
            "FD534D42E241A13C7E1EE42ECF1FD69F3B8668C6DA6831DD2E8EB7B4000000000000000067000000",
            "00000100210000000010000015D67234FC8358D7BA1BF037ABC8EFD41A0A8F9BB04B16DEB1E85606",
            "BD8C2770823FE6239A286CB3E3D5762ABBD53FD8DE11ED491FE905E146A8FFCE09414AB741103D63",
            "7E28B19C6BA759B399DCC21FAE24CF2A455A13B215FC2857ABB513927F9F271D1C208B"
        ),
        plaintext: concat!(
            "FE534D4240000100000000000800010001000000000000000600000000000000FFFE000001000000",
            "21000000001000000000000000000000000000000000000011005000170000000000000000000000",
            "536D623320656E6372797074696F6E2074657374696E67"
        ),
    };
    let keys = &SMB311_CCM_SESSION;
    check_message("aes-128-ccm", keys.encryption, &write_request);
    check_message("aes-128-ccm", keys.decryption, &write_response);
    check_message("aes-128-ccm", keys.encryption, &read_request);
    check_message("aes-128-ccm", keys.decryption, &read_response);
}

fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// `regula mac -a hmac-md5 -k KEY` over `data`.
#[track_caller]
fn hmac_md5(key: &[u8], data: &[u8]) -> Vec<u8> {
    let stdout = run_ok(&["mac", "-a", "hmac-md5", "-k", &hex::encode(key)], data);
    unhex(String::from_utf8(stdout).expect("utf-8").trim())
}

#[track_caller]
fn digest(algorithm: &str, data: &[u8]) -> Vec<u8> {
    let stdout = run_ok(&["dgst", "-a", algorithm], data);
    let line = String::from_utf8(stdout).expect("utf-8");
    unhex(line.split_whitespace().next().expect("a digest"))
}

/// [ANATOMY] "NTLMv2 SessionKey calculation example" ([MS-NLMP] §3.3.2): from the password to
/// the ExportedSessionKey that is the SMB 3.1.1 master session's SessionKey above, through the
/// legacy algorithms NTLM needs (served, flagged not approved, under the default policy), then
/// the NTLM signing and sealing keys of [MS-NLMP] §3.4.5.2/§3.4.5.3 (MD5).
#[test]
fn ntlmv2_session_key_through_md4_hmac_md5_rc4_md5() {
    // NtHash = MD4(UNICODE("Password01!")); the post prints UNICODE() with a byte-order mark,
    // which is not part of the hashed string.
    let nt_hash = digest("md4", &utf16le("Password01!"));
    assert_eq!(
        hex::encode_upper(&nt_hash),
        "7C4FE5EADA682714A036E39378362BAB"
    );
    // NTOWFv2 = HMAC_MD5(NtHash, UNICODE(Uppercase(User) ‖ UserDom)).
    let response_key = hmac_md5(&nt_hash, &utf16le("ADMINISTRATORSUT311"));
    assert_eq!(
        hex::encode_upper(&response_key),
        "AEE3959B44A815F1EB28C9511B4F533B"
    );
    // NTProofStr = HMAC_MD5(ResponseKeyNT, ServerChallenge ‖ temp).
    let temp = unhex(concat!(
        "0101000000000000A1A1F5ADCBAED001BC4AD05F223CC90F0000000002000C00530055005400",
        "33003100310001000C0053005500540033003100310004000C005300550054003300310031000",
        "3000C0053005500540033003100310007000800A1A1F5ADCBAED001060004000200000008003",
        "00030000000000000000000000000300000B61FEFCAA857EA57BF1EDCEBF8974B8E0EBA5A6DF",
        "D9D07A31D11B548F8C9D0CC0A001000000000000000000000000000000000000900160063006",
        "900660073002F00530055005400330031003100000000000000000000000000"
    ));
    assert_eq!(temp.len(), 238 - 16, "NtChallengeResponse minus NTProofStr");
    let challenge_and_temp = [unhex("0D1D8BA31179D008"), temp].concat();
    let nt_proof = hmac_md5(&response_key, &challenge_and_temp);
    assert_eq!(
        hex::encode_upper(&nt_proof),
        "63078EB639FE03E20A231C3AE3BF2308"
    );
    // KeyExchangeKey = SessionBaseKey = HMAC_MD5(ResponseKeyNT, NTProofStr).
    let key_exchange_key = hmac_md5(&response_key, &nt_proof);
    assert_eq!(
        hex::encode_upper(&key_exchange_key),
        "B4CF22566926B1C069ACD80E4D73C814"
    );
    // ExportedSessionKey = RC4(KeyExchangeKey, EncryptedRandomSessionKey).
    let exported = run_ok(
        &["dec", "-a", "rc4", "-k", &hex::encode(&key_exchange_key)],
        &unhex("3B9BDFF38F5EE8F9663F11A0F4C03A78"),
    );
    assert_eq!(
        hex::encode_upper(&exported),
        "270E1BA896585EEB7AF3472D3B4C75A7"
    );
    // SIGNKEY/SEALKEY with extended session security and 128-bit keys: MD5(key ‖ constant),
    // the constants including their terminating NUL.
    let nlmp_key = |constant: &str| {
        let input = [exported.as_slice(), constant.as_bytes(), &[0]].concat();
        hex::encode_upper(digest("md5", &input))
    };
    assert_eq!(
        nlmp_key("session key to client-to-server signing key magic constant"),
        "D43F36C44BCE0630250A09EA0C2E8C2C"
    );
    assert_eq!(
        nlmp_key("session key to server-to-client signing key magic constant"),
        "E1BD8B416B0B709D295E12F2CF18E6C5"
    );
    assert_eq!(
        nlmp_key("session key to client-to-server sealing key magic constant"),
        "31E5557D99BE13F1B2665C7C7C52CE70"
    );
    assert_eq!(
        nlmp_key("session key to server-to-client sealing key magic constant"),
        "B0F5A0B32C81FF34A878E1409B3B0EF2"
    );
}

/// The same SMB3 key derivation under `--policy fips-140-3`: SP 800-108 KBKDF with HMAC-SHA256
/// is approved, so it is served (the approval verdict itself is the indicator tests' business).
#[test]
fn smb3_kdf_is_served_under_fips_140_3() {
    let output = run(
        &[
            "kdf",
            "--policy",
            "fips-140-3",
            "-a",
            "kbkdf-ctr-hmac-sha256",
            "--secret",
            SMB311_GCM_SESSION.session_key,
            "--label",
            &nul_terminated("SMBC2SCipherKey"),
            "--context",
            SMB311_GCM_PREAUTH,
            "-l",
            "16",
        ],
        b"",
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .to_uppercase(),
        SMB311_GCM_SESSION.encryption
    );
}
