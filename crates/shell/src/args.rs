//! Reading a command's arguments: positional values, then an optional trailing hash of
//! options, with errors that name the argument.

use basalt_client::{Bytes, TableName};

use crate::syntax::Value;

/// A command's arguments, the trailing hash (if any) split off.
#[derive(Debug)]
pub(crate) struct Args<'a> {
    pub pos: &'a [Value],
    pub opts: Option<&'a [(Value, Value)]>,
}

pub(crate) type R<T> = Result<T, String>;

/// The text a hash key or value stands for.
pub(crate) fn text(v: &Value) -> Option<String> {
    match v {
        Value::Str(_) | Value::Const(_) => v.as_text(),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub(crate) fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Str(b) => Some(b.clone()),
        Value::Const(c) => Some(c.clone().into_bytes()),
        Value::Int(i) => Some(i.to_string().into_bytes()),
        _ => None,
    }
}

pub(crate) fn key_is(k: &Value, name: &str) -> bool {
    text(k).is_some_and(|t| t == name)
}

impl<'a> Args<'a> {
    /// Splits a trailing hash off `all`.
    pub fn new(all: &'a [Value]) -> Self {
        match all.split_last() {
            Some((Value::Hash(pairs), rest)) => Args {
                pos: rest,
                opts: Some(pairs),
            },
            _ => Args {
                pos: all,
                opts: None,
            },
        }
    }

    /// Every argument as given, with no hash split off.
    pub fn all(all: &'a [Value]) -> Self {
        Args {
            pos: all,
            opts: None,
        }
    }

    pub fn at_most(&self, n: usize, usage: &str) -> R<()> {
        if self.pos.len() > n {
            return Err(format!(
                "wrong number of arguments ({} for {n}); usage: {usage}",
                self.pos.len()
            ));
        }
        Ok(())
    }

    fn missing(&self, what: &str) -> String {
        format!("missing argument: {what}")
    }

    pub fn string(&self, i: usize, what: &str) -> R<String> {
        let v = self.pos.get(i).ok_or_else(|| self.missing(what))?;
        match v {
            Value::Str(b) => Ok(String::from_utf8_lossy(b).into_owned()),
            other => Err(format!("{what} must be a string, not {}", other.inspect())),
        }
    }

    pub fn opt_string(&self, i: usize, what: &str) -> R<Option<String>> {
        if i < self.pos.len() {
            self.string(i, what).map(Some)
        } else {
            Ok(None)
        }
    }

    pub fn bytes(&self, i: usize, what: &str) -> R<Bytes> {
        let v = self.pos.get(i).ok_or_else(|| self.missing(what))?;
        match v {
            Value::Str(b) => Ok(Bytes::copy_from_slice(b)),
            // Ruby's `to_s` of a number, as HBase's shell writes it.
            Value::Int(n) => Ok(Bytes::from(n.to_string())),
            other => Err(format!("{what} must be a string, not {}", other.inspect())),
        }
    }

    pub fn table(&self, i: usize) -> R<TableName> {
        let name = self.string(i, "table name")?;
        TableName::parse(&name).map_err(|e| e.to_string())
    }

    pub fn int(&self, i: usize, what: &str) -> R<Option<i64>> {
        match self.pos.get(i) {
            None | Some(Value::Nil) => Ok(None),
            Some(Value::Int(n)) => Ok(Some(*n)),
            Some(other) => Err(format!(
                "{what} must be an integer, not {}",
                other.inspect()
            )),
        }
    }

    /// The option `key` of the trailing hash.
    pub fn opt(&self, key: &str) -> Option<&'a Value> {
        self.opts?
            .iter()
            .find(|(k, _)| key_is(k, key))
            .map(|(_, v)| v)
    }

    pub fn opt_int(&self, key: &str) -> R<Option<i64>> {
        match self.opt(key) {
            None | Some(Value::Nil) => Ok(None),
            Some(Value::Int(n)) => Ok(Some(*n)),
            Some(Value::Str(s)) => String::from_utf8_lossy(s)
                .parse()
                .map(Some)
                .map_err(|_| format!("{key} must be an integer")),
            Some(other) => Err(format!("{key} must be an integer, not {}", other.inspect())),
        }
    }

    pub fn opt_bool(&self, key: &str) -> R<Option<bool>> {
        match self.opt(key) {
            None | Some(Value::Nil) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => match text(v).map(|t| t.to_ascii_lowercase()).as_deref() {
                Some("true") => Ok(Some(true)),
                Some("false") => Ok(Some(false)),
                _ => Err(format!("{key} must be true or false, not {}", v.inspect())),
            },
        }
    }

    pub fn opt_bytes(&self, key: &str) -> R<Option<Bytes>> {
        match self.opt(key) {
            None | Some(Value::Nil) => Ok(None),
            Some(v) => bytes_of(v)
                .map(|b| Some(Bytes::from(b)))
                .ok_or_else(|| format!("{key} must be a string, not {}", v.inspect())),
        }
    }

    pub fn opt_text(&self, key: &str) -> R<Option<String>> {
        Ok(self
            .opt_bytes(key)?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// `[a, b]` of two integers (TIMERANGE).
    pub fn opt_pair(&self, key: &str) -> R<Option<(i64, i64)>> {
        match self.opt(key) {
            None | Some(Value::Nil) => Ok(None),
            Some(Value::Array(items)) => match items.as_slice() {
                [Value::Int(a), Value::Int(b)] => Ok(Some((*a, *b))),
                _ => Err(format!("{key} must be [min, max] of two integers")),
            },
            Some(other) => Err(format!("{key} must be [min, max], not {}", other.inspect())),
        }
    }

    /// A string or an array of strings (COLUMNS), as byte strings.
    pub fn opt_list(&self, key: &str) -> R<Option<Vec<Vec<u8>>>> {
        match self.opt(key) {
            None | Some(Value::Nil) => Ok(None),
            Some(v) => list(v)
                .map(Some)
                .ok_or_else(|| format!("{key} must be a string or an array of strings")),
        }
    }

    /// Keys of the trailing hash that are not in `known`, to refuse typos.
    pub fn unknown_options(&self, known: &[&str]) -> R<()> {
        for (k, _) in self.opts.unwrap_or_default() {
            let name = text(k).unwrap_or_default();
            if !known.contains(&name.as_str()) {
                return Err(format!("unknown option {name}"));
            }
        }
        Ok(())
    }
}

/// The `i`th argument, `true` or `false`; `what` names it in errors.
pub(crate) fn bool_at(args: &[Value], i: usize, what: &str) -> R<bool> {
    match args.get(i) {
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!(
            "{what} must be true or false, not {}",
            other.inspect()
        )),
        None => Err(format!("missing argument: {what} (true or false)")),
    }
}

/// A string, or an array of strings.
pub(crate) fn list(v: &Value) -> Option<Vec<Vec<u8>>> {
    match v {
        Value::Array(items) => items.iter().map(bytes_of).collect(),
        other => bytes_of(other).map(|b| vec![b]),
    }
}
