//! [`S3TestServer`]: a private S3-compatible server for the object-store tests.

use std::path::Path;
use std::time::Duration;

use crate::object::{ObjectStoreConfig, stamp};

/// A private S3-compatible server for tests (`tests/s3/start.sh`: moto's server mode, from
/// PyPI, with an empty bucket `basalt`), stopped when dropped or when the process that started
/// it is gone.
#[derive(Debug)]
pub struct S3TestServer {
    pub port: u16,
    pid: u32,
    _dir: tempfile_free::Dir,
}

mod tempfile_free {
    /// A scratch directory removed when dropped (the crate has no tempfile dependency).
    #[derive(Debug)]
    pub struct Dir(pub std::path::PathBuf);

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl S3TestServer {
    /// Starts one; the error says why it did not start.
    pub fn start() -> std::result::Result<S3TestServer, String> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/s3/start.sh");
        let dir = std::env::temp_dir().join(format!("basalt-s3-{}", stamp()));
        let out = std::process::Command::new("bash")
            .arg(&script)
            .arg(&dir)
            .arg(std::process::id().to_string())
            .output()
            .map_err(|e| format!("{}: {e}", script.display()))?;
        let dir = tempfile_free::Dir(dir);
        if !out.status.success() {
            return Err(format!(
                "the S3 test server did not start: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut parts = text.split_whitespace();
        let (Some(port), Some(pid)) = (
            parts.next().and_then(|p| p.parse().ok()),
            parts.next().and_then(|p| p.parse().ok()),
        ) else {
            return Err(format!("start.sh printed {text:?}, not PORT PID"));
        };
        Ok(S3TestServer {
            port,
            pid,
            _dir: dir,
        })
    }

    /// The server's endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// An `s3://` URL for the bucket, under `prefix`, with deletes after `delete_delay`.
    pub fn url(&self, prefix: &str, delete_delay: Duration) -> String {
        format!(
            "s3://basalt/{prefix}?endpoint={}&delete_delay={}",
            self.endpoint(),
            delete_delay.as_secs_f64()
        )
    }

    /// Credentials the server takes (any); for a child process, as its environment.
    pub const CREDENTIALS: [(&str, &str); 2] = [
        ("AWS_ACCESS_KEY_ID", "basalt-test"),
        ("AWS_SECRET_ACCESS_KEY", "basalt-test-secret"),
    ];

    /// The configuration of [`S3TestServer::url`], with [`S3TestServer::CREDENTIALS`].
    pub fn config(&self, prefix: &str, delete_delay: Duration) -> ObjectStoreConfig {
        ObjectStoreConfig {
            endpoint: Some(self.endpoint()),
            delete_delay,
            credentials: Some((
                Self::CREDENTIALS[0].1.to_owned(),
                Self::CREDENTIALS[1].1.to_owned(),
            )),
            ..ObjectStoreConfig::new("basalt", prefix)
        }
    }
}

impl Drop for S3TestServer {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .arg(self.pid.to_string())
            .status();
    }
}
