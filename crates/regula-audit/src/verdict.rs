//! The verdict for one binary, and its one-line reason, from the modules found.

use crate::elf::ElfFacts;
use crate::{FipsStatus, GoInfo, Linkage, ModuleFinding, Verdict};

pub(crate) fn verdict(
    facts: &ElfFacts,
    findings: &[ModuleFinding],
    go: Option<&GoInfo>,
    regula: Option<&regula::identity::Identity>,
) -> (Verdict, String) {
    let describe = |f: &ModuleFinding| {
        let version = f
            .version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default();
        match f.linkage {
            Linkage::Static => format!("{}{version} (linked in)", f.name),
            Linkage::Dynamic => format!("{}{version} (loads {})", f.name, f.file),
        }
    };
    let list = |status: FipsStatus| -> Vec<String> {
        findings
            .iter()
            .filter(|f| f.fips == status)
            .map(describe)
            .collect()
    };
    let validated = list(FipsStatus::Validated);
    let unknown = list(FipsStatus::Unknown);
    let not_validated = list(FipsStatus::NotValidated);
    let regula_note = regula
        .map(|r| {
            format!(
                "; Regula {} ({} build)",
                r.version,
                if r.fips { "FIPS" } else { "default, non-FIPS" }
            )
        })
        .unwrap_or_default();
    if !validated.is_empty() {
        let mut reason = validated.join(", ");
        reason.push_str(if validated.len() == 1 {
            " is a validated FIPS module"
        } else {
            " are validated FIPS modules"
        });
        if !not_validated.is_empty() || !unknown.is_empty() {
            let others: Vec<String> = unknown.iter().chain(&not_validated).cloned().collect();
            reason.push_str(&format!(
                "; also present, not validated: {}",
                others.join(", ")
            ));
        }
        reason.push_str(&regula_note);
        return (Verdict::Yes, reason);
    }
    if !unknown.is_empty() {
        let details: Vec<String> = findings
            .iter()
            .filter(|f| f.fips == FipsStatus::Unknown)
            .map(|f| format!("{}: {}", describe(f), f.detail))
            .collect();
        return (Verdict::Unknown, details.join("; "));
    }
    if !not_validated.is_empty() {
        let mut reason = format!(
            "{} {} not validated FIPS modules",
            not_validated.join(", "),
            if not_validated.len() == 1 {
                "is"
            } else {
                "are"
            }
        );
        reason = reason.replacen(
            " is not validated FIPS modules",
            " is not a validated FIPS module",
            1,
        );
        reason.push_str(&regula_note);
        return (Verdict::No, reason);
    }
    if let Some(go) = go {
        return (
            Verdict::No,
            format!(
                "a Go program ({}) with no cryptographic packages in it",
                go.version.as_deref().unwrap_or("version unknown")
            ),
        );
    }
    if facts.has_symtab {
        (
            Verdict::No,
            format!(
                "no cryptographic module among its {} symbols, its strings or the libraries it loads (libraries opened with dlopen cannot be seen)",
                facts.symbols.len()
            ),
        )
    } else {
        (
            Verdict::Unknown,
            format!(
                "stripped {} binary: no symbol table, and neither its strings nor {} show a cryptographic module, so whether one is linked cannot be told",
                if facts.needed.is_empty() {
                    "static"
                } else {
                    "dynamic"
                },
                if facts.needed.is_empty() {
                    "a dynamic dependency"
                } else {
                    "the libraries it loads"
                }
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(
        name: &str,
        version: Option<&str>,
        fips: FipsStatus,
        linkage: Linkage,
    ) -> ModuleFinding {
        ModuleFinding {
            name: name.into(),
            version: version.map(str::to_string),
            fips,
            linkage,
            file: "/usr/lib/libx.so".into(),
            detail: format!("{name} detail"),
            evidence: Vec::new(),
        }
    }

    #[test]
    fn one_validated_module_is_a_yes_that_names_the_others() {
        let facts = ElfFacts::for_test(b"", &["main"], true);
        let findings = [
            module(
                "AWS-LC FIPS",
                Some("3.0.0"),
                FipsStatus::Validated,
                Linkage::Static,
            ),
            module("ring", None, FipsStatus::NotValidated, Linkage::Dynamic),
        ];
        let regula = regula::identity::Identity {
            version: "0.1.0".into(),
            fips: true,
            module: "aws-lc-fips-sys".into(),
            policy: "default".into(),
        };
        assert_eq!(
            verdict(&facts, &findings, None, Some(&regula)),
            (
                Verdict::Yes,
                "AWS-LC FIPS 3.0.0 (linked in) is a validated FIPS module; also present, not validated: ring (loads /usr/lib/libx.so); Regula 0.1.0 (FIPS build)".to_string()
            )
        );
    }

    #[test]
    fn unknown_before_no_and_grammar_for_one_or_many() {
        let facts = ElfFacts::for_test(b"", &["main"], true);
        let unknown = module("GnuTLS", None, FipsStatus::Unknown, Linkage::Dynamic);
        let ring = module(
            "ring",
            Some("0.17.14"),
            FipsStatus::NotValidated,
            Linkage::Static,
        );
        let openssl = module(
            "OpenSSL libcrypto",
            None,
            FipsStatus::NotValidated,
            Linkage::Dynamic,
        );
        assert_eq!(
            verdict(&facts, &[ring.clone(), unknown], None, None),
            (
                Verdict::Unknown,
                "GnuTLS (loads /usr/lib/libx.so): GnuTLS detail".to_string()
            )
        );
        assert_eq!(
            verdict(&facts, std::slice::from_ref(&ring), None, None),
            (
                Verdict::No,
                "ring 0.17.14 (linked in) is not a validated FIPS module".to_string()
            )
        );
        assert_eq!(
            verdict(&facts, &[ring, openssl], None, None),
            (
                Verdict::No,
                "ring 0.17.14 (linked in), OpenSSL libcrypto (loads /usr/lib/libx.so) are not validated FIPS modules".to_string()
            )
        );
    }

    #[test]
    fn nothing_found_is_no_with_symbols_and_unknown_when_stripped() {
        let with_symbols = ElfFacts::for_test(b"", &["main", "helper"], true);
        assert_eq!(
            verdict(&with_symbols, &[], None, None),
            (
                Verdict::No,
                "no cryptographic module among its 2 symbols, its strings or the libraries it loads (libraries opened with dlopen cannot be seen)".to_string()
            )
        );
        let stripped = ElfFacts::for_test(b"", &[], false);
        assert_eq!(
            verdict(&stripped, &[], None, None),
            (
                Verdict::Unknown,
                "stripped static binary: no symbol table, and neither its strings nor a dynamic dependency show a cryptographic module, so whether one is linked cannot be told".to_string()
            )
        );
        let go = GoInfo {
            version: Some("go1.26.0".into()),
            ..GoInfo::default()
        };
        assert_eq!(
            verdict(&stripped, &[], Some(&go), None),
            (
                Verdict::No,
                "a Go program (go1.26.0) with no cryptographic packages in it".to_string()
            )
        );
    }
}
