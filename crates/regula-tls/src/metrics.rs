//! Prometheus (OpenMetrics text) exposition of a server's TLS activity: handshakes by protocol,
//! suite and group, failures by reason, resumptions, early data, the session store's errors,
//! outages and latency, and the module's service-indicator counters per algorithm.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;
use regula::Module;

use crate::store::{LATENCY_BUCKETS_US, RedisSessionStore};

type Labels = Vec<(&'static str, String)>;

/// What a server counts; cheap to update from every connection.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    handshakes: Family<Labels, Counter>,
    failures: Family<Labels, Counter>,
    resumptions: Counter,
    early_data: Family<Labels, Counter>,
}

impl Metrics {
    /// Metrics for a server under `module`, with its session store if it has a shared one.
    pub fn new(module: &Module, store: Option<Arc<RedisSessionStore>>) -> Metrics {
        let mut registry = Registry::default();
        let handshakes = Family::<Labels, Counter>::default();
        let failures = Family::<Labels, Counter>::default();
        let resumptions = Counter::default();
        let early_data = Family::<Labels, Counter>::default();
        registry.register(
            "regula_tls_handshakes",
            "Completed handshakes by protocol, cipher suite, key-exchange group and kind",
            handshakes.clone(),
        );
        registry.register(
            "regula_tls_handshake_failures",
            "Handshakes that did not complete, by reason",
            failures.clone(),
        );
        registry.register(
            "regula_tls_resumptions",
            "Handshakes that resumed a session",
            resumptions.clone(),
        );
        registry.register(
            "regula_tls_early_data",
            "Connections whose TLS 1.3 0-RTT data was accepted",
            early_data.clone(),
        );
        registry.register_collector(Box::new(ModuleCollector {
            module: module.clone(),
        }));
        if let Some(store) = store {
            registry.register_collector(Box::new(StoreCollector { store }));
        }
        Metrics {
            registry,
            handshakes,
            failures,
            resumptions,
            early_data,
        }
    }

    /// Counts a completed handshake (names as people read them: `TLSv1.3`, `P-256`).
    pub fn handshake(&self, protocol: &str, suite: &str, group: &str, resumed: bool) {
        self.handshakes
            .get_or_create(&vec![
                ("protocol", protocol.to_string()),
                ("suite", suite.to_string()),
                ("group", group.to_string()),
                ("kind", if resumed { "resumed" } else { "full" }.to_string()),
            ])
            .inc();
        if resumed {
            self.resumptions.inc();
        }
    }

    /// Counts a failed handshake; `reason` is a short word (`timeout`, `policy`, `certificate`,
    /// `closed`, `other`).
    pub fn failure(&self, reason: &str) {
        self.failures
            .get_or_create(&vec![("reason", reason.to_string())])
            .inc();
    }

    /// Counts early data accepted on a connection.
    pub fn early_data_accepted(&self) {
        self.early_data
            .get_or_create(&vec![("outcome", "accepted".to_string())])
            .inc();
    }

    /// The OpenMetrics text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// The module's service-indicator counters, read at each scrape.
#[derive(Debug)]
struct ModuleCollector {
    module: Module,
}

impl Collector for ModuleCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let rows = self.module.counters();
        let mut metric = encoder.encode_descriptor(
            "regula_module_operations",
            "Operations the module served, by algorithm, service and the service indicator's \
             verdict",
            None,
            MetricType::Counter,
        )?;
        for row in rows {
            for (verdict, count) in [
                ("approved", row.approved),
                ("not_approved", row.not_approved),
            ] {
                if count == 0 {
                    continue;
                }
                let labels: Labels = vec![
                    ("algorithm", row.algorithm.to_string()),
                    ("service", row.service.to_string()),
                    ("indicator", verdict.to_string()),
                ];
                ConstCounter::new(count).encode(metric.encode_family(&labels)?)?;
            }
        }
        Ok(())
    }
}

/// The session store's counters and latency histogram, read at each scrape.
#[derive(Debug)]
struct StoreCollector {
    store: Arc<RedisSessionStore>,
}

impl Collector for StoreCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let stats = self.store.stats();
        let counters = [
            (
                "store_operations",
                "Commands sent to the session store",
                &stats.operations,
            ),
            (
                "store_errors",
                "Session-store commands that failed or timed out",
                &stats.errors,
            ),
            (
                "store_outages",
                "Times the session store became unreachable",
                &stats.outages,
            ),
            (
                "store_skipped",
                "Session-store lookups answered empty during an outage without asking",
                &stats.skipped,
            ),
            (
                "store_hits",
                "Session lookups that found a usable entry",
                &stats.hits,
            ),
            (
                "store_misses",
                "Session lookups that found nothing",
                &stats.misses,
            ),
            (
                "store_unopenable",
                "Store entries that failed to open under the fleet key and were dropped",
                &stats.unopenable,
            ),
            (
                "store_writes",
                "Sessions written to the store",
                &stats.stored,
            ),
        ];
        for (name, help, counter) in counters {
            let name = format!("regula_tls_{name}");
            let metric = encoder.encode_descriptor(&name, help, None, MetricType::Counter)?;
            ConstCounter::new(counter.load(Ordering::Relaxed)).encode(metric)?;
        }
        let metric = encoder.encode_descriptor(
            "regula_tls_store_up",
            "1 while the session store answers, 0 during an outage",
            None,
            MetricType::Gauge,
        )?;
        ConstGauge::new(i64::from(!self.store.is_down())).encode(metric)?;

        let (cumulative, count, sum_us) = stats.latency();
        let mut buckets = Vec::with_capacity(cumulative.len() + 1);
        let mut previous = 0;
        for (bound, total) in LATENCY_BUCKETS_US.iter().zip(&cumulative) {
            buckets.push((*bound as f64 / 1e6, total - previous));
            previous = *total;
        }
        buckets.push((f64::INFINITY, count.saturating_sub(previous)));
        let mut metric = encoder.encode_descriptor(
            "regula_tls_store_latency_seconds",
            "Round trip of each session-store command",
            None,
            MetricType::Histogram,
        )?;
        metric.encode_histogram::<Labels>(sum_us as f64 / 1e6, count, &buckets, None)?;
        Ok(())
    }
}

/// Answers every HTTP request on `listener` with the exposition (`GET /metrics`, any path).
pub async fn serve(listener: tokio::net::TcpListener, metrics: Arc<Metrics>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    loop {
        let Ok((mut socket, _)) = listener.accept().await else {
            continue;
        };
        let metrics = Arc::clone(&metrics);
        tokio::spawn(async move {
            let mut request = Vec::new();
            let mut buffer = [0u8; 1024];
            while !request.windows(4).any(|window| window == b"\r\n\r\n") {
                match socket.read(&mut buffer).await {
                    Ok(0) | Err(_) => return,
                    Ok(read) => request.extend_from_slice(&buffer[..read]),
                }
                if request.len() > 16 * 1024 {
                    return;
                }
            }
            let body = metrics.render();
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/openmetrics-text; version=1.0.0; \
                 charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(response.as_bytes()).await;
            let _ = socket.shutdown().await;
        });
    }
}
