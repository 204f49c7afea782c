//! A table's coprocessor attachment (`coprocessor$N`), as HBase spells it: where the module
//! is, its priority and its arguments. Basalt runs WebAssembly modules from local files;
//! Java jars are refused by name.

use crate::error::{Error, Result};

/// HBase's `Coprocessor.PRIORITY_USER`: the priority of an attachment that names none.
pub const PRIORITY_USER: i32 = i32::MAX / 2;

/// One attachment: `file:///path/mod.wasm|priority|args` (Basalt's spelling) or HBase's
/// `path|class|priority|args`, whose class a WebAssembly module has no use for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoprocessorSpec {
    /// The module's file (an absolute local path).
    pub path: std::path::PathBuf,
    /// Lower runs first (HBase's order); ties keep the attachments' order.
    pub priority: i32,
    /// `k=v,k2=v2` as given: the module reads them, and the server reads `write=`,
    /// `fuel=` and `memory=` (`docs/design/coprocessors.md`).
    pub args: String,
}

fn refused(value: &str, why: &str) -> Error {
    Error::InvalidDescriptor {
        what: "coprocessor".into(),
        reason: format!(
            "{why} in {value:?} (Basalt runs WebAssembly modules: \
             'file:///path/module.wasm|priority|k=v,...')"
        ),
    }
}

impl CoprocessorSpec {
    pub fn parse(value: &str) -> Result<CoprocessorSpec> {
        let parts: Vec<&str> = value.split('|').map(str::trim).collect();
        let (location, priority, args) = match parts.as_slice() {
            [location] => (*location, "", ""),
            [location, priority] => (*location, *priority, ""),
            [location, priority, args] => (*location, *priority, *args),
            // HBase's spelling: path|class|priority|args.
            [location, _class, priority, args] => (*location, *priority, *args),
            _ => return Err(refused(value, "more than four '|'-separated parts")),
        };
        if location.ends_with(".jar") || location.is_empty() && parts.len() == 4 {
            return Err(refused(value, "Basalt cannot load Java coprocessors"));
        }
        let Some(path) = location.strip_prefix("file://") else {
            return Err(refused(
                value,
                "the module must be a local file named by a file:// URL",
            ));
        };
        if !path.starts_with('/') || !path.ends_with(".wasm") {
            return Err(refused(
                value,
                "the module's path must be absolute and end in .wasm",
            ));
        }
        let priority = if priority.is_empty() {
            PRIORITY_USER
        } else {
            priority
                .parse()
                .map_err(|_| refused(value, "the priority is not an integer"))?
        };
        Ok(CoprocessorSpec {
            path: path.into(),
            priority,
            args: args.to_owned(),
        })
    }

    /// Checks that the module's file can be read here and is a WebAssembly binary (its magic
    /// number): what create and alter check before a table takes the attachment. Region
    /// servers compile it as they open the table's regions.
    pub fn check_file(&self) -> Result<()> {
        use std::io::Read;
        let refuse = |why: String| Error::InvalidDescriptor {
            what: "coprocessor".into(),
            reason: format!("module {}: {why}", self.path.display()),
        };
        let mut magic = [0u8; 4];
        std::fs::File::open(&self.path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .map_err(|e| refuse(format!("cannot be read ({e})")))?;
        if magic != *b"\0asm" {
            return Err(refuse("is not a WebAssembly binary".into()));
        }
        Ok(())
    }

    /// The value of the argument `key` (`k=v` in the arguments), if given.
    pub fn arg(&self, key: &str) -> Option<&str> {
        self.args
            .split(',')
            .filter_map(|p| p.split_once('='))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_parse() {
        let s = CoprocessorSpec::parse("file:///m/a.wasm|1001|k=v, write=t1;t2").unwrap();
        assert_eq!(s.path, std::path::Path::new("/m/a.wasm"));
        assert_eq!(s.priority, 1001);
        assert_eq!(s.arg("write"), Some("t1;t2"));
        assert_eq!(s.arg("k"), Some("v"));
        let hbase = CoprocessorSpec::parse("file:///m/a.wasm|org.Ignored|7|").unwrap();
        assert_eq!((hbase.priority, hbase.args.as_str()), (7, ""));
        assert_eq!(
            CoprocessorSpec::parse("file:///m/a.wasm").unwrap().priority,
            PRIORITY_USER
        );
    }

    #[test]
    fn what_cannot_run_is_refused_by_name() {
        for (value, says) in [
            ("hdfs:///c.jar|org.example.Observer|1001|", "Java"),
            ("/m/a.wasm|1", "file://"),
            ("file://m/a.wasm|1", "absolute"),
            ("file:///m/a.so|1", ".wasm"),
            ("file:///m/a.wasm|high", "priority"),
            ("a|b|c|d|e", "four"),
        ] {
            let err = CoprocessorSpec::parse(value).unwrap_err().to_string();
            assert!(err.contains(says), "{value}: {err}");
        }
    }
}
