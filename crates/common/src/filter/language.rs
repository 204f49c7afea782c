//! HBase's filter language (`ParseFilter`): the strings of the shell's `FILTER => "..."`,
//! Thrift's `filterString` and REST's `filter=`, tokenized and parsed into [`FilterSpec`]s.

use bytes::Bytes;

use super::{Comparator, FilterSpec};
use crate::error::{Error, Result};
use crate::ops::CompareOperator;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    Comma,
    Quoted(Vec<u8>),
    Word(String),
}

/// Tokens with their byte offsets.
fn tokenize(input: &[u8]) -> Result<Vec<(usize, Token)>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let c = input[i];
        match c {
            b' ' | b'\t' => i += 1,
            b'(' => {
                out.push((i, Token::Open));
                i += 1;
            }
            b')' => {
                out.push((i, Token::Close));
                i += 1;
            }
            b',' => {
                out.push((i, Token::Comma));
                i += 1;
            }
            b'\'' => {
                let start = i;
                i += 1;
                let mut value = Vec::new();
                loop {
                    match input.get(i) {
                        None => {
                            return Err(syntax(start, "a closing quote for the quoted argument"));
                        }
                        Some(b'\'') if input.get(i + 1) == Some(&b'\'') => {
                            value.push(b'\'');
                            i += 2;
                        }
                        Some(b'\'') => {
                            i += 1;
                            break;
                        }
                        Some(&b) => {
                            value.push(b);
                            i += 1;
                        }
                    }
                }
                out.push((start, Token::Quoted(value)));
            }
            _ => {
                let start = i;
                while i < input.len()
                    && !matches!(input[i], b' ' | b'\t' | b'(' | b')' | b',' | b'\'')
                {
                    i += 1;
                }
                let word = String::from_utf8(input[start..i].to_vec())
                    .map_err(|_| syntax(start, "a word in UTF-8"))?;
                out.push((start, Token::Word(word)));
            }
        }
    }
    Ok(out)
}

fn syntax(at: usize, expected: &str) -> Error {
    Error::InvalidArgument(format!(
        "Incorrect Filter String: at position {at}, expected {expected}"
    ))
}

struct Parser {
    tokens: Vec<(usize, Token)>,
    pos: usize,
    len: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(_, t)| t)
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.len, |(at, _)| *at)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).map(|(_, t)| t.clone());
        self.pos += 1;
        t
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w == word)
    }

    /// orExpr := andExpr ("OR" andExpr)*
    fn or_expr(&mut self) -> Result<FilterSpec> {
        let first = self.and_expr()?;
        if !self.is_word("OR") {
            return Ok(first);
        }
        let mut filters = vec![first];
        while self.is_word("OR") {
            self.pos += 1;
            filters.push(self.and_expr()?);
        }
        Ok(FilterSpec::List {
            must_pass_all: false,
            filters,
        })
    }

    /// andExpr := unary ("AND" unary)*
    fn and_expr(&mut self) -> Result<FilterSpec> {
        let first = self.unary()?;
        if !self.is_word("AND") {
            return Ok(first);
        }
        let mut filters = vec![first];
        while self.is_word("AND") {
            self.pos += 1;
            filters.push(self.unary()?);
        }
        Ok(FilterSpec::List {
            must_pass_all: true,
            filters,
        })
    }

    /// unary := ("SKIP" | "WHILE") unary | primary
    fn unary(&mut self) -> Result<FilterSpec> {
        if self.is_word("SKIP") {
            self.pos += 1;
            return Ok(FilterSpec::Skip(Box::new(self.unary()?)));
        }
        if self.is_word("WHILE") {
            self.pos += 1;
            return Ok(FilterSpec::WhileMatch(Box::new(self.unary()?)));
        }
        self.primary()
    }

    /// primary := "(" filter ")" | name "(" args ")"
    fn primary(&mut self) -> Result<FilterSpec> {
        let at = self.offset();
        match self.next() {
            Some(Token::Open) => {
                let inner = self.or_expr()?;
                match self.next() {
                    Some(Token::Close) => Ok(inner),
                    _ => Err(Error::InvalidArgument(format!(
                        "Mismatched parenthesis: the one at position {at} is not closed"
                    ))),
                }
            }
            Some(Token::Word(name)) => {
                let args_at = self.offset();
                if self.next() != Some(Token::Open) {
                    return Err(syntax(args_at, &format!("'(' and the arguments of {name}")));
                }
                let mut args = Vec::new();
                if self.peek() == Some(&Token::Close) {
                    self.pos += 1;
                } else {
                    loop {
                        let arg_at = self.offset();
                        match self.next() {
                            Some(Token::Quoted(v)) => args.push((arg_at, Arg::Quoted(v))),
                            Some(Token::Word(w)) => args.push((arg_at, Arg::Bare(w))),
                            _ => return Err(syntax(arg_at, "an argument")),
                        }
                        let sep_at = self.offset();
                        match self.next() {
                            Some(Token::Comma) => {}
                            Some(Token::Close) => break,
                            _ => return Err(syntax(sep_at, "',' or ')' in the argument list")),
                        }
                    }
                }
                build(&name, at, &args)
            }
            _ => Err(syntax(at, "a filter name, '(', SKIP or WHILE")),
        }
    }
}

#[derive(Debug, Clone)]
enum Arg {
    Quoted(Vec<u8>),
    Bare(String),
}

fn bad_args(name: &str, at: usize, expected: &str) -> Error {
    Error::InvalidArgument(format!(
        "Incorrect argument list for {name} at position {at}: expected {expected}"
    ))
}

struct Args<'a> {
    name: &'a str,
    at: usize,
    args: &'a [(usize, Arg)],
}

impl Args<'_> {
    fn count(&self, allowed: &[usize], expected: &str) -> Result<()> {
        if allowed.contains(&self.args.len()) {
            Ok(())
        } else {
            Err(bad_args(self.name, self.at, expected))
        }
    }

    fn bytes(&self, i: usize) -> Result<Bytes> {
        match &self.args[i] {
            (_, Arg::Quoted(v)) => Ok(Bytes::copy_from_slice(v)),
            (at, _) => Err(bad_args(self.name, *at, "a quoted string")),
        }
    }

    fn bare(&self, i: usize, what: &str) -> Result<&str> {
        match &self.args[i] {
            (_, Arg::Bare(w)) => Ok(w),
            (at, _) => Err(bad_args(self.name, *at, what)),
        }
    }

    fn int<T: std::str::FromStr>(&self, i: usize) -> Result<T> {
        let at = self.args[i].0;
        self.bare(i, "a number")?
            .parse()
            .map_err(|_| bad_args(self.name, at, "a number"))
    }

    fn boolean(&self, i: usize) -> Result<bool> {
        let at = self.args[i].0;
        match self.bare(i, "true or false")?.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad_args(self.name, at, "true or false")),
        }
    }

    fn op(&self, i: usize) -> Result<CompareOperator> {
        let at = self.args[i].0;
        let w = self.bare(i, "a compare operator (<, <=, =, !=, >=, >)")?;
        match w {
            "<" | "<=" | "=" | "!=" | ">=" | ">" => w.parse(),
            _ => Err(Error::InvalidArgument(format!(
                "Invalid compare operator {w:?} at position {at}"
            ))),
        }
    }

    /// A quoted `type:value` comparator, checked against the operator it goes with.
    fn comparator(&self, i: usize, op: CompareOperator) -> Result<Comparator> {
        let at = self.args[i].0;
        let raw = self.bytes(i)?;
        let colon = raw
            .iter()
            .position(|&b| b == b':')
            .ok_or_else(|| bad_args(self.name, at, "a comparator 'type:value'"))?;
        let (kind, value) = (&raw[..colon], raw.slice(colon + 1..));
        let text = || {
            String::from_utf8(value.to_vec()).map_err(|_| {
                Error::InvalidArgument(format!("the comparator at position {at} is not UTF-8 text"))
            })
        };
        let comparator = match kind {
            b"binary" => Comparator::Binary(value.clone()),
            b"binaryprefix" => Comparator::BinaryPrefix(value.clone()),
            b"regexstring" => Comparator::RegexString(text()?),
            b"substring" => Comparator::Substring(text()?),
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "Incorrect comparatorType {:?} at position {at}: binary, binaryprefix, \
                     regexstring or substring",
                    String::from_utf8_lossy(kind)
                )));
            }
        };
        if matches!(
            comparator,
            Comparator::RegexString(_) | Comparator::Substring(_)
        ) && !matches!(op, CompareOperator::Equal | CompareOperator::NotEqual)
        {
            return Err(Error::InvalidArgument(format!(
                "A regexstring comparator and substring comparator can only be used with \
                 EQUAL and NOT_EQUAL (position {at})"
            )));
        }
        Ok(comparator)
    }
}

/// Builds a named filter from its arguments, as `ParseFilter` does.
fn build(name: &str, at: usize, args: &[(usize, Arg)]) -> Result<FilterSpec> {
    let a = Args { name, at, args };
    let compare = |make: fn(CompareOperator, Comparator) -> FilterSpec| -> Result<FilterSpec> {
        a.count(&[2], "(compare operator, 'comparator')")?;
        let op = a.op(0)?;
        Ok(make(op, a.comparator(1, op)?))
    };
    Ok(match name {
        "KeyOnlyFilter" => {
            a.count(&[0, 1], "() or (lenAsVal)")?;
            FilterSpec::KeyOnly {
                len_as_value: args.len() == 1 && a.boolean(0)?,
            }
        }
        "FirstKeyOnlyFilter" => {
            a.count(&[0], "no arguments")?;
            FilterSpec::FirstKeyOnly
        }
        "PrefixFilter" => {
            a.count(&[1], "('prefix')")?;
            FilterSpec::Prefix(a.bytes(0)?)
        }
        "ColumnPrefixFilter" => {
            a.count(&[1], "('prefix')")?;
            FilterSpec::ColumnPrefix(a.bytes(0)?)
        }
        "MultipleColumnPrefixFilter" => {
            if args.is_empty() {
                return Err(bad_args(name, at, "('prefix', ...)"));
            }
            FilterSpec::MultipleColumnPrefix(
                (0..args.len()).map(|i| a.bytes(i)).collect::<Result<_>>()?,
            )
        }
        "ColumnCountGetFilter" => {
            a.count(&[1], "(limit)")?;
            FilterSpec::ColumnCountGet(a.int(0)?)
        }
        "PageFilter" => {
            a.count(&[1], "(pageSize)")?;
            FilterSpec::Page(a.int(0)?)
        }
        "ColumnPaginationFilter" => {
            a.count(&[2], "(limit, offset)")?;
            FilterSpec::ColumnPagination {
                limit: a.int(0)?,
                offset: a.int(1)?,
                column_offset: None,
            }
        }
        "InclusiveStopFilter" => {
            a.count(&[1], "('stoprow')")?;
            FilterSpec::InclusiveStop(a.bytes(0)?)
        }
        "TimestampsFilter" => {
            FilterSpec::Timestamps((0..args.len()).map(|i| a.int(i)).collect::<Result<_>>()?)
        }
        "RowFilter" => compare(FilterSpec::Row)?,
        "FamilyFilter" => compare(FilterSpec::Family)?,
        "QualifierFilter" => compare(FilterSpec::Qualifier)?,
        "ValueFilter" => compare(FilterSpec::Value)?,
        "ColumnRangeFilter" => {
            a.count(&[4], "('min', minInclusive, 'max', maxInclusive)")?;
            FilterSpec::ColumnRange {
                min: a.bytes(0)?,
                min_inclusive: a.boolean(1)?,
                max: a.bytes(2)?,
                max_inclusive: a.boolean(3)?,
            }
        }
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            a.count(
                &[4, 6],
                "('family', 'qualifier', operator, 'comparator'[, filterIfMissing, latestVersionOnly])",
            )?;
            let op = a.op(2)?;
            FilterSpec::SingleColumnValue {
                family: a.bytes(0)?,
                qualifier: a.bytes(1)?,
                op,
                comparator: a.comparator(3, op)?,
                filter_if_missing: args.len() == 6 && a.boolean(4)?,
                latest_version_only: args.len() != 6 || a.boolean(5)?,
                exclude: name == "SingleColumnValueExcludeFilter",
            }
        }
        "DependentColumnFilter" => {
            a.count(
                &[2, 3, 5],
                "('family', 'qualifier'[, dropDependentColumn[, operator, 'comparator']])",
            )?;
            let compare = if args.len() == 5 {
                let op = a.op(3)?;
                Some((op, a.comparator(4, op)?))
            } else {
                None
            };
            FilterSpec::DependentColumn {
                family: a.bytes(0)?,
                qualifier: a.bytes(1)?,
                drop_dependent: args.len() >= 3 && a.boolean(2)?,
                compare,
            }
        }
        "ColumnValueFilter" => {
            a.count(&[4], "('family', 'qualifier', operator, 'comparator')")?;
            let op = a.op(2)?;
            FilterSpec::ColumnValue {
                family: a.bytes(0)?,
                qualifier: a.bytes(1)?,
                op,
                comparator: a.comparator(3, op)?,
            }
        }
        other => {
            return Err(Error::InvalidArgument(format!(
                "Filter Name {other} not supported (position {at})"
            )));
        }
    })
}

/// Parses a filter string of HBase's filter language. Precedence: SKIP and WHILE bind
/// tightest, then AND, then OR; parentheses group. A malformed string gives an error naming
/// the position and what was expected.
pub fn parse_filter(input: &str) -> Result<FilterSpec> {
    let bytes = input.as_bytes();
    let mut p = Parser {
        tokens: tokenize(bytes)?,
        pos: 0,
        len: bytes.len(),
    };
    if p.tokens.is_empty() {
        return Err(syntax(0, "a filter"));
    }
    let spec = p.or_expr()?;
    if p.pos < p.tokens.len() {
        let at = p.offset();
        return Err(if p.peek() == Some(&Token::Close) {
            Error::InvalidArgument(format!(
                "Mismatched parenthesis: the one at position {at} was never opened"
            ))
        } else {
            syntax(at, "AND, OR or the end of the filter")
        });
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::FILTER_NAMES;

    fn ok(s: &str) -> FilterSpec {
        parse_filter(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn err(s: &str) -> String {
        match parse_filter(s) {
            Ok(f) => panic!("{s} parsed as {f:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_documented_example() {
        let f = ok(
            "(PrefixFilter ('row2') AND (QualifierFilter (>=, 'binary:xyz'))) AND (TimestampsFilter ( 123, 456))",
        );
        let inner = FilterSpec::List {
            must_pass_all: true,
            filters: vec![
                FilterSpec::Prefix(Bytes::from_static(b"row2")),
                FilterSpec::Qualifier(
                    CompareOperator::GreaterOrEqual,
                    Comparator::Binary(Bytes::from_static(b"xyz")),
                ),
            ],
        };
        assert_eq!(
            f,
            FilterSpec::List {
                must_pass_all: true,
                filters: vec![inner, FilterSpec::Timestamps(vec![123, 456])],
            }
        );
    }

    #[test]
    fn precedence_and_unary_operators() {
        let p = |s: &str| FilterSpec::Prefix(Bytes::copy_from_slice(s.as_bytes()));
        // F1 AND F2 OR F3 = (F1 AND F2) OR F3
        assert_eq!(
            ok("PrefixFilter('a') AND PrefixFilter('b') OR PrefixFilter('c')"),
            FilterSpec::List {
                must_pass_all: false,
                filters: vec![
                    FilterSpec::List {
                        must_pass_all: true,
                        filters: vec![p("a"), p("b")]
                    },
                    p("c")
                ]
            }
        );
        // F1 AND SKIP F2 OR F3 = (F1 AND (SKIP F2)) OR F3; consecutive ORs flatten.
        assert_eq!(
            ok(
                "PrefixFilter('a') AND SKIP PrefixFilter('b') OR PrefixFilter('c') OR PrefixFilter('d')"
            ),
            FilterSpec::List {
                must_pass_all: false,
                filters: vec![
                    FilterSpec::List {
                        must_pass_all: true,
                        filters: vec![p("a"), FilterSpec::Skip(Box::new(p("b")))]
                    },
                    p("c"),
                    p("d")
                ]
            }
        );
        assert_eq!(
            ok("WHILE (RowFilter(!=, 'substring:x'))"),
            FilterSpec::WhileMatch(Box::new(FilterSpec::Row(
                CompareOperator::NotEqual,
                Comparator::Substring("x".into())
            )))
        );
    }

    #[test]
    fn arguments_quotes_and_defaults() {
        assert_eq!(
            ok("ValueFilter(=, 'binary:it''s')"),
            FilterSpec::Value(
                CompareOperator::Equal,
                Comparator::Binary(Bytes::from_static(b"it's"))
            )
        );
        assert_eq!(
            ok("SingleColumnValueFilter('f', 'q', <=, 'binaryprefix:a:b')"),
            FilterSpec::SingleColumnValue {
                family: Bytes::from_static(b"f"),
                qualifier: Bytes::from_static(b"q"),
                op: CompareOperator::LessOrEqual,
                comparator: Comparator::BinaryPrefix(Bytes::from_static(b"a:b")),
                filter_if_missing: false,
                latest_version_only: true,
                exclude: false,
            }
        );
        assert_eq!(
            ok("KeyOnlyFilter(TRUE)"),
            FilterSpec::KeyOnly { len_as_value: true }
        );
        assert_eq!(ok("FirstKeyOnlyFilter()"), FilterSpec::FirstKeyOnly);
        assert_eq!(
            ok("ColumnRangeFilter('', true, 'm', false)"),
            FilterSpec::ColumnRange {
                min: Bytes::new(),
                min_inclusive: true,
                max: Bytes::from_static(b"m"),
                max_inclusive: false,
            }
        );
        // Every registered name is known (wrong arguments are another error).
        for name in FILTER_NAMES {
            if let Err(e) = parse_filter(&format!("{name}(1, 2, 3, 4, 5, 6, 7)")) {
                assert!(!e.to_string().contains("not supported"), "{name}: {e}");
            }
        }
    }

    #[test]
    fn errors_name_the_position_and_what_was_expected() {
        assert!(err("PrefixFilter('a'").contains("',' or ')'"));
        assert!(err("(PrefixFilter('a')").contains("Mismatched parenthesis"));
        assert!(err("PrefixFilter('a'))").contains("Mismatched parenthesis"));
        assert!(err("NoSuchFilter('a')").contains("Filter Name NoSuchFilter not supported"));
        assert!(err("PrefixFilter('a) AND").contains("closing quote"));
        assert!(err("ValueFilter(<, 'regexstring:a.*')").contains("EQUAL and NOT_EQUAL"));
        assert!(err("ValueFilter(~, 'binary:a')").contains("Invalid compare operator"));
        assert!(err("ValueFilter(=, 'nope:a')").contains("Incorrect comparatorType"));
        assert!(err("PageFilter('x')").contains("a number"));
        assert!(err("PrefixFilter('a') PrefixFilter('b')").contains("position 18"));
        assert!(err("").contains("expected a filter"));
        assert!(err("PrefixFilter('a') AND").contains("position 21"));
    }
}
