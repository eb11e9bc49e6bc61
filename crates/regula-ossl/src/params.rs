//! Reading and writing `OSSL_PARAM` arrays without libcrypto: the provider answers every
//! parameter OpenSSL asks for and reads every one it is given, and says which it knows
//! (the `gettable`/`settable` lists built with [`param_list!`]).

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uint};

use zeroize::Zeroizing;

use crate::ffi::{
    PARAM_INTEGER, PARAM_OCTET_STRING, PARAM_UNSIGNED_INTEGER, PARAM_UTF8_PTR, PARAM_UTF8_STRING,
    Param,
};

/// Why a parameter could not be read or written; the caller raises it on OpenSSL's error queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError(pub String);

pub type ParamResult<T> = Result<T, ParamError>;

/// A caller's `OSSL_PARAM` array, ended by an entry with a null key.
pub struct Params {
    start: *mut Param,
}

impl Params {
    /// # Safety
    /// `start` is null or points to an `OSSL_PARAM` array ended by a null key, valid and not
    /// otherwise accessed for the lifetime of the returned value.
    pub unsafe fn new(start: *const Param) -> Params {
        Params {
            start: start as *mut Param,
        }
    }

    /// Every entry, with its key.
    pub fn iter(&self) -> impl Iterator<Item = ParamRef<'_>> {
        let mut next = self.start;
        std::iter::from_fn(move || {
            if next.is_null() {
                return None;
            }
            // SAFETY: `next` points inside the array (Params::new's contract), and the walk stops
            // at the terminating entry, whose key is null.
            let param = unsafe { &mut *next };
            if param.key.is_null() {
                return None;
            }
            // SAFETY: the entry after a non-terminating one is still inside the array.
            next = unsafe { next.add(1) };
            // SAFETY: OpenSSL parameter keys are NUL-terminated C strings.
            let key = unsafe { CStr::from_ptr(param.key) }.to_bytes();
            // Keys are ASCII names; anything else matches no name. (Checked inline: keys are
            // read on every call of some entry points.)
            let key = if key.is_ascii() {
                // SAFETY: ASCII is UTF-8.
                unsafe { std::str::from_utf8_unchecked(key) }
            } else {
                ""
            };
            Some(ParamRef { key, param })
        })
    }

    /// The first entry named `key`.
    pub fn locate(&self, key: &str) -> Option<ParamRef<'_>> {
        self.iter().find(|param| param.key == key)
    }
}

/// One entry of a caller's array.
pub struct ParamRef<'a> {
    pub key: &'a str,
    param: &'a mut Param,
}

impl ParamRef<'_> {
    fn data_type(&self) -> c_uint {
        self.param.data_type
    }

    /// Whether the caller gave a value (not only a size).
    pub fn has_data(&self) -> bool {
        !self.param.data.is_null()
    }

    /// The size of the caller's value or buffer.
    pub fn data_size(&self) -> usize {
        self.param.data_size
    }

    /// Reads an integer of any size and signedness OpenSSL allows: 4 and 8 bytes from
    /// callers, any size from `OSSL_PARAM_allocate_from_text` (which sizes the buffer to the
    /// number), in the machine's byte order.
    pub fn get_i64(&self) -> ParamResult<i64> {
        let p = &self.param;
        if p.data.is_null() || p.data_size == 0 {
            return Err(self.error("has no value"));
        }
        let signed = match p.data_type {
            PARAM_INTEGER => true,
            PARAM_UNSIGNED_INTEGER => false,
            _ => return Err(self.error("is not an integer")),
        };
        // SAFETY: an integer parameter holds `data_size` readable bytes at `data`.
        let bytes = unsafe { std::slice::from_raw_parts(p.data as *const u8, p.data_size) };
        // The C int and the 64-bit integers callers pass.
        match (signed, bytes.try_into(), bytes.try_into()) {
            (true, Ok(int), _) => return Ok(i64::from(i32::from_ne_bytes(int))),
            (false, Ok(int), _) => return Ok(i64::from(u32::from_ne_bytes(int))),
            (true, _, Ok(long)) => return Ok(i64::from_ne_bytes(long)),
            (false, _, Ok(long)) => {
                return i64::try_from(u64::from_ne_bytes(long))
                    .map_err(|_| self.error("is out of range"));
            }
            _ => {}
        }
        // The i-th byte, most significant first, whatever the machine's order (read in place:
        // integer parameters are read on every call of some entry points).
        let len = bytes.len();
        let byte = |i: usize| {
            if cfg!(target_endian = "little") {
                bytes[len - 1 - i]
            } else {
                bytes[i]
            }
        };
        let negative = signed && byte(0) & 0x80 != 0;
        let fill = if negative { 0xff } else { 0x00 };
        let excess = len.saturating_sub(8);
        if (0..excess).any(|i| byte(i) != fill) {
            return Err(self.error("is out of range"));
        }
        let mut value = [fill; 8];
        for i in excess..len {
            value[8 - (len - i)] = byte(i);
        }
        // A wider signed number fits only if the 64 bits kept carry its sign.
        if signed && excess > 0 && (value[0] & 0x80 != 0) != negative {
            return Err(self.error("is out of range"));
        }
        let value = i64::from_be_bytes(value);
        if !signed && value < 0 {
            return Err(self.error("is out of range"));
        }
        Ok(value)
    }

    /// An unsigned integer of any size (a `BIGNUM` such as an EC private key), big-endian, as
    /// long as the caller's buffer (leading zeros kept: the value may be secret). OpenSSL writes
    /// them in the machine's byte order.
    pub fn get_unsigned_be(&self) -> ParamResult<Zeroizing<Vec<u8>>> {
        let p = &self.param;
        if p.data_type != PARAM_UNSIGNED_INTEGER {
            return Err(self.error("is not an unsigned integer"));
        }
        if p.data.is_null() || p.data_size == 0 {
            return Err(self.error("has no value"));
        }
        // SAFETY: an integer parameter holds `data_size` readable bytes at `data`.
        let bytes = unsafe { std::slice::from_raw_parts(p.data as *const u8, p.data_size) };
        let mut value = Zeroizing::new(bytes.to_vec());
        if cfg!(target_endian = "little") {
            value.reverse();
        }
        Ok(value)
    }

    /// A non-negative integer that fits a `usize`.
    pub fn get_usize(&self) -> ParamResult<usize> {
        usize::try_from(self.get_i64()?).map_err(|_| self.error("must not be negative"))
    }

    /// The bytes of an octet string (or of a UTF-8 string, which some KDF parameters accept).
    pub fn get_octets(&self) -> ParamResult<&[u8]> {
        let p = &self.param;
        match p.data_type {
            PARAM_OCTET_STRING | PARAM_UTF8_STRING => {}
            _ => return Err(self.error("is not an octet string")),
        }
        if p.data_size == 0 {
            return Ok(&[]);
        }
        if p.data.is_null() {
            return Err(self.error("has no value"));
        }
        // SAFETY: an octet or UTF-8 string parameter holds `data_size` readable bytes at `data`.
        Ok(unsafe { std::slice::from_raw_parts(p.data as *const u8, p.data_size) })
    }

    /// A UTF-8 string (a `UTF8_STRING`, or a `UTF8_PTR` as the core's configuration gives).
    pub fn get_utf8(&self) -> ParamResult<String> {
        let p = &self.param;
        let bytes: &[u8] = match p.data_type {
            PARAM_UTF8_STRING => self.get_octets()?,
            PARAM_UTF8_PTR => {
                if p.data.is_null() {
                    return Err(self.error("has no value"));
                }
                // SAFETY: a UTF8_PTR parameter's data is a `const char *` to a C string.
                let pointer = unsafe { *(p.data as *const *const c_char) };
                if pointer.is_null() {
                    return Err(self.error("is not set"));
                }
                // SAFETY: as above: a NUL-terminated string the core owns.
                unsafe { CStr::from_ptr(pointer) }.to_bytes()
            }
            _ => return Err(self.error("is not a UTF-8 string")),
        };
        // Strings given with their NUL counted still mean the text before it.
        let text = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
        String::from_utf8(text.to_vec()).map_err(|_| self.error("is not valid UTF-8"))
    }

    /// Writes an integer, in the size and signedness the caller's entry asks for.
    pub fn set_i64(&mut self, value: i64) -> ParamResult<()> {
        let p = &mut *self.param;
        p.return_size = p.data_size;
        if p.data.is_null() {
            return Ok(());
        }
        let fits = match (p.data_type, p.data_size) {
            (PARAM_INTEGER, 4) => i32::try_from(value).is_ok(),
            (PARAM_INTEGER, 8) => true,
            (PARAM_UNSIGNED_INTEGER, 4) => u32::try_from(value).is_ok(),
            (PARAM_UNSIGNED_INTEGER, 8) => value >= 0,
            _ => return Err(self.error("is not an integer of 4 or 8 bytes")),
        };
        if !fits {
            return Err(self.error("cannot hold the value"));
        }
        // SAFETY: `data` holds `data_size` writable bytes (checked size and type above).
        unsafe {
            match (p.data_type, p.data_size) {
                (PARAM_INTEGER, 4) => *(p.data as *mut i32) = value as i32,
                (PARAM_INTEGER, _) => *(p.data as *mut i64) = value,
                (_, 4) => *(p.data as *mut u32) = value as u32,
                _ => *(p.data as *mut u64) = value as u64,
            }
        }
        Ok(())
    }

    /// Writes an unsigned 64-bit value (OpenSSL's `size_t` answers, such as a KDF's `size` of
    /// `SIZE_MAX`): the entry must be an unsigned integer of 8 bytes, or hold the value.
    pub fn set_u64(&mut self, value: u64) -> ParamResult<()> {
        match i64::try_from(value) {
            Ok(value) => self.set_i64(value),
            Err(_) => {
                let p = &mut *self.param;
                if (p.data_type, p.data_size) != (PARAM_UNSIGNED_INTEGER, 8) {
                    return Err(self.error("cannot hold the value"));
                }
                p.return_size = 8;
                if !p.data.is_null() {
                    // SAFETY: an 8-byte unsigned integer entry holds 8 writable bytes.
                    unsafe { *(p.data as *mut u64) = value };
                }
                Ok(())
            }
        }
    }

    pub fn set_usize(&mut self, value: usize) -> ParamResult<()> {
        self.set_i64(i64::try_from(value).map_err(|_| self.error("cannot hold the value"))?)
    }

    /// Writes a UTF-8 string (NUL-terminated when there is room, as OpenSSL does). For a
    /// `UTF8_PTR` entry use [`ParamRef::set_text`].
    pub fn set_utf8(&mut self, value: &str) -> ParamResult<()> {
        if self.data_type() != PARAM_UTF8_STRING {
            return Err(self.error("is not a UTF-8 string"));
        }
        self.set_bytes(value.as_bytes(), true)
    }

    /// Writes text into a `UTF8_STRING` entry, or points a `UTF8_PTR` entry at it (as
    /// `openssl list -providers` asks): the text must outlive the caller's use of it, which
    /// for the provider's own strings means living until the provider is torn down.
    pub fn set_text(&mut self, value: &'static CStr) -> ParamResult<()> {
        match self.data_type() {
            PARAM_UTF8_PTR => {
                let p = &mut *self.param;
                p.return_size = value.to_bytes().len();
                if p.data.is_null() {
                    return Ok(());
                }
                // SAFETY: a UTF8_PTR entry's data is a `const char **` the caller provided.
                unsafe { *(p.data as *mut *const c_char) = value.as_ptr() };
                Ok(())
            }
            _ => self.set_utf8(value.to_str().unwrap_or("")),
        }
    }

    /// Writes an unsigned integer of any size given big-endian (a public `BIGNUM` such as an
    /// RSA modulus) as OpenSSL's `OSSL_PARAM_set_BN` does: in the machine's byte order, padded
    /// with zeros to the caller's buffer; a buffer too small is refused with the size needed in
    /// `return_size` (so `EVP_PKEY_get_bn_param` can ask again with a larger one).
    pub fn set_unsigned_be(&mut self, value: &[u8]) -> ParamResult<()> {
        if self.data_type() != PARAM_UNSIGNED_INTEGER {
            return Err(self.error("is not an unsigned integer"));
        }
        let start = value.iter().position(|&b| b != 0).unwrap_or(value.len());
        let value = &value[start..];
        let p = &mut *self.param;
        p.return_size = value.len().max(1);
        if p.data.is_null() {
            return Ok(());
        }
        if p.data_size < value.len() || p.data_size == 0 {
            return Err(self.error("has no room for the value"));
        }
        p.return_size = p.data_size;
        // SAFETY: `data` holds `data_size` writable bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(p.data as *mut u8, p.data_size) };
        let pad = out.len() - value.len();
        out[..pad].fill(0);
        out[pad..].copy_from_slice(value);
        if cfg!(target_endian = "little") {
            out.reverse();
        }
        Ok(())
    }

    /// Writes an octet string.
    pub fn set_octets(&mut self, value: &[u8]) -> ParamResult<()> {
        if self.data_type() != PARAM_OCTET_STRING {
            return Err(self.error("is not an octet string"));
        }
        self.set_bytes(value, false)
    }

    fn set_bytes(&mut self, value: &[u8], terminate: bool) -> ParamResult<()> {
        let p = &mut *self.param;
        p.return_size = value.len();
        if p.data.is_null() {
            return Ok(());
        }
        if p.data_size < value.len() {
            return Err(self.error("has no room for the value"));
        }
        // SAFETY: `data` holds `data_size` >= value.len() writable bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(value.as_ptr(), p.data as *mut u8, value.len());
            if terminate && p.data_size > value.len() {
                *(p.data as *mut u8).add(value.len()) = 0;
            }
        }
        Ok(())
    }

    fn error(&self, problem: &str) -> ParamError {
        ParamError(format!("parameter \"{}\" {problem}", self.key))
    }
}

/// A static `OSSL_PARAM` list that describes parameters (`gettable`/`settable` answers).
pub struct ParamList(pub &'static [Param]);
// SAFETY: the entries point to 'static C string literals and are never written.
unsafe impl Sync for ParamList {}

impl ParamList {
    pub fn as_ptr(&self) -> *const Param {
        self.0.as_ptr()
    }
}

/// The lists an operation context answers `gettable_ctx_params` and `settable_ctx_params`
/// with, when they do not depend on the algorithm or key (sm2.rs, mldsa.rs): the dispatch table
/// takes [`gettable_ctx_params`] and [`settable_ctx_params`] of the context type.
pub trait CtxParamLists {
    const GETTABLE: &'static ParamList;
    const SETTABLE: &'static ParamList;
}

/// `gettable_ctx_params` of a context type with fixed lists.
pub extern "C" fn gettable_ctx_params<T: CtxParamLists>(
    _ctx: *mut std::os::raw::c_void,
    _provctx: *mut std::os::raw::c_void,
) -> *const Param {
    T::GETTABLE.as_ptr()
}

/// `settable_ctx_params` of a context type with fixed lists.
pub extern "C" fn settable_ctx_params<T: CtxParamLists>(
    _ctx: *mut std::os::raw::c_void,
    _provctx: *mut std::os::raw::c_void,
) -> *const Param {
    T::SETTABLE.as_ptr()
}

/// `param_list![("size", UNSIGNED), …]`: a static descriptor list ended by a null key.
#[macro_export]
macro_rules! param_list {
    ($(($key:expr, $kind:expr)),* $(,)?) => {
        $crate::params::ParamList(&[
            $($crate::ffi::Param {
                key: concat!($key, "\0").as_ptr() as *const std::os::raw::c_char,
                data_type: $kind,
                data: std::ptr::null_mut(),
                data_size: 0,
                return_size: 0,
            },)*
            $crate::ffi::Param::END,
        ])
    };
}

/// Integer type names for [`param_list!`].
pub const INT: c_uint = PARAM_INTEGER;
pub const UINT: c_uint = PARAM_UNSIGNED_INTEGER;
pub const UTF8: c_uint = PARAM_UTF8_STRING;
pub const OCTETS: c_uint = PARAM_OCTET_STRING;

/// OpenSSL's success and failure return values.
pub const OK: c_int = 1;
pub const FAIL: c_int = 0;

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `bytes` (in the machine's order) as an integer parameter of `data_type`.
    fn read(data_type: c_uint, mut bytes: Vec<u8>) -> ParamResult<i64> {
        let mut array = [
            Param {
                key: c"n".as_ptr(),
                data_type,
                data: bytes.as_mut_ptr().cast(),
                data_size: bytes.len(),
                return_size: 0,
            },
            Param::END,
        ];
        // SAFETY: a terminated array whose entry points at `bytes`, alive for the call.
        let params = unsafe { Params::new(array.as_mut_ptr()) };
        params.locate("n").expect("the entry").get_i64()
    }

    /// Integers of 1 to 16 bytes in the machine's order, as the standard library writes them.
    #[test]
    fn integers_of_any_size() {
        assert_eq!(read(INT, 5i32.to_ne_bytes().to_vec()), Ok(5));
        assert_eq!(read(INT, (-2i32).to_ne_bytes().to_vec()), Ok(-2));
        assert_eq!(read(INT, i64::MIN.to_ne_bytes().to_vec()), Ok(i64::MIN));
        assert_eq!(read(UINT, 300u16.to_ne_bytes().to_vec()), Ok(300));
        assert_eq!(read(UINT, 0xffu8.to_ne_bytes().to_vec()), Ok(255));
        assert_eq!(read(INT, (-1i8).to_ne_bytes().to_vec()), Ok(-1));
        assert_eq!(read(UINT, 7u128.to_ne_bytes().to_vec()), Ok(7));
        assert_eq!(read(INT, (-7i128).to_ne_bytes().to_vec()), Ok(-7));
        assert_eq!(
            read(INT, i128::from(i64::MAX).to_ne_bytes().to_vec()),
            Ok(i64::MAX)
        );
        // Out of range: beyond 64 bits, or an unsigned value above i64::MAX.
        for (data_type, bytes) in [
            (INT, (i128::from(i64::MAX) + 1).to_ne_bytes().to_vec()),
            (INT, (i128::from(i64::MIN) - 1).to_ne_bytes().to_vec()),
            (UINT, u64::MAX.to_ne_bytes().to_vec()),
            (UINT, (1u128 << 64).to_ne_bytes().to_vec()),
        ] {
            let refused = read(data_type, bytes).unwrap_err();
            assert!(refused.0.contains("out of range"), "{refused:?}");
        }
    }
}
