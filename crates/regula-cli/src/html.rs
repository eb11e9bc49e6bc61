//! The `regula check --report` page: one self-contained HTML file (inline CSS and SVG chart, no
//! external resources), readable offline and attachable to an audit.

use std::fmt::Write;

use regula_bench::Impl;

use crate::commands::check::CheckResult;

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
.verdict { display: inline-block; padding: 0.3em 1em; border-radius: 4px; color: white; font-weight: bold; }
.pass { background: #2e7d32; } .fail { background: #c62828; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bad { color: #c62828; font-weight: bold; } .muted { color: #777; }
";

pub fn report(result: &CheckResult) -> String {
    let mut html = String::new();
    let verdict_class = if result.verdict == "PASS" {
        "pass"
    } else {
        "fail"
    };
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Regula check: {}</title>\
         <style>{STYLE}</style></head><body>\n",
        escape(&result.policy)
    );
    let _ = writeln!(html, "<h1>Regula check</h1>");
    let _ = writeln!(
        html,
        "<p><span class=\"verdict {verdict_class}\">{}</span> policy <b>{}</b> ({} profile, {} mode)</p>",
        result.verdict,
        escape(&result.policy),
        result.profile,
        result.mode
    );
    for reason in &result.reasons {
        let _ = writeln!(html, "<p class=\"bad\">{}</p>", escape(reason));
    }

    let _ = writeln!(html, "<h2>Module</h2><table>");
    let rows = [
        ("state", format!("{:?}", result.module_state)),
        ("backend", result.backend.clone()),
        (
            "validated FIPS module linked",
            yes_no(result.fips_module_linked).to_string(),
        ),
        ("FIPS mode", yes_no(result.fips_mode).to_string()),
        ("CPU features", result.cpu_features.join(" ")),
    ];
    for (name, value) in rows {
        let _ = writeln!(html, "<tr><th>{name}</th><td>{}</td></tr>", escape(&value));
    }
    let _ = writeln!(html, "</table>");

    let _ = writeln!(
        html,
        "<h2>Self-tests</h2><table><tr><th>test</th><th>result</th><th>µs</th></tr>"
    );
    for test in &result.self_tests {
        let (class, text) = if test.passed {
            ("", "passed")
        } else {
            ("bad", "FAILED")
        };
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td class=\"{class}\">{text}</td><td class=\"num\">{}</td></tr>",
            escape(test.name),
            test.micros
        );
    }
    let _ = writeln!(html, "</table>");

    let totals = &result.vector_totals;
    let _ = writeln!(
        html,
        "<h2>Known-answer vectors</h2><p>{} passed, {} failed, {} skipped in {} sets.</p>\
         <table><tr><th>set</th><th>algorithm</th><th>passed</th><th>failed</th><th>skipped</th><th>skip reasons</th></tr>",
        totals.passed, totals.failed, totals.skipped, totals.files
    );
    for file in &result.vectors {
        let reasons: Vec<String> = file
            .skip_reasons
            .iter()
            .map(|(reason, count)| format!("{count}: {}", escape(reason)))
            .collect();
        let failed_class = if file.failed > 0 { "num bad" } else { "num" };
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"{failed_class}\">{}</td>\
             <td class=\"num\">{}</td><td class=\"muted\">{}</td></tr>",
            escape(&file.path),
            escape(&file.algorithm),
            file.passed,
            file.failed,
            file.skipped,
            reasons.join("<br>")
        );
    }
    let _ = writeln!(html, "</table>");

    let _ = writeln!(html, "<h2>Benchmark</h2>");
    match &result.benchmark {
        Some(benchmark) if !benchmark.rows.is_empty() => {
            let _ = writeln!(
                html,
                "<p>Through Regula's public API (policy and indicator included) beside raw aws-lc-rs, \
                 same run; median of {} runs.</p>",
                benchmark.rows.first().map_or(0, |row| row.runs)
            );
            if let Ok(chart) = regula_bench::plot::svg_string(benchmark) {
                // The chart is our own SVG; it is inlined as markup, not escaped.
                let _ = writeln!(
                    html,
                    "<div class=\"chart\">{}</div>",
                    strip_xml_declaration(&chart)
                );
            }
            let _ = writeln!(
                html,
                "<table><tr><th>algorithm</th><th>operation</th><th>bytes</th><th>regula</th><th>raw</th><th>unit</th><th>regula/raw</th></tr>"
            );
            for row in benchmark
                .rows
                .iter()
                .filter(|row| row.implementation == Impl::Regula)
            {
                let raw = benchmark.peer_row(row, Impl::Raw);
                let _ = writeln!(
                    html,
                    "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}</td>\
                     <td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                    escape(&row.algorithm),
                    row.operation.name(),
                    row.bytes.map_or("—".to_string(), |bytes| bytes.to_string()),
                    row.median,
                    raw.map_or("—".to_string(), |raw| format!("{:.1}", raw.median)),
                    row.unit,
                    raw.map_or("—".to_string(), |raw| format!(
                        "{:.2}×",
                        row.median / raw.median
                    )),
                );
            }
            let _ = writeln!(html, "</table>");
        }
        _ => {
            let _ = writeln!(html, "<p class=\"muted\">Skipped.</p>");
        }
    }
    let _ = writeln!(html, "</body></html>");
    html
}

fn yes_no(value: bool) -> &'static str {
    if value { "yes" } else { "no" }
}

fn strip_xml_declaration(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(start) => &svg[start..],
        None => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }
}
