//! The function lists (PKCS#11 2.40, 3.0 and 3.2 layouts, from cryptoki-sys) and the entry
//! points this token does not implement yet, which answer `CKR_FUNCTION_NOT_SUPPORTED` (or the
//! code the standard gives: `C_SeedRandom`, `C_GetFunctionStatus`, `C_CancelFunction`).
//!
//! Written by scripts from cryptoki-sys 0.5's `CK_FUNCTION_LIST*` and `CK_C_*` types, so that
//! every stub has its exact C signature.

#![allow(non_snake_case)]

use cryptoki_sys::*;

use crate::*;

/// Entry points that answer `$rv` and nothing else, each with its exact C signature.
macro_rules! answer_only {
    ($rv:ident: $($name:ident($($arg:ty),* $(,)?);)*) => {
        $(
            unsafe extern "C" fn $name($(_: $arg),*) -> CK_RV {
                not_implemented($rv)
            }
        )*
    };
}

answer_only! {
    CKR_FUNCTION_NOT_SUPPORTED:
    C_GetOperationState(CK_SESSION_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_SetOperationState(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, CK_OBJECT_HANDLE, CK_OBJECT_HANDLE);
    C_CopyObject(CK_SESSION_HANDLE, CK_OBJECT_HANDLE, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_GetObjectSize(CK_SESSION_HANDLE, CK_OBJECT_HANDLE, *mut CK_ULONG);
    C_DigestKey(CK_SESSION_HANDLE, CK_OBJECT_HANDLE);
    C_SignRecoverInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_SignRecover(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_VerifyRecoverInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_VerifyRecover(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DigestEncryptUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptDigestUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_SignEncryptUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptVerifyUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_WaitForSlotEvent(CK_FLAGS, *mut CK_SLOT_ID, *mut std::os::raw::c_void);
    C_LoginUser(CK_SESSION_HANDLE, CK_USER_TYPE, *mut CK_UTF8CHAR, CK_ULONG, *mut CK_UTF8CHAR, CK_ULONG);
    C_MessageEncryptInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_EncryptMessage(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_EncryptMessageBegin(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_EncryptMessageNext(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG, CK_FLAGS);
    C_MessageEncryptFinal(CK_SESSION_HANDLE);
    C_MessageDecryptInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_DecryptMessage(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptMessageBegin(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_DecryptMessageNext(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG, CK_FLAGS);
    C_MessageDecryptFinal(CK_SESSION_HANDLE);
    C_MessageSignInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_SignMessage(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_SignMessageBegin(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG);
    C_SignMessageNext(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_MessageSignFinal(CK_SESSION_HANDLE);
    C_MessageVerifyInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_VerifyMessage(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_VerifyMessageBegin(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG);
    C_VerifyMessageNext(CK_SESSION_HANDLE, *mut std::os::raw::c_void, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_MessageVerifyFinal(CK_SESSION_HANDLE);
    C_VerifySignatureInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_VerifySignature(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_VerifySignatureUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_VerifySignatureFinal(CK_SESSION_HANDLE);
    C_AsyncComplete(CK_SESSION_HANDLE, *mut CK_UTF8CHAR, *mut CK_ASYNC_DATA);
    C_AsyncGetID(CK_SESSION_HANDLE, *mut CK_UTF8CHAR, *mut CK_ULONG);
    C_AsyncJoin(CK_SESSION_HANDLE, *mut CK_UTF8CHAR, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_WrapKeyAuthenticated(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE, CK_OBJECT_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_UnwrapKeyAuthenticated(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_BYTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
}

answer_only! {
    CKR_RANDOM_SEED_NOT_SUPPORTED:
    C_SeedRandom(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
}

answer_only! {
    CKR_FUNCTION_NOT_PARALLEL:
    C_GetFunctionStatus(CK_SESSION_HANDLE);
    C_CancelFunction(CK_SESSION_HANDLE);
}

/// A function list of type `$list` for version `$major.$minor`: the 2.40 entries every
/// layout begins with, then the entries its version adds (each layout extends the one before).
macro_rules! function_list {
    ($list:ident, $major:literal, $minor:literal $(, $added:ident)* $(,)?) => {
        $list {
            version: CK_VERSION {
                major: $major,
                minor: $minor,
            },
            C_Initialize: Some(C_Initialize),
            C_Finalize: Some(C_Finalize),
            C_GetInfo: Some(C_GetInfo),
            C_GetFunctionList: Some(C_GetFunctionList),
            C_GetSlotList: Some(C_GetSlotList),
            C_GetSlotInfo: Some(C_GetSlotInfo),
            C_GetTokenInfo: Some(C_GetTokenInfo),
            C_GetMechanismList: Some(C_GetMechanismList),
            C_GetMechanismInfo: Some(C_GetMechanismInfo),
            C_InitToken: Some(C_InitToken),
            C_InitPIN: Some(C_InitPIN),
            C_SetPIN: Some(C_SetPIN),
            C_OpenSession: Some(C_OpenSession),
            C_CloseSession: Some(C_CloseSession),
            C_CloseAllSessions: Some(C_CloseAllSessions),
            C_GetSessionInfo: Some(C_GetSessionInfo),
            C_GetOperationState: Some(C_GetOperationState),
            C_SetOperationState: Some(C_SetOperationState),
            C_Login: Some(C_Login),
            C_Logout: Some(C_Logout),
            C_CreateObject: Some(C_CreateObject),
            C_CopyObject: Some(C_CopyObject),
            C_DestroyObject: Some(C_DestroyObject),
            C_GetObjectSize: Some(C_GetObjectSize),
            C_GetAttributeValue: Some(C_GetAttributeValue),
            C_SetAttributeValue: Some(C_SetAttributeValue),
            C_FindObjectsInit: Some(C_FindObjectsInit),
            C_FindObjects: Some(C_FindObjects),
            C_FindObjectsFinal: Some(C_FindObjectsFinal),
            C_EncryptInit: Some(C_EncryptInit),
            C_Encrypt: Some(C_Encrypt),
            C_EncryptUpdate: Some(C_EncryptUpdate),
            C_EncryptFinal: Some(C_EncryptFinal),
            C_DecryptInit: Some(C_DecryptInit),
            C_Decrypt: Some(C_Decrypt),
            C_DecryptUpdate: Some(C_DecryptUpdate),
            C_DecryptFinal: Some(C_DecryptFinal),
            C_DigestInit: Some(C_DigestInit),
            C_Digest: Some(C_Digest),
            C_DigestUpdate: Some(C_DigestUpdate),
            C_DigestKey: Some(C_DigestKey),
            C_DigestFinal: Some(C_DigestFinal),
            C_SignInit: Some(C_SignInit),
            C_Sign: Some(C_Sign),
            C_SignUpdate: Some(C_SignUpdate),
            C_SignFinal: Some(C_SignFinal),
            C_SignRecoverInit: Some(C_SignRecoverInit),
            C_SignRecover: Some(C_SignRecover),
            C_VerifyInit: Some(C_VerifyInit),
            C_Verify: Some(C_Verify),
            C_VerifyUpdate: Some(C_VerifyUpdate),
            C_VerifyFinal: Some(C_VerifyFinal),
            C_VerifyRecoverInit: Some(C_VerifyRecoverInit),
            C_VerifyRecover: Some(C_VerifyRecover),
            C_DigestEncryptUpdate: Some(C_DigestEncryptUpdate),
            C_DecryptDigestUpdate: Some(C_DecryptDigestUpdate),
            C_SignEncryptUpdate: Some(C_SignEncryptUpdate),
            C_DecryptVerifyUpdate: Some(C_DecryptVerifyUpdate),
            C_GenerateKey: Some(C_GenerateKey),
            C_GenerateKeyPair: Some(C_GenerateKeyPair),
            C_WrapKey: Some(C_WrapKey),
            C_UnwrapKey: Some(C_UnwrapKey),
            C_DeriveKey: Some(C_DeriveKey),
            C_SeedRandom: Some(C_SeedRandom),
            C_GenerateRandom: Some(C_GenerateRandom),
            C_GetFunctionStatus: Some(C_GetFunctionStatus),
            C_CancelFunction: Some(C_CancelFunction),
            C_WaitForSlotEvent: Some(C_WaitForSlotEvent),
            $($added: Some($added),)*
        }
    };
}

/// A 3.0 or later function list: 3.0's additions to 2.40, then `$added`.
macro_rules! function_list_3 {
    ($list:ident, $major:literal, $minor:literal $(, $added:ident)* $(,)?) => {
        function_list!(
            $list,
            $major,
            $minor,
            C_GetInterfaceList,
            C_GetInterface,
            C_LoginUser,
            C_SessionCancel,
            C_MessageEncryptInit,
            C_EncryptMessage,
            C_EncryptMessageBegin,
            C_EncryptMessageNext,
            C_MessageEncryptFinal,
            C_MessageDecryptInit,
            C_DecryptMessage,
            C_DecryptMessageBegin,
            C_DecryptMessageNext,
            C_MessageDecryptFinal,
            C_MessageSignInit,
            C_SignMessage,
            C_SignMessageBegin,
            C_SignMessageNext,
            C_MessageSignFinal,
            C_MessageVerifyInit,
            C_VerifyMessage,
            C_VerifyMessageBegin,
            C_VerifyMessageNext,
            C_MessageVerifyFinal,
            $($added,)*
        )
    };
}

pub(crate) static FUNCTION_LIST_2_40: CK_FUNCTION_LIST = function_list!(CK_FUNCTION_LIST, 2, 40);

pub(crate) static FUNCTION_LIST_3_0: CK_FUNCTION_LIST_3_0 =
    function_list_3!(CK_FUNCTION_LIST_3_0, 3, 0);

pub(crate) static FUNCTION_LIST_3_2: CK_FUNCTION_LIST_3_2 = function_list_3!(
    CK_FUNCTION_LIST_3_2,
    3,
    2,
    C_EncapsulateKey,
    C_DecapsulateKey,
    C_VerifySignatureInit,
    C_VerifySignature,
    C_VerifySignatureUpdate,
    C_VerifySignatureFinal,
    C_GetSessionValidationFlags,
    C_AsyncComplete,
    C_AsyncGetID,
    C_AsyncJoin,
    C_WrapKeyAuthenticated,
    C_UnwrapKeyAuthenticated,
);
