//! What the fuzz targets over the OpenSSL provider share: reading the input, building
//! `OSSL_PARAM` arrays from it, and calling a dispatch table's functions by id.

use std::ffi::CString;
use std::os::raw::{c_int, c_uint, c_void};

use regula_ossl::ffi::{self, Param};
use regula_ossl::host;

pub use crate::input::Input;

/// An `OSSL_PARAM` array and the storage it points to.
pub struct ParamArray {
    pub params: Vec<Param>,
    _keys: Vec<CString>,
    _data: Vec<Vec<u8>>,
}

/// Up to three parameters: keys from `key_names`, values of any type and size, strings from `texts`
/// or raw bytes.
pub fn params(input: &mut Input<'_>, key_names: &[&str], texts: &[&str]) -> ParamArray {
    let count = input.byte() % 4;
    let mut keys = Vec::new();
    let mut data: Vec<Vec<u8>> = Vec::new();
    let mut params = Vec::new();
    for _ in 0..count {
        let key = CString::new(*input.pick(key_names)).unwrap_or_default();
        let (data_type, bytes, null_data): (c_uint, Vec<u8>, bool) = match input.byte() % 7 {
            0 => (
                ffi::PARAM_INTEGER,
                (input.byte() as i32 - 8).to_ne_bytes().to_vec(),
                false,
            ),
            1 => (
                ffi::PARAM_UNSIGNED_INTEGER,
                u64::from(input.byte()).to_ne_bytes().to_vec(),
                false,
            ),
            2 => (ffi::PARAM_INTEGER, input.bytes(9).to_vec(), false),
            3 => (
                ffi::PARAM_UTF8_STRING,
                input.pick(texts).as_bytes().to_vec(),
                false,
            ),
            4 => (ffi::PARAM_OCTET_STRING, input.bytes(80).to_vec(), false),
            // A size with no data: a length-only tag, or a getter asking for the size.
            5 => (
                ffi::PARAM_OCTET_STRING,
                vec![0; input.byte() as usize % 40],
                true,
            ),
            _ => (ffi::PARAM_UTF8_STRING, input.bytes(24).to_vec(), false),
        };
        let mut bytes = bytes;
        params.push(Param {
            key: key.as_ptr(),
            data_type,
            data: if null_data {
                std::ptr::null_mut()
            } else {
                bytes.as_mut_ptr() as *mut c_void
            },
            data_size: bytes.len(),
            return_size: ffi::PARAM_UNMODIFIED,
        });
        keys.push(key);
        data.push(bytes);
    }
    params.push(Param {
        key: std::ptr::null(),
        data_type: 0,
        data: std::ptr::null_mut(),
        data_size: 0,
        return_size: 0,
    });
    ParamArray {
        params,
        _keys: keys,
        _data: data,
    }
}

/// The function `id` of `table`, as type `F` (the signature core_dispatch.h gives that id).
pub unsafe fn get<F: Copy>(table: *const ffi::Dispatch, id: c_int) -> Option<F> {
    host::function(table, id).map(|f| {
        assert_eq!(std::mem::size_of::<F>(), std::mem::size_of_val(&f));
        // SAFETY: the caller names the signature of `id`.
        unsafe { std::mem::transmute_copy::<unsafe extern "C" fn(), F>(&f) }
    })
}
