//! Reading another program's SQLite database while that program may be
//! writing it (OpenCode's `opencode.db`, Crush's `crush.db`): one consistent
//! snapshot, read through SQLite itself (`rusqlite`, its bundled library),
//! that never writes into the folder the database is in, never takes a lock
//! the client waits for, and reads the write-ahead log too.
//!
//! [`read`] picks how to open the file from what lies beside it:
//!
//! - **The client has it open** (or left it so): `<db>-wal` and `<db>-shm`
//!   both exist. Opened in place read-only with `readonly_shm=1`: SQLite
//!   opens the `-shm` (the WAL index) read-only and never writes it (no read
//!   mark, no recovery), takes only shared locks, and reads the log's frames
//!   as the index names them. A read transaction is a snapshot; it only
//!   keeps the writer from restarting the log (which then grows) while it
//!   lasts, and it lasts as long as one project's records take to read. A
//!   plain read-only open would write read marks into the `-shm`, and create
//!   it (and the `-wal`) when missing.
//! - **The database alone** (no `-wal`, no `-shm`: closed cleanly, as Crush
//!   leaves it): opened with `immutable=1`, which takes no lock and creates
//!   nothing, and kept only if nothing changed while it was read: the
//!   file's size, modification and change times and inode the same after as
//!   before, and still no `-wal` or `-shm` (a client that starts in between
//!   writes its log first); else read again (a client that came in is then
//!   read in place, as above).
//! - **A log without its index** (a `-wal` and no `-shm`, or the reverse: a
//!   copied folder, the fixtures): no client is connected (a connected one
//!   holds the `-shm`), and SQLite would create the missing file beside the
//!   database. The files are copied into a temporary folder, kept only if
//!   none changed while copied, and the copy is read.
//!
//! Whatever the way, nothing is created or changed in the database's folder,
//! with one exception SQLite leaves no way around: a client that closes the
//! database (checkpointing and removing its log) in the instant between the
//! check above and SQLite's shared lock makes SQLite open the log it expects,
//! creating an empty `-wal` (the file the client makes at its next start).

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::limits::SQLITE_ATTEMPTS;

/// Why a database could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {err}")]
    Sqlite { path: String, err: rusqlite::Error },
    #[error("{path}: {err}")]
    Io { path: String, err: std::io::Error },
    #[error("{path}: changed each time it was read ({SQLITE_ATTEMPTS} times): read it again when the client is idle")]
    Unsettled { path: String },
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        std::io::Error::other(e.to_string())
    }
}

/// The files beside the database `db`: its write-ahead log and its index.
pub fn companions(db: &Path) -> [PathBuf; 2] {
    let with = |s: &str| {
        let mut p = db.as_os_str().to_owned();
        p.push(s);
        PathBuf::from(p)
    };
    [with("-wal"), with("-shm")]
}

/// The files whose state the database's content is: itself and its log.
pub fn sources(db: &Path) -> Vec<PathBuf> {
    let [wal, _] = companions(db);
    vec![db.to_path_buf(), wal]
}

/// What a file's metadata says of its state (`None`: it does not exist).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct State {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    ctime: (i64, i64),
    #[cfg(unix)]
    ino: u64,
}

fn state(path: &Path) -> Option<State> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let (ctime, ino) = {
        use std::os::unix::fs::MetadataExt;
        ((m.ctime(), m.ctime_nsec()), m.ino())
    };
    Some(State {
        len: m.len(),
        modified: m.modified().ok(),
        #[cfg(unix)]
        ctime,
        #[cfg(unix)]
        ino,
    })
}

/// The state of the database and both companions.
fn states(db: &Path) -> [Option<State>; 3] {
    let [wal, shm] = companions(db);
    [state(db), state(&wal), state(&shm)]
}

/// How a database is opened (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// In place, the `-shm` read-only: the client has it open.
    Live,
    /// In place, `immutable`: the database alone.
    Alone,
    /// A copy in a temporary folder.
    Copied,
}

/// The way the database `db` is read now.
pub fn way(db: &Path) -> Way {
    let [wal, shm] = companions(db);
    match (wal.exists(), shm.exists()) {
        (true, true) => Way::Live,
        (false, false) => Way::Alone,
        _ => Way::Copied,
    }
}

/// Reads the database `db` in one read transaction: `f` runs on a
/// consistent snapshot (again from the start when the snapshot turned out
/// not to be one: `f` must start its output anew each time it is called).
pub fn read<T>(db: &Path, mut f: impl FnMut(&Connection) -> rusqlite::Result<T>) -> Result<T, Error> {
    let name = || db.display().to_string();
    if !db.is_file() {
        let err = std::io::Error::new(std::io::ErrorKind::NotFound, "no such database");
        return Err(Error::Io { path: name(), err });
    }
    for _ in 0..SQLITE_ATTEMPTS {
        let before = states(db);
        let how = way(db);
        let got = match how {
            Way::Live => in_place(db, "mode=ro&readonly_shm=1", &mut f).map(Some),
            Way::Alone => in_place(db, "mode=ro&immutable=1", &mut f).map(Some),
            Way::Copied => copied(db, &mut f),
        };
        match got {
            // Opened in place while the client shut (or opened) it: again.
            Err(Error::Sqlite { .. }) if states(db) != before => {}
            Err(e) => return Err(e),
            Ok(None) => {}
            // Immutable: kept only if nothing came in while it was read.
            Ok(Some(_)) if how == Way::Alone && states(db) != before => {}
            Ok(Some(v)) => return Ok(v),
        }
    }
    Err(Error::Unsettled { path: name() })
}

/// The `file:` URI of `path` with the query `query`.
fn uri(path: &Path, query: &str) -> String {
    let abs = crate::files::resolve(path);
    match url::Url::from_file_path(&abs) {
        Ok(u) => format!("{u}?{query}"),
        Err(()) => format!("file:{}?{query}", abs.display()),
    }
}

fn in_place<T>(db: &Path, query: &str, f: &mut impl FnMut(&Connection) -> rusqlite::Result<T>) -> Result<T, Error> {
    let err = |err| Error::Sqlite { path: db.display().to_string(), err };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri(db, query), flags).map_err(err)?;
    snapshot(&conn, f).map_err(err)
}

/// One read transaction: a snapshot of the database.
fn snapshot<T>(conn: &Connection, f: &mut impl FnMut(&Connection) -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    // The client writes; a reader never makes it wait, it waits itself.
    conn.busy_timeout(std::time::Duration::from_millis(crate::limits::SQLITE_BUSY_MS))?;
    conn.pragma_update(None, "query_only", true)?;
    conn.execute_batch("BEGIN")?;
    let out = f(conn);
    // Ends the read; nothing was written to keep.
    let _ = conn.execute_batch("ROLLBACK");
    out
}

/// Reads a copy of the database and the companion that exists, when none
/// changed while it was copied (`None`: one did).
fn copied<T>(db: &Path, f: &mut impl FnMut(&Connection) -> rusqlite::Result<T>) -> Result<Option<T>, Error> {
    let io = |err| Error::Io { path: db.display().to_string(), err };
    let tmp = tempfile::Builder::new().prefix("cctree-db-").tempdir().map_err(io)?;
    let copy = tmp.path().join("db");
    let before = states(db);
    std::fs::copy(db, &copy).map_err(io)?;
    let [wal, _] = companions(db);
    if before[1].is_some() {
        if let Err(e) = std::fs::copy(&wal, companions(&copy)[0].as_path()) {
            // Gone while copied: the client came in and shut it.
            return if wal.exists() { Err(io(e)) } else { Ok(None) };
        }
    }
    if states(db) != before {
        return Ok(None);
    }
    let err = |err| Error::Sqlite { path: db.display().to_string(), err };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri(&copy, "mode=ro"), flags).map_err(err)?;
    let out = snapshot(&conn, f).map_err(err)?;
    drop(conn);
    Ok(Some(out))
}

/// Whether the database has the table `name` (clients add tables as they
/// grow: a reader asks before it reads one).
pub fn has_table(c: &Connection, name: &str) -> rusqlite::Result<bool> {
    use rusqlite::OptionalExtension;
    let q = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1";
    Ok(c.query_row(q, [name], |_| Ok(())).optional()?.is_some())
}

/// The text of a column (a blob read as UTF-8, lossily; a number as written).
pub fn text(v: rusqlite::types::ValueRef<'_>) -> String {
    use rusqlite::types::ValueRef;
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Null => String::new(),
    }
}

/// A column as JSON: a number, null, or its text (read as JSON, as the
/// client reads a line, when `json`; a text that is not JSON stays a string).
pub fn value(v: rusqlite::types::ValueRef<'_>, json: bool) -> serde_json::Value {
    use rusqlite::types::ValueRef;
    use serde_json::Value;
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(_) | ValueRef::Blob(_) => {
            let t = text(v);
            match json {
                true => crate::json::parse(&t).unwrap_or(Value::String(t)),
                false => Value::String(t),
            }
        }
    }
}

/// Every column of a row by name (`json`: the columns that hold JSON text).
pub fn row_object(
    r: &rusqlite::Row<'_>,
    names: &[String],
    json: &[&str],
) -> rusqlite::Result<serde_json::Map<String, serde_json::Value>> {
    names.iter().enumerate().map(|(i, n)| Ok((n.clone(), value(r.get_ref(i)?, json.contains(&n.as_str()))))).collect()
}

/// What [`merge`] did to the archive's copy of a database.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Merged {
    /// Rows the copy did not have, or had otherwise (written, or to be).
    pub rows: u64,
    /// Rows the copy keeps that the database no longer has.
    pub kept: u64,
}

/// `"name"`, quoted for SQL.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A table's columns and which of them make its primary key, in order.
fn columns(c: &Connection, schema: &str, table: &str) -> rusqlite::Result<(Vec<String>, Vec<String>)> {
    let mut stmt = c.prepare(&format!("PRAGMA {schema}.table_info({})", quoted(table)))?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, i64>(5)?)))?;
    let all: Vec<(String, i64)> = rows.collect::<rusqlite::Result<_>>()?;
    let mut pk: Vec<&(String, i64)> = all.iter().filter(|(_, k)| *k > 0).collect();
    pk.sort_by_key(|(_, k)| *k);
    let pk = pk.into_iter().map(|(n, _)| n.clone()).collect();
    Ok((all.into_iter().map(|(n, _)| n).collect(), pk))
}

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] …` as a plain index made only if
/// missing: a copy that keeps rows the database deleted must not refuse the
/// rows that took their place.
fn plain_index(sql: &str) -> Option<String> {
    let words: Vec<&str> = sql.split_whitespace().collect();
    let mut i = 0;
    let is = |i: usize, w: &str| words.get(i).is_some_and(|x| x.eq_ignore_ascii_case(w));
    if !is(i, "CREATE") {
        return None;
    }
    i += 1;
    if is(i, "UNIQUE") {
        i += 1;
    }
    if !is(i, "INDEX") {
        return None;
    }
    i += 1;
    if is(i, "IF") && is(i + 1, "NOT") && is(i + 2, "EXISTS") {
        i += 3;
    }
    Some(format!("CREATE INDEX IF NOT EXISTS {}", words[i..].join(" ")))
}

/// Merges the database `src` (one snapshot, read as [`read`] reads it)
/// into `dst`, a copy the caller owns (created when missing): every row of
/// every table with a primary key is written into the copy by that key,
/// new or changed rows only, and no row is ever deleted from it, so the
/// copy keeps what the client deleted since (a session, the messages an
/// undo removed). Tables and columns the copy lacks are added; indexes are
/// made plain (see [`plain_index`]); foreign keys are not enforced in the
/// copy (nothing cascades). `dry_run`: counted, nothing kept. One
/// transaction: the copy is either as before or merged.
pub fn merge(src: &Path, dst: &Path, dry_run: bool) -> Result<Merged, Error> {
    let err = |err| Error::Sqlite { path: dst.display().to_string(), err };
    // A dry run into a copy not made yet: counted in memory.
    let out = match dry_run && !dst.exists() {
        true => Connection::open_in_memory(),
        false => Connection::open(dst),
    }
    .map_err(err)?;
    out.pragma_update(None, "foreign_keys", false).map_err(err)?;
    let merged = read(src, |db| {
        // Again from the start when the snapshot is taken again.
        if !out.is_autocommit() {
            out.execute_batch("ROLLBACK")?;
        }
        out.execute_batch("BEGIN IMMEDIATE")?;
        merge_tables(db, &out)
    })?;
    match dry_run {
        true => out.execute_batch("ROLLBACK"),
        false => out.execute_batch("COMMIT"),
    }
    .map_err(err)?;
    Ok(merged)
}

fn merge_tables(db: &Connection, out: &Connection) -> rusqlite::Result<Merged> {
    let mut merged = Merged::default();
    let tables: Vec<(String, String)> = {
        let q = "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
                 AND sql IS NOT NULL ORDER BY name";
        let mut stmt = db.prepare(q)?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?
    };
    for (table, sql) in tables {
        let (cols, pk) = columns(db, "main", &table)?;
        if pk.is_empty() {
            // No key to keep its rows by: its rows are no session's.
            continue;
        }
        if !has_table(out, &table)? {
            out.execute_batch(&sql)?;
        } else {
            let (have, _) = columns(out, "main", &table)?;
            for c in cols.iter().filter(|c| !have.contains(c)) {
                out.execute_batch(&format!("ALTER TABLE {} ADD COLUMN {}", quoted(&table), quoted(c)))?;
            }
        }
        let indexes: Vec<String> = {
            let q = "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL";
            let mut stmt = db.prepare(q)?;
            stmt.query_map([&table], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?
        };
        for sql in indexes.iter().filter_map(|s: &String| plain_index(s)) {
            out.execute_batch(&sql)?;
        }
        let t = quoted(&table);
        let list = cols.iter().map(|c| quoted(c)).collect::<Vec<_>>().join(", ");
        let marks = (1..=cols.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
        let rest: Vec<&String> = cols.iter().filter(|c| !pk.contains(c)).collect();
        let update = match rest.is_empty() {
            true => "DO NOTHING".to_string(),
            false => format!(
                "DO UPDATE SET {} WHERE {}",
                rest.iter().map(|c| format!("{0} = excluded.{0}", quoted(c))).collect::<Vec<_>>().join(", "),
                rest.iter().map(|c| format!("{t}.{0} IS NOT excluded.{0}", quoted(c))).collect::<Vec<_>>().join(" OR ")
            ),
        };
        let keys = pk.iter().map(|c| quoted(c)).collect::<Vec<_>>().join(", ");
        let mut insert =
            out.prepare(&format!("INSERT INTO {t} ({list}) VALUES ({marks}) ON CONFLICT ({keys}) {update}"))?;
        let mut select = db.prepare(&format!("SELECT {list} FROM {t}"))?;
        let mut rows = select.query([])?;
        let mut count: u64 = 0;
        while let Some(r) = rows.next()? {
            let values: Vec<rusqlite::types::Value> =
                (0..cols.len()).map(|i| r.get(i)).collect::<rusqlite::Result<_>>()?;
            merged.rows += insert.execute(rusqlite::params_from_iter(values))? as u64;
            count += 1;
        }
        let total: i64 = out.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))?;
        merged.kept += u64::try_from(total).unwrap_or(0).saturating_sub(count);
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of `dir` with its bytes.
    fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default()))
            .collect();
        v.sort();
        v
    }

    fn count(conn: &Connection) -> rusqlite::Result<i64> {
        conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
    }

    /// Starts this test binary as another process that writes into `db`
    /// ([`sqlite_writer_child`]) in `mode`.
    fn child(db: &Path, mode: &str) -> std::process::Child {
        std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "sqlite::tests::sqlite_writer_child", "--test-threads=1", "--nocapture"])
            .env("CCTREE_TEST_SQLITE_WRITER", db)
            .env("CCTREE_TEST_SQLITE_MODE", mode)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Waits for the child's line saying it is ready.
    fn ready(c: &mut std::process::Child) {
        use std::io::BufRead;
        let out = c.stdout.take().unwrap();
        let mut lines = std::io::BufReader::new(out).lines();
        assert!(lines.any(|l| l.is_ok_and(|l| l.contains("cctree-writer-ready"))), "the writer started");
        // The rest read to its end, so the writer's output never blocks or breaks.
        std::thread::spawn(move || lines.for_each(drop));
    }

    #[test]
    fn each_way_reads_the_log_and_leaves_the_folder_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        // A client that made 5 rows and holds the database open, idle.
        let mut writer = child(&db, "hold");
        ready(&mut writer);
        assert_eq!(way(&db), Way::Live);
        let before = listing(dir.path());
        assert_eq!(read(&db, count).unwrap(), 5);
        assert_eq!(listing(dir.path()), before, "nothing written, the index included");
        // Gone without closing (its log and index left): read in place.
        drop(writer.stdin.take());
        assert!(writer.wait().unwrap().success());
        assert_eq!(way(&db), Way::Live);
        let before = listing(dir.path());
        assert_eq!(read(&db, count).unwrap(), 5);
        assert_eq!(listing(dir.path()), before, "nothing written, no recovery into the index");
        // The log kept, its index gone (a copied folder): read from a copy.
        let keep = tempfile::tempdir().unwrap();
        for f in ["x.db", "x.db-wal"] {
            std::fs::copy(dir.path().join(f), keep.path().join(f)).unwrap();
        }
        let copy = keep.path().join("x.db");
        assert_eq!(way(&copy), Way::Copied);
        let before = listing(keep.path());
        assert_eq!(read(&copy, count).unwrap(), 5, "the rows only the log holds");
        assert_eq!(listing(keep.path()), before, "no -shm made");
        // Closed cleanly: the database alone, read immutable.
        let alone = tempfile::tempdir().unwrap();
        let db = alone.path().join("x.db");
        let w = Connection::open(&copy).unwrap();
        w.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        drop(w);
        std::fs::copy(&copy, &db).unwrap();
        let w = Connection::open(&db).unwrap();
        assert_eq!(count(&w).unwrap(), 5);
        drop(w);
        assert_eq!(way(&db), Way::Alone);
        let before = listing(alone.path());
        assert_eq!(read(&db, count).unwrap(), 5);
        assert_eq!(listing(alone.path()), before, "no -wal nor -shm made");
    }

    #[test]
    fn a_missing_database_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = read(&dir.path().join("none.db"), count).unwrap_err().to_string();
        assert!(err.contains("none.db"), "{err}");
        assert!(!dir.path().join("none.db").exists());
    }

    /// Run as its own process by the tests above: in the database named by
    /// `CCTREE_TEST_SQLITE_WRITER`, in WAL mode, either (`hold`) writes 5
    /// rows, says so, waits for its input to close and exits without closing
    /// the database (its `-wal` and `-shm` stay, as OpenCode leaves them), or
    /// (`write`) writes rows for 1.5 s with no busy timeout (a lock held by a
    /// reader would fail a write at once) and exits 0 only if every write
    /// succeeded.
    #[test]
    fn sqlite_writer_child() {
        let Some(db) = std::env::var_os("CCTREE_TEST_SQLITE_WRITER") else { return };
        let w = Connection::open(db).unwrap();
        w.pragma_update(None, "journal_mode", "WAL").unwrap();
        w.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        w.busy_timeout(std::time::Duration::ZERO).unwrap();
        w.execute_batch(
            "CREATE TABLE IF NOT EXISTS t (v TEXT); CREATE TABLE IF NOT EXISTS k (id INTEGER PRIMARY KEY, v TEXT)",
        )
        .unwrap();
        if std::env::var("CCTREE_TEST_SQLITE_MODE").as_deref() == Ok("hold") {
            for i in 0..5 {
                w.execute("INSERT INTO t VALUES (?1)", [format!("row {i}")]).unwrap();
            }
            ready_line();
            let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
            std::mem::forget(w);
            std::process::exit(0);
        }
        ready_line();
        let start = std::time::Instant::now();
        let mut n = 0;
        while start.elapsed() < std::time::Duration::from_millis(1500) {
            w.execute("INSERT INTO t VALUES (?1)", [format!("child {n}")]).expect("a write the reader blocked");
            w.execute("INSERT INTO k (v) VALUES (?1)", [format!("child {n}")]).expect("a write the merge blocked");
            n += 1;
            if n % 50 == 0 {
                // A checkpoint, as the client runs one: it must not fail either.
                w.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())).unwrap();
            }
        }
        assert!(n > 10, "{n} writes");
    }

    /// Says the writer is ready, on its standard output.
    fn ready_line() {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        writeln!(out, "cctree-writer-ready").unwrap();
        out.flush().unwrap();
    }

    #[test]
    fn a_writer_in_another_process_is_never_blocked() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let mut child = child(&db, "write");
        ready(&mut child);
        let mut reads = 0;
        let mut last = 0;
        while child.try_wait().unwrap().is_none() {
            assert_eq!(way(&db), Way::Live, "read in place, beside the writer");
            let n = read(&db, |c| {
                let n = count(c)?;
                // The same snapshot all through the transaction.
                std::thread::sleep(std::time::Duration::from_millis(5));
                assert_eq!(count(c)?, n);
                Ok(n)
            })
            .unwrap();
            assert!(n >= last, "snapshots go forward");
            last = n;
            reads += 1;
        }
        assert!(child.wait().unwrap().success(), "every write of the other process succeeded");
        assert!(reads > 5, "{reads} reads");
        assert!(read(&db, count).unwrap() >= last);
    }

    #[test]
    fn a_merge_beside_a_running_writer_never_blocks_it_and_keeps_what_it_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let copy = dir.path().join("copy.db");
        let keyed = |p: &Path| -> i64 {
            let c = Connection::open_with_flags(p, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
            c.query_row("SELECT count(*) FROM k", [], |r| r.get(0)).unwrap()
        };
        let mut child = child(&db, "write");
        ready(&mut child);
        let (mut merges, mut last) = (0, 0);
        while child.try_wait().unwrap().is_none() {
            let m = merge(&db, &copy, false).unwrap();
            let n = keyed(&copy);
            assert!(n >= last, "the copy only grows");
            assert_eq!(m.kept, 0, "nothing deleted yet");
            last = n;
            merges += 1;
        }
        assert!(child.wait().unwrap().success(), "every write of the other process succeeded");
        assert!(merges > 2, "{merges} merges");
        // Only the keyed table is kept (a table without a key has no row to keep by).
        let all = read(&db, |c| c.query_row("SELECT count(*) FROM k", [], |r| r.get::<_, i64>(0))).unwrap();
        assert_eq!(merge(&db, &copy, false).unwrap().kept, 0);
        assert_eq!(keyed(&copy), all);
        // The client deletes and changes rows: the copy keeps the deleted, takes the change.
        let w = Connection::open(&db).unwrap();
        w.execute_batch("DELETE FROM k WHERE id % 2 = 0; UPDATE k SET v = 'changed' WHERE id = 1").unwrap();
        drop(w);
        let dry = merge(&db, &copy, true).unwrap();
        assert_eq!(dry.rows, 1, "one row changed");
        assert_eq!(merge(&db, &copy, false).unwrap(), dry, "a dry run counts what the merge does");
        assert_eq!(keyed(&copy), all);
        let c = Connection::open(&copy).unwrap();
        let v: String = c.query_row("SELECT v FROM k WHERE id = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(v, "changed");
        assert_eq!(merge(&db, &copy, false).unwrap().rows, 0, "nothing new");
    }
}
