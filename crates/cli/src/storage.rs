//! Where a server keeps its files: the data directory alone, or with its store files on an
//! object store (`--object-store s3://...`, issue 35; `docs/design/object-store.md`).

use std::sync::Arc;

use basalt_fs::FileSystem;

/// The flag every command that opens a data directory takes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StorageArgs {
    /// Keep store files on this object store (the S3 API):
    /// s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME&delete_delay=SECONDS]. WALs, catalog
    /// files and each store file's pointer stay in the data directory. Credentials from
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
    #[arg(long, value_name = "URL")]
    pub object_store: Option<String>,
}

impl StorageArgs {
    /// The flag again, for a child process.
    pub fn flags(&self) -> Vec<String> {
        self.object_store
            .iter()
            .flat_map(|url| ["--object-store".to_owned(), url.clone()])
            .collect()
    }

    pub fn file_system(&self) -> anyhow::Result<Arc<dyn FileSystem>> {
        file_system(self.object_store.as_deref())
    }
}

/// The local file system, or store files on the object store at `url`.
pub fn file_system(object_store: Option<&str>) -> anyhow::Result<Arc<dyn FileSystem>> {
    let Some(url) = object_store else {
        return Ok(Arc::new(basalt_fs::LocalFs));
    };
    // The error names the store (its URL and endpoint) and what the store answered, or that
    // this basalt was built without the cargo feature `object-store`.
    basalt_fs::open_object_store(url).map_err(anyhow::Error::msg)
}
