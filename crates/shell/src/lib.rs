//! `basalt shell`: HBase's shell, command for command. Input is the part of Ruby that HBase
//! shell commands use ([`syntax`]); commands run against any [`Client`] (an embedded data
//! directory or a server) and print what HBase 2.x prints ([`format`]), each followed by
//! `Took N.NNNN seconds`.
//!
//! ```
//! use std::sync::Arc;
//! use basalt_embedded::Connection;
//! use basalt_shell::{Options, Shell};
//!
//! let mut shell = Shell::new(Arc::new(Connection::in_memory()), Options::default());
//! let mut out = Vec::new();
//! shell.run("create 't', 'cf'; put 't', 'r1', 'cf:a', 'v1'", &mut out)?;
//! shell.run("get 't', 'r1'", &mut out)?;
//! assert!(String::from_utf8_lossy(&out).contains("value=v1"));
//! # Ok::<(), basalt_shell::Failure>(())
//! ```

mod args;
mod commands;
pub mod format;
mod interactive;
mod keyfns;
pub mod syntax;

use basalt_client::prelude::*;
use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::Instant;

use basalt_client::{Client, TableName};

pub use commands::{COMMANDS, CommandInfo};
pub use interactive::{history_path, run_interactive};
use syntax::{ParseError, Statement, Value};

/// How the shell prints.
#[derive(Debug, Clone)]
pub struct Options {
    /// Terminal width for the row tables; 0 pads nothing (not a terminal).
    pub width: usize,
    /// Interactive: a failed command prints `ERROR: ...` and the session goes on; values
    /// are echoed as `=> value`.
    pub interactive: bool,
    /// Timestamps as raw milliseconds (HBase's `hbase.shell.timestamp.format.epoch`).
    pub epoch_timestamps: bool,
    /// Who the server takes this session for, and how it knows (`whoami`): the name a
    /// client certificate or `--user` gives and `CERTIFICATE`, `SIMPLE` or `KERBEROS`. None:
    /// the process's own user (an embedded session).
    pub identity: Option<(String, String)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            width: 0,
            interactive: true,
            epoch_timestamps: false,
            identity: None,
        }
    }
}

/// Why input did not run to the end.
#[derive(Debug)]
pub enum Failure {
    /// The input stops inside a bracket or string: more lines complete it.
    Incomplete,
    /// A syntax error; the message points at the line and column.
    Syntax(String),
    /// A command failed.
    Command { command: String, message: String },
    /// Writing the output failed.
    Io(io::Error),
    /// A command asks a question (`Drop the above 2 tables (y/n)?`, printed already): the
    /// next input line is the answer, given with [`Shell::answer`], and the same statement
    /// runs again.
    Confirm,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Incomplete => f.write_str("unexpected end of input"),
            Failure::Syntax(m) => f.write_str(m),
            Failure::Command { message, .. } => write!(f, "ERROR: {message}"),
            Failure::Io(e) => write!(f, "writing output: {e}"),
            Failure::Confirm => f.write_str("waiting for an answer"),
        }
    }
}

impl std::error::Error for Failure {}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// What a command returns, echoed by an interactive shell as `=> ...`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Returned {
    Value(Value),
    /// A table handle (`create`, `get_table`): `Hbase::Table - t`.
    Table(TableName),
}

impl Returned {
    fn inspect(&self) -> String {
        match self {
            Returned::Value(v) => v.inspect(),
            Returned::Table(t) => format!("Hbase::Table - {t}"),
        }
    }
}

/// One shell session: a connection, its variables and how it prints.
pub struct Shell {
    pub(crate) client: Arc<dyn Client>,
    vars: HashMap<String, Returned>,
    pub(crate) options: Options,
    /// `exit` or `quit` ran.
    exited: bool,
    /// The answer to the question the last statement asked ([`Failure::Confirm`]).
    pub(crate) answer: Option<String>,
}

impl fmt::Debug for Shell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shell")
            .field("client", &self.client)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// A command's error, before the shell words it.
pub(crate) type CommandResult = Result<Option<Returned>, String>;

impl Shell {
    pub fn new(client: Arc<dyn Client>, options: Options) -> Self {
        Shell {
            client,
            vars: HashMap::new(),
            options,
            exited: false,
            answer: None,
        }
    }

    /// The tables of the connection, for completion.
    pub fn table_names(&self) -> Vec<String> {
        self.client
            .table_names()
            .map(|names| names.iter().map(ToString::to_string).collect())
            .unwrap_or_default()
    }

    /// Runs every statement of `src`, printing to `out`. Interactive, a failed command prints
    /// its error and the rest still runs; otherwise the first failure stops the input (and is
    /// returned either way).
    pub fn run(&mut self, src: &str, out: &mut dyn Write) -> Result<(), Failure> {
        let statements = match syntax::parse(src) {
            Ok(s) => s,
            Err(ParseError::Incomplete) => return Err(Failure::Incomplete),
            Err(e @ ParseError::Syntax { line, column, .. }) => {
                let text = syntax_message(src, &e, line, column);
                if self.options.interactive {
                    writeln!(out, "{text}")?;
                }
                return Err(Failure::Syntax(text));
            }
        };
        let mut first_failure = None;
        for statement in statements {
            if statement.receiver.is_none()
                && statement.args.is_empty()
                && (statement.command == "exit" || statement.command == "quit")
            {
                self.exited = true;
                break;
            }
            match self.statement(&statement, out) {
                Ok(()) => {}
                Err(e @ Failure::Command { .. }) if self.options.interactive => {
                    first_failure.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        first_failure.map_or(Ok(()), Err)
    }

    /// Whether `exit` (or `quit`) has run.
    pub fn exited(&self) -> bool {
        self.exited
    }

    /// Runs a script line by line (a statement may span lines), until its end or `exit`.
    /// Interactive, errors are printed and the script goes on; otherwise the first one ends
    /// it and is returned.
    pub fn run_script(
        &mut self,
        input: &mut dyn io::BufRead,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        let mut pending = String::new();
        let mut first_failure = None;
        let mut line = String::new();
        loop {
            line.clear();
            if input.read_line(&mut line)? == 0 {
                break;
            }
            pending.push_str(&line);
            let mut outcome = self.run(&pending, out);
            while let Err(Failure::Confirm) = outcome {
                // The question's answer is the next line (none left: no).
                line.clear();
                input.read_line(&mut line)?;
                self.answer(line.trim());
                outcome = self.run(&pending, out);
            }
            match outcome {
                Err(Failure::Incomplete) => continue,
                Err(Failure::Io(e)) => return Err(Failure::Io(e)),
                Err(e) if !self.options.interactive => return Err(e),
                Err(e) => {
                    first_failure.get_or_insert(e);
                }
                Ok(()) => {}
            }
            pending.clear();
            if self.exited {
                return first_failure.map_or(Ok(()), Err);
            }
        }
        if !pending.trim().is_empty() {
            let message = "SyntaxError: unexpected end of input (an unclosed string or bracket)";
            if self.options.interactive {
                writeln!(out, "{message}")?;
            }
            return Err(Failure::Syntax(message.into()));
        }
        first_failure.map_or(Ok(()), Err)
    }

    fn statement(&mut self, st: &Statement, out: &mut dyn Write) -> Result<(), Failure> {
        let mut args = Vec::with_capacity(st.args.len() + 1);
        let command = st.command.clone();
        if let Some(receiver) = &st.receiver {
            match self.vars.get(receiver) {
                Some(Returned::Table(t)) => {
                    args.push(Value::Str(t.to_string().into_bytes()));
                }
                Some(Returned::Value(_)) => {
                    return self.fail(
                        out,
                        &command,
                        format!("undefined method `{command}' for {receiver}"),
                        false,
                    );
                }
                None => {
                    return self.fail(
                        out,
                        &command,
                        format!("undefined local variable or method `{receiver}' for main:Object"),
                        false,
                    );
                }
            }
        }
        for a in &st.args {
            match self.resolve(a) {
                Ok(v) => args.push(v),
                Err(message) => return self.fail(out, &command, message, false),
            }
        }
        // A bare variable name on its own line prints it, as IRB does.
        if st.args.is_empty()
            && st.receiver.is_none()
            && commands::find(&command).is_none()
            && let Some(v) = self.vars.get(&command)
        {
            if self.options.interactive {
                writeln!(out, "=> {}", v.inspect())?;
            }
            return Ok(());
        }
        let Some(info) = commands::find(&command) else {
            return self.fail(
                out,
                &command,
                format!("undefined local variable or method `{command}' for main:Object"),
                false,
            );
        };
        let started = Instant::now();
        let result = (info.run)(self, &args, out);
        if matches!(&result, Err(m) if m == commands::ASKED) {
            return Err(Failure::Confirm);
        }
        match result {
            Ok(returned) => {
                if info.timed {
                    writeln!(out, "Took {:.4} seconds", started.elapsed().as_secs_f64())?;
                }
                if let Some(r) = returned {
                    if self.options.interactive {
                        writeln!(out, "=> {}", r.inspect())?;
                    }
                    if let Some(var) = &st.assign {
                        self.vars.insert(var.clone(), r);
                    }
                }
                Ok(())
            }
            Err(message) => {
                let failed = self.fail(out, info.name, message, true);
                if info.timed && self.options.interactive {
                    writeln!(out, "Took {:.4} seconds", started.elapsed().as_secs_f64())?;
                }
                failed
            }
        }
    }

    /// Answers the question the last statement asked ([`Failure::Confirm`]); run the
    /// statement again to act on it.
    pub fn answer(&mut self, answer: &str) {
        self.answer = Some(answer.to_owned());
    }

    /// Prints a command's error as HBase's shell does (interactive) and returns it.
    fn fail(
        &self,
        out: &mut dyn Write,
        command: &str,
        message: String,
        known: bool,
    ) -> Result<(), Failure> {
        if self.options.interactive {
            writeln!(out)?;
            writeln!(out, "ERROR: {message}")?;
            writeln!(out)?;
            if known {
                writeln!(out, "For usage try 'help \"{command}\"'")?;
            } else {
                writeln!(out, "Type 'help' for the list of commands.")?;
            }
            writeln!(out)?;
        }
        Err(Failure::Command {
            command: command.to_owned(),
            message,
        })
    }

    fn resolve(&self, v: &Value) -> Result<Value, String> {
        Ok(match v {
            Value::Var(name) => match self.vars.get(name) {
                Some(Returned::Value(v)) => v.clone(),
                Some(Returned::Table(t)) => Value::Str(t.to_string().into_bytes()),
                None => {
                    return Err(format!(
                        "undefined local variable or method `{name}' for main:Object"
                    ));
                }
            },
            Value::Hash(pairs) => Value::Hash(
                pairs
                    .iter()
                    .map(|(k, v)| Ok((self.resolve(k)?, self.resolve(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|i| self.resolve(i))
                    .collect::<Result<_, String>>()?,
            ),
            Value::Call(name, args) => {
                let args = args
                    .iter()
                    .map(|a| self.resolve(a))
                    .collect::<Result<Vec<_>, String>>()?;
                keyfns::call(name, &args)?
            }
            other => other.clone(),
        })
    }
}

/// `SyntaxError: (hbase):1:13: syntax error, unexpected '}'`, the line, and a caret under
/// the column.
fn syntax_message(src: &str, e: &ParseError, line: usize, column: usize) -> String {
    let text = src.lines().nth(line - 1).unwrap_or("");
    let caret: String = " ".repeat(column.saturating_sub(1));
    format!("SyntaxError: {e}\n{text}\n{caret}^")
}
