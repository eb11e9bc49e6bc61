//! A session store shared by a fleet of servers: resumption state and TLS 1.3 tickets live in
//! Redis, sealed under a fleet key with the policy's AEAD.
//!
//! Tickets are identifiers into the store (rustls' stateful resumption), and a TLS 1.3 ticket
//! is taken with one atomic `GETDEL`: whichever server of the fleet sees a ticket first
//! consumes it, so a replayed ClientHello finds nothing on any server, resumes nowhere and has
//! its early data rejected. Entries expire with the lifetime announced in the ticket.
//!
//! The Redis operator sees ticket identifiers and sealed blobs only: each entry is
//! `nonce || ciphertext || tag` under AES-256-GCM (or SM4-GCM where the policy approves no AES,
//! as under `gm`), through the module's AEAD service, with the entry's key as associated data,
//! so an entry moved to another key fails to open. An entry that fails to open is deleted and
//! the client gets a full handshake.
//!
//! A store failure is never a TLS failure: every Redis call has a bounded timeout, and while
//! Redis is unreachable the store answers "nothing stored" (no resumption, no 0-RTT, no new
//! tickets) without waiting, probes Redis again at most every [`StoreOptions::retry`], logs one
//! line when the outage starts and one when it ends, and counts both. Taking a ticket is the
//! exception: it always asks Redis (within the timeout), so a server that still believes the
//! store is down cannot leave a ticket unconsumed that the rest of the fleet would accept.
//! A ticket presented while Redis cannot be reached is remembered (bounded) and deleted as soon
//! as Redis answers this server again. What no store can prevent is a partition: until then, a
//! replay of that ClientHello to a server that can reach Redis, within rustls' 60-second
//! freshness window, is accepted there once (RFC 8446 §8 and Appendix E.5: at most once per
//! ticket, which holds).

use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use regula::Module;
use regula::algorithm::Algorithm;
use regula::service::aead::{AeadKey, NONCE_LEN};
use rustls::server::StoresServerSessions;
use zeroize::Zeroizing;

use crate::TlsError;

/// How long rustls tells clients a stateful ticket lives (rustls' stateful lifetime); store
/// entries expire with it.
pub const TICKET_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// Associated data prefix: binds an entry to this format and to its key in the store.
const AAD_LABEL: &[u8] = b"regula tls session v1\0";

/// How many tickets presented during an outage are remembered for deletion.
const MAX_UNCONSUMED: usize = 65_536;

/// Upper bounds (microseconds) of the store latency histogram's buckets.
pub const LATENCY_BUCKETS_US: [u64; 10] = [
    100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000,
];

/// Settings of a [`RedisSessionStore`].
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// Bound on connecting and on each command; past it the call counts as a store failure.
    pub timeout: Duration,
    /// While Redis is down, how often one handshake probes it again.
    pub retry: Duration,
    /// Prefix of the store's keys (several fleets can share one Redis).
    pub prefix: String,
    /// Entries expire after this long (the ticket lifetime).
    pub lifetime: Duration,
    /// Print a line on stderr when an outage starts and ends.
    pub log: bool,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            timeout: Duration::from_millis(50),
            retry: Duration::from_millis(500),
            prefix: "regula:tls:session:".to_string(),
            lifetime: TICKET_LIFETIME,
            log: true,
        }
    }
}

/// Counters of a store, for logs and metrics.
#[derive(Debug, Default)]
pub struct StoreStats {
    /// Commands sent to Redis (successful or not).
    pub operations: AtomicU64,
    /// Commands that failed or timed out.
    pub errors: AtomicU64,
    /// Times the store went from reachable to unreachable.
    pub outages: AtomicU64,
    /// Calls answered "nothing stored" without asking Redis, during an outage.
    pub skipped: AtomicU64,
    /// Lookups that found an entry that opened.
    pub hits: AtomicU64,
    /// Lookups that found nothing.
    pub misses: AtomicU64,
    /// Entries that failed to open (wrong fleet key, tampered) and were dropped.
    pub unopenable: AtomicU64,
    /// Entries written.
    pub stored: AtomicU64,
    latency_buckets: [AtomicU64; LATENCY_BUCKETS_US.len()],
    latency_count: AtomicU64,
    latency_sum_us: AtomicU64,
}

impl StoreStats {
    fn observe(&self, elapsed: Duration) {
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        for (bound, bucket) in LATENCY_BUCKETS_US.iter().zip(&self.latency_buckets) {
            if micros <= *bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_count.fetch_add(1, Ordering::Relaxed);
        self.latency_sum_us.fetch_add(micros, Ordering::Relaxed);
    }

    /// Cumulative counts per bucket of [`LATENCY_BUCKETS_US`], the total count and the sum in
    /// microseconds of every Redis command's round trip.
    pub fn latency(&self) -> (Vec<u64>, u64, u64) {
        (
            self.latency_buckets
                .iter()
                .map(|bucket| bucket.load(Ordering::Relaxed))
                .collect(),
            self.latency_count.load(Ordering::Relaxed),
            self.latency_sum_us.load(Ordering::Relaxed),
        )
    }
}

struct Health {
    /// Set while Redis is unreachable: the next probe is not before this instant.
    retry_at: Option<Instant>,
}

/// Resumption state and single-use tickets in Redis, sealed under a fleet key.
pub struct RedisSessionStore {
    client: redis::Client,
    /// Idle connections; a handshake takes one, or opens one, and puts it back after use.
    idle: Mutex<Vec<redis::Connection>>,
    key: AeadKey,
    options: StoreOptions,
    health: Mutex<Health>,
    down: AtomicBool,
    /// Keys of tickets presented while Redis could not be reached (bounded): deleted as soon
    /// as it answers again, so they cannot be resumed once the store is back.
    unconsumed: Mutex<Vec<String>>,
    stats: std::sync::Arc<StoreStats>,
    description: String,
}

impl fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("store", &self.description)
            .field("aead", &self.key.algorithm())
            .finish_non_exhaustive()
    }
}

/// The AEAD that seals store entries under `module`'s policy: AES-256-GCM where it is approved
/// (`fips-140-3`, `default`), else SM4-GCM (`gm`).
pub fn store_aead(module: &Module) -> Result<Algorithm, TlsError> {
    let policy = module.policy();
    [Algorithm::Aes256Gcm, Algorithm::Sm4Gcm]
        .into_iter()
        .find(|algorithm| policy.approves(*algorithm))
        .ok_or_else(|| {
            TlsError::NothingToOffer(format!(
                "policy `{}` approves neither AES-256-GCM nor SM4-GCM to seal session-store \
                 entries",
                policy.name()
            ))
        })
}

/// Reads a fleet key file: the key's bytes, raw or as hex (whitespace ignored), of the length
/// the policy's store AEAD takes (32 bytes for AES-256-GCM, 16 for SM4-GCM).
pub fn load_fleet_key(
    module: &Module,
    path: &std::path::Path,
) -> Result<Zeroizing<Vec<u8>>, TlsError> {
    let file_error = |message: String| TlsError::File {
        path: path.to_path_buf(),
        message,
    };
    let raw = Zeroizing::new(
        std::fs::read(path).map_err(|error| file_error(format!("cannot read: {error}")))?,
    );
    let algorithm = store_aead(module)?;
    let wanted = if algorithm == Algorithm::Sm4Gcm {
        16
    } else {
        32
    };
    if raw.len() == wanted {
        return Ok(raw);
    }
    let text: Zeroizing<String> = Zeroizing::new(
        String::from_utf8_lossy(&raw)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect(),
    );
    if text.len() == 2 * wanted
        && let Ok(bytes) = hex_decode(&text)
    {
        return Ok(bytes);
    }
    Err(file_error(format!(
        "a session key for {algorithm} is {wanted} bytes, raw or as {} hex digits (e.g. \
         `head -c {wanted} /dev/urandom > FILE`); this file has {} bytes",
        2 * wanted,
        raw.len()
    )))
}

fn hex_decode(text: &str) -> Result<Zeroizing<Vec<u8>>, ()> {
    let digits = text.as_bytes();
    let mut out = Zeroizing::new(Vec::with_capacity(digits.len() / 2));
    for pair in digits.chunks(2) {
        let high = (pair[0] as char).to_digit(16).ok_or(())?;
        let low = (pair[1] as char).to_digit(16).ok_or(())?;
        out.push((high * 16 + low) as u8);
    }
    Ok(out)
}

impl RedisSessionStore {
    /// A store at `url` (`redis://HOST:PORT[/DB]`), sealing under `fleet_key` with the policy's
    /// AEAD. Redis need not be up yet: until it answers, the server runs full handshakes.
    pub fn new(
        module: &Module,
        url: &str,
        fleet_key: &[u8],
        options: StoreOptions,
    ) -> Result<RedisSessionStore, TlsError> {
        let client = redis::Client::open(url).map_err(|error| {
            TlsError::Store(format!("`{url}` is not a usable Redis address: {error}"))
        })?;
        let algorithm = store_aead(module)?;
        let key = module
            .aead_key(algorithm, fleet_key)
            .map_err(|error| TlsError::Store(format!("session key for {algorithm}: {error}")))?;
        Ok(RedisSessionStore {
            client,
            idle: Mutex::new(Vec::new()),
            key,
            options,
            health: Mutex::new(Health { retry_at: None }),
            down: AtomicBool::new(false),
            unconsumed: Mutex::new(Vec::new()),
            stats: std::sync::Arc::new(StoreStats::default()),
            description: redacted(url),
        })
    }

    /// The store's counters (shared: they keep counting after this call).
    pub fn stats(&self) -> std::sync::Arc<StoreStats> {
        std::sync::Arc::clone(&self.stats)
    }

    /// Whether the store is in an outage (answering "nothing stored" without asking Redis).
    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::Relaxed)
    }

    /// The AEAD sealing the entries.
    pub fn aead(&self) -> Algorithm {
        self.key.algorithm()
    }

    fn redis_key(&self, id: &[u8]) -> String {
        let mut key = String::with_capacity(self.options.prefix.len() + 2 * id.len());
        key.push_str(&self.options.prefix);
        for byte in id {
            key.push_str(&format!("{byte:02x}"));
        }
        key
    }

    fn aad(id: &[u8]) -> Vec<u8> {
        let mut aad = Vec::with_capacity(AAD_LABEL.len() + id.len());
        aad.extend_from_slice(AAD_LABEL);
        aad.extend_from_slice(id);
        aad
    }

    fn seal(&self, id: &[u8], value: &[u8]) -> Option<Vec<u8>> {
        let sealed = self.key.seal(&Self::aad(id), value).ok()?.into_value();
        let mut entry = Vec::with_capacity(NONCE_LEN + sealed.ciphertext.len());
        entry.extend_from_slice(&sealed.nonce);
        entry.extend_from_slice(&sealed.ciphertext);
        Some(entry)
    }

    fn open(&self, id: &[u8], entry: &[u8]) -> Option<Vec<u8>> {
        if entry.len() < NONCE_LEN {
            return None;
        }
        let (nonce, ciphertext) = entry.split_at(NONCE_LEN);
        self.key
            .open(nonce, &Self::aad(id), ciphertext)
            .ok()
            .map(|served| served.into_value())
    }

    /// Runs one command on a pooled connection within the timeout; `None` when Redis is down
    /// or the command failed (counted, and logged once per outage).
    fn call<T>(
        &self,
        consumes: bool,
        command: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Option<T> {
        // A ticket presented during an outage is always tried: if this server skipped it while
        // the store was back for the others, a replay of the same ClientHello could still find
        // it there.
        if self.down.load(Ordering::Relaxed) && !consumes {
            let mut health = self.health.lock().unwrap_or_else(|p| p.into_inner());
            match health.retry_at {
                Some(at) if Instant::now() < at => {
                    self.stats.skipped.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
                // This call probes; the others keep skipping until the next retry time.
                _ => health.retry_at = Some(Instant::now() + self.options.retry),
            }
        }
        let started = Instant::now();
        let pooled = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let connection = match pooled {
            Some(connection) => Ok(connection),
            None => self.connect(),
        };
        self.stats.operations.fetch_add(1, Ordering::Relaxed);
        let result = connection
            .and_then(|mut connection| command(&mut connection).map(|value| (value, connection)));
        self.stats.observe(started.elapsed());
        match result {
            Ok((value, connection)) => {
                self.idle
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(connection);
                if self.down.swap(false, Ordering::Relaxed) {
                    self.health
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .retry_at = None;
                    if self.options.log {
                        eprintln!(
                            "session store {}: reachable again; resumption and 0-RTT resume",
                            self.description
                        );
                    }
                    self.delete_unconsumed();
                }
                Some(value)
            }
            Err(error) => {
                self.stats.errors.fetch_add(1, Ordering::Relaxed);
                // A broken connection may be one of several: drop the idle ones too.
                self.idle.lock().unwrap_or_else(|p| p.into_inner()).clear();
                if !self.down.swap(true, Ordering::Relaxed) {
                    self.health
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .retry_at = Some(Instant::now() + self.options.retry);
                    self.stats.outages.fetch_add(1, Ordering::Relaxed);
                    if self.options.log {
                        eprintln!(
                            "session store {}: unavailable ({error}); full handshakes, no \
                             resumption and no 0-RTT until it answers again",
                            self.description
                        );
                    }
                }
                None
            }
        }
    }

    fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let connection = self
            .client
            .get_connection_with_timeout(self.options.timeout)?;
        connection.set_read_timeout(Some(self.options.timeout))?;
        connection.set_write_timeout(Some(self.options.timeout))?;
        Ok(connection)
    }

    /// Deletes the tickets presented during the outage (once Redis answers again).
    fn delete_unconsumed(&self) {
        let keys = std::mem::take(&mut *self.unconsumed.lock().unwrap_or_else(|p| p.into_inner()));
        if keys.is_empty() {
            return;
        }
        let deleted: Option<i64> = self.call(false, |connection| {
            redis::cmd("DEL").arg(&keys).query(connection)
        });
        if deleted.is_none() {
            // Down again: keep them for the next recovery.
            let mut unconsumed = self.unconsumed.lock().unwrap_or_else(|p| p.into_inner());
            unconsumed.extend(keys);
            unconsumed.truncate(MAX_UNCONSUMED);
        }
    }

    fn lookup(&self, id: &[u8], command: &str) -> Option<Vec<u8>> {
        let redis_key = self.redis_key(id);
        let consumes = command == "GETDEL";
        let Some(entry) = self.call(consumes, |connection| {
            redis::cmd(command)
                .arg(&redis_key)
                .query::<Option<Vec<u8>>>(connection)
        }) else {
            if consumes {
                let mut unconsumed = self.unconsumed.lock().unwrap_or_else(|p| p.into_inner());
                if unconsumed.len() < MAX_UNCONSUMED {
                    unconsumed.push(redis_key);
                }
            }
            return None;
        };
        let Some(entry) = entry else {
            self.stats.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        match self.open(id, &entry) {
            Some(value) => {
                self.stats.hits.fetch_add(1, Ordering::Relaxed);
                Some(value)
            }
            None => {
                self.stats.unopenable.fetch_add(1, Ordering::Relaxed);
                if command != "GETDEL" {
                    let _: Option<i64> = self.call(false, |connection| {
                        redis::cmd("DEL").arg(&redis_key).query(connection)
                    });
                }
                None
            }
        }
    }
}

impl StoresServerSessions for RedisSessionStore {
    fn put(&self, id: Vec<u8>, value: Vec<u8>) -> bool {
        let value = Zeroizing::new(value);
        let Some(entry) = self.seal(&id, &value) else {
            return false;
        };
        let redis_key = self.redis_key(&id);
        let seconds = self.options.lifetime.as_secs().max(1);
        let stored: Option<()> = self.call(false, |connection| {
            redis::cmd("SET")
                .arg(&redis_key)
                .arg(entry)
                .arg("EX")
                .arg(seconds)
                .query(connection)
        });
        if stored.is_some() {
            self.stats.stored.fetch_add(1, Ordering::Relaxed);
        }
        stored.is_some()
    }

    fn get(&self, id: &[u8]) -> Option<Vec<u8>> {
        self.lookup(id, "GET")
    }

    fn take(&self, id: &[u8]) -> Option<Vec<u8>> {
        // One atomic command: two servers racing on a ticket cannot both get it.
        self.lookup(id, "GETDEL")
    }

    fn can_cache(&self) -> bool {
        !self.is_down()
    }
}

/// The address without a password, for logs.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://***@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}
