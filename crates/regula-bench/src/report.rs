//! Rendering a [`Report`]: a tcrypt-style text table with ratio rows, CSV, and JSON.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::{Impl, Report, Row};

/// The text table: one block per algorithm and operation, one line per implementation, then
/// `regula/<peer>` ratio lines; columns are buffer sizes (MB/s) or a single ops/s column.
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    let groups: BTreeSet<(String, crate::Operation)> = report
        .rows
        .iter()
        .map(|row| (row.algorithm.clone(), row.operation))
        .collect();
    let _ = writeln!(
        out,
        "backend: {}; CPU features: {}",
        report.backend,
        report.cpu_features.join(" ")
    );
    if !report.forced.is_empty() {
        let _ = writeln!(out, "forced: {}", report.forced.join(" "));
    }
    for source in &report.peers {
        let _ = writeln!(
            out,
            "peer {}: {} ({}), {}",
            source.implementation.name(),
            source.path,
            source.version,
            if source.kind == "library" {
                "loaded into this process"
            } else {
                "run once per measurement"
            }
        );
    }
    let _ = writeln!(
        out,
        "cells: median of the runs ±half the min–max range; ratios are regula/peer (> 1: regula faster)"
    );
    for (algorithm, operation) in groups {
        let rows: Vec<&Row> = report
            .rows
            .iter()
            .filter(|row| row.algorithm == algorithm && row.operation == operation)
            .collect();
        let columns: Vec<Option<usize>> = rows
            .iter()
            .map(|row| row.bytes)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let implementations: Vec<Impl> = rows
            .iter()
            .map(|row| row.implementation)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let cell = |implementation: Impl, column: Option<usize>| {
            rows.iter()
                .find(|row| row.implementation == implementation && row.bytes == column)
                .copied()
        };
        let _ = write!(
            out,
            "\n{:<18} {:<11} {:<16}",
            algorithm,
            operation.name(),
            rows[0].unit
        );
        for column in &columns {
            let _ = write!(
                out,
                " {:>14}",
                column.map_or("ops/s".to_string(), |bytes| format!("{bytes} B"))
            );
        }
        out.push('\n');
        // The SM backends vary by CPU (and can be forced): name the one behind these figures.
        if let Some(served) = report
            .implementations
            .get(&algorithm)
            .filter(|served| **served != report.backend)
        {
            let _ = writeln!(out, "{:<18} regula: {served}", "");
        }
        for &implementation in &implementations {
            let _ = write!(out, "{:<18} {:<11} {:<16}", "", "", implementation.name());
            for &column in &columns {
                let text = match cell(implementation, column) {
                    Some(row) => {
                        let spread = if row.median > 0.0 {
                            (row.max - row.min) / 2.0 / row.median * 100.0
                        } else {
                            0.0
                        };
                        format!("{}±{spread:.0}%", number(row.median))
                    }
                    None => "—".to_string(),
                };
                let _ = write!(out, " {text:>14}");
            }
            out.push('\n');
        }
        for &peer in implementations
            .iter()
            .filter(|&&implementation| implementation != Impl::Regula)
        {
            let _ = write!(
                out,
                "{:<18} {:<11} {:<16}",
                "",
                "",
                format!("regula/{}", peer.name())
            );
            for &column in &columns {
                let ratio = match (cell(Impl::Regula, column), cell(peer, column)) {
                    (Some(ours), Some(theirs)) if theirs.median > 0.0 => {
                        format!("{:.2}×", ours.median / theirs.median)
                    }
                    _ => "—".to_string(),
                };
                let _ = write!(out, " {ratio:>14}");
            }
            out.push('\n');
        }
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

fn number(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

/// CSV with the same columns as the JSON rows.
pub fn csv(report: &Report) -> String {
    let mut out = String::from("algorithm,operation,bytes,impl,runs,median,min,max,unit\n");
    for row in &report.rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{:.3},{:.3},{:.3},{}",
            row.algorithm,
            row.operation.name(),
            row.bytes.map_or(String::new(), |bytes| bytes.to_string()),
            row.implementation.name(),
            row.runs,
            row.median,
            row.min,
            row.max,
            row.unit
        );
    }
    out
}

/// JSON: the list of rows (`{"algorithm", "operation", "bytes", "impl", "runs", "median",
/// "min", "max", "unit"}`); a row of a peer that is a library or program also has
/// `"source": {"kind": "library"|"program", "path", "version"}`, the file measured.
pub fn json(report: &Report) -> String {
    let rows: Vec<serde_json::Value> = report
        .rows
        .iter()
        .map(|row| {
            let mut value = serde_json::to_value(row).unwrap_or_default();
            if let (Some(source), Some(fields)) =
                (report.source(row.implementation), value.as_object_mut())
            {
                fields.insert(
                    "source".into(),
                    serde_json::to_value(source).unwrap_or_default(),
                );
            }
            value
        })
        .collect();
    serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Operation, PeerSource};

    fn row(implementation: Impl, bytes: Option<usize>, median: f64) -> Row {
        Row {
            algorithm: "aes-256-gcm".into(),
            operation: Operation::Seal,
            bytes,
            implementation,
            runs: 3,
            median,
            min: median * 0.9,
            max: median * 1.1,
            unit: "MB/s",
        }
    }

    fn sample() -> Report {
        Report {
            rows: vec![
                row(Impl::Regula, Some(16), 40.0),
                row(Impl::Openssl, Some(16), 20.0),
                row(Impl::Regula, Some(8192), 4000.0),
            ],
            ..Report::default()
        }
    }

    #[test]
    fn text_table_has_ratios_and_dashes_for_missing_peers() {
        let table = text(&sample());
        let ratio_line = table
            .lines()
            .find(|line| line.contains("regula/openssl"))
            .unwrap();
        assert!(ratio_line.contains("2.00×"), "{ratio_line}");
        assert!(
            ratio_line.contains('—'),
            "8192 B has no OpenSSL figure: {ratio_line}"
        );
        assert!(table.contains("40.0±10%"), "{table}");
    }

    #[test]
    fn text_names_a_forced_backend_and_what_serves_each_algorithm() {
        let mut report = sample();
        report.backend = "AWS-LC 5.12.0".to_owned();
        report.forced = vec!["REGULA_SM4_BACKEND=sm4-vaes-avx2".to_owned()];
        let algorithm = report.rows[0].algorithm.clone();
        report.implementations.insert(
            algorithm,
            "regula-sm sm4-vaes-avx2 + ghash-vpclmulqdq-avx2".to_owned(),
        );
        let table = text(&report);
        assert!(
            table.contains("forced: REGULA_SM4_BACKEND=sm4-vaes-avx2"),
            "{table}"
        );
        assert!(
            table.contains("regula: regula-sm sm4-vaes-avx2 + ghash-vpclmulqdq-avx2"),
            "{table}"
        );
        // An algorithm AWS-LC serves is named once, in the header, not per table.
        report
            .implementations
            .insert(report.rows[0].algorithm.clone(), "AWS-LC 5.12.0".to_owned());
        assert!(!text(&report).contains("regula: AWS-LC"), "{table}");
    }

    #[test]
    fn json_rows_have_the_documented_keys() {
        let rows: serde_json::Value = serde_json::from_str(&json(&sample())).unwrap();
        let first = &rows[0];
        for key in [
            "algorithm",
            "operation",
            "bytes",
            "impl",
            "runs",
            "median",
            "min",
            "max",
            "unit",
        ] {
            assert!(first.get(key).is_some(), "missing {key}");
        }
        assert_eq!(first["impl"], "regula");
        assert_eq!(first["operation"], "seal");
        assert_eq!(first["unit"], "MB/s");
    }

    #[test]
    fn the_rows_and_table_name_each_peers_library_or_program() {
        let mut report = sample();
        report.rows.push(row(Impl::Libcrypto, Some(16), 30.0));
        report.peers = vec![
            PeerSource {
                implementation: Impl::Libcrypto,
                kind: "library",
                path: "/usr/lib/x86_64-linux-gnu/libcrypto.so.3".into(),
                version: "OpenSSL 3.0.19 27 Jan 2026".into(),
            },
            PeerSource {
                implementation: Impl::Openssl,
                kind: "program",
                path: "/usr/bin/openssl".into(),
                version: "OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)".into(),
            },
        ];
        let rows: serde_json::Value = serde_json::from_str(&json(&report)).unwrap();
        let source = |implementation: &str| {
            rows.as_array()
                .unwrap()
                .iter()
                .find(|row| row["impl"] == implementation)
                .unwrap()["source"]
                .clone()
        };
        assert_eq!(
            source("libcrypto"),
            serde_json::json!({
                "kind": "library",
                "path": "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
                "version": "OpenSSL 3.0.19 27 Jan 2026",
            })
        );
        assert_eq!(source("openssl")["path"], "/usr/bin/openssl");
        assert!(source("regula").is_null());
        let table = text(&report);
        assert!(
            table.contains(
                "peer libcrypto: /usr/lib/x86_64-linux-gnu/libcrypto.so.3 (OpenSSL 3.0.19 27 Jan \
                 2026), loaded into this process\n"
            ),
            "{table}"
        );
        assert!(
            table.contains("peer openssl: /usr/bin/openssl (OpenSSL 3.0.19"),
            "{table}"
        );
    }

    #[test]
    fn csv_has_a_header_and_a_line_per_row() {
        let csv = csv(&sample());
        assert_eq!(csv.lines().count(), 4);
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .starts_with("aes-256-gcm,seal,16,regula,3,40.000")
        );
    }
}
