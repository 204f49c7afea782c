//! The part of Ruby that HBase shell commands are written in: strings (single-quoted literal,
//! double-quoted with escapes), integers, floats, `true` / `false` / `nil`, constants, hashes
//! `{K => V}`, arrays, ranges, bare `K => V` pairs gathered into a trailing hash, optional
//! parentheses, `var = command ...`, `var.command ...`, `;` between statements and `#`
//! comments. A parse either yields statements, needs more input (an open bracket or a trailing
//! comma), or fails at a column.

use std::fmt;

/// A value of the shell language.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(Vec<u8>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Nil,
    /// An upper-case constant (`NAME`, `VERSIONS`): it stands for its own name, as HBase's
    /// shell constants do.
    Const(String),
    /// A hash, keys in the order written.
    Hash(Vec<(Value, Value)>),
    Array(Vec<Value>),
    /// `a..b` (inclusive) or `a...b`.
    Range(Box<Value>, Box<Value>, bool),
    /// A local variable, looked up when the statement runs.
    Var(String),
    /// `name(args)`: one of the shell's key functions (`key_long(5)`), called when the
    /// statement runs.
    Call(String, Vec<Value>),
}

impl Value {
    /// The text of a string or constant.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Str(b) => Some(String::from_utf8_lossy(b).into_owned()),
            Value::Const(c) => Some(c.clone()),
            _ => None,
        }
    }

    /// Ruby's `inspect` form, as IRB echoes a value.
    pub fn inspect(&self) -> String {
        match self {
            Value::Str(b) => {
                let mut s = String::from("\"");
                for &c in b {
                    match c {
                        b'"' => s.push_str("\\\""),
                        b'\\' => s.push_str("\\\\"),
                        b'\n' => s.push_str("\\n"),
                        b'\t' => s.push_str("\\t"),
                        0x20..=0x7e => s.push(c as char),
                        _ => s.push_str(&format!("\\x{c:02X}")),
                    }
                }
                s.push('"');
                s
            }
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format!("{f:?}"),
            Value::Bool(b) => b.to_string(),
            Value::Nil => "nil".into(),
            Value::Const(c) => format!("{c:?}"),
            Value::Hash(pairs) => {
                let inner: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| format!("{}=>{}", k.inspect(), v.inspect()))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
            Value::Array(items) => {
                let inner: Vec<String> = items.iter().map(Value::inspect).collect();
                format!("[{}]", inner.join(", "))
            }
            Value::Range(a, b, exclusive) => {
                let dots = if *exclusive { "..." } else { ".." };
                format!("{}{dots}{}", a.inspect(), b.inspect())
            }
            Value::Var(v) => v.clone(),
            Value::Call(name, args) => {
                let inner: Vec<String> = args.iter().map(Value::inspect).collect();
                format!("{name}({})", inner.join(", "))
            }
        }
    }
}

/// One statement: `[target =] [receiver.]command args`.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// `t = get_table 't'` assigns to `t`.
    pub assign: Option<String>,
    /// `t.scan` calls `scan` on the table held by `t`.
    pub receiver: Option<String>,
    pub command: String,
    pub args: Vec<Value>,
    /// Where the command name starts in the input, for messages.
    pub column: usize,
}

/// Why input did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The input stops inside a bracket, a string or after a comma: more lines complete it.
    Incomplete,
    /// A syntax error at a 1-based line and column.
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Incomplete => f.write_str("unexpected end of input"),
            ParseError::Syntax {
                line,
                column,
                message,
            } => write!(f, "(hbase):{line}:{column}: syntax error, {message}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(Vec<u8>),
    Int(i64),
    Float(f64),
    Ident(String),
    Const(String),
    Arrow,
    Comma,
    Dot,
    DotDot(bool),
    Assign,
    Semi,
    Newline,
    Open(u8),
    Close(u8),
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Str(_) => "string literal".into(),
            Tok::Int(i) => format!("integer {i}"),
            Tok::Float(f) => format!("float {f}"),
            Tok::Ident(i) => format!("'{i}'"),
            Tok::Const(c) => format!("constant {c}"),
            Tok::Arrow => "'=>'".into(),
            Tok::Comma => "','".into(),
            Tok::Dot => "'.'".into(),
            Tok::DotDot(false) => "'..'".into(),
            Tok::DotDot(true) => "'...'".into(),
            Tok::Assign => "'='".into(),
            Tok::Semi => "';'".into(),
            Tok::Newline => "end of line".into(),
            Tok::Open(c) | Tok::Close(c) => format!("'{}'", *c as char),
        }
    }
}

/// A token and where it starts (byte offset).
type Spanned = (Tok, usize);

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    out: Vec<Spanned>,
    depth: usize,
}

impl Lexer<'_> {
    fn error(&self, at: usize, message: String) -> ParseError {
        let (line, column) = line_col(self.src, at);
        ParseError::Syntax {
            line,
            column,
            message,
        }
    }

    fn run(mut self) -> Result<Vec<Spanned>, ParseError> {
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            let start = self.pos;
            match c {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\\' if self.src.get(self.pos + 1) == Some(&b'\n') => self.pos += 2,
                b'\n' => {
                    self.pos += 1;
                    // Inside brackets a newline is only space.
                    if self.depth == 0 {
                        self.out.push((Tok::Newline, start));
                    }
                }
                b'#' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'\'' => {
                    let s = self.single_quoted()?;
                    self.out.push((Tok::Str(s), start));
                }
                b'"' => {
                    let s = self.double_quoted()?;
                    self.out.push((Tok::Str(s), start));
                }
                b'0'..=b'9' => self.number(false)?,
                b'-' if self.src.get(self.pos + 1).is_some_and(u8::is_ascii_digit) => {
                    self.pos += 1;
                    self.number(true)?;
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                    while self.pos < self.src.len()
                        && (self.src[self.pos].is_ascii_alphanumeric()
                            || self.src[self.pos] == b'_')
                    {
                        self.pos += 1;
                    }
                    // Ruby method names may end in `?` or `!`.
                    if self.pos < self.src.len() && matches!(self.src[self.pos], b'?' | b'!') {
                        self.pos += 1;
                    }
                    let word = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
                    let tok = if c.is_ascii_uppercase() {
                        Tok::Const(word)
                    } else {
                        Tok::Ident(word)
                    };
                    self.out.push((tok, start));
                }
                b'=' if self.src.get(self.pos + 1) == Some(&b'>') => {
                    self.pos += 2;
                    self.out.push((Tok::Arrow, start));
                }
                b'=' => {
                    self.pos += 1;
                    self.out.push((Tok::Assign, start));
                }
                b',' => {
                    self.pos += 1;
                    self.out.push((Tok::Comma, start));
                }
                b';' => {
                    self.pos += 1;
                    self.out.push((Tok::Semi, start));
                }
                b'.' => {
                    let dots = self.src[self.pos..]
                        .iter()
                        .take(3)
                        .take_while(|&&d| d == b'.')
                        .count();
                    self.pos += dots;
                    let tok = match dots {
                        1 => Tok::Dot,
                        2 => Tok::DotDot(false),
                        _ => Tok::DotDot(true),
                    };
                    self.out.push((tok, start));
                }
                b'(' | b'[' | b'{' => {
                    self.pos += 1;
                    self.depth += 1;
                    self.out.push((Tok::Open(c), start));
                }
                b')' | b']' | b'}' => {
                    self.pos += 1;
                    self.depth = self.depth.saturating_sub(1);
                    self.out.push((Tok::Close(c), start));
                }
                _ => {
                    return Err(self.error(
                        start,
                        format!("unexpected character '{}'", char_at(self.src, start)),
                    ));
                }
            }
        }
        Ok(self.out)
    }

    fn number(&mut self, negative: bool) -> Result<(), ParseError> {
        let start = if negative { self.pos - 1 } else { self.pos };
        while self.pos < self.src.len()
            && (self.src[self.pos].is_ascii_digit() || self.src[self.pos] == b'_')
        {
            self.pos += 1;
        }
        let mut float = false;
        // A fraction needs a digit after the dot (`1..2` is a range).
        if self.src.get(self.pos) == Some(&b'.')
            && self.src.get(self.pos + 1).is_some_and(u8::is_ascii_digit)
        {
            float = true;
            self.pos += 1;
            while self.pos < self.src.len() && self.src[self.pos].is_ascii_digit() {
                self.pos += 1;
            }
        }
        let text: String = String::from_utf8_lossy(&self.src[start..self.pos]).replace('_', "");
        let tok = if float {
            Tok::Float(
                text.parse()
                    .map_err(|_| self.error(start, format!("bad number {text}")))?,
            )
        } else {
            Tok::Int(text.parse().map_err(|_| {
                self.error(start, format!("integer {text} does not fit in 64 bits"))
            })?)
        };
        self.out.push((tok, start));
        Ok(())
    }

    fn single_quoted(&mut self) -> Result<Vec<u8>, ParseError> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.src.get(self.pos) else {
                return Err(ParseError::Incomplete);
            };
            self.pos += 1;
            match c {
                b'\'' => return Ok(out),
                // Only `\'` and `\\` are escapes in single quotes.
                b'\\' if matches!(self.src.get(self.pos), Some(b'\'' | b'\\')) => {
                    out.push(self.src[self.pos]);
                    self.pos += 1;
                }
                _ => out.push(c),
            }
        }
    }

    fn double_quoted(&mut self) -> Result<Vec<u8>, ParseError> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.src.get(self.pos) else {
                return Err(ParseError::Incomplete);
            };
            let at = self.pos;
            self.pos += 1;
            match c {
                b'"' => return Ok(out),
                b'#' if self.src.get(self.pos) == Some(&b'{') => {
                    return Err(self.error(at, "string interpolation is not supported".into()));
                }
                b'\\' => {
                    let Some(&e) = self.src.get(self.pos) else {
                        return Err(ParseError::Incomplete);
                    };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'0' if !self
                            .src
                            .get(self.pos)
                            .is_some_and(|d| (b'0'..b'8').contains(d)) =>
                        {
                            out.push(0)
                        }
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.src.get(self.pos) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push((v & 0xff) as u8);
                        }
                        b'a' => out.push(7),
                        b'b' => out.push(8),
                        b'e' => out.push(27),
                        b'f' => out.push(12),
                        b'v' => out.push(11),
                        b's' => out.push(b' '),
                        b'x' => {
                            let digits: Vec<u8> = self.src[self.pos..]
                                .iter()
                                .take(2)
                                .take_while(|d| d.is_ascii_hexdigit())
                                .copied()
                                .collect();
                            if digits.is_empty() {
                                return Err(self.error(at, "invalid hex escape".into()));
                            }
                            self.pos += digits.len();
                            let text = String::from_utf8_lossy(&digits).into_owned();
                            out.push(u8::from_str_radix(&text, 16).unwrap_or_default());
                        }
                        b'\n' => {}
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
    }
}

fn char_at(src: &[u8], at: usize) -> char {
    String::from_utf8_lossy(&src[at..])
        .chars()
        .next()
        .unwrap_or(' ')
}

/// 1-based line and column (in characters) of byte offset `at`.
pub fn line_col(src: &[u8], at: usize) -> (usize, usize) {
    let before = &src[..at.min(src.len())];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

struct Parser<'a> {
    src: &'a [u8],
    toks: Vec<Spanned>,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.src.len(), |(_, p)| *p)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|(t, _)| t.clone());
        self.pos += 1;
        t
    }

    fn unexpected(&self) -> ParseError {
        match self.peek() {
            None => ParseError::Incomplete,
            Some(t) => {
                let (line, column) = line_col(self.src, self.at());
                ParseError::Syntax {
                    line,
                    column,
                    message: format!("unexpected {}", t.describe()),
                }
            }
        }
    }

    fn expect_close(&mut self, c: u8) -> Result<(), ParseError> {
        match self.peek() {
            Some(Tok::Close(d)) if *d == c => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.unexpected()),
        }
    }

    /// Comma-separated expressions up to the closing `close` (consumed), a trailing comma
    /// allowed as Ruby allows it: an array's items or a call's arguments.
    fn items_until(&mut self, close: u8) -> Result<Vec<Value>, ParseError> {
        let mut items = Vec::new();
        while self.peek() != Some(&Tok::Close(close)) {
            items.push(self.expr()?);
            if self.peek() == Some(&Tok::Comma) {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.expect_close(close)?;
        Ok(items)
    }

    fn statements(&mut self) -> Result<Vec<Statement>, ParseError> {
        let mut out = Vec::new();
        loop {
            while matches!(self.peek(), Some(Tok::Newline | Tok::Semi)) {
                self.pos += 1;
            }
            if self.peek().is_none() {
                return Ok(out);
            }
            out.push(self.statement()?);
            match self.peek() {
                None | Some(Tok::Newline | Tok::Semi) => {}
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn statement(&mut self) -> Result<Statement, ParseError> {
        let column = self.at();
        let Some(Tok::Ident(first)) = self.peek().cloned() else {
            return Err(self.unexpected());
        };
        self.pos += 1;
        let mut assign = None;
        let mut receiver = None;
        let mut command = first;
        if self.peek() == Some(&Tok::Assign) {
            self.pos += 1;
            assign = Some(command);
            let Some(Tok::Ident(c)) = self.next() else {
                self.pos -= 1;
                return Err(self.unexpected());
            };
            command = c;
        }
        if self.peek() == Some(&Tok::Dot) {
            self.pos += 1;
            let Some(Tok::Ident(method)) = self.next() else {
                self.pos -= 1;
                return Err(self.unexpected());
            };
            receiver = Some(command);
            command = method;
        }
        let args = if self.peek() == Some(&Tok::Open(b'('))
            && self.toks[self.pos].1 == self.end_of_prev()
        {
            // `cmd(args)`: parentheses right after the name hold the arguments.
            self.pos += 1;
            let args = self.args(Some(b')'))?;
            self.expect_close(b')')?;
            args
        } else {
            self.args(None)?
        };
        Ok(Statement {
            assign,
            receiver,
            command,
            args,
            column,
        })
    }

    /// Where the previous token ends, to tell `f(x)` from `f (x)`.
    fn end_of_prev(&self) -> usize {
        let (tok, start) = &self.toks[self.pos - 1];
        match tok {
            Tok::Ident(i) => start + i.len(),
            _ => usize::MAX,
        }
    }

    /// Arguments up to the end of the statement (or `close`): values, with bare `K => V`
    /// pairs gathered into one hash.
    fn args(&mut self, close: Option<u8>) -> Result<Vec<Value>, ParseError> {
        let mut out: Vec<Value> = Vec::new();
        let ends = |t: Option<&Tok>| match t {
            None | Some(Tok::Newline | Tok::Semi) => close.is_none(),
            Some(Tok::Close(c)) => Some(*c) == close,
            _ => false,
        };
        if ends(self.peek()) {
            return Ok(out);
        }
        let mut bare: Option<Vec<(Value, Value)>> = None;
        loop {
            let v = self.expr()?;
            if self.peek() == Some(&Tok::Arrow) {
                self.pos += 1;
                let value = self.expr()?;
                bare.get_or_insert_with(Vec::new).push((v, value));
            } else {
                if let Some(pairs) = bare.take() {
                    out.push(Value::Hash(pairs));
                }
                out.push(v);
            }
            match self.peek() {
                Some(Tok::Comma) => {
                    self.pos += 1;
                    // A trailing comma continues on the next line.
                    while self.peek() == Some(&Tok::Newline) {
                        self.pos += 1;
                    }
                    if self.peek().is_none() {
                        return Err(ParseError::Incomplete);
                    }
                }
                t if ends(t) => break,
                _ => return Err(self.unexpected()),
            }
        }
        if let Some(pairs) = bare {
            out.push(Value::Hash(pairs));
        }
        Ok(out)
    }

    fn expr(&mut self) -> Result<Value, ParseError> {
        let v = self.primary()?;
        if let Some(Tok::DotDot(exclusive)) = self.peek().cloned() {
            self.pos += 1;
            let end = self.primary()?;
            return Ok(Value::Range(Box::new(v), Box::new(end), exclusive));
        }
        Ok(v)
    }

    fn primary(&mut self) -> Result<Value, ParseError> {
        let Some(tok) = self.peek().cloned() else {
            return Err(ParseError::Incomplete);
        };
        let v = match tok {
            Tok::Str(s) => {
                self.pos += 1;
                // Adjacent literals concatenate, as in Ruby.
                let mut s = s;
                while let Some(Tok::Str(more)) = self.peek() {
                    s.extend_from_slice(more);
                    self.pos += 1;
                }
                Value::Str(s)
            }
            Tok::Int(i) => {
                self.pos += 1;
                Value::Int(i)
            }
            Tok::Float(f) => {
                self.pos += 1;
                Value::Float(f)
            }
            Tok::Const(c) => {
                self.pos += 1;
                Value::Const(c)
            }
            Tok::Ident(i) => {
                self.pos += 1;
                match i.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "nil" => Value::Nil,
                    _ if self.peek() == Some(&Tok::Open(b'(')) => {
                        self.pos += 1;
                        Value::Call(i, self.items_until(b')')?)
                    }
                    _ => Value::Var(i),
                }
            }
            Tok::Open(b'{') => {
                self.pos += 1;
                let mut pairs = Vec::new();
                if self.peek() != Some(&Tok::Close(b'}')) {
                    loop {
                        let k = self.expr()?;
                        if self.next() != Some(Tok::Arrow) {
                            self.pos -= 1;
                            return Err(self.unexpected());
                        }
                        let v = self.expr()?;
                        pairs.push((k, v));
                        if self.peek() == Some(&Tok::Comma) {
                            self.pos += 1;
                            if self.peek() == Some(&Tok::Close(b'}')) {
                                break;
                            }
                        } else {
                            break;
                        }
                    }
                }
                self.expect_close(b'}')?;
                Value::Hash(pairs)
            }
            Tok::Open(b'[') => {
                self.pos += 1;
                Value::Array(self.items_until(b']')?)
            }
            Tok::Open(b'(') => {
                self.pos += 1;
                let v = self.expr()?;
                self.expect_close(b')')?;
                v
            }
            _ => return Err(self.unexpected()),
        };
        Ok(v)
    }
}

/// Parses `src` into statements.
pub fn parse(src: &str) -> Result<Vec<Statement>, ParseError> {
    let bytes = src.as_bytes();
    let toks = Lexer {
        src: bytes,
        pos: 0,
        out: Vec::new(),
        depth: 0,
    }
    .run()?;
    let open = toks
        .iter()
        .map(|(t, _)| match t {
            Tok::Open(_) => 1i64,
            Tok::Close(_) => -1,
            _ => 0,
        })
        .sum::<i64>();
    let mut parser = Parser {
        src: bytes,
        toks,
        pos: 0,
    };
    match parser.statements() {
        // An unbalanced error with brackets still open means the rest is to come.
        Err(ParseError::Syntax { .. }) if open > 0 && parser.pos >= parser.toks.len() => {
            Err(ParseError::Incomplete)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> Statement {
        let mut s = parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(s.len(), 1);
        s.remove(0)
    }

    fn s(v: &str) -> Value {
        Value::Str(v.as_bytes().to_vec())
    }

    #[test]
    fn commands_with_strings_and_hashes() {
        let st = one("create 'mytable', {NAME => 'cf1', BLOCKSIZE => '65536'}");
        assert_eq!(st.command, "create");
        assert_eq!(
            st.args,
            vec![
                s("mytable"),
                Value::Hash(vec![
                    (Value::Const("NAME".into()), s("cf1")),
                    (Value::Const("BLOCKSIZE".into()), s("65536")),
                ])
            ]
        );
    }

    #[test]
    fn bare_pairs_become_one_trailing_hash() {
        let st = one("alter 't1', NAME => 'f1', VERSIONS => 5");
        assert_eq!(
            st.args,
            vec![
                s("t1"),
                Value::Hash(vec![
                    (Value::Const("NAME".into()), s("f1")),
                    (Value::Const("VERSIONS".into()), Value::Int(5)),
                ])
            ]
        );
        let st = one("create 'ns:t', 'f', SPLITS => ['10', '20']");
        assert_eq!(st.args.len(), 3);
    }

    #[test]
    fn escapes_in_double_quotes_only() {
        let st = one(r#"put 't', "r\x00\x01", 'cf:q', "a\tb\n", 'x\ny'"#);
        assert_eq!(st.args[1], Value::Str(vec![b'r', 0, 1]));
        assert_eq!(st.args[3], s("a\tb\n"));
        assert_eq!(st.args[4], s("x\\ny"));
        let st = one(r"put 't', 'it\'s', '\\'");
        assert_eq!(st.args[1], s("it's"));
        assert_eq!(st.args[2], s("\\"));
    }

    #[test]
    fn parentheses_ranges_assignments_and_receivers() {
        let st = one("get('t', 'r', {TIMERANGE => [1, 2]})");
        assert_eq!(st.args.len(), 3);
        let st = one("t = get_table 't'");
        assert_eq!(st.assign.as_deref(), Some("t"));
        assert_eq!(st.command, "get_table");
        let st = one("t.scan LIMIT => 2");
        assert_eq!(st.receiver.as_deref(), Some("t"));
        let st = one("x 1..3, -5, 2.5, nil, true");
        assert_eq!(
            st.args,
            vec![
                Value::Range(Box::new(Value::Int(1)), Box::new(Value::Int(3)), false),
                Value::Int(-5),
                Value::Float(2.5),
                Value::Nil,
                Value::Bool(true)
            ]
        );
        let all = parse("list; list 'a.*' # a comment\n\nexists 't'").unwrap();
        assert_eq!(all.len(), 3);
    }

    /// Arrays and calls take their items alike: empty, several, a trailing comma.
    #[test]
    fn arrays_and_calls_list_their_items() {
        let st = one("p [1, 2,], [], key_long(7), key_concat('a', 'b',), f()");
        assert_eq!(
            st.args,
            vec![
                Value::Array(vec![Value::Int(1), Value::Int(2)]),
                Value::Array(vec![]),
                Value::Call("key_long".into(), vec![Value::Int(7)]),
                Value::Call("key_concat".into(), vec![s("a"), s("b")]),
                Value::Call("f".into(), vec![]),
            ]
        );
    }

    #[test]
    fn unfinished_input_asks_for_more() {
        for src in [
            "create 't', {NAME => 'f',",
            "put 't', 'r',",
            "scan 't', {COLUMNS => ['a',",
            "put 't', 'unclosed",
            "get(",
        ] {
            assert_eq!(parse(src), Err(ParseError::Incomplete), "{src}");
        }
        assert!(parse("create 't', {NAME => 'f',\n VERSIONS => 2}").is_ok());
    }

    #[test]
    fn syntax_errors_point_at_the_column() {
        let Err(ParseError::Syntax { line, column, .. }) = parse("create 't', }") else {
            panic!("no error");
        };
        assert_eq!((line, column), (1, 13));
        // Adjacent literals concatenate in Ruby, so `put 't' 'r'` parses; a number does not.
        assert!(parse("put 't' 'r'").is_ok());
        let Err(ParseError::Syntax { column, .. }) = parse("put 't' 5") else {
            panic!("no error");
        };
        assert_eq!(column, 9);
        assert!(matches!(
            parse("put 't', @"),
            Err(ParseError::Syntax { column: 10, .. })
        ));
        assert!(matches!(
            parse("'t'"),
            Err(ParseError::Syntax { column: 1, .. })
        ));
    }
}
