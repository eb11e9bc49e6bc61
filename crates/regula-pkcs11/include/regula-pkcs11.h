/*
 * regula-pkcs11.h: the vendor-defined key type and mechanisms of libregula-pkcs11.
 *
 * PKCS#11 3.2 names no SM2, SM3 or SM4 mechanism, so the token serves them in a vendor range:
 * CKM_VENDOR_DEFINED (0x80000000) with "RG" (0x5247) in the next 16 bits, the mechanism in the
 * low 8 bits. The values are stable: they are never renumbered, only appended to.
 *
 * Include it after your PKCS#11 header (OASIS pkcs11.h, p11-kit's, or cryptoki-sys's
 * bindings); it needs nothing from it. A slot lists a mechanism (C_GetMechanismList) only
 * where its policy serves the algorithm: the `gm` and `default` slots serve the SM set,
 * `fips-140-3` none of it. Keys: CKK_REGULA_SM4, 16 bytes (CKA_VALUE, or CKA_VALUE_LEN = 16
 * with CKM_REGULA_SM4_KEY_GEN), or 32 bytes for SM4-XTS (key1 || key2, CKA_VALUE_LEN = 32).
 * HMAC-SM3 keys are CKK_GENERIC_SECRET.
 *
 * SM2 keys are the standard's CKK_EC keys on curveSM2: CKA_EC_PARAMS is the DER OID
 * 1.2.156.10197.1.301 (06 08 2A 81 1C CF 55 01 82 2D), CKA_EC_POINT the DER OCTET STRING of
 * the uncompressed point 04 || x || y. CKM_REGULA_SM2_KEY_PAIR_GEN makes them; C_CreateObject
 * takes a public key (CKA_EC_PARAMS, CKA_EC_POINT) and a private key (CKA_EC_PARAMS, CKA_VALUE
 * the 32-byte scalar d, 1 <= d <= n-2). Private keys are sensitive and never leave the token.
 * As for every EC key, a public key encrypts only with CKA_ENCRYPT set, a private key
 * decrypts with CKA_DECRYPT and derives with CKA_DERIVE (all default to CK_FALSE).
 *
 * The service indicator is the standard's: C_GetSessionValidationFlags(session,
 * CKS_LAST_VALIDATION_OK, &flags) gives 0x1 after an operation the slot's policy approved.
 */
#ifndef REGULA_PKCS11_H
#define REGULA_PKCS11_H

/* The base of Regula's vendor range (key types and mechanisms alike). */
#define CKK_REGULA_BASE 0x80524700UL
#define CKM_REGULA_BASE 0x80524700UL

/* An SM4 secret key (GB/T 32907). */
#define CKK_REGULA_SM4 (CKK_REGULA_BASE + 0x01UL)

/* Served by the token today. */

/* SM3 digest (GB/T 32905), 32 bytes; no parameter. */
#define CKM_REGULA_SM3 (CKM_REGULA_BASE + 0x01UL)
/* HMAC-SM3 (RFC 2104 over SM3), 32-byte MAC; no parameter; CKK_GENERIC_SECRET keys. */
#define CKM_REGULA_SM3_HMAC (CKM_REGULA_BASE + 0x02UL)
/* Generates a CKK_REGULA_SM4 key (16 bytes, or 32 for SM4-XTS); no parameter. */
#define CKM_REGULA_SM4_KEY_GEN (CKM_REGULA_BASE + 0x03UL)
/* SM4-ECB, whole 16-byte blocks; no parameter. */
#define CKM_REGULA_SM4_ECB (CKM_REGULA_BASE + 0x04UL)
/* SM4-CBC with PKCS#7 padding; the parameter is the 16-byte IV. */
#define CKM_REGULA_SM4_CBC_PAD (CKM_REGULA_BASE + 0x05UL)
/* SM4-CTR; the parameter is a CK_AES_CTR_PARAMS (ulCounterBits, 16-byte cb). */
#define CKM_REGULA_SM4_CTR (CKM_REGULA_BASE + 0x06UL)
/* SM4-OFB; the parameter is the 16-byte IV. */
#define CKM_REGULA_SM4_OFB (CKM_REGULA_BASE + 0x07UL)
/* SM4-CFB (128-bit segments); the parameter is the 16-byte IV. */
#define CKM_REGULA_SM4_CFB (CKM_REGULA_BASE + 0x08UL)
/* SM4-GCM (NIST SP 800-38D with SM4, RFC 8998); the parameter is a CK_GCM_PARAMS. */
#define CKM_REGULA_SM4_GCM (CKM_REGULA_BASE + 0x09UL)
/* SM4-CCM (NIST SP 800-38C with SM4, RFC 8998); the parameter is a CK_CCM_PARAMS with a
 * 12-byte nonce and ulMACLen = 16 (ulDataLen: the message's length, without the MAC). */
#define CKM_REGULA_SM4_CCM (CKM_REGULA_BASE + 0x0AUL)
/* SM4-XTS with IEEE Std 1619's tweak multiplication, a 32-byte CKK_REGULA_SM4 key; the
 * parameter is the 16-byte tweak; one data unit (16 bytes to 2^20 blocks) per operation. */
#define CKM_REGULA_SM4_XTS (CKM_REGULA_BASE + 0x0BUL)
/* SM4-XTS with GB/T 17964-2021's tweak multiplication; otherwise as CKM_REGULA_SM4_XTS. */
#define CKM_REGULA_SM4_XTS_GB (CKM_REGULA_BASE + 0x0CUL)
/* SM4-CMAC (NIST SP 800-38B with SM4), 16-byte MAC; no parameter. */
#define CKM_REGULA_SM4_CMAC (CKM_REGULA_BASE + 0x0EUL)
/* Generates an SM2 key pair (CKK_EC on curveSM2; CKA_EC_PARAMS in the public template); no
 * parameter. The module runs its pairwise consistency test before the keys are kept. */
#define CKM_REGULA_SM2_KEY_PAIR_GEN (CKM_REGULA_BASE + 0x11UL)
/* SM2 signature with SM3 (GB/T 32918.2): the token hashes SM3(Z_A || M). The parameter is the
 * signer's distinguishing ID as raw bytes (pParameter, ulParameterLen <= 8191); no parameter
 * (ulParameterLen 0) is GM/T 0009's default ID "1234567812345678". The signature is r || s,
 * 64 bytes, each big-endian and left-padded with zeros (not DER). */
#define CKM_REGULA_SM2_SM3 (CKM_REGULA_BASE + 0x12UL)
/* SM2 public-key encryption (GB/T 32918.4), single-part (parts given to C_EncryptUpdate are
 * gathered and encrypted at C_EncryptFinal). No parameter: the ciphertext is GM/T 0009's ASN.1
 * SM2Cipher, SEQUENCE { x, y, hash C3, ciphertext C2 }, as OpenSSL writes it; a
 * CK_REGULA_SM2_ENCRYPT_PARAMS may ask for C1 || C3 || C2 instead. An ASN.1 ciphertext's length
 * varies by a few bytes: C_Encrypt's length query answers the most it can be. */
#define CKM_REGULA_SM2_ENCRYPT (CKM_REGULA_BASE + 0x13UL)
/* ECDH on curveSM2 through C_DeriveKey, as CKM_ECDH1_DERIVE: the parameter is a
 * CK_ECDH1_DERIVE_PARAMS with kdf CKD_NULL and no shared data, pPublicData the peer's point
 * (04 || x || y, or its DER OCTET STRING); the new secret key takes the leftmost CKA_VALUE_LEN
 * bytes of the shared point's x-coordinate (all 32 when not given). */
#define CKM_REGULA_SM2_ECDH (CKM_REGULA_BASE + 0x14UL)

/* SM2 key exchange (GB/T 32918.3-2016 section 6) through C_DeriveKey, one call per party, as
 * CKM_ECMQV_DERIVE does MQV. Each side first generates a fresh ephemeral SM2 key pair in the
 * token (CKM_REGULA_SM2_KEY_PAIR_GEN, CKA_DERIVE on the private key, usually session objects)
 * and sends its public point R (CKA_EC_POINT) to the peer; with the peer's R, C_DeriveKey on
 * the own static SM2 private key (hBaseKey, CKA_DERIVE) with a CK_REGULA_SM2_KEY_EXCHANGE_PARAMS
 * makes the agreed secret key: CKA_VALUE_LEN bytes of the exchange's KDF output (required for
 * CKK_GENERIC_SECRET; a CKK_REGULA_SM4 key without it takes 16). Destroy the ephemeral pair
 * after the exchange: an ephemeral key used twice gives the shared key away. The initiator
 * sends pConfirmation (S_A) and compares the responder's S_B with pPeerConfirmation, the
 * responder the other way round (GB/T 32918.3's optional confirmation). A peer point off the
 * curve is CKR_MECHANISM_PARAM_INVALID, and so is an ephemeral handle of another kind of key
 * (or the static key itself); a handle of no object is CKR_KEY_HANDLE_INVALID. */
#define CKM_REGULA_SM2_KEY_EXCHANGE (CKM_REGULA_BASE + 0x15UL)

/* The ciphertext layouts of CKM_REGULA_SM2_ENCRYPT. */
#define CK_REGULA_SM2_CIPHERTEXT_ASN1 0x0UL   /* GM/T 0009-2012 SM2Cipher (DER), the default */
#define CK_REGULA_SM2_CIPHERTEXT_C1C3C2 0x1UL /* 04 || x || y || C3 || C2 (GB/T 32918.4-2016) */

/* CKM_REGULA_SM2_ENCRYPT's optional parameter (ulParameterLen = its size): the ciphertext
 * layout C_Encrypt writes and C_Decrypt reads, one of CK_REGULA_SM2_CIPHERTEXT_*. The field is
 * a CK_ULONG (unsigned long, as in the PKCS#11 headers). */
typedef struct CK_REGULA_SM2_ENCRYPT_PARAMS {
    unsigned long ulCiphertextFormat;
} CK_REGULA_SM2_ENCRYPT_PARAMS;

/* CKM_REGULA_SM2_KEY_EXCHANGE's parameter (ulParameterLen = its size). The types are the
 * PKCS#11 ones spelled out: CK_BBOOL is unsigned char, CK_BYTE_PTR unsigned char *, CK_ULONG
 * and CK_OBJECT_HANDLE unsigned long. Points are 04 || x || y (65 bytes) or that in a DER
 * OCTET STRING (as CKA_EC_POINT holds it). The outputs are written only when C_DeriveKey
 * succeeds; NULL when not wanted. */
typedef struct CK_REGULA_SM2_KEY_EXCHANGE_PARAMS {
    unsigned char isInitiator;            /* CK_TRUE: user A (initiator), CK_FALSE: user B */
    unsigned char *pOwnId;                /* own ID; NULL/0: default "1234567812345678" */
    unsigned long ulOwnIdLen;             /* at most 8191 */
    unsigned char *pPeerId;               /* peer's ID; NULL/0: the default ID */
    unsigned long ulPeerIdLen;            /* at most 8191 */
    unsigned long hOwnEphemeralKey;       /* own ephemeral SM2 private key (CKA_DERIVE) */
    unsigned char *pPeerPublicKey;        /* the peer's static public point */
    unsigned long ulPeerPublicKeyLen;
    unsigned char *pPeerEphemeralKey;     /* the peer's ephemeral point R */
    unsigned long ulPeerEphemeralKeyLen;
    unsigned char *pConfirmation;         /* out, 32 bytes: own S to send (S_A or S_B) */
    unsigned char *pPeerConfirmation;     /* out, 32 bytes: the S the peer must send */
} CK_REGULA_SM2_KEY_EXCHANGE_PARAMS;

/* Reserved for the module's other SM services; not listed by any slot yet. */

#define CKM_REGULA_SM4_CTS (CKM_REGULA_BASE + 0x0DUL)     /* CBC-CS3 */
#define CKM_REGULA_SM4_XCBC_MAC (CKM_REGULA_BASE + 0x0FUL)
#define CKM_REGULA_SM4_CBC_MAC (CKM_REGULA_BASE + 0x10UL)

#endif /* REGULA_PKCS11_H */
