//! PKCS#11 mechanism types for the rows: the standard's values (PKCS#11 3.2, `pkcs11t.h`) and
//! Regula's own vendor-defined range for the SM algorithms, which the standard does not name.

/// One PKCS#11 mechanism: its `CKM_*` name and `CK_MECHANISM_TYPE` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Mechanism {
    pub name: &'static str,
    pub value: u32,
}

impl Mechanism {
    /// Whether the value lies in the vendor-defined range (`CKM_VENDOR_DEFINED` and up).
    pub fn is_vendor_defined(self) -> bool {
        self.value >= CKM_VENDOR_DEFINED
    }
}

/// `CKM_VENDOR_DEFINED`: mechanism values from here on are the vendor's.
pub const CKM_VENDOR_DEFINED: u32 = 0x8000_0000;

/// Regula's vendor-defined mechanisms start here: `CKM_VENDOR_DEFINED` with "RG" (0x5247) in the
/// next 16 bits, leaving the low 8 bits for the mechanisms themselves.
pub const CKM_REGULA_BASE: u32 = CKM_VENDOR_DEFINED | 0x0052_4700;

macro_rules! mechanisms {
    ($($name:ident = $value:expr;)*) => {
        $(pub const $name: Mechanism = Mechanism { name: stringify!($name), value: $value };)*
    };
}

// The standard's mechanisms, in value order.
mechanisms! {
    CKM_RSA_PKCS_KEY_PAIR_GEN = 0x0;
    CKM_SHA1_RSA_PKCS = 0x6;
    CKM_RSA_PKCS_OAEP = 0x9;
    CKM_ML_KEM_KEY_PAIR_GEN = 0xF;
    CKM_ML_KEM = 0x17;
    CKM_ML_DSA_KEY_PAIR_GEN = 0x1C;
    CKM_ML_DSA = 0x1D;
    CKM_SHA256_RSA_PKCS = 0x40;
    CKM_SHA384_RSA_PKCS = 0x41;
    CKM_SHA512_RSA_PKCS = 0x42;
    CKM_SHA256_RSA_PKCS_PSS = 0x43;
    CKM_SHA384_RSA_PKCS_PSS = 0x44;
    CKM_SHA512_RSA_PKCS_PSS = 0x45;
    CKM_SHA512_256 = 0x4C;
    CKM_RC4_KEY_GEN = 0x110;
    CKM_RC4 = 0x111;
    CKM_DES_KEY_GEN = 0x120;
    CKM_DES_CBC = 0x122;
    CKM_DES3_KEY_GEN = 0x131;
    CKM_DES3_CBC = 0x133;
    CKM_MD5 = 0x210;
    CKM_MD5_HMAC = 0x211;
    CKM_SHA_1 = 0x220;
    CKM_SHA_1_HMAC = 0x221;
    CKM_SHA256 = 0x250;
    CKM_SHA256_HMAC = 0x251;
    CKM_SHA224 = 0x255;
    CKM_SHA224_HMAC = 0x256;
    CKM_SHA384 = 0x260;
    CKM_SHA384_HMAC = 0x261;
    CKM_SHA512 = 0x270;
    CKM_SHA512_HMAC = 0x271;
    CKM_SHA3_256 = 0x2B0;
    CKM_SHA3_384 = 0x2C0;
    CKM_SHA3_512 = 0x2D0;
    CKM_SP800_108_COUNTER_KDF = 0x3AC;
    CKM_PKCS5_PBKD2 = 0x3B0;
    CKM_EC_KEY_PAIR_GEN = 0x1040;
    CKM_ECDSA_SHA1 = 0x1042;
    CKM_ECDSA_SHA256 = 0x1044;
    CKM_ECDSA_SHA384 = 0x1045;
    CKM_ECDSA_SHA512 = 0x1046;
    CKM_ECDH1_DERIVE = 0x1050;
    CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
    CKM_EC_MONTGOMERY_KEY_PAIR_GEN = 0x1056;
    CKM_EDDSA = 0x1057;
    CKM_AES_XTS = 0x1071;
    CKM_AES_XTS_KEY_GEN = 0x1072;
    CKM_AES_KEY_GEN = 0x1080;
    CKM_AES_CBC_PAD = 0x1085;
    CKM_AES_CTR = 0x1086;
    CKM_AES_GCM = 0x1087;
    CKM_AES_CCM = 0x1088;
    CKM_AES_CTS = 0x1089;
    CKM_AES_CMAC = 0x108A;
    CKM_AES_GMAC = 0x108E;
    CKM_CHACHA20_KEY_GEN = 0x1225;
    CKM_AES_CFB8 = 0x2106;
    CKM_AES_KEY_WRAP = 0x2109;
    CKM_AES_KEY_WRAP_KWP = 0x210B;
    CKM_CHACHA20_POLY1305 = 0x4021;
    CKM_HKDF_DERIVE = 0x402A;
}

// Regula's vendor-defined SM mechanisms (stable: never renumber, only append).
mechanisms! {
    CKM_REGULA_SM3 = CKM_REGULA_BASE + 0x01;
    CKM_REGULA_SM3_HMAC = CKM_REGULA_BASE + 0x02;
    CKM_REGULA_SM4_KEY_GEN = CKM_REGULA_BASE + 0x03;
    CKM_REGULA_SM4_ECB = CKM_REGULA_BASE + 0x04;
    CKM_REGULA_SM4_CBC_PAD = CKM_REGULA_BASE + 0x05;
    CKM_REGULA_SM4_CTR = CKM_REGULA_BASE + 0x06;
    CKM_REGULA_SM4_OFB = CKM_REGULA_BASE + 0x07;
    CKM_REGULA_SM4_CFB = CKM_REGULA_BASE + 0x08;
    CKM_REGULA_SM4_GCM = CKM_REGULA_BASE + 0x09;
    CKM_REGULA_SM4_CCM = CKM_REGULA_BASE + 0x0A;
    CKM_REGULA_SM4_XTS = CKM_REGULA_BASE + 0x0B;
    CKM_REGULA_SM4_XTS_GB = CKM_REGULA_BASE + 0x0C;
    CKM_REGULA_SM4_CTS = CKM_REGULA_BASE + 0x0D;
    CKM_REGULA_SM4_CMAC = CKM_REGULA_BASE + 0x0E;
    CKM_REGULA_SM4_XCBC_MAC = CKM_REGULA_BASE + 0x0F;
    CKM_REGULA_SM4_CBC_MAC = CKM_REGULA_BASE + 0x10;
    CKM_REGULA_SM2_KEY_PAIR_GEN = CKM_REGULA_BASE + 0x11;
    CKM_REGULA_SM2_SM3 = CKM_REGULA_BASE + 0x12;
    CKM_REGULA_SM2_ENCRYPT = CKM_REGULA_BASE + 0x13;
    CKM_REGULA_SM2_ECDH = CKM_REGULA_BASE + 0x14;
    CKM_REGULA_SM2_KEY_EXCHANGE = CKM_REGULA_BASE + 0x15;
}
