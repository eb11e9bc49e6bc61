//! The parsers for AES-CCM, AES-XTS, AES key wrap, SP 800-108 KBKDF, AES-CFB8, RC4, MD5,
//! HMAC-MD5 and TDES-CBC files, and the Wycheproof AES-CCM, AES-GMAC, AES-XTS and key-wrap
//! test types, on small samples of the real files: each must pass, fail when corrupted, and
//! be skipped with its reason where the module or the policy does not serve it.
//!
//! Unless said otherwise the samples are copied from cryptography-vectors 50.0.2 (the files
//! named in each test; NIST CAVP data, public domain; RFC data under the IETF Trust's terms).

use regula::{Module, Policy, Profile};
use regula_vectors::{FileReport, Format, run_source, run_wycheproof};

fn run(profile: Profile, label: &str, text: &str) -> FileReport {
    run_source(&Module::load(Policy::builtin(profile)), label, text)
        .unwrap_or_else(|error| panic!("{error}"))
}

fn counts(report: &FileReport) -> (u64, u64, u64) {
    (report.passed, report.failed, report.skipped)
}

/// The only skip reason of a report, with its count.
fn only_reason(report: &FileReport) -> (&str, u64) {
    assert_eq!(report.skip_reasons.len(), 1, "{:?}", report.skip_reasons);
    let (reason, count) = report.skip_reasons.iter().next().unwrap();
    (reason.as_str(), *count)
}

const NOT_APPROVED: &str = "not approved by policy fips-140-3";

// ---- AES-CCM: ciphers/AES/CCM/DVPT128.rsp (COUNT 0, 1) and VADT128.rsp (COUNT 0) ----

const CCM_DVPT: &str = "#  CAVS 11.0\n#  \"CCM-DVPT\" information \n#  AES Keylen: 128\n\n\
[Alen = 0, Plen = 0, Nlen = 7, Tlen = 4]\n\nKey = 4ae701103c63deca5b5a3939d7d05992\n\n\
Count = 0\nNonce = 5a8aa485c316e9\nAdata = 00\nCT = 02209f55\nResult = Pass\nPayload = 00\n\n\
Count = 1\nNonce = 3796cf51b87266\nAdata = 00\nCT = 9a04c241\nResult = Fail\n";

const CCM_VADT: &str = "#  CAVS 11.0\n#  \"CCM-VADT\" information \n#  AES Keylen: 128\n\n\
Plen = 24\nNlen = 13\nTlen = 16\n\n[Alen = 0]\n\nKey = d24a3d3dde8c84830280cb87abad0bb3\n\
Nonce = f1100035bb24a8d26004e0e24b\n\nCount = 0\nAdata = 00\n\
Payload = 7c86135ed9c2a515aaae0e9a208133897269220f30870006\n\
CT = 1faeb0ee2ca2cd52f0aa3966578344f24e69b742c4ab37ab1123301219c70599b7c373ad4b3ad67b\n";

#[test]
fn ccm_decryption_verification_and_encryption() {
    let report = run(Profile::Default, "CCM/DVPT128.rsp", CCM_DVPT);
    assert_eq!(report.format, Format::Cavp);
    assert_eq!(report.algorithm, "aes-ccm");
    // The Pass vector decrypts; the Fail vector's tag is refused.
    assert_eq!(counts(&report), (2, 0, 0));
    // Marking the refused vector Pass must fail it.
    let swapped = CCM_DVPT.replace(
        "CT = 9a04c241\nResult = Fail",
        "CT = 9a04c241\nResult = Pass",
    );
    assert_eq!(
        counts(&run(Profile::Default, "CCM/DVPT128.rsp", &swapped)),
        (1, 1, 0)
    );

    let report = run(Profile::Default, "CCM/VADT128.rsp", CCM_VADT);
    assert_eq!(counts(&report), (1, 0, 0));
    let corrupted = CCM_VADT.replace("ad67b\n", "ad67c\n");
    let report = run(Profile::Default, "CCM/VADT128.rsp", &corrupted);
    assert_eq!(counts(&report), (0, 1, 0));

    // CCM is not approved under fips-140-3 in this build; AES-192 is not served at all.
    let fips = run(Profile::Fips1403, "CCM/VADT128.rsp", CCM_VADT);
    assert_eq!(only_reason(&fips), (NOT_APPROVED, 1));
    let aes192 = CCM_VADT.replace(
        "Key = d24a3d3dde8c84830280cb87abad0bb3",
        "Key = d24a3d3dde8c84830280cb87abad0bb3d24a3d3dde8c8483",
    );
    let report = run(Profile::Default, "CCM/VADT192.rsp", &aes192);
    assert_eq!(
        only_reason(&report),
        ("algorithm not offered by this module: aes-192-ccm", 1)
    );
}

// ---- AES-XTS: ciphers/AES/XTS/tweak-128hexstr/XTSGenAES{128,256}.rsp and
// tweak-dataunitseqno/XTSGenAES256.rsp (COUNT 1 each) ----

const XTS_HEXSTR_256: &str = "#  CAVS 11.0\n#  XTSGen information\n\n[ENCRYPT]\n\nCOUNT = 1\n\
DataUnitLen = 256\n\
Key = 1ea661c58d943a0e4801e42f4b0947149e7f9f8e3e68d0c7505210bd311a0e7cd6e13ffdf2418d8d1911c004cda58da3d619b7e2b9141e58318eea392cf41b08\n\
i = adf8d92627464ad2f0428e84a9f87564\n\
PT = 2eedea52cd8215e1acc647e810bbc3642e87287f8d2e57e36c0a24fbc12a202e\n\
CT = cbaad0e2f6cea3f50b37f934d46a9b130b9d54f07e34f36af793e86f73c6d7db\n";

const XTS_SEQNO_256: &str = "#  CAVS 11.0\n#  XTSGen information\n\n[ENCRYPT]\n\nCOUNT = 1\n\
DataUnitLen = 256\n\
Key = ef010ca1a3663e32534349bc0bae62232a1573348568fb9ef41768a7674f507a727f98755397d0e0aa32f830338cc7a926c773f09e57b357cd156afbca46e1a0\n\
DataUnitSeqNumber = 187\n\
PT = ed98e01770a853b49db9e6aaf88f0a41b9b56e91a5a2b11d40529254f5523e75\n\
CT = ca20c55e8dc149687d2541de39c3df6300bb5a163c10ced3666b1357db8bd39d\n";

const XTS_HEXSTR_128: &str = "#  CAVS 11.0\n#  XTSGen information\n\n[ENCRYPT]\n\nCOUNT = 1\n\
DataUnitLen = 128\n\
Key = a1b90cba3f06ac353b2c343876081762090923026e91771815f29dab01932f2f\n\
i = 4faef7117cda59c66e4b92013e768ad5\n\
PT = ebabce95b14d3c8d6fb350390790311c\nCT = 778ae8b43cb98d5a825081d5be471c63\n";

#[test]
fn xts_tweaks_from_hex_and_from_the_data_unit_number() {
    for profile in [Profile::Default, Profile::Fips1403] {
        let report = run(profile, "XTS/XTSGenAES256.rsp", XTS_HEXSTR_256);
        assert_eq!(counts(&report), (1, 0, 0), "{profile}");
        let report = run(profile, "XTS/XTSGenAES256.rsp", XTS_SEQNO_256);
        assert_eq!(counts(&report), (1, 0, 0), "{profile}");
    }
    // Another data unit number is another tweak: the vector must fail.
    let wrong = XTS_SEQNO_256.replace("= 187", "= 188");
    assert_eq!(
        counts(&run(Profile::Default, "XTS/XTSGenAES256.rsp", &wrong)),
        (0, 1, 0)
    );
    let report = run(Profile::Default, "XTS/XTSGenAES128.rsp", XTS_HEXSTR_128);
    assert_eq!(
        only_reason(&report),
        (
            "algorithm not offered by this module: aes-128-xts (AWS-LC offers XTS for 256-bit \
             keys only)",
            1
        )
    );
    // CAVP's 140- and 250-bit data units are not whole bytes.
    let partial = XTS_HEXSTR_256.replace("DataUnitLen = 256", "DataUnitLen = 250");
    let report = run(Profile::Default, "XTS/XTSGenAES256.rsp", &partial);
    assert!(
        only_reason(&report)
            .0
            .starts_with("unsupported parameter: XTS data unit of 250")
    );
}

// ---- AES key wrap: keywrap/kwtestvectors/KW_AD_128.txt (COUNT 0, 1), KW_AE_128.txt,
// KWP_AE_256.txt, KW_AD_128_inv.txt (COUNT 0) ----

const KW_AD_128: &str = "# CAVS 17.4\n\
# 'NIST SP 800-38F KW-AD with AES-128 cipher function' information for SP800-38F\n\n\
[PLAINTEXT LENGTH = 128]\n\nCOUNT = 0\nK = 1cbd2f79078b9500fae23696311953eb\n\
C = ecbd7a17c5da3cfdfe2225d2bf9ac7abce78c2b2aefa6eac\nP = 9c4e675277a3bdc3a071048b327a011e\n\n\
COUNT = 1\nK = 5d4899ee66beff1bda1fc717a1ad4c50\n\
C = bb7fd0bce778bd775e4e88d904d26a7134364c53a6c493a0\nFAIL\n";

const KW_AE_128: &str = "# CAVS 17.4\n\
# 'NIST SP 800-38F KW-AE with AES-128 cipher function' information for SP800-38F\n\n\
[PLAINTEXT LENGTH = 128]\n\nCOUNT = 0\nK = 7575da3a93607cc2bfd8cec7aadfd9a6\n\
P = 42136d3c384a3eeac95a066fd28fed3f\nC = 031f6bd7e61e643df68594816f64caa3f56fabea2548f5fb\n";

const KWP_AE_256: &str = "# CAVS 21.4\n\
# 'NIST SP 800-38F KWP-AE with AES-256 cipher function' information for test-files\n\n\
[PLAINTEXT LENGTH = 8]\n\nCOUNT = 0\n\
K = 95da2700ca6fd9a52554ee2a8df1386f5b94a1a60ed8a4aef60a8d61ab5f225a\nP = d1\n\
C = 06ba7ae6f3248cfdcf267507fa001bc4\n";

const KW_AD_128_INV: &str = "# CAVS 17.4\n\
# 'NIST SP 800-38F KW-AD with AES-128 inverse cipher function' information for SP800-38F\n\n\
[PLAINTEXT LENGTH = 128]\n\nCOUNT = 0\nK = 7aa9e9e3c6b2916b4b62ac06074d14e8\n\
C = 110f6ba8d4aa2a24f0abfd2cd351ebb6cdfafb35941bbe33\nP = 77a44e843e1f85707cc7e149e5f873be\n";

#[test]
fn key_wrap_both_ways_and_refusals() {
    for profile in [Profile::Default, Profile::Fips1403] {
        let report = run(profile, "kwtestvectors/KW_AD_128.txt", KW_AD_128);
        assert_eq!(report.algorithm, "aes-kw");
        assert_eq!(counts(&report), (2, 0, 0), "{profile}");
        let report = run(profile, "kwtestvectors/KW_AE_128.txt", KW_AE_128);
        assert_eq!(counts(&report), (1, 0, 0), "{profile}");
        let report = run(profile, "kwtestvectors/KWP_AE_256.txt", KWP_AE_256);
        assert_eq!(report.algorithm, "aes-kwp");
        assert_eq!(counts(&report), (1, 0, 0), "{profile}");
    }
    // The valid vector marked FAIL, and a corrupted wrapping not marked FAIL, both fail.
    let marked = KW_AD_128.replace("P = 9c4e675277a3bdc3a071048b327a011e", "FAIL");
    assert_eq!(
        counts(&run(
            Profile::Default,
            "kwtestvectors/KW_AD_128.txt",
            &marked
        )),
        (1, 1, 0)
    );
    let corrupted = KW_AE_128.replace("48f5fb", "48f5fc");
    assert_eq!(
        counts(&run(
            Profile::Default,
            "kwtestvectors/KW_AE_128.txt",
            &corrupted
        )),
        (0, 1, 0)
    );
    let report = run(
        Profile::Default,
        "kwtestvectors/KW_AD_128_inv.txt",
        KW_AD_128_INV,
    );
    assert_eq!(
        only_reason(&report),
        (
            "unsupported parameter: KW with the AES inverse cipher as its forward function \
             (SP 800-38F §5.1)",
            1
        )
    );
}

// ---- SP 800-108 KBKDF: KDF/nist-800-108-KBKDF-CTR.txt ([PRF=HMAC_SHA256] and
// [PRF=HMAC_SHA224], [CTRLOCATION=BEFORE_FIXED], [RLEN=32_BITS], COUNT=0 of each) ----

const KBKDF_SHA256: &str = "# CAVS 14.4\n# \"SP800-108 - KDF\" information for \"test1\"\n\n\
[PRF=HMAC_SHA256]\n[CTRLOCATION=BEFORE_FIXED]\n[RLEN=32_BITS]\n\nCOUNT=0\nL = 128\n\
KI = dd1d91b7d90b2bd3138533ce92b272fbf8a369316aefe242e659cc0ae238afe0\n\
FixedInputDataByteLen = 60\n\
FixedInputData = 01322b96b30acd197979444e468e1c5c6859bf1b1cf951b7e725303e237e46b864a145fab25e517b08f8683d0315bb2911d80a0e8aba17f3b413faac\n\
\tBinary rep of i = 00000001\n\
\tinstring = 0000000101322b96b30acd197979444e468e1c5c6859bf1b1cf951b7e725303e237e46b864a145fab25e517b08f8683d0315bb2911d80a0e8aba17f3b413faac\n\
KO = 10621342bfb0fd40046c0e29f2cfdbf0\n";

const KBKDF_SHA224: &str = "# CAVS 14.4\n\n[PRF=HMAC_SHA224]\n[CTRLOCATION=BEFORE_FIXED]\n\
[RLEN=32_BITS]\n\nCOUNT=0\nL = 128\nKI = f5cb7cc6207f5920dd60155ddb68c3fbbdf5104365305d2c1abcd311\n\
FixedInputDataByteLen = 60\n\
FixedInputData = 4e5ac7539803da89581ee088c7d10235a10536360054b72b8e9f18f77c25af01019b290656b60428024ce01fccf49022d831941407e6bd27ff9e2d28\n\
KO = 0adbaab43edd532b560a322c84ac540e\n";

#[test]
fn kbkdf_counter_before_fixed_input() {
    for profile in [Profile::Default, Profile::Fips1403] {
        let report = run(profile, "KDF/nist-800-108-KBKDF-CTR.txt", KBKDF_SHA256);
        assert_eq!(counts(&report), (1, 0, 0), "{profile}");
    }
    let wrong = KBKDF_SHA256.replace("cfdbf0", "cfdbf1");
    assert_eq!(
        counts(&run(Profile::Default, "kbkdf.txt", &wrong)),
        (0, 1, 0)
    );
    // The same vector under another counter width or position is not expressible.
    let narrow = KBKDF_SHA256.replace("[RLEN=32_BITS]", "[RLEN=8_BITS]");
    assert_eq!(
        only_reason(&run(Profile::Default, "kbkdf.txt", &narrow)),
        (
            "unsupported parameter: 8-bit KBKDF counter (the API's counter has r = 32 bits)",
            1
        )
    );
    let after = KBKDF_SHA256.replace("BEFORE_FIXED", "AFTER_FIXED");
    assert!(
        only_reason(&run(Profile::Default, "kbkdf.txt", &after))
            .0
            .contains("counter after the fixed input")
    );
    assert_eq!(
        only_reason(&run(Profile::Default, "kbkdf.txt", KBKDF_SHA224)),
        (
            "algorithm not offered by this module: kbkdf-ctr-hmac-sha224",
            1
        )
    );
}

// ---- AES-CFB8: ciphers/AES/CFB/CFB8MMT128.rsp ([ENCRYPT] COUNT 1, [DECRYPT] COUNT 0) ----

const CFB8: &str = "# CAVS 11.1\n# Config info for aes_values\n# AESVS MMT test data for CFB8\n\
# State : Encrypt and Decrypt\n# Key Length : 128\n\n[ENCRYPT]\n\nCOUNT = 1\n\
KEY = 0d8f3dc3edee60db658bb97faf46fba3\nIV = e481fdc42e606b96a383c0a1a5520ebb\n\
PLAINTEXT = aacd\nCIPHERTEXT = 5066\n\n[DECRYPT]\n\nCOUNT = 0\n\
KEY = 03edfe082550bd5ac8ddf64f42a0547f\nIV = 52acd8dab62c981da08e51939cc08dab\n\
CIPHERTEXT = 21\nPLAINTEXT = 09\n";

#[test]
fn cfb8_segments_are_told_apart() {
    let report = run(Profile::Default, "CFB/CFB8MMT128.rsp", CFB8);
    assert_eq!(report.algorithm, "aes-cfb8");
    assert_eq!(counts(&report), (2, 0, 0));
    let wrong = CFB8.replace("CIPHERTEXT = 5066", "CIPHERTEXT = 5067");
    assert_eq!(
        counts(&run(Profile::Default, "CFB/CFB8MMT128.rsp", &wrong)),
        (1, 1, 0)
    );
    let fips = run(Profile::Fips1403, "CFB/CFB8MMT128.rsp", CFB8);
    assert_eq!(only_reason(&fips), (NOT_APPROVED, 2));
    // The same records under a CFB1 or CFB128 banner are other modes.
    let cfb1 = CFB8.replace("for CFB8", "for CFB1");
    assert_eq!(
        only_reason(&run(Profile::Default, "CFB/CFB1MMT128.rsp", &cfb1)),
        ("algorithm not offered by this module: aes-128-cfb1", 2)
    );
    let cfb128 = CFB8.replace("for CFB8", "for CFB128");
    assert_eq!(
        only_reason(&run(Profile::Default, "CFB/CFB128MMT128.rsp", &cfb128)),
        ("algorithm not offered by this module: aes-128-cfb128", 2)
    );
}

// ---- RC4: ciphers/ARC4/rfc-6229-40.txt (COUNT 0, 1: offsets 0 and 16) ----

const RC4: &str = "# Vectors from RFC 6229. Reformatted to work with the NIST loader\n[ENCRYPT]\n\n\
# 40-bit key\nCOUNT = 0\nKEY = 0102030405\nOFFSET = 0\n\
PLAINTEXT = 00000000000000000000000000000000\nCIPHERTEXT = b2396305f03dc027ccc3524a0a1118a8\n\n\
COUNT = 1\nKEY = 0102030405\nOFFSET = 16\n\
PLAINTEXT = 00000000000000000000000000000000\nCIPHERTEXT = 6982944f18fc82d589c403a47a0d0919\n";

#[test]
fn rc4_keystream_at_an_offset() {
    let report = run(Profile::Default, "ARC4/rfc-6229-40.txt", RC4);
    assert_eq!(report.algorithm, "rc4");
    assert_eq!(counts(&report), (2, 0, 0));
    // The second block of keystream is not the first.
    let shifted = RC4.replace("OFFSET = 16", "OFFSET = 0");
    assert_eq!(
        counts(&run(Profile::Default, "ARC4/rfc-6229-40.txt", &shifted)),
        (1, 1, 0)
    );
    for profile in [Profile::Fips1403, Profile::Gm] {
        let report = run(profile, "ARC4/rfc-6229-40.txt", RC4);
        assert_eq!(
            only_reason(&report),
            (format!("not approved by policy {profile}").as_str(), 2)
        );
    }
}

// ---- MD5 (hashes/MD5/rfc-1321.txt) and HMAC-MD5 (HMAC/rfc-2202-md5.txt, test case 1) ----

const MD5: &str = "# https://tools.ietf.org/html/rfc1321\n\nLen = 0\nMsg = 00\n\
MD = d41d8cd98f00b204e9800998ecf8427e\n\nLen = 24\nMsg = 616263\n\
MD = 900150983cd24fb0d6963f7d28e17f72\n";

const HMAC_MD5: &str = "# 2. Test Cases for HMAC-MD5\n\nLen = 64\n\
Key = 0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b\n# \"Hi There\"\nMsg = 4869205468657265\n\
MD = 9294727a3638bb1c13f48ef8158bfc9d\n";

#[test]
fn md5_and_hmac_md5_are_legacy() {
    let report = run(Profile::Default, "hashes/MD5/rfc-1321.txt", MD5);
    assert_eq!(report.algorithm, "md5");
    assert_eq!(counts(&report), (2, 0, 0));
    let wrong = MD5.replace("7f72", "7f73");
    assert_eq!(
        counts(&run(Profile::Default, "hashes/MD5/rfc-1321.txt", &wrong)),
        (1, 1, 0)
    );
    let report = run(Profile::Default, "HMAC/rfc-2202-md5.txt", HMAC_MD5);
    assert_eq!(report.algorithm, "hmac-md5");
    assert_eq!(counts(&report), (1, 0, 0));
    for (label, text, n) in [
        ("hashes/MD5/rfc-1321.txt", MD5, 2),
        ("HMAC/rfc-2202-md5.txt", HMAC_MD5, 1),
    ] {
        assert_eq!(
            only_reason(&run(Profile::Fips1403, label, text)),
            (NOT_APPROVED, n)
        );
    }
}

// ---- MD4: the RFC 1320 §A.5 test suite written as cryptography-vectors writes RFC 1321's
// (the package has no MD4 file; the values agree with `openssl dgst -md4 -provider legacy`) ----

const MD4: &str = "# https://tools.ietf.org/html/rfc1320\n\nLen = 0\nMsg = 00\n\
MD = 31d6cfe0d16ae931b73c59d7e0c089c0\n\nLen = 24\nMsg = 616263\n\
MD = a448017aaf21d8525fc10ae87aa6729d\n\nLen = 112\nMsg = 6d65737361676520646967657374\n\
MD = d9130a8164549fe818874806e1c7014b\n";

#[test]
fn md4_is_legacy() {
    let report = run(Profile::Default, "hashes/MD4/rfc-1320.txt", MD4);
    assert_eq!(report.algorithm, "md4");
    assert_eq!(counts(&report), (3, 0, 0));
    let wrong = MD4.replace("c089c0", "c089c1");
    assert_eq!(
        counts(&run(Profile::Default, "hashes/MD4/rfc-1320.txt", &wrong)),
        (2, 1, 0)
    );
    for profile in [Profile::Fips1403, Profile::Gm] {
        let report = run(profile, "hashes/MD4/rfc-1320.txt", MD4);
        assert_eq!(
            only_reason(&report),
            (format!("not approved by policy {profile}").as_str(), 3)
        );
    }
}

// ---- TDES: ciphers/3DES/CBC/TCBCMMT2.rsp ([ENCRYPT] COUNT 0, [DECRYPT] COUNT 0) and
// TCBCvarkey.rsp (COUNT 0, keying option 3) ----

const TDES_MMT2: &str = "# CAVS 11.1\n# Config Info for : \"tdes_values\"\n\
# TDES Multi block Message Test for CBC\n# State : Encrypt and Decrypt\n\n[ENCRYPT]\n\n\
COUNT = 0\nKEY1 = 34a41a8c293176c1\nKEY2 = b30732ecfe38ae8a\nKEY3 = 34a41a8c293176c1\n\
IV = f55b4855228bd0b4\nPLAINTEXT = 7dd880d2a9ab411c\nCIPHERTEXT = c91892948b6cadb4\n\n\
[DECRYPT]\n\nCOUNT = 0\nKEY1 = 4ff47fda89209bda\nKEY2 = 8c85f7fe80192007\n\
KEY3 = 4ff47fda89209bda\nIV = d5bc4891dabe48b9\nCIPHERTEXT = 7e154b28c353adef\n\
PLAINTEXT = 712b961ea9a1d0af\n";

const TDES_VARKEY: &str = "# CAVS 11.1\n# Config Info for : \"tdes_values\"\n\n[ENCRYPT]\n\n\
COUNT = 0\nKEYs = 8001010101010101\nIV = 0000000000000000\nPLAINTEXT = 0000000000000000\n\
CIPHERTEXT = 95a8d72813daa94d\n";

#[test]
fn tdes_cbc_runs_and_other_modes_are_skipped() {
    let report = run(Profile::Default, "3DES/CBC/TCBCMMT2.rsp", TDES_MMT2);
    assert_eq!(report.algorithm, "des-ede3-cbc");
    assert_eq!(counts(&report), (2, 0, 0));
    let report = run(Profile::Default, "3DES/CBC/TCBCvarkey.rsp", TDES_VARKEY);
    assert_eq!(counts(&report), (1, 0, 0));
    let wrong = TDES_MMT2.replace("KEY2 = b30732ecfe38ae8a", "KEY2 = b30732ecfe38ae8b");
    // The changed bit is a DES parity bit: the key, and so the result, is the same.
    assert_eq!(
        counts(&run(Profile::Default, "3DES/CBC/TCBCMMT2.rsp", &wrong)),
        (2, 0, 0)
    );
    // A changed key bit: the [ENCRYPT] vector fails, the [DECRYPT] one (other keys) passes.
    let wrong = TDES_MMT2.replace("KEY2 = b30732ecfe38ae8a", "KEY2 = b30732ecfe38ae8c");
    assert_eq!(
        counts(&run(Profile::Default, "3DES/CBC/TCBCMMT2.rsp", &wrong)),
        (1, 1, 0)
    );
    assert_eq!(
        only_reason(&run(Profile::Fips1403, "3DES/CBC/TCBCMMT2.rsp", TDES_MMT2)),
        (NOT_APPROVED, 2)
    );
    // The same records in an ECB, CBC-I or CFB-P file.
    for (label, reason) in [
        (
            "3DES/ECB/TECBMMT2.rsp",
            "algorithm not offered by this module: des-ede3-ecb",
        ),
        (
            "3DES/CBC/TCBCIMMT2.rsp",
            "unsupported parameter: TDES CBC-I (interleaved) mode",
        ),
        (
            "3DES/CFB/TCFBP8MMT2.rsp",
            "unsupported parameter: TDES CFBP8 (pipelined) mode",
        ),
    ] {
        assert_eq!(
            only_reason(&run(Profile::Default, label, TDES_MMT2)),
            (reason, 2),
            "{label}"
        );
    }
}

// ---- Wycheproof test types (samples from the Wycheproof sets named; Apache-2.0) ----

fn wycheproof(algorithm: &str, group: &str, test: &str) -> String {
    format!(
        r#"{{"algorithm": "{algorithm}", "numberOfTests": 1, "testGroups": [{{{group},
            "tests": [{{"tcId": 1, "comment": "", "flags": [], {test}}}]}}]}}"#
    )
}

/// A sample passes as given, fails with its last output byte changed, and (for the
/// algorithms fips-140-3 does not approve here) is skipped under that policy.
fn check_sample(label: &str, algorithm: &str, group: &str, test: &str, last: &str, fips: bool) {
    let text = wycheproof(algorithm, group, test);
    assert_eq!(
        counts(&run(Profile::Default, label, &text)),
        (1, 0, 0),
        "{label}"
    );
    let changed = wycheproof(algorithm, group, &test.replace(last, &corrupt(last)));
    let report = run(Profile::Default, label, &changed);
    assert_eq!(counts(&report), (0, 1, 0), "{label} corrupted");
    let under_fips = run(Profile::Fips1403, label, &text);
    if fips {
        assert_eq!(counts(&under_fips), (1, 0, 0), "{label} fips");
    } else {
        assert_eq!(only_reason(&under_fips), (NOT_APPROVED, 1), "{label} fips");
    }
}

/// `last` ends with a hex digit and a quote; the digit is changed.
fn corrupt(last: &str) -> String {
    let (head, tail) = last.split_at(last.len() - 2);
    let digit = if tail.starts_with('0') { '1' } else { '0' };
    format!("{head}{digit}\"")
}

#[test]
fn wycheproof_ccm_gmac_xts_and_key_wrap_samples() {
    // aes_ccm_test.json tcId 1.
    check_sample(
        "aes_ccm.json",
        "AES-CCM",
        r#""type": "AeadTest", "ivSize": 96, "keySize": 128, "tagSize": 128"#,
        r#""key": "bedcfb5a011ebc84600fcb296c15af0d", "iv": "438a547a94ea88dce46c6c85",
            "aad": "", "msg": "", "ct": "", "result": "valid",
            "tag": "25d1a38495a7dea45bda049705627d10""#,
        r#"27d10""#,
        false,
    );
    // aes_gmac_test.json tcId 1 (96-bit nonce) and tcId 70 (128-bit nonce).
    check_sample(
        "aes_gmac.json",
        "AES-GMAC",
        r#""type": "MacWithIvTest", "keySize": 128, "ivSize": 96, "tagSize": 128"#,
        r#""key": "98b08a72ffde0ded4bec9d2a8db57235", "iv": "1595248735310eb710519c2b",
            "msg": "", "result": "valid", "tag": "5118cc71501c8273a43662b981191750""#,
        r#"91750""#,
        false,
    );
    check_sample(
        "aes_gmac.json",
        "AES-GMAC",
        r#""type": "MacWithIvTest", "keySize": 128, "ivSize": 128, "tagSize": 128"#,
        r#""key": "82008da5b65a6e99a3e978ab5a98e9b0", "iv": "638c5f29ff292333ab0eb7cd6656de69",
            "msg": "", "result": "valid", "tag": "82f2abe9a897ccda3d2cbd395797c83e""#,
        r#"7c83e""#,
        false,
    );
    // aes_xts_test.json tcId 53 (keySize 512: AES-256-XTS; the 64-bit tweak is zero-padded).
    check_sample(
        "aes_xts.json",
        "AES-XTS",
        r#""type": "IndCpaTest", "keySize": 512, "ivSize": 64"#,
        r#""key": "13d69212ec8bb00ed412f66b9c9faccf84449a6e59b0ab1a8f82ec4684b16d67556a5a0271666c957024192c1d35a9c09727bf4beb78b05a013bf8b7e932c15e",
            "iv": "595f2e870659f228", "msg": "438fb4c4c0c5a0f48bb8566d1fd28b0c",
            "result": "valid", "ct": "5e349fc677214491c57b86a1dd9b534d""#,
        r#"b534d""#,
        true,
    );
    // aes_wrap_test.json tcId 1.
    check_sample(
        "aes_wrap.json",
        "AES-WRAP",
        r#""type": "KeywrapTest", "keySize": 128"#,
        r#""key": "6f67486d1e914419cb43c28509c7c1ea", "msg": "8dc0632d92ee0be4f740028410b08270",
            "result": "valid", "ct": "9de453ced5d4ab46a5601708eeefefb5e593e6ae8e86b26b""#,
        r#"6b26b""#,
        true,
    );
}

/// The embedded Wycheproof sets of the new algorithms: nothing fails under either policy,
/// and each set passes something where the policy serves its algorithm.
#[test]
fn embedded_wycheproof_sets_of_the_new_algorithms() {
    for profile in [Profile::Default, Profile::Fips1403] {
        let reports = run_wycheproof(&Module::load(Policy::builtin(profile)));
        for (set, serves_under_fips) in [
            ("aes_ccm", false),
            ("aes_gmac", false),
            ("aes_xts", true),
            ("aes_wrap", true),
            ("aes_kwp", true),
            ("mldsa_44_verify", true),
            ("mldsa_65_verify", true),
            ("mldsa_87_verify", true),
            ("mldsa_44_sign_seed", true),
            ("mldsa_87_sign_noseed", true),
        ] {
            let label = format!("wycheproof/{set}_test.json");
            let report = reports
                .iter()
                .find(|report| report.path == label)
                .unwrap_or_else(|| panic!("{label} is not run"));
            assert_eq!(report.failed, 0, "{profile} {label}: {:?}", report.failures);
            if profile == Profile::Default || serves_under_fips {
                assert!(report.passed > 0, "{profile} {label}: nothing passed");
            } else {
                assert_eq!(report.passed, 0, "{profile} {label}");
                assert!(report.skip_reasons.contains_key(NOT_APPROVED), "{label}");
            }
        }
    }
}

// ---- the cryptography-vectors folders of the new algorithms, when installed ----

fn cryptography_vectors() -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("REGULA_CRYPTOGRAPHY_VECTORS") {
        let dir = std::path::PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            "import cryptography_vectors,os;print(os.path.dirname(cryptography_vectors.__file__))",
        ])
        .output()
        .ok()?;
    let dir = std::path::PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    (output.status.success() && dir.is_dir()).then_some(dir)
}

/// Why a whole file may pass nothing: its algorithm, parameter set or mode is not served.
fn whole_file_skip_is_explained(reason: &str, profile: Profile) -> bool {
    const NOT_SERVED: &[&str] = &[
        "algorithm not offered by this module: aes-192-",
        "algorithm not offered by this module: aes-128-xts (AWS-LC offers XTS for 256-bit keys only)",
        "algorithm not offered by this module: aes-128-cfb1",
        "algorithm not offered by this module: aes-256-cfb1",
        "algorithm not offered by this module: tdes-kw",
        "algorithm not offered by this module: des-ede3-",
        "unsupported parameter: KW with the AES inverse cipher",
        "unsupported parameter: KWP with the AES inverse cipher",
        "unsupported parameter: TDES ",
    ];
    NOT_SERVED.iter().any(|prefix| reason.starts_with(prefix))
        || (profile == Profile::Fips1403 && reason == NOT_APPROVED)
}

#[test]
fn cryptography_vectors_folders_of_the_new_algorithms() {
    let Some(root) = cryptography_vectors() else {
        eprintln!(
            "SKIPPED: cryptography-vectors is not installed (pip install cryptography-vectors==50.0.2)"
        );
        return;
    };
    let folders = [
        "ciphers/AES/CCM",
        "ciphers/AES/XTS",
        "keywrap/kwtestvectors",
        "KDF/nist-800-108-KBKDF-CTR.txt",
        "ciphers/AES/CFB",
        "hashes/MD5",
        "ciphers/ARC4",
        "ciphers/3DES",
        "hashes/SHA1",
        "HMAC/rfc-2202-md5.txt",
        "HMAC/rfc-2202-sha1.txt",
    ];
    for profile in [Profile::Default, Profile::Fips1403] {
        let module = Module::load(Policy::builtin(profile));
        for folder in folders {
            let reports = regula_vectors::run_path(&module, &root.join(folder)).unwrap();
            assert!(!reports.is_empty(), "{folder}");
            for report in &reports {
                assert_eq!(
                    report.failed, 0,
                    "{profile} {}: {:?}",
                    report.path, report.failures
                );
                if report.passed == 0 && report.format != Format::NotVectors {
                    for reason in report.skip_reasons.keys() {
                        assert!(
                            whole_file_skip_is_explained(reason, profile),
                            "{profile} {}: nothing passed, skipped as `{reason}`",
                            report.path
                        );
                    }
                }
            }
        }
    }
}
