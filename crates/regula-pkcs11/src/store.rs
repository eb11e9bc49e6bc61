//! A token's database: one SQLite file per token (the `storage` path), in WAL mode with a busy
//! timeout, every change in one `IMMEDIATE` transaction, so that several processes share the
//! token and a process killed at any point leaves either the whole change or none of it.
//!
//! What it holds: the token's label and algorithms, the token key wrapped under each PIN (salt,
//! iteration count, nonce, sealed key) with that PIN's failed-login count, and the token objects
//! (their public attributes as a record, their sensitive value sealed under the token key). No
//! key byte is written in clear; `secure_delete` overwrites what a change removes.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// The schema this version writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 1;

/// How long a change waits for another process's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

const SCHEMA: &str = "
CREATE TABLE token (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    label BLOB NOT NULL,
    aead TEXT NOT NULL
);
CREATE TABLE pins (
    who TEXT PRIMARY KEY CHECK (who IN ('so', 'user')),
    prf TEXT NOT NULL,
    salt BLOB NOT NULL,
    iterations INTEGER NOT NULL,
    nonce BLOB NOT NULL,
    wrapped BLOB NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE objects (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    private INTEGER NOT NULL,
    record BLOB NOT NULL,
    nonce BLOB NOT NULL,
    sealed BLOB NOT NULL
);
";

/// Whose PIN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    So,
    User,
}

impl Who {
    pub fn name(self) -> &'static str {
        match self {
            Who::So => "so",
            Who::User => "user",
        }
    }
}

/// The token key sealed under a key derived from one PIN.
#[derive(Clone, Debug)]
pub struct Wrap {
    pub prf: String,
    pub salt: Vec<u8>,
    pub iterations: u32,
    pub nonce: Vec<u8>,
    pub wrapped: Vec<u8>,
}

/// One stored object.
pub struct Row {
    pub id: i64,
    pub private: bool,
    pub record: Vec<u8>,
    pub nonce: Vec<u8>,
    pub sealed: Vec<u8>,
}

/// The token as stored: `None` until `C_InitToken`.
pub struct TokenRow {
    pub label: Vec<u8>,
    pub aead: String,
}

pub struct Store {
    conn: Connection,
}

type Result<T> = std::result::Result<T, rusqlite::Error>;

/// Why one attempt to open a database failed.
enum OpenError {
    Sqlite(rusqlite::Error),
    /// A database this version cannot use; trying again would not change it.
    Refused(String),
}

/// SQLITE_BUSY (any extended code: recovery, snapshot) or SQLITE_LOCKED.
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

impl Store {
    /// Opens (creating when missing, with its directory) the database at `path`.
    pub fn open(path: &Path) -> std::result::Result<Store, String> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|error| format!("creating {}: {error}", parent.display()))?;
        }
        // Processes opening the database together can meet SQLITE_BUSY where SQLite does not
        // wait (another connection recovering the WAL index, or switching the journal mode):
        // such an open is tried again, within the busy timeout.
        let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
        loop {
            match Store::open_once(path) {
                Err(OpenError::Sqlite(error))
                    if is_busy(&error) && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(OpenError::Sqlite(error)) => {
                    return Err(format!("{}: {error}", path.display()));
                }
                Err(OpenError::Refused(message)) => return Err(message),
                Ok(store) => return Ok(store),
            }
        }
    }

    fn open_once(path: &Path) -> std::result::Result<Store, OpenError> {
        let fail = OpenError::Sqlite;
        let mut conn = Connection::open(path).map_err(fail)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
            .map_err(fail)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(OpenError::Refused(format!(
                "{}: the database cannot use WAL mode (got {mode})",
                path.display()
            )));
        }
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(fail)?;
        conn.pragma_update(None, "secure_delete", "ON")
            .map_err(fail)?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(fail)?;
        match version {
            0 => {
                tx.execute_batch(SCHEMA).map_err(fail)?;
                tx.pragma_update(None, "user_version", SCHEMA_VERSION)
                    .map_err(fail)?;
            }
            SCHEMA_VERSION => {}
            other => {
                return Err(OpenError::Refused(format!(
                    "{}: schema version {other}, this library reads {SCHEMA_VERSION}",
                    path.display()
                )));
            }
        }
        tx.commit().map_err(fail)?;
        Ok(Store { conn })
    }

    pub fn token(&self) -> Result<Option<TokenRow>> {
        self.conn
            .query_row("SELECT label, aead FROM token WHERE id = 1", [], |row| {
                Ok(TokenRow {
                    label: row.get(0)?,
                    aead: row.get(1)?,
                })
            })
            .optional()
    }

    pub fn wrap(&self, who: Who) -> Result<Option<(Wrap, u32)>> {
        self.conn
            .query_row(
                "SELECT prf, salt, iterations, nonce, wrapped, failures FROM pins WHERE who = ?1",
                [who.name()],
                |row| {
                    Ok((
                        Wrap {
                            prf: row.get(0)?,
                            salt: row.get(1)?,
                            iterations: row.get(2)?,
                            nonce: row.get(3)?,
                            wrapped: row.get(4)?,
                        },
                        row.get(5)?,
                    ))
                },
            )
            .optional()
    }

    /// `C_InitToken`: every object and PIN goes; the token starts again with `so`.
    pub fn initialize(&mut self, label: &[u8], aead: &str, so: &Wrap) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM objects", [])?;
        tx.execute("DELETE FROM pins", [])?;
        tx.execute("DELETE FROM token", [])?;
        tx.execute(
            "INSERT INTO token (id, label, aead) VALUES (1, ?1, ?2)",
            params![label, aead],
        )?;
        insert_wrap(&tx, Who::So, so)?;
        tx.commit()?;
        // What the wipe freed leaves the write-ahead log too (best effort: a reader may hold it).
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        Ok(())
    }

    /// Sets (or replaces) one PIN's wrap and clears its failure count.
    pub fn set_wrap(&mut self, who: Who, wrap: &Wrap) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM pins WHERE who = ?1", [who.name()])?;
        insert_wrap(&tx, who, wrap)?;
        tx.commit()
    }

    /// A wrong PIN: one more failure.
    pub fn record_failure(&mut self, who: Who) -> Result<()> {
        self.conn.execute(
            "UPDATE pins SET failures = failures + 1 WHERE who = ?1",
            [who.name()],
        )?;
        Ok(())
    }

    /// A correct PIN: `true`, and the failure count returns to zero, unless the PIN was locked
    /// meanwhile (by other processes' failures counted while this one was checking).
    pub fn record_success(&mut self, who: Who, max: u32) -> Result<bool> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let failures: Option<u32> = tx
            .query_row(
                "SELECT failures FROM pins WHERE who = ?1",
                [who.name()],
                |row| row.get(0),
            )
            .optional()?;
        if failures.is_none_or(|failures| failures >= max) {
            return Ok(false);
        }
        tx.execute("UPDATE pins SET failures = 0 WHERE who = ?1", [who.name()])?;
        tx.commit()?;
        Ok(true)
    }

    /// The stored objects, the private ones only when `private`.
    pub fn objects(&self, private: bool) -> Result<Vec<Row>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT id, private, record, nonce, sealed FROM objects \
             WHERE private = 0 OR ?1 ORDER BY id",
        )?;
        let rows = statement.query_map([private], |row| {
            Ok(Row {
                id: row.get(0)?,
                private: row.get(1)?,
                record: row.get(2)?,
                nonce: row.get(3)?,
                sealed: row.get(4)?,
            })
        })?;
        rows.collect()
    }

    /// Stores a new object in one transaction: `seal` gets the new row's id (the sealed
    /// value's associated data names it) and gives the nonce and sealed value.
    pub fn insert<E>(
        &mut self,
        private: bool,
        record: &[u8],
        seal: impl FnOnce(i64) -> std::result::Result<(Vec<u8>, Vec<u8>), E>,
    ) -> std::result::Result<i64, InsertError<E>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(InsertError::Store)?;
        tx.execute(
            "INSERT INTO objects (private, record, nonce, sealed) VALUES (?1, ?2, x'', x'')",
            params![private, record],
        )
        .map_err(InsertError::Store)?;
        let id = tx.last_insert_rowid();
        // Dropping `tx` on an error rolls the row back.
        let (nonce, sealed) = seal(id).map_err(InsertError::Seal)?;
        tx.execute(
            "UPDATE objects SET nonce = ?1, sealed = ?2 WHERE id = ?3",
            params![nonce, sealed, id],
        )
        .map_err(InsertError::Store)?;
        tx.commit().map_err(InsertError::Store)?;
        Ok(id)
    }

    /// Replaces an object's public record; `false` when the object is gone.
    pub fn update(&mut self, id: i64, record: &[u8]) -> Result<bool> {
        let changed = self.conn.execute(
            "UPDATE objects SET record = ?1 WHERE id = ?2",
            params![record, id],
        )?;
        Ok(changed == 1)
    }

    /// Removes an object; `false` when it was already gone.
    pub fn delete(&mut self, id: i64) -> Result<bool> {
        let changed = self
            .conn
            .execute("DELETE FROM objects WHERE id = ?1", [id])?;
        Ok(changed == 1)
    }
}

pub enum InsertError<E> {
    Store(rusqlite::Error),
    Seal(E),
}

fn insert_wrap(tx: &rusqlite::Transaction<'_>, who: Who, wrap: &Wrap) -> Result<()> {
    tx.execute(
        "INSERT INTO pins (who, prf, salt, iterations, nonce, wrapped, failures) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0)",
        params![
            who.name(),
            wrap.prf,
            wrap.salt,
            wrap.iterations,
            wrap.nonce,
            wrap.wrapped
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_in_wal_mode_and_a_newer_schema_is_refused() {
        let dir = std::env::temp_dir().join(format!("regula-pkcs11-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("sub").join("token.db");
        let store = Store::open(&path).unwrap();
        let mode: String = store
            .conn
            .pragma_query_value(None, "journal_mode", |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        assert!(store.token().unwrap().is_none());
        store
            .conn
            .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        drop(store);
        let error = Store::open(&path).err().unwrap();
        assert!(error.contains("schema version 2"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
