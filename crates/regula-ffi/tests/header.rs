//! include/regula.h must be what cbindgen generates from the sources with cbindgen.toml: CI
//! fails when someone changes the ABI without regenerating it. `REGULA_BLESS_HEADER=1 cargo
//! test -p regula-ffi --test header` rewrites the file.

use std::path::Path;

#[test]
fn checked_in_header_is_generated() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not parse the crate")
        .write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = crate_dir.join("include/regula.h");
    if std::env::var_os("REGULA_BLESS_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/regula.h differs from cbindgen's output; regenerate it with \
         REGULA_BLESS_HEADER=1 cargo test -p regula-ffi --test header"
    );
}
