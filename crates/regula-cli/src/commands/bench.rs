//! `regula bench`: throughput tables beside peers measured in the same run.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use regula::Algorithm;
use regula_bench::{Config, DEFAULT_SIZES, Impl};

use crate::GlobalOptions;
use crate::failure::Failure;
use crate::input;

pub const AFTER_HELP: &str = "\
Peers (--compare):
  raw        aws-lc-rs called directly: regula/raw is the cost of Regula's policy and indicator layer
  openssl    `openssl speed -evp ALG -bytes N -mr` (re-initialises GCM per message, so it understates
             OpenSSL at small sizes) and `openssl speed ALG` for public-key operations
  libcrypto  an OpenSSL 3 libcrypto in-process, key set once, same AAD/tag work as Regula (GCM and
             ChaCha20-Poly1305 draw a random nonce per message from RAND_bytes, as Regula does).
             `regula` does not link it: it is loaded at run time, only for this peer — the file
             --libcrypto names, else $REGULA_BENCH_LIBCRYPTO, else the system libcrypto.so.3 —
             and the output names the file loaded and its OpenSSL_version
  gnutls     `gnutls-cli --benchmark-ciphers` (16384-byte payload only; takes about two minutes)
  tongsuo    Tongsuo's `speed` from the build scripts/tongsuo caches (or $REGULA_TONGSUO): AEADs
             as `speed -aead -evp ALG` (SM4-GCM and SM4-CCM too), the rest as for openssl;
             skipped with a note when no build is found
The output names each peer's library or program and its version (in JSON rows: `source`).
Peers lacking an algorithm show —. Every Regula figure goes through the public API (policy check
and service indicator included). Runs are interleaved and the median is reported with min–max;
a warning flags rows whose spread exceeds 15%.

Examples:
  regula bench --alg aes-256-gcm,sha256 --sizes 16,8192 --compare openssl,raw
  regula bench --policy fips-140-3 --alg all --compare raw,libcrypto --json > bench.json
  regula bench --alg sm4-ctr,sm3 --compare libcrypto --libcrypto ~/.cache/regula/tongsuo-*/lib/libcrypto.so.3
  regula bench --alg aes-128-gcm,sha256 --compare openssl,raw --plot bench.svg

Exit codes: 0 success, 2 usage error or missing peer binary or library, 4 module in error state.";

#[derive(Args)]
pub struct BenchArgs {
    /// Comma-separated algorithms, or `all` (everything the policy serves).
    #[arg(long, default_value = "all", value_name = "LIST|all")]
    alg: String,
    /// Buffer sizes in bytes for throughput measurements.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_SIZES)]
    sizes: Vec<usize>,
    /// Seconds per measurement (OpenSSL's CLI rounds up to whole seconds).
    #[arg(long, default_value_t = 0.3)]
    seconds: f64,
    /// Measurements per figure; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Peers to measure beside Regula: raw, openssl, libcrypto, gnutls, tongsuo.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    compare: Vec<String>,
    /// The libcrypto the `libcrypto` peer loads (a path, or a name the loader searches);
    /// default: $REGULA_BENCH_LIBCRYPTO, else the system libcrypto.so.3.
    #[arg(long, value_name = "PATH")]
    libcrypto: Option<PathBuf>,
    /// Print the rows as JSON.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the rows as CSV.
    #[arg(long)]
    csv: bool,
    /// Also draw throughput against size to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

pub fn run(global: &GlobalOptions, args: BenchArgs) -> Result<(), Failure> {
    let module = input::operational_module(global)?;
    let algorithms: Vec<Algorithm> = if args.alg == "all" {
        Algorithm::ALL
            .into_iter()
            .filter(|&algorithm| module.policy().serves(algorithm))
            .collect()
    } else {
        args.alg
            .split(',')
            .map(|name| {
                Algorithm::from_name(name.trim()).ok_or_else(|| {
                    Failure::from(regula::Error::UnknownAlgorithm {
                        name: name.trim().to_string(),
                    })
                })
            })
            .collect::<Result<_, _>>()?
    };
    let compare = args
        .compare
        .iter()
        .map(|name| {
            Impl::from_name(name.trim())
                .filter(|&peer| peer != Impl::Regula)
                .ok_or_else(|| {
                    Failure::input(format!(
                        "unknown peer `{name}` (choose from raw, openssl, libcrypto, gnutls, tongsuo)"
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !(args.seconds > 0.0 && args.seconds <= 60.0) {
        return Err(Failure::input(
            "--seconds must be greater than 0 and at most 60",
        ));
    }
    if args.runs == 0 || args.sizes.is_empty() || args.sizes.contains(&0) {
        return Err(Failure::input(
            "--runs must be at least 1 and --sizes must list sizes above 0",
        ));
    }
    if let Some(path) = &args.plot
        && path.extension().and_then(|extension| extension.to_str()) != Some("svg")
    {
        return Err(Failure::input(format!(
            "{}: --plot writes SVG; give a file name ending in .svg",
            path.display()
        )));
    }
    let config = Config {
        algorithms,
        sizes: args.sizes,
        duration: Duration::from_secs_f64(args.seconds),
        runs: args.runs,
        compare,
        libcrypto: args.libcrypto,
    };

    let progress = ProgressBar::new(0);
    progress.set_style(
        ProgressStyle::with_template("{spinner} measuring [{bar:30}] {pos}/{len} ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = regula_bench::run(&module, &config, |done, total| {
        progress.set_length(total as u64);
        progress.set_position(done as u64);
    })
    .map_err(Failure::input)?;
    progress.finish_and_clear();

    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        println!("{}", regula_bench::report::json(&report));
    } else if args.csv {
        print!("{}", regula_bench::report::csv(&report));
    } else {
        print!("{}", regula_bench::report::text(&report));
    }
    if let Some(path) = &args.plot {
        regula_bench::plot::svg(&report, path).map_err(Failure::input)?;
        eprintln!("plot written to {}", path.display());
    }
    Ok(())
}
