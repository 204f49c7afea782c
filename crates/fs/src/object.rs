//! Store files on an object store (the S3 API, through OpenDAL), everything else on the local
//! (or a shared) directory: [`ObjectFs`].
//!
//! An object store has no appends, no renames, no hard links and no directories, and the
//! engine's crash safety rests on all four. So only the bytes move: a file made by
//! [`FileSystem::create_bulk`] (a store file) is uploaded as one object under a key of its
//! own, and its path on the directory holds a small *pointer* naming that key and the
//! object's length (`docs/design/object-store.md`). Renames, hard links, listings and
//! directory renames work on pointers, on the directory, as atomically as before; WAL
//! segments, catalog files and journals are ordinary files there. Reading a pointer's file
//! reads its object with ranged GETs; what the engine reads is then kept in its block cache
//! like any other block.
//!
//! An object is deleted when the last pointer naming it is (the pointer's link count tells),
//! after [`ObjectStoreConfig::delete_delay`]: readers that opened the file before keep
//! reading it that long, as POSIX lets them read a deleted file.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::future::Future;
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use opendal::{HttpTransporter, OperationContext, Operator};
use tokio::runtime::{Handle, Runtime};

use crate::error::{FsError, Result};
use crate::local::LocalFs;
use crate::{FileLock, FileSystem, ReadableFile, WritableFile};

/// The first line of a pointer file.
const POINTER_MAGIC: &str = "basalt-object 1\n";

/// Pointer files are this small at most; a larger file is an ordinary one.
const POINTER_MAX: u64 = 4096;

/// Bytes gathered before they go out as one part of a multipart upload; a file smaller than
/// this is uploaded by one PUT when it is synced. (S3 wants parts of 5 MiB at least.)
const PART: usize = 8 << 20;

/// Where store files go: an S3 bucket (and a key prefix in it), written as
/// `s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME&delete_delay=SECONDS]`. Credentials
/// come from `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, or the usual AWS chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectStoreConfig {
    pub bucket: String,
    /// Key prefix, empty or ending in `/`.
    pub prefix: String,
    /// The S3 endpoint (`http://127.0.0.1:9000` for a local server); AWS's by default.
    pub endpoint: Option<String>,
    pub region: String,
    /// How long a deleted store file's object outlives its last name (HBase keeps archived
    /// store files 5 minutes, `hbase.master.hfilecleaner.ttl`; so does Basalt by default).
    pub delete_delay: Duration,
    /// Access key id and secret; when `None`, `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`
    /// (never part of the URL).
    pub credentials: Option<(String, String)>,
}

impl ObjectStoreConfig {
    /// The bucket under `prefix` (a trailing `/` is added), with the defaults: AWS's
    /// endpoint, `us-east-1`, deletes after 300 s, credentials from the environment.
    pub fn new(bucket: &str, prefix: &str) -> ObjectStoreConfig {
        let prefix = prefix.trim_matches('/');
        ObjectStoreConfig {
            bucket: bucket.to_owned(),
            prefix: if prefix.is_empty() {
                String::new()
            } else {
                format!("{prefix}/")
            },
            endpoint: None,
            region: "us-east-1".to_owned(),
            delete_delay: Duration::from_secs(300),
            credentials: None,
        }
    }

    /// Parses the `s3://` form above; the error names what is wrong.
    pub fn parse(url: &str) -> std::result::Result<ObjectStoreConfig, String> {
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| format!("object store {url:?}: expected s3://BUCKET[/PREFIX]"))?;
        let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (bucket, prefix) = location.split_once('/').unwrap_or((location, ""));
        if bucket.is_empty() {
            return Err(format!("object store {url:?}: no bucket"));
        }
        let mut config = ObjectStoreConfig::new(bucket, prefix);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("object store {url:?}: {pair:?} is not NAME=VALUE"))?;
            match name {
                "endpoint" => config.endpoint = Some(value.to_owned()),
                "region" => config.region = value.to_owned(),
                "delete_delay" => {
                    config.delete_delay = value
                        .parse()
                        .ok()
                        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
                        .ok_or_else(|| {
                            format!("object store {url:?}: delete_delay {value:?} is not seconds")
                        })?;
                }
                other => {
                    return Err(format!(
                        "object store {url:?}: unknown setting {other:?} (endpoint, region, delete_delay)"
                    ));
                }
            }
        }
        Ok(config)
    }
}

impl fmt::Display for ObjectStoreConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s3://{}/{}", self.bucket, self.prefix)?;
        if let Some(endpoint) = &self.endpoint {
            write!(f, " at {endpoint}")?;
        }
        Ok(())
    }
}

/// Store files on an object store, the rest on the local directory; see the module
/// documentation. Clones share one connection pool and one runtime.
#[derive(Clone)]
pub struct ObjectFs {
    inner: Arc<Inner>,
}

struct Inner {
    config: ObjectStoreConfig,
    op: Operator,
    /// The runtime OpenDAL's requests run on; callers block on them from any thread.
    runtime: Option<Runtime>,
    handle: Handle,
    reaper: Option<Reaper>,
    next_key: AtomicU64,
    counters: Arc<Counters>,
}

/// What went to and came from the store, since it was connected.
#[derive(Debug, Default)]
struct Counters {
    gets: AtomicU64,
    got_bytes: AtomicU64,
    puts: AtomicU64,
    put_bytes: AtomicU64,
    deletes: AtomicU64,
}

/// A copy of [`ObjectFs`]'s counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectStats {
    /// Ranged reads of store files (block cache misses, file opens).
    pub gets: u64,
    pub got_bytes: u64,
    /// Store files uploaded.
    pub puts: u64,
    pub put_bytes: u64,
    /// Objects deleted after their last name went.
    pub deletes: u64,
}

impl fmt::Debug for ObjectFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectFs({})", self.inner.config)
    }
}

impl ObjectFs {
    /// Connects to the store and checks that the bucket answers.
    pub fn connect(config: ObjectStoreConfig) -> Result<ObjectFs> {
        let failed = |e: io::Error| FsError::io("connect to object store", config.to_string(), e);
        // The TLS stack is rustls with ring, as everywhere else in Basalt; installing the
        // provider fails harmlessly when one is already installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("object-store")
            .enable_all()
            .build()
            .map_err(failed)?;
        let mut builder = opendal::services::S3::default()
            .bucket(&config.bucket)
            .region(&config.region)
            .root(&format!("/{}", config.prefix));
        if let Some(endpoint) = &config.endpoint {
            builder = builder.endpoint(endpoint);
        }
        let credentials = config.credentials.clone().or_else(|| {
            Some((
                std::env::var("AWS_ACCESS_KEY_ID").ok()?,
                std::env::var("AWS_SECRET_ACCESS_KEY").ok()?,
            ))
        });
        if let Some((id, secret)) = &credentials {
            builder = builder.access_key_id(id).secret_access_key(secret);
        }
        let client = {
            let _guard = runtime.enter();
            reqwest::Client::builder()
                .build()
                .map_err(|e| failed(io::Error::other(e)))?
        };
        let transport = HttpTransporter::new(
            opendal_http_transport_reqwest::ReqwestTransport::new(client),
        );
        let op = Operator::new(builder)
            .map_err(|e| failed(object_error(e)))?
            .with_context(OperationContext::new().with_http_transport(transport));
        let handle = runtime.handle().clone();
        {
            // A small object written and deleted: the store answers, the bucket exists, and
            // these credentials may write and delete there.
            let op = op.clone();
            let probe = format!(".basalt-probe-{}", stamp());
            block(&handle, async move {
                op.write(&probe, b"basalt".to_vec()).await?;
                op.delete(&probe).await
            })
            .map_err(|e| match credentials {
                Some(_) => failed(e),
                None => failed(io::Error::other(format!(
                    "{e} (no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
                ))),
            })?;
        }
        let counters = Arc::new(Counters::default());
        let reaper = Reaper::start(
            op.clone(),
            handle.clone(),
            config.delete_delay,
            Arc::clone(&counters),
        );
        Ok(ObjectFs {
            inner: Arc::new(Inner {
                config,
                op,
                runtime: Some(runtime),
                handle,
                reaper: Some(reaper),
                next_key: AtomicU64::new(0),
                counters,
            }),
        })
    }

    pub fn config(&self) -> &ObjectStoreConfig {
        &self.inner.config
    }

    /// Requests and bytes so far.
    pub fn stats(&self) -> ObjectStats {
        let c = &self.inner.counters;
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        ObjectStats {
            gets: n(&c.gets),
            got_bytes: n(&c.got_bytes),
            puts: n(&c.puts),
            put_bytes: n(&c.put_bytes),
            deletes: n(&c.deletes),
        }
    }

    /// The keys of every object under the prefix (for tests and tools), sorted.
    pub fn object_keys(&self) -> Result<Vec<String>> {
        let op = self.inner.op.clone();
        let mut keys = block(&self.inner.handle, async move {
            let entries = op.list_with("").recursive(true).await?;
            Ok(entries
                .into_iter()
                .filter(|e| !e.path().ends_with('/'))
                .map(|e| e.path().to_owned())
                .collect::<Vec<_>>())
        })
        .map_err(|e| FsError::io("list objects", self.inner.config.to_string(), e))?;
        keys.sort();
        Ok(keys)
    }

    /// A key no other file has: the file's name (without `.tmp`) after a unique stamp.
    fn new_key(&self, path: &Path) -> String {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = name.strip_suffix(".tmp").unwrap_or(&name);
        let n = self.inner.next_key.fetch_add(1, Ordering::Relaxed);
        format!("{}-{n:x}-{name}", stamp())
    }

    /// Deletes the objects of pointers whose last name went away.
    fn forget(&self, keys: Vec<String>) {
        if let Some(reaper) = &self.inner.reaper {
            reaper.delete_later(keys);
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Pending deletes go out now (nothing in this process reads them any more), then the
        // runtime stops without waiting for work nobody waits for.
        drop(self.reaper.take());
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Runs `fut` on the store's runtime and waits for it, from any thread (also one of another
/// runtime, where `block_on` would panic).
fn block<T: Send + 'static>(
    handle: &Handle,
    fut: impl Future<Output = opendal::Result<T>> + Send + 'static,
) -> io::Result<T> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    handle.spawn(async move {
        let _ = tx.send(fut.await);
    });
    match rx.recv() {
        Ok(result) => result.map_err(object_error),
        Err(_) => Err(io::Error::other("the object store's runtime has stopped")),
    }
}

fn object_error(e: opendal::Error) -> io::Error {
    let kind = match e.kind() {
        opendal::ErrorKind::NotFound => io::ErrorKind::NotFound,
        opendal::ErrorKind::AlreadyExists => io::ErrorKind::AlreadyExists,
        opendal::ErrorKind::PermissionDenied => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e.to_string())
}

/// Nanoseconds since the epoch, in hex, then this process's id: apart from a counter, what
/// keeps names made here from any other process's.
pub(crate) fn stamp() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos:x}-{:x}", std::process::id())
}

/// What a pointer file says.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pointer {
    key: String,
    len: u64,
}

impl Pointer {
    fn encode(&self) -> String {
        format!("{POINTER_MAGIC}key {}\nlength {}\n", self.key, self.len)
    }

    fn decode(text: &[u8]) -> Option<Pointer> {
        let text = std::str::from_utf8(text)
            .ok()?
            .strip_prefix(POINTER_MAGIC)?;
        let mut lines = text.lines();
        let key = lines.next()?.strip_prefix("key ")?.to_owned();
        let len = lines.next()?.strip_prefix("length ")?.parse().ok()?;
        Some(Pointer { key, len })
    }
}

/// The pointer in the file at `path`, with the file's link count; `None` for an ordinary
/// file (or a directory, or nothing).
fn read_pointer(path: &Path) -> io::Result<Option<(Pointer, u64)>> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() > POINTER_MAX || meta.len() < POINTER_MAGIC.len() as u64 {
        return Ok(None);
    }
    let mut text = Vec::new();
    file.read_to_end(&mut text)?;
    Ok(Pointer::decode(&text).map(|p| (p, meta.nlink())))
}

impl FileSystem for ObjectFs {
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        LocalFs.create_dir_all(dir)
    }

    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        LocalFs.create(path)
    }

    fn create_log(&self, path: &Path, capacity: u64) -> Result<Box<dyn WritableFile>> {
        LocalFs.create_log(path, capacity)
    }

    /// A store file: its bytes go to a new object, its path gets the pointer when it syncs.
    fn create_bulk(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| FsError::io("create", path, e))?;
        Ok(Box::new(ObjectWritable {
            path: path.to_owned(),
            pointer_file: file,
            key: self.new_key(path),
            store: Arc::clone(&self.inner),
            writer: None,
            buf: Vec::new(),
            len: 0,
            state: WriteState::Open,
        }))
    }

    fn open(&self, path: &Path) -> Result<Arc<dyn ReadableFile>> {
        match read_pointer(path).map_err(|e| FsError::io("open", path, e))? {
            Some((pointer, _)) => Ok(Arc::new(ObjectReadable {
                path: path.to_owned(),
                key: pointer.key,
                len: pointer.len,
                store: Arc::clone(&self.inner),
            })),
            None => LocalFs.open(path),
        }
    }

    /// Renames the pointer; an object only the replaced file named goes.
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let replaced = read_pointer(to).map_err(|e| FsError::io("rename", to, e))?;
        LocalFs.rename(from, to)?;
        if let Some((pointer, 1)) = replaced {
            self.forget(vec![pointer.key]);
        }
        Ok(())
    }

    /// A hard link of the pointer: both names share the object.
    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        LocalFs.link(from, to)
    }

    fn delete(&self, path: &Path) -> Result<()> {
        let pointer = read_pointer(path).map_err(|e| FsError::io("delete", path, e))?;
        LocalFs.delete(path)?;
        if let Some((pointer, 1)) = pointer {
            self.forget(vec![pointer.key]);
        }
        Ok(())
    }

    fn delete_dir_all(&self, dir: &Path) -> Result<()> {
        let mut keys = Vec::new();
        let mut dirs = vec![dir.to_owned()];
        while let Some(d) = dirs.pop() {
            let entries = match std::fs::read_dir(&d) {
                Ok(entries) => entries,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(FsError::io("list", &d, e)),
            };
            for entry in entries {
                let entry = entry.map_err(|e| FsError::io("list", &d, e))?;
                let path = entry.path();
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    dirs.push(path);
                } else if let Some((pointer, 1)) =
                    read_pointer(&path).map_err(|e| FsError::io("delete", &path, e))?
                {
                    keys.push(pointer.key);
                }
            }
        }
        LocalFs.delete_dir_all(dir)?;
        self.forget(keys);
        Ok(())
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        LocalFs.list(dir)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        LocalFs.exists(path)
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        LocalFs.sync_dir(dir)
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        LocalFs.lock(path)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WriteState {
    Open,
    /// Uploaded, and the pointer written and synced.
    Finished,
    /// An upload failed; the file can only be dropped.
    Failed,
}

/// A store file being uploaded; see [`ObjectFs::create_bulk`].
struct ObjectWritable {
    path: PathBuf,
    pointer_file: File,
    key: String,
    /// The store, kept (with its runtime) while the file is written.
    store: Arc<Inner>,
    /// The multipart upload, begun when the first [`PART`] bytes are gathered.
    writer: Option<opendal::Writer>,
    buf: Vec<u8>,
    len: u64,
    state: WriteState,
}

impl fmt::Debug for ObjectWritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectWritable")
            .field("path", &self.path)
            .field("key", &self.key)
            .field("len", &self.len)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl ObjectWritable {
    fn check_open(&self, op: &'static str) -> Result<()> {
        match self.state {
            WriteState::Open => Ok(()),
            WriteState::Finished => Err(FsError::io(
                op,
                &self.path,
                io::Error::other(
                    "a store file on the object store is written once: it was already synced",
                ),
            )),
            WriteState::Failed => Err(FsError::io(
                op,
                &self.path,
                io::Error::other("an earlier upload of this file failed"),
            )),
        }
    }

    /// Hands the gathered bytes to the multipart upload (started here if need be).
    fn send_part(&mut self) -> Result<()> {
        let data = std::mem::take(&mut self.buf);
        let (op, key) = (self.store.op.clone(), self.key.clone());
        let writer = self.writer.take();
        let sent = block(&self.store.handle, async move {
            let mut w = match writer {
                Some(w) => w,
                None => op.writer_with(&key).chunk(PART).concurrent(2).await?,
            };
            w.write(data).await?;
            Ok(w)
        });
        match sent {
            Ok(w) => {
                self.writer = Some(w);
                Ok(())
            }
            Err(e) => {
                self.state = WriteState::Failed;
                Err(FsError::io("upload", &self.path, e))
            }
        }
    }

    /// Completes the upload: the rest in one PUT, or the multipart upload's last part.
    fn upload(&mut self) -> io::Result<()> {
        let data = std::mem::take(&mut self.buf);
        let (op, key) = (self.store.op.clone(), self.key.clone());
        match self.writer.take() {
            Some(mut w) => block(&self.store.handle, async move {
                w.write(data).await?;
                w.close().await.map(|_| ())
            }),
            None => block(&self.store.handle, async move {
                op.write(&key, data).await.map(|_| ())
            }),
        }
    }
}

impl WritableFile for ObjectWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.check_open("append")?;
        self.buf.extend_from_slice(data);
        self.len += data.len() as u64;
        if self.buf.len() >= PART {
            self.send_part()?;
        }
        Ok(())
    }

    /// Nothing: an object appears whole when the file is synced, or not at all. (Store
    /// files are read only after their sync, and a file a crash cut short is discarded.)
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        if self.state == WriteState::Finished {
            return Ok(());
        }
        self.check_open("sync")?;
        if let Err(e) = self.upload() {
            self.state = WriteState::Failed;
            return Err(FsError::io("upload", &self.path, e));
        }
        let pointer = Pointer {
            key: self.key.clone(),
            len: self.len,
        };
        self.pointer_file
            .write_all(pointer.encode().as_bytes())
            .and_then(|()| self.pointer_file.sync_data())
            .map_err(|e| FsError::io("write pointer", &self.path, e))?;
        self.state = WriteState::Finished;
        let counters = &self.store.counters;
        counters.puts.fetch_add(1, Ordering::Relaxed);
        counters.put_bytes.fetch_add(self.len, Ordering::Relaxed);
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl Drop for ObjectWritable {
    /// An upload never finished is aborted, so the store drops its parts.
    fn drop(&mut self) {
        if let Some(mut w) = self.writer.take() {
            self.store.handle.spawn(async move {
                let _ = w.abort().await;
            });
        }
    }
}

/// A store file read from its object with ranged GETs.
struct ObjectReadable {
    path: PathBuf,
    key: String,
    len: u64,
    /// The store, kept (with its runtime) while the file is read.
    store: Arc<Inner>,
}

impl fmt::Debug for ObjectReadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectReadable")
            .field("path", &self.path)
            .field("key", &self.key)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl ReadableFile for ObjectReadable {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Bytes> {
        let end = FsError::read_end(&self.path, offset, len, self.len)?;
        if len == 0 {
            return Ok(Bytes::new());
        }
        let (op, key) = (self.store.op.clone(), self.key.clone());
        let bytes = block(&self.store.handle, async move {
            op.read_with(&key)
                .range(offset..end)
                .await
                .map(|b| b.to_bytes())
        })
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => FsError::io(
                "read",
                &self.path,
                // Not `NotFound`, which would name only the path: the path is there.
                io::Error::other(format!("its object {:?} is gone from the store", self.key)),
            ),
            _ => FsError::io("read", &self.path, e),
        })?;
        if bytes.len() != len {
            return Err(FsError::short_read(&self.path, offset, len, self.len));
        }
        let counters = &self.store.counters;
        counters.gets.fetch_add(1, Ordering::Relaxed);
        counters.got_bytes.fetch_add(len as u64, Ordering::Relaxed);
        Ok(bytes)
    }
}

/// Deletes objects once [`ObjectStoreConfig::delete_delay`] has passed, on a thread of its
/// own; when dropped, deletes what is still pending and stops.
struct Reaper {
    shared: Arc<(Mutex<ReaperQueue>, Condvar)>,
    thread: Option<JoinHandle<()>>,
    delay: Duration,
}

#[derive(Default)]
struct ReaperQueue {
    due: std::collections::VecDeque<(Instant, String)>,
    stopping: bool,
}

impl Reaper {
    fn start(op: Operator, handle: Handle, delay: Duration, counters: Arc<Counters>) -> Reaper {
        let shared: Arc<(Mutex<ReaperQueue>, Condvar)> = Arc::default();
        let queue = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("object-reaper".into())
            .spawn(move || {
                let (lock, wake) = &*queue;
                loop {
                    let mut q = lock.lock().unwrap_or_else(|p| p.into_inner());
                    let now = Instant::now();
                    let mut ready = Vec::new();
                    while let Some((at, _)) = q.due.front() {
                        if *at > now && !q.stopping {
                            break;
                        }
                        if let Some((_, key)) = q.due.pop_front() {
                            ready.push(key);
                        }
                    }
                    if ready.is_empty() {
                        if q.stopping {
                            return;
                        }
                        let wait = q
                            .due
                            .front()
                            .map_or(Duration::from_secs(3600), |(at, _)| *at - now);
                        drop(wake.wait_timeout(q, wait));
                        continue;
                    }
                    drop(q);
                    for key in ready {
                        let op = op.clone();
                        // A failed delete leaves garbage behind, never a missing file.
                        if block(&handle, async move { op.delete(&key).await }).is_ok() {
                            counters.deletes.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
            .ok();
        Reaper {
            shared,
            thread,
            delay,
        }
    }

    fn delete_later(&self, keys: Vec<String>) {
        if keys.is_empty() {
            return;
        }
        let (lock, wake) = &*self.shared;
        let mut q = lock.lock().unwrap_or_else(|p| p.into_inner());
        let at = Instant::now() + self.delay;
        q.due.extend(keys.into_iter().map(|k| (at, k)));
        wake.notify_one();
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        {
            let (lock, wake) = &*self.shared;
            lock.lock().unwrap_or_else(|p| p.into_inner()).stopping = true;
            wake.notify_one();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_their_settings() {
        let c = ObjectStoreConfig::parse(
            "s3://bkt/some/prefix/?endpoint=http://127.0.0.1:9000&region=eu-west-1&delete_delay=0.5",
        )
        .unwrap();
        assert_eq!(c.bucket, "bkt");
        assert_eq!(c.prefix, "some/prefix/");
        assert_eq!(c.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(c.region, "eu-west-1");
        assert_eq!(c.delete_delay, Duration::from_millis(500));
        let plain = ObjectStoreConfig::parse("s3://bkt").unwrap();
        assert_eq!((plain.prefix.as_str(), plain.endpoint), ("", None));
        for (bad, says) in [
            ("/data", "expected s3://"),
            ("s3:///x", "no bucket"),
            ("s3://b?colour=red", "unknown setting \"colour\""),
            ("s3://b?delete_delay=-1", "is not seconds"),
            ("s3://b?delete_delay=inf", "is not seconds"),
            ("s3://b?delete_delay=1e30", "is not seconds"),
            ("s3://b?endpoint", "is not NAME=VALUE"),
        ] {
            let err = ObjectStoreConfig::parse(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn pointers_round_trip_and_other_text_is_not_one() {
        let p = Pointer {
            key: "1a-2b-0-000001".into(),
            len: 123_456,
        };
        assert_eq!(Pointer::decode(p.encode().as_bytes()), Some(p));
        assert_eq!(Pointer::decode(b"PBUF\x08\x01"), None);
        assert_eq!(
            Pointer::decode(b"basalt-object 1\nkey x\nlength ten\n"),
            None
        );
    }
}
