//! The interactive session: line editing, history kept across sessions, completion of command
//! and table names, IRB's prompt (`hbase:001:0> `, `hbase:001:1* ` while a statement goes on).

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use crate::{COMMANDS, Failure, Shell};

/// Completes command names at the start of a statement, and table names inside quotes.
#[derive(Debug, Default)]
struct ShellHelper {
    tables: Mutex<Vec<String>>,
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let pair = |s: &str| Pair {
            display: s.to_owned(),
            replacement: s.to_owned(),
        };
        // Inside an open quote: a table name.
        let quotes = before.matches(['\'', '"']).count();
        if quotes % 2 == 1 {
            let start = before.rfind(['\'', '"']).map_or(0, |i| i + 1);
            let word = &before[start..];
            let tables = self
                .tables
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let found = tables
                .iter()
                .filter(|t| t.starts_with(word))
                .map(|t| pair(t))
                .collect();
            return Ok((start, found));
        }
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        // Only the first word of a statement is a command.
        let head = before[..start].trim_end();
        if !(head.is_empty() || head.ends_with(';') || head.ends_with('=') || head.ends_with('.')) {
            return Ok((start, Vec::new()));
        }
        let found = COMMANDS
            .iter()
            .filter(|c| c.name.starts_with(word))
            .map(|c| pair(c.name))
            .collect();
        Ok((start, found))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}

impl Highlighter for ShellHelper {}

impl Validator for ShellHelper {}

impl Helper for ShellHelper {}

/// Where history is kept: `$BASALT_SHELL_HISTORY`, else `~/.basalt_shell_history`.
pub fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BASALT_SHELL_HISTORY") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".basalt_shell_history"))
}

/// Runs an interactive session on the terminal until `exit` or end of input.
pub fn run_interactive(shell: &mut Shell, banner: &str) -> io::Result<()> {
    let mut editor: Editor<ShellHelper, DefaultHistory> =
        Editor::new().map_err(|e| io::Error::other(e.to_string()))?;
    let helper = ShellHelper::default();
    *helper
        .tables
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = shell.table_names();
    editor.set_helper(Some(helper));
    let history = history_path();
    if let Some(h) = &history {
        // A first session has no history yet.
        let _ = editor.load_history(h);
    }
    let mut stdout = io::stdout();
    writeln!(stdout, "{banner}")?;
    let mut line_no = 1usize;
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() {
            format!("hbase:{line_no:03}:0> ")
        } else {
            format!("hbase:{line_no:03}:1* ")
        };
        match editor.readline(&prompt) {
            Ok(line) => {
                if !pending.is_empty() {
                    pending.push('\n');
                }
                pending.push_str(&line);
                line_no += 1;
                let trimmed = pending.trim();
                if trimmed.is_empty() {
                    pending.clear();
                    continue;
                }
                if trimmed == "exit" || trimmed == "quit" {
                    let _ = editor.add_history_entry(trimmed);
                    break;
                }
                let mut out = stdout.lock();
                let mut outcome = shell.run(&pending, &mut out);
                while let Err(Failure::Confirm) = outcome {
                    out.flush()?;
                    drop(out);
                    // The question is printed; its answer is the next line (none: no).
                    let answer = editor.readline("").unwrap_or_default();
                    shell.answer(answer.trim());
                    out = stdout.lock();
                    outcome = shell.run(&pending, &mut out);
                }
                match outcome {
                    Err(Failure::Incomplete) => continue,
                    Err(Failure::Io(e)) => return Err(e),
                    // Errors were printed in the session's output.
                    Ok(()) | Err(_) => {}
                }
                out.flush()?;
                let _ = editor.add_history_entry(pending.as_str());
                pending.clear();
                if let Some(h) = editor.helper() {
                    *h.tables
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = shell.table_names();
                }
            }
            Err(ReadlineError::Interrupted) => {
                pending.clear();
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(io::Error::other(e.to_string())),
        }
    }
    if let Some(h) = &history
        && let Err(e) = editor.save_history(h)
    {
        eprintln!("could not save history to {}: {e}", h.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(helper: &ShellHelper, line: &str) -> (usize, Vec<String>) {
        let history = DefaultHistory::new();
        let (start, found) = helper
            .complete(line, line.len(), &Context::new(&history))
            .unwrap_or_default();
        (start, found.into_iter().map(|p| p.replacement).collect())
    }

    #[test]
    fn completes_commands_first_and_table_names_in_quotes() {
        let helper = ShellHelper::default();
        *helper
            .tables
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            vec!["webtable".into(), "ns:web2".into(), "other".into()];
        assert_eq!(
            complete(&helper, "trunc"),
            (
                0,
                vec![
                    "truncate".into(),
                    "truncate_preserve".into(),
                    "truncate_region".into()
                ]
            )
        );
        assert_eq!(
            complete(&helper, "list; desc").1,
            ["describe", "desc", "describe_namespace"]
        );
        assert_eq!(complete(&helper, "scan 'we"), (6, vec!["webtable".into()]));
        assert_eq!(
            complete(&helper, "t = get_t").1,
            ["get_table", "get_table_rsgroup"]
        );
        // Not the first word, not in quotes: nothing.
        assert!(complete(&helper, "scan sc").1.is_empty());
    }
}
