//! Under `gm` the module's randomness comes from the GM/T 0105-2021 generators: the random
//! service says so in its indicator, and keys, nonces and IVs draw from the same generator
//! (seen through a policy that serves only the SM4 one).

use regula::{Algorithm, Module, ModuleState, Policy, Profile, Service};

fn gm() -> Module {
    let module = Module::load(Policy::builtin(Profile::Gm));
    assert_eq!(module.state(), ModuleState::Operational);
    module
}

#[test]
fn the_gm_random_service_is_the_sm3_generator_and_approved() {
    let module = gm();
    assert_eq!(module.policy().random_algorithm(), Algorithm::Sm3Drbg);
    let mut first = [0u8; 100];
    let served = module.fill_random(&mut first).unwrap();
    let indicator = served.indicator();
    assert_eq!(indicator.algorithm, Algorithm::Sm3Drbg);
    assert_eq!(indicator.service, Service::RandomGeneration);
    assert!(indicator.is_approved());
    // 100 bytes take four requests of at most 32; none may repeat another.
    let mut second = [0u8; 100];
    module.fill_random(&mut second).unwrap();
    assert_ne!(first, second);
    assert!(first.chunks(32).all(|c| c.iter().any(|&b| b != 0)));
}

#[test]
fn fips_and_default_keep_aws_lc_ctr_drbg() {
    for profile in [Profile::Fips1403, Profile::Default] {
        let module = Module::load(Policy::builtin(profile));
        assert_eq!(module.policy().random_algorithm(), Algorithm::CtrDrbg);
        let served = module.random_bytes(16).unwrap();
        assert_eq!(served.indicator().algorithm, Algorithm::CtrDrbg);
    }
}

#[test]
fn the_sm4_generator_is_chosen_when_a_policy_file_excludes_the_sm3_one() {
    let policy = regula::policy::file::parse(
        r#"
        name = "gm-sm4-random"
        base = "gm"
        deny = ["sm3-drbg"]
        "#,
        "inline",
    )
    .unwrap();
    let module = Module::load(policy);
    assert_eq!(module.policy().random_algorithm(), Algorithm::Sm4CtrDrbg);
    let served = module.random_bytes(40).unwrap();
    assert_eq!(served.indicator().algorithm, Algorithm::Sm4CtrDrbg);
    assert!(served.indicator().is_approved());
    // SM2 keys and SM4-GCM nonces are drawn from it too; both still work.
    let key = module
        .generate_signing_key(Algorithm::Sm2Sign, None)
        .unwrap();
    let signature = key.sign(b"message").unwrap();
    assert!(!signature.is_empty());
    let aead = module.aead_key(Algorithm::Sm4Gcm, &[7u8; 16]).unwrap();
    let a = aead.seal(b"", b"payload").unwrap();
    let b = aead.seal(b"", b"payload").unwrap();
    assert_ne!(*a, *b, "two module-generated nonces must differ");
}
