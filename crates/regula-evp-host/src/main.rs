//! `regula-evp-test`: OpenSSL's own evp_test data (digests, ciphers, MACs, KDFs, public keys) run through an
//! OpenSSL 3 libcrypto's EVP API, in a library context of its own with only the providers asked
//! for. libcrypto is loaded at run time; nothing of OpenSSL is linked into this binary.

mod ossl;
mod run;
mod stanza;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use run::Outcome;

const DEFAULT_LIBCRYPTO: &str = "/usr/lib/x86_64-linux-gnu/libcrypto.so.3";

const HELP: &str = "\
regula-evp-test: run OpenSSL's evp_test data through libcrypto's EVP API

USAGE: regula-evp-test [OPTIONS] FILE|DIR...

Each FILE is an evp_test data file (test/recipes/30-test_evp_data/*.txt); a DIR stands for
its evp*.txt files. Digest, Cipher, MAC and KDF stanzas are run as OpenSSL's test/evp_test.c
runs them (ciphers also in place and misaligned, and fed whole, fragmented, in 1-byte and in
random chunks where the mode allows; digests and MACs also in 1-byte and random chunks).
Other stanza kinds are skipped with a reason.

OPTIONS:
  --libcrypto PATH      libcrypto to load (default /usr/lib/x86_64-linux-gnu/libcrypto.so.3)
  --provider NAME       load provider NAME into the test's library context (repeatable);
                        with neither --provider nor --config, OpenSSL's fallback applies
  --provider-path DIR   where providers are looked for (OSSL_PROVIDER_set_default_search_path)
  --config FILE         load an OpenSSL configuration file into the context
                        (OSSL_LIB_CTX_load_config)
  --propq STRING        property query for every fetch, e.g. provider=regula
  --stand-in OPENSSL=NAME
                        run the stanzas `Availablein` reserves for OpenSSL's provider OPENSSL
                        against provider NAME too (repeatable), e.g. default=regula for the
                        stanzas OpenSSL marks only to keep them off its FIPS provider
  --json                print the report as JSON
  --verbose             print every stanza's outcome, not only failures
  -h, --help            this text

A stanza passes, fails (expected against got, with OpenSSL's error queue) or is skipped with a
reason: its algorithm is not offered (the fetch fails), `Availablein` names no loaded provider,
`FIPSversion` does not hold for the version of the provider that answered the fetch, or the
stanza needs something this host or the provider does not do. The report gives counts per file
and per algorithm with the provider that answered each fetch.

EXIT STATUS: 0 when no stanza failed, 1 when any failed, 2 on usage or setup errors.
";

struct Options {
    libcrypto: String,
    providers: Vec<String>,
    provider_path: Option<String>,
    config: Option<String>,
    propq: Option<String>,
    stand_ins: Vec<(String, String)>,
    json: bool,
    verbose: bool,
    inputs: Vec<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut opts = Options {
        libcrypto: DEFAULT_LIBCRYPTO.to_string(),
        providers: Vec::new(),
        provider_path: None,
        config: None,
        propq: None,
        stand_ins: Vec::new(),
        json: false,
        verbose: false,
        inputs: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--libcrypto" => opts.libcrypto = value(arg)?,
            "--provider" => opts.providers.push(value(arg)?),
            "--provider-path" => opts.provider_path = Some(value(arg)?),
            "--config" => opts.config = Some(value(arg)?),
            "--propq" => opts.propq = Some(value(arg)?),
            "--stand-in" => {
                let pair = value(arg)?;
                let Some((openssl, stand_in)) = pair.split_once('=') else {
                    return Err(format!("--stand-in takes OPENSSL=NAME, not {pair}"));
                };
                opts.stand_ins
                    .push((openssl.to_string(), stand_in.to_string()));
            }
            "--json" => opts.json = true,
            "--verbose" => opts.verbose = true,
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            path => opts.inputs.push(PathBuf::from(path)),
        }
    }
    if opts.inputs.is_empty() {
        return Err("no data files given".into());
    }
    Ok(Some(opts))
}

fn data_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|e| format!("{}: {e}", input.display()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("evp") && n.ends_with(".txt"))
                })
                .collect();
            found.sort();
            files.extend(found);
        } else if input.is_file() {
            files.push(input.clone());
        } else {
            return Err(format!("{}: no such file or directory", input.display()));
        }
    }
    Ok(files)
}

fn setup(opts: &Options) -> Result<ossl::Ossl, String> {
    let api = ossl::Api::load(&opts.libcrypto)?;
    let mut ctx = ossl::Ossl::new(api)?;
    if let Some(dir) = &opts.provider_path {
        let c = ossl::cstring(dir)?;
        // SAFETY: live context and C string.
        if unsafe { (ctx.api.OSSL_PROVIDER_set_default_search_path)(ctx.libctx, c.as_ptr()) } != 1 {
            return Err(format!("cannot set provider path {dir}: {}", ctx.errors()));
        }
    }
    if let Some(file) = &opts.config {
        let c = ossl::cstring(file)?;
        // SAFETY: live context and C string.
        if unsafe { (ctx.api.OSSL_LIB_CTX_load_config)(ctx.libctx, c.as_ptr()) } != 1 {
            return Err(format!("cannot load config {file}: {}", ctx.errors()));
        }
    }
    for name in &opts.providers {
        ctx.load_provider(name)?;
    }
    ctx.propq = opts.propq.as_deref().map(ossl::cstring).transpose()?;
    ctx.stand_ins = opts.stand_ins.clone();
    Ok(ctx)
}

#[derive(Default, Clone, Copy)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
    /// Key stanzas whose key was decoded (definitions, not tests).
    keys: usize,
}

impl Tally {
    fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed(_) => self.failed += 1,
            Outcome::Skipped(_) => self.skipped += 1,
            Outcome::Loaded => self.keys += 1,
        }
    }

    fn json(self) -> serde_json::Value {
        serde_json::json!({"passed": self.passed, "failed": self.failed, "skipped": self.skipped, "keys_loaded": self.keys})
    }
}

fn provider_label(p: &Option<ossl::ProviderInfo>) -> String {
    match p {
        Some(p) => match &p.version {
            Some(v) => format!("{} {v}", p.name),
            None => p.name.clone(),
        },
        None => "-".into(),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse_args(&args) {
        Ok(Some(opts)) => opts,
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("regula-evp-test: {e} (see --help)");
            return ExitCode::from(2);
        }
    };
    let files = match data_files(&opts.inputs) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("regula-evp-test: {e}");
            return ExitCode::from(2);
        }
    };
    let ctx = match setup(&opts) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("regula-evp-test: {e}");
            return ExitCode::from(2);
        }
    };
    let mut per_file: Vec<(String, Tally)> = Vec::new();
    // (kind, algorithm, provider) -> tally
    let mut per_alg: BTreeMap<(String, String, String), Tally> = BTreeMap::new();
    let mut skip_reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut stanza_json = Vec::new();
    let mut total = Tally::default();
    for file in &files {
        let label = file.file_name().map_or_else(
            || file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("regula-evp-test: {}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        let stanzas = match stanza::parse(&text) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("regula-evp-test: {}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        let mut tally = Tally::default();
        // Keys are defined per file, as in evp_test.
        let mut keys = run::Keys::default();
        for st in &stanzas {
            let r = run::run_stanza(&ctx, st, &mut keys);
            tally.add(&r.outcome);
            total.add(&r.outcome);
            let provider = provider_label(&r.provider);
            per_alg
                .entry((r.kind.clone(), r.alg.clone(), provider.clone()))
                .or_default()
                .add(&r.outcome);
            let place = format!("{label}:{}", r.line);
            let (status, why) = match &r.outcome {
                Outcome::Passed => ("passed", String::new()),
                Outcome::Loaded => ("key loaded", String::new()),
                Outcome::Failed(why) => {
                    failures.push(format!("{place} {} {} [{provider}]: {why}", r.kind, r.alg));
                    ("failed", why.clone())
                }
                Outcome::Skipped(why) => {
                    *skip_reasons.entry(why.clone()).or_default() += 1;
                    ("skipped", why.clone())
                }
            };
            if opts.verbose && !opts.json {
                println!(
                    "{place} {} {} [{provider}] {status}{}",
                    r.kind,
                    r.alg,
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(": {why}")
                    }
                );
            }
            if opts.json {
                stanza_json.push(serde_json::json!({
                    "file": label, "line": r.line, "kind": r.kind, "algorithm": r.alg,
                    "provider": r.provider.as_ref().map(|p| &p.name),
                    "provider_version": r.provider.as_ref().and_then(|p| p.version.as_ref()),
                    "status": status, "reason": why,
                }));
            }
        }
        per_file.push((label, tally));
    }
    let providers = ctx.providers();
    if opts.json {
        let report = serde_json::json!({
            "libcrypto": opts.libcrypto,
            "openssl_version": ctx.version(),
            "propq": opts.propq,
            "providers": providers.iter().map(|p| serde_json::json!({"name": p.name, "version": p.version})).collect::<Vec<_>>(),
            "total": total.json(),
            "files": per_file.iter().map(|(f, t)| serde_json::json!({"file": f, "counts": t.json()})).collect::<Vec<_>>(),
            "algorithms": per_alg.iter().map(|((k, a, p), t)| serde_json::json!({"kind": k, "algorithm": a, "provider": p, "counts": t.json()})).collect::<Vec<_>>(),
            "skip_reasons": skip_reasons,
            "stanzas": stanza_json,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        println!("libcrypto: {} ({})", opts.libcrypto, ctx.version());
        println!(
            "providers: {}{}",
            providers
                .iter()
                .map(|p| provider_label(&Some(p.clone())))
                .collect::<Vec<_>>()
                .join(", "),
            opts.propq
                .as_ref()
                .map_or(String::new(), |q| format!("; property query {q}"))
        );
        println!("\nper file (passed / failed / skipped):");
        for (file, t) in &per_file {
            println!(
                "  {file:<32} {:>6} {:>4} {:>5}",
                t.passed, t.failed, t.skipped
            );
        }
        println!("\nper algorithm [provider that answered the fetch] (passed / failed / skipped):");
        for ((kind, alg, prov), t) in &per_alg {
            println!(
                "  {:<40} [{prov}] {} / {} / {}",
                format!("{kind} {alg}"),
                t.passed,
                t.failed,
                t.skipped
            );
        }
        if !skip_reasons.is_empty() {
            println!("\nskip reasons (stanzas):");
            for (why, n) in &skip_reasons {
                println!("  {n:>5}  {why}");
            }
        }
        if !failures.is_empty() {
            println!("\nfailures:");
            for f in &failures {
                println!("  {f}");
            }
        }
        println!(
            "\ntotal: {} passed, {} failed, {} skipped",
            total.passed, total.failed, total.skipped
        );
    }
    if total.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
