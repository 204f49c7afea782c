//! The shell's key functions (issue 34): the composite-key helpers of
//! `basalt_common::keys`, callable where a value goes (`put 't', key_long(5), ...`).

use basalt_common::keys;

use crate::syntax::Value;

/// The functions, with their usage, for `help`.
pub const FUNCTIONS: &[(&str, &str)] = &[
    (
        "key_long(n)",
        "eight big-endian bytes (HBase's Bytes.toBytes(long))",
    ),
    ("key_int(n)", "four big-endian bytes"),
    (
        "key_reverse_ts(ms)",
        "Long.MAX_VALUE - ms, eight bytes: newest first",
    ),
    ("key_md5('part')", "the part's MD5, sixteen bytes"),
    (
        "key_fixed('part', width)",
        "the part padded with zero bytes to width",
    ),
    (
        "key_concat(a, b, ...)",
        "the parts one after another, no delimiter",
    ),
    (
        "key_split(key, [w1, w2, 0])",
        "the parts of a key by width (0: the rest)",
    ),
    ("key_to_long(bytes)", "the number key_long wrote"),
    (
        "key_from_reverse_ts(bytes)",
        "the time key_reverse_ts wrote",
    ),
];

fn bytes(name: &str, v: &Value) -> Result<Vec<u8>, String> {
    match v {
        Value::Str(b) => Ok(b.clone()),
        Value::Const(c) => Ok(c.clone().into_bytes()),
        other => Err(format!(
            "{name}: expected a string, got {}",
            other.inspect()
        )),
    }
}

fn int(name: &str, v: &Value) -> Result<i64, String> {
    match v {
        Value::Int(n) => Ok(*n),
        other => Err(format!(
            "{name}: expected an integer, got {}",
            other.inspect()
        )),
    }
}

fn arity(name: &str, args: &[Value], n: usize) -> Result<(), String> {
    if args.len() == n {
        Ok(())
    } else {
        Err(format!(
            "wrong number of arguments (given {}, expected {n}) for {name}",
            args.len()
        ))
    }
}

/// Calls function `name` on `args` (already resolved).
pub fn call(name: &str, args: &[Value]) -> Result<Value, String> {
    let e = |e: basalt_common::Error| format!("{name}: {e}");
    let one = |args: &[Value]| arity(name, args, 1);
    Ok(match name {
        "key_long" => {
            one(args)?;
            Value::Str(keys::long(int(name, &args[0])?).to_vec())
        }
        "key_int" => {
            one(args)?;
            let n = i32::try_from(int(name, &args[0])?)
                .map_err(|_| format!("{name}: the number does not fit four bytes"))?;
            Value::Str(keys::int(n).to_vec())
        }
        "key_reverse_ts" => {
            one(args)?;
            Value::Str(keys::reversed_timestamp(int(name, &args[0])?).to_vec())
        }
        "key_md5" => {
            one(args)?;
            Value::Str(keys::md5(&bytes(name, &args[0])?).to_vec())
        }
        "key_fixed" => {
            arity(name, args, 2)?;
            let width = usize::try_from(int(name, &args[1])?)
                .map_err(|_| format!("{name}: a width is not negative"))?;
            Value::Str(keys::fixed(&bytes(name, &args[0])?, width).map_err(e)?)
        }
        "key_concat" => Value::Str(
            args.iter()
                .map(|a| bytes(name, a))
                .collect::<Result<Vec<_>, _>>()?
                .concat(),
        ),
        "key_split" => {
            arity(name, args, 2)?;
            let key = bytes(name, &args[0])?;
            let Value::Array(ws) = &args[1] else {
                return Err(format!("{name}: the widths are an array, [8, 16, 0]"));
            };
            let widths = ws
                .iter()
                .map(|w| usize::try_from(int(name, w)?).map_err(|_| format!("{name}: bad width")))
                .collect::<Result<Vec<_>, _>>()?;
            let parts = keys::split_fixed(&key, &widths).map_err(e)?;
            Value::Array(parts.into_iter().map(|p| Value::Str(p.to_vec())).collect())
        }
        "key_to_long" => {
            one(args)?;
            Value::Int(keys::to_long(&bytes(name, &args[0])?).map_err(e)?)
        }
        "key_from_reverse_ts" => {
            one(args)?;
            Value::Int(keys::timestamp_from_reversed(&bytes(name, &args[0])?).map_err(e)?)
        }
        other => {
            return Err(format!(
                "undefined method `{other}' for main:Object (key functions: {})",
                FUNCTIONS
                    .iter()
                    .map(|(f, _)| f.split('(').next().unwrap_or(f))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    })
}
