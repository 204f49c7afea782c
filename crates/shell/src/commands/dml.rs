//! dml: put, get, scan, delete, deleteall, incr, get_counter, append, count, get_splits,
//! truncate.

use super::*;
use std::sync::Arc;

pub(super) fn put(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(5, "put 't1', 'r1', 'cf:q', 'value' [, ts] [, {TTL => ms}]")?;
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let value = a.bytes(3, "value")?;
    let mut p = Put::new(row);
    p = match a.int(4, "timestamp")? {
        Some(ts) => p.add_column_at(family, qualifier.unwrap_or_default(), ts, value),
        None => p.add_column(family, qualifier.unwrap_or_default(), value),
    };
    if let Some(ttl) = a.opt_int("TTL")? {
        p = p.with_ttl_ms(u64::try_from(ttl).map_err(|_| "TTL must not be negative")?);
    }
    client(shell, args, shell.client.put(&table, &p))?;
    Ok(None)
}

/// Columns of a get or scan, and the converters named in them.
type Converters = Vec<(Bytes, Bytes, String)>;

fn converter<'c>(converters: &'c Converters, family: &[u8], qualifier: &[u8]) -> Option<&'c str> {
    converters
        .iter()
        .find(|(f, q, _)| f[..] == *family && q[..] == *qualifier)
        .map(|(_, _, c)| c.as_str())
}

/// What `get` and `scan` take alike (columns with their converters, TIMESTAMP, TIMERANGE,
/// VERSIONS, FILTER), applied to a Get or a Scan: the two share these builder methods.
macro_rules! select {
    ($query:expr, $a:expr, $columns:expr, $converters:expr) => {{
        let mut q = $query;
        for c in $columns {
            let (family, qualifier, conv) = parse_column(&c);
            q = match qualifier {
                Some(qual) => {
                    if let Some(conv) = conv {
                        $converters.push((family.clone(), qual.clone(), conv));
                    }
                    q.add_column(family, qual)
                }
                None => q.add_family(family),
            };
        }
        if let Some(ts) = $a.opt_int("TIMESTAMP")? {
            q = q.with_timestamp(ts);
        }
        if let Some((min, max)) = $a.opt_pair("TIMERANGE")? {
            q = q.with_time_range(min, max);
        }
        if let Some(v) = $a.opt_int("VERSIONS")? {
            q = q.read_versions(u32::try_from(v).map_err(|_| "VERSIONS must be positive")?);
        }
        if let Some(filter) = $a.opt_text("FILTER")? {
            q = q.with_filter(parse_filter(&filter).map_err(|e| e.to_string())?);
        }
        q
    }};
}

pub(super) fn get(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let table = Args::new(args).table(0)?;
    let row = Args::new(args).bytes(1, "row")?;
    // After the row: column names, an array of them, or an options hash.
    let rest = &args[2.min(args.len())..];
    let a = Args::new(rest);
    let mut columns: Vec<Vec<u8>> = Vec::new();
    for v in a.pos {
        columns.extend(list(v).ok_or_else(|| format!("bad column {}", v.inspect()))?);
    }
    a.unknown_options(&[
        "COLUMN",
        "COLUMNS",
        "TIMESTAMP",
        "TIMERANGE",
        "VERSIONS",
        "FILTER",
        "MAXLENGTH",
        "ATTRIBUTES",
        "AUTHORIZATIONS",
        "CONSISTENCY",
        "REGION_REPLICA_ID",
        "FORMATTER",
        "FORMATTER_CLASS",
    ])?;
    if let Some(c) = a.opt_list("COLUMN")?.or(a.opt_list("COLUMNS")?) {
        columns.extend(c);
    }
    let mut converters = Converters::new();
    let g = select!(Get::new(row), a, columns, converters);
    let maxlength = a.opt_int("MAXLENGTH")?;
    let result = client(shell, args, shell.client.get(&table, &g))?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["COLUMN", "CELL"]).map_err(io)?;
    for cell in &result.cells {
        let column = format!("{}:{}", binary(cell.family()), binary(cell.qualifier()));
        let conv = converter(&converters, cell.family(), cell.qualifier());
        let text = clip(
            cell_text(cell, shell.options.epoch_timestamps, conv),
            maxlength,
        );
        f.row2(out, &column, &text).map_err(io)?;
    }
    f.footer(out, Some(usize::from(!result.cells.is_empty())))
        .map_err(io)?;
    Ok(None)
}

fn clip(text: String, maxlength: Option<i64>) -> String {
    match maxlength.and_then(|m| usize::try_from(m).ok()) {
        Some(m) => text.chars().take(m).collect(),
        None => text,
    }
}

/// The scan an options hash asks for, and its converters.
fn scan_of(a: &Args<'_>, also: &[&str]) -> R<(Scan, Converters)> {
    let known = [
        "COLUMNS",
        "COLUMN",
        "STARTROW",
        "STOPROW",
        "ROWPREFIXFILTER",
        "LIMIT",
        "TIMESTAMP",
        "TIMERANGE",
        "VERSIONS",
        "RAW",
        "REVERSED",
        "FILTER",
        "CACHE",
        "CACHE_BLOCKS",
        "BATCH",
        "MAX_RESULT_SIZE",
        "ALLOW_PARTIAL_RESULTS",
        "ISOLATION_LEVEL",
        "READ_TYPE",
        "CONSISTENCY",
        "REGION_REPLICA_ID",
        "ALL_METRICS",
        "METRICS",
        "FORMATTER",
        "FORMATTER_CLASS",
        "MAXLENGTH",
        "ATTRIBUTES",
        "AUTHORIZATIONS",
    ];
    a.unknown_options(&[&known[..], also].concat())?;
    let mut s = Scan::new();
    if let Some(start) = a.opt_bytes("STARTROW")? {
        s = s.with_start_row(start);
    }
    if let Some(stop) = a.opt_bytes("STOPROW")? {
        s = s.with_stop_row(stop);
    }
    if let Some(prefix) = a.opt_bytes("ROWPREFIXFILTER")? {
        s = s.with_row_prefix(prefix);
    }
    let mut converters = Converters::new();
    let columns = a
        .opt_list("COLUMNS")?
        .or(a.opt_list("COLUMN")?)
        .unwrap_or_default();
    s = select!(s, a, columns, converters);
    if let Some(limit) = a.opt_int("LIMIT")?
        && limit > 0
    {
        s = s.with_limit(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    if let Some(batch) = a.opt_int("BATCH")?
        && batch > 0
    {
        s = s.with_batch(usize::try_from(batch).unwrap_or(usize::MAX));
    }
    if let Some(cache) = a.opt_int("CACHE")?
        && cache > 0
    {
        s = s.with_caching(usize::try_from(cache).unwrap_or(usize::MAX));
    }
    if let Some(size) = a.opt_int("MAX_RESULT_SIZE")?
        && size > 0
    {
        s = s.with_max_result_size(u64::try_from(size).unwrap_or(u64::MAX));
    }
    s = s
        .raw(a.opt_bool("RAW")?.unwrap_or(false))
        .reversed(a.opt_bool("REVERSED")?.unwrap_or(false))
        .with_cache_blocks(a.opt_bool("CACHE_BLOCKS")?.unwrap_or(true))
        .with_allow_partial_results(a.opt_bool("ALLOW_PARTIAL_RESULTS")?.unwrap_or(false));
    s.validate().map_err(|e| e.to_string())?;
    Ok((s, converters))
}

pub(super) fn scan(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(1, "scan 't1' [, {OPTIONS}]")?;
    let table = a.table(0)?;
    let (s, converters) = scan_of(&a, &[])?;
    let maxlength = a.opt_int("MAXLENGTH")?;
    let epoch = shell.options.epoch_timestamps;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["ROW", "COLUMN+CELL"]).map_err(io)?;
    let rows = client(shell, args, Arc::clone(&shell.client).scan(&table, &s))?;
    // Each result counts, as in HBase: a row cut into batches counts once per batch.
    let mut count = 0usize;
    for row in rows {
        let row: RowResult = row.map_err(|e| hbase_error(shell, e, &first_text(args)))?;
        count += 1;
        for cell in &row.cells {
            let conv = converter(&converters, cell.family(), cell.qualifier());
            // MAXLENGTH cuts the cell's text, after the column.
            let text = format!(
                "column={}:{}, {}",
                binary(cell.family()),
                binary(cell.qualifier()),
                clip(cell_text(cell, epoch, conv), maxlength)
            );
            f.row2(out, &binary(&row.row), &text).map_err(io)?;
        }
    }
    f.footer(out, Some(count)).map_err(io)?;
    Ok(None)
}

pub(super) fn delete(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(4, "delete 't1', 'r1', 'cf:q' [, ts]")?;
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let ts = a.int(3, "timestamp")?;
    let d = match (qualifier, ts) {
        (Some(q), Some(ts)) => Delete::new(row).add_column_at(family, q, ts),
        (Some(q), None) => Delete::new(row).add_column(family, q),
        // A family alone deletes every column at exactly that time (DeleteFamilyVersion).
        (None, ts) => Delete::new(row)
            .add_family_version(family, ts.unwrap_or(basalt_client::LATEST_TIMESTAMP)),
    };
    client(shell, args, shell.client.delete(&table, &d))?;
    Ok(None)
}

pub(super) fn deleteall(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let table = Args::new(args).table(0)?;
    // `deleteall 't', {ROWPREFIXFILTER => 'p'} [, column [, ts]]`
    if let Some(Value::Hash(pairs)) = args.get(1) {
        let opts = Args {
            pos: &[],
            opts: Some(pairs),
        };
        let prefix = opts
            .opt_bytes("ROWPREFIXFILTER")?
            .ok_or("deleteall with a hash needs ROWPREFIXFILTER")?;
        let rest = Args::all(&args[2..]);
        let column = rest.opt_string(0, "column")?;
        let ts = rest.int(1, "timestamp")?;
        let s = Scan::new()
            .with_row_prefix(prefix)
            .with_filter(parse_filter("KeyOnlyFilter()").map_err(|e| e.to_string())?);
        let rows: Vec<Bytes> = client(shell, args, Arc::clone(&shell.client).scan(&table, &s))?
            .map(|r| r.map(|r| r.row))
            .collect::<basalt_client::Result<_>>()
            .map_err(|e| e.to_string())?;
        for row in rows {
            let d = delete_all(row, column.as_deref().map(str::as_bytes), ts);
            client(shell, args, shell.client.delete(&table, &d))?;
        }
        let _ = out;
        return Ok(None);
    }
    let a = Args::new(args);
    a.at_most(4, "deleteall 't1', 'r1' [, 'cf:q'] [, ts]")?;
    let row = a.bytes(1, "row")?;
    let column = a.opt_string(2, "column")?;
    let ts = a.int(3, "timestamp")?;
    let d = delete_all(row, column.as_deref().map(str::as_bytes), ts);
    client(shell, args, shell.client.delete(&table, &d))?;
    Ok(None)
}

/// Every version (up to `ts`) of a row, a family or a column.
fn delete_all(row: Bytes, column: Option<&[u8]>, ts: Option<i64>) -> Delete {
    let mut d = Delete::new(row);
    if let Some(ts) = ts
        && column.is_none_or(<[u8]>::is_empty)
    {
        d = d.with_timestamp(ts);
    }
    match column.filter(|c| !c.is_empty()).map(parse_column) {
        None => d,
        Some((family, None, _)) => match ts {
            Some(ts) => d.add_family_at(family, ts),
            None => d.add_family(family),
        },
        Some((family, Some(q), _)) => match ts {
            Some(ts) => d.add_columns_at(family, q, ts),
            None => d.add_columns(family, q),
        },
    }
}

pub(super) fn incr(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(4, "incr 't1', 'r1', 'cf:q' [, amount]")?;
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let by = a.int(3, "amount")?.unwrap_or(1);
    let inc = Increment::new(row).add_column(family, qualifier.unwrap_or_default(), by);
    let result = client(shell, args, shell.client.increment(&table, &inc))?;
    let value = result
        .cells
        .first()
        .and_then(|c| <[u8; 8]>::try_from(c.value()).ok())
        .map(i64::from_be_bytes)
        .ok_or("the increment returned no counter")?;
    w!(out, "COUNTER VALUE = {value}");
    Ok(None)
}

pub(super) fn get_counter(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let g = Get::new(row).add_column(family, qualifier.unwrap_or_default());
    let result = client(shell, args, shell.client.get(&table, &g))?;
    match result.cells.first() {
        None => w!(out, "No counter found at specified coordinates"),
        Some(cell) => {
            let value = <[u8; 8]>::try_from(cell.value()).map_err(|_| {
                format!(
                    "the cell holds {} bytes, not an 8-byte counter",
                    cell.value().len()
                )
            })?;
            w!(out, "COUNTER VALUE = {}", i64::from_be_bytes(value));
        }
    }
    Ok(None)
}

pub(super) fn append(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(4, "append 't1', 'r1', 'cf:q', 'value'")?;
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let value = a.bytes(3, "value")?;
    let app = Append::new(row).add_column(family, qualifier.unwrap_or_default(), value);
    let result = client(shell, args, shell.client.append(&table, &app))?;
    let current = result.cells.first().map(|c| binary(c.value()));
    w!(out, "CURRENT VALUE = {}", current.unwrap_or_default());
    Ok(None)
}

pub(super) fn count(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(1, "count 't1' [, {INTERVAL => 1000}]")?;
    let table = a.table(0)?;
    let interval = a.opt_int("INTERVAL")?.unwrap_or(1000).max(1);
    let interval = usize::try_from(interval).unwrap_or(usize::MAX);
    let (mut s, _) = scan_of(&a, &["INTERVAL"])?;
    if s.filter.is_none() {
        s = s.with_filter(
            parse_filter("FirstKeyOnlyFilter() AND KeyOnlyFilter()").map_err(|e| e.to_string())?,
        );
    }
    let mut n = 0usize;
    for row in client(shell, args, Arc::clone(&shell.client).scan(&table, &s))? {
        let row = row.map_err(|e| hbase_error(shell, e, &first_text(args)))?;
        n += 1;
        if n.is_multiple_of(interval) {
            w!(out, "Current count: {n}, row: {}", binary(&row.row));
        }
    }
    w!(out, "{n} row(s)");
    Ok(Some(Returned::Value(Value::Int(
        i64::try_from(n).unwrap_or(i64::MAX),
    ))))
}

/// `aggregate 't1', 'f:q', 'SUM'`: HBase's aggregation endpoint, each region computing its
/// part where it is served (docs/design/aggregation.md).
pub(super) fn aggregate(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    use basalt_client::aggregate::{Aggregation, Interpreter, Number};
    let a = Args::new(args);
    a.at_most(
        3,
        "aggregate 't1', 'f:q', 'SUM' [, {INTERPRETER => 'DOUBLE', WEIGHT => 'f:w', \
         STARTROW => ..., STOPROW => ..., FILTER => ...}]",
    )?;
    let table = a.table(0)?;
    let column = a.bytes(1, "column")?;
    let what = Aggregation::from_name(&a.string(2, "aggregation")?).map_err(|e| e.to_string())?;
    let interpreter = match a.opt_text("INTERPRETER")?.as_deref() {
        None => Interpreter::Long,
        Some(i) if i.eq_ignore_ascii_case("long") => Interpreter::Long,
        Some(i) if i.eq_ignore_ascii_case("double") => Interpreter::Double,
        Some(i) => Interpreter::from_class(i).map_err(|e| e.to_string())?,
    };
    let (mut scan, _) = scan_of(&a, &["INTERPRETER", "WEIGHT"])?;
    if !scan.families.is_empty() {
        return Err("aggregate reads the column it names; give no COLUMNS".into());
    }
    scan = match parse_column(&column) {
        (family, None, _) => scan.add_family(family),
        (family, Some(q), _) => scan.add_column(family, q),
    };
    if let Some(weight) = a.opt_bytes("WEIGHT")? {
        match parse_column(&weight) {
            (family, Some(q), _) if scan.families.contains_key(&family) => {
                scan = scan.add_column(family, q);
            }
            _ => return Err("WEIGHT is a column of the aggregated column's family".into()),
        }
    }
    let value = client(
        shell,
        args,
        Arc::clone(&shell.client).aggregate(&table, &scan, interpreter, what),
    )?;
    Ok(Some(Returned::Value(match value {
        None => {
            w!(out, "nil");
            Value::Nil
        }
        Some(Number::Long(v)) => {
            w!(out, "{v}");
            Value::Int(v)
        }
        Some(Number::Double(v)) => {
            w!(out, "{v}");
            Value::Float(v)
        }
    })))
}

pub(super) fn get_splits(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let table = Args::new(args).table(0)?;
    let regions = client(shell, args, shell.client.regions(&table))?;
    let splits: Vec<String> = regions
        .iter()
        .map(|r| binary(&r.start_key))
        .filter(|k| !k.is_empty())
        .collect();
    w!(out, "Total number of splits = {}", splits.len() + 1);
    if splits.is_empty() {
        // Ruby's `puts []` prints an empty line.
        w!(out);
    }
    for s in &splits {
        w!(out, "{s}");
    }
    Ok(Some(names_list(&splits)))
}

fn truncate_table(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    keep: bool,
) -> CommandResult {
    let table = Args::new(args).table(0)?;
    w!(out, "Truncating '{table}' table (it may take a while):");
    if client(shell, args, shell.client.is_table_enabled(&table))? {
        w!(out, "Disabling table...");
        client(shell, args, shell.client.disable_table(&table))?;
    }
    w!(out, "Truncating table...");
    client(shell, args, shell.client.truncate_table(&table, keep))?;
    Ok(None)
}

pub(super) fn truncate(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    truncate_table(shell, args, out, false)
}

pub(super) fn truncate_preserve(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    truncate_table(shell, args, out, true)
}
