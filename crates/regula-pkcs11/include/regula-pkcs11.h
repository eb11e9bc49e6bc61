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

/* Reserved for the module's other SM services; not listed by any slot yet. */

#define CKM_REGULA_SM4_CTS (CKM_REGULA_BASE + 0x0DUL)     /* CBC-CS3 */
#define CKM_REGULA_SM4_XCBC_MAC (CKM_REGULA_BASE + 0x0FUL)
#define CKM_REGULA_SM4_CBC_MAC (CKM_REGULA_BASE + 0x10UL)
#define CKM_REGULA_SM2_KEY_PAIR_GEN (CKM_REGULA_BASE + 0x11UL)
#define CKM_REGULA_SM2_SM3 (CKM_REGULA_BASE + 0x12UL)     /* sign with the ID, GB/T 32918.2 */
#define CKM_REGULA_SM2_ENCRYPT (CKM_REGULA_BASE + 0x13UL) /* GB/T 32918.4 */
#define CKM_REGULA_SM2_ECDH (CKM_REGULA_BASE + 0x14UL)
#define CKM_REGULA_SM2_KEY_EXCHANGE (CKM_REGULA_BASE + 0x15UL) /* GB/T 32918.3 */

#endif /* REGULA_PKCS11_H */
