//! HBase shell output: `Bytes.toStringBinary`, timestamps as `java.time.LocalDateTime`, and the
//! two-column row tables of `shell/formatter.rb`.

use std::io::{self, Write};

use basalt_client::{BinaryDisplay, Cell, CellType};
use basalt_common::clock::civil_from_days;

/// Bytes as HBase's `Bytes.toStringBinary` prints them.
pub fn binary(bytes: &[u8]) -> String {
    BinaryDisplay::new(bytes).to_string()
}

/// HBase's `Bytes.toBytesBinary`: `\xHH` escapes become bytes, everything else is kept.
pub fn from_binary(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\'
            && text.get(i + 1) == Some(&b'x')
            && i + 3 < text.len()
            && text[i + 2].is_ascii_hexdigit()
            && text[i + 3].is_ascii_hexdigit()
        {
            let hex = String::from_utf8_lossy(&text[i + 2..i + 4]).into_owned();
            out.push(u8::from_str_radix(&hex, 16).unwrap_or_default());
            i += 4;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// Milliseconds since the epoch as `java.time.LocalDateTime.toString` prints them in UTC
/// (`2024-05-01T10:11:12.345`; zero seconds and milliseconds left out as Java does), or the
/// raw number when `epoch` (HBase's `hbase.shell.timestamp.format.epoch`).
pub fn timestamp(ms: i64, epoch: bool) -> String {
    if epoch {
        return ms.to_string();
    }
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, min) = (in_day / 3_600_000, in_day / 60_000 % 60);
    let (s, milli) = (in_day / 1000 % 60, in_day % 1000);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y > 9999 {
        format!("+{y}")
    } else {
        format!("-{:04}", -y)
    };
    let mut out = format!("{year}-{m:02}-{d:02}T{h:02}:{min:02}");
    if s != 0 || milli != 0 {
        out.push_str(&format!(":{s:02}"));
        if milli != 0 {
            out.push_str(&format!(".{milli:03}"));
        }
    }
    out
}

/// A per-column converter (`'cf:q:toLong'`), as `Bytes.<method>` would print the value.
pub fn convert(value: &[u8], converter: Option<&str>) -> String {
    let fixed = |n: usize| -> Option<[u8; 8]> {
        (value.len() == n).then(|| {
            let mut b = [0u8; 8];
            b[8 - n..].copy_from_slice(value);
            b
        })
    };
    let shown = match converter {
        Some("toLong") => fixed(8).map(|b| i64::from_be_bytes(b).to_string()),
        Some("toInt") => fixed(4).map(|b| (i64::from_be_bytes(b) as i32).to_string()),
        Some("toShort") => fixed(2).map(|b| (i64::from_be_bytes(b) as i16).to_string()),
        Some("toFloat") => fixed(4).map(|b| {
            let bits = u32::try_from(u64::from_be_bytes(b)).unwrap_or_default();
            format!("{:?}", f32::from_bits(bits))
        }),
        Some("toDouble") => {
            fixed(8).map(|b| format!("{:?}", f64::from_bits(u64::from_be_bytes(b))))
        }
        Some("toBoolean") => value.first().map(|&b| (b != 0).to_string()),
        Some("toString") => Some(String::from_utf8_lossy(value).into_owned()),
        _ => None,
    };
    shown.unwrap_or_else(|| binary(value))
}

/// `timestamp=..., value=...` (or `type=...` for a delete marker), HBase's cell text.
pub fn cell_text(cell: &Cell, epoch: bool, converter: Option<&str>) -> String {
    let ts = timestamp(cell.timestamp, epoch);
    if cell.cell_type == CellType::Put {
        format!("timestamp={ts}, value={}", convert(cell.value(), converter))
    } else {
        format!("timestamp={ts}, type={}", cell.cell_type.name())
    }
}

/// `shell/formatter.rb`'s table: a header, rows of one or two columns, a row count. With a
/// width of 0 (no terminal) nothing is padded; on a terminal the first column takes a quarter
/// of the width and long text wraps.
#[derive(Debug)]
pub struct Formatter {
    pub width: usize,
    pub rows: usize,
}

impl Formatter {
    pub fn new(width: usize) -> Self {
        Formatter { width, rows: 0 }
    }

    pub fn header(&mut self, out: &mut dyn Write, columns: &[&str]) -> io::Result<()> {
        match columns {
            [one] => self.single(out, one)?,
            [a, b] => self.pair(out, a, b, false)?,
            _ => writeln!(out, "{}", columns.join(" "))?,
        }
        self.rows = 0;
        Ok(())
    }

    /// A one-column row (never inset, as formatter.rb prints them).
    pub fn row1(&mut self, out: &mut dyn Write, text: &str) -> io::Result<()> {
        self.single(out, text)?;
        self.rows += 1;
        Ok(())
    }

    /// A two-column row, inset by one space.
    pub fn row2(&mut self, out: &mut dyn Write, a: &str, b: &str) -> io::Result<()> {
        self.pair(out, a, b, true)?;
        self.rows += 1;
        Ok(())
    }

    /// A row of more than two columns: set off by a space, the columns joined by spaces, as
    /// formatter.rb prints them.
    pub fn row_n(&mut self, out: &mut dyn Write, columns: &[&str]) -> io::Result<()> {
        writeln!(out, " {}", columns.join(" "))?;
        self.rows += 1;
        Ok(())
    }

    /// `N row(s)`, of `count` or of the rows printed.
    pub fn footer(&self, out: &mut dyn Write, count: Option<usize>) -> io::Result<()> {
        writeln!(out, "{} row(s)", count.unwrap_or(self.rows))
    }

    fn single(&self, out: &mut dyn Write, text: &str) -> io::Result<()> {
        for line in split(self.width, text) {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    fn pair(&self, out: &mut dyn Write, a: &str, b: &str, inset: bool) -> io::Result<()> {
        let (w1, w2) = if self.width == 0 {
            (0, 0)
        } else {
            let w1 = self.width / 4;
            (w1, self.width.saturating_sub(w1 + 2).max(1))
        };
        let left = split(w1, a);
        let right = split(w2, b);
        for i in 0..left.len().max(right.len()) {
            let mut line = String::new();
            if inset {
                line.push(' ');
            }
            pad(&mut line, left.get(i).map_or("", String::as_str), w1);
            if !inset {
                line.push(' ');
            }
            line.push(' ');
            pad(&mut line, right.get(i).map_or("", String::as_str), w2);
            writeln!(out, "{}", if w2 > 0 { line.trim_end() } else { &line })?;
        }
        Ok(())
    }
}

fn pad(line: &mut String, text: &str, width: usize) {
    line.push_str(text);
    let len = text.chars().count();
    if width > len {
        line.extend(std::iter::repeat_n(' ', width - len));
    }
}

fn split(width: usize, text: &str) -> Vec<String> {
    if width == 0 || text.is_empty() {
        return vec![text.to_owned()];
    }
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect()).collect()
}

/// A time in UTC: year, month, day, hour, minute, second, and the weekday (0 = Thursday, as
/// the epoch's), from milliseconds since the epoch.
pub fn utc(ms: i64) -> (i64, u32, u32, i64, i64, i64, usize) {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let (y, m, d) = basalt_common::clock::civil_from_days(days);
    let in_day = secs.rem_euclid(86_400);
    (
        y,
        m,
        d,
        in_day / 3600,
        in_day / 60 % 60,
        in_day % 60,
        days.rem_euclid(7) as usize,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_print_as_java_local_date_time_in_utc() {
        assert_eq!(timestamp(0, false), "1970-01-01T00:00");
        assert_eq!(
            timestamp(1_714_558_272_345, false),
            "2024-05-01T10:11:12.345"
        );
        assert_eq!(timestamp(1_714_558_272_000, false), "2024-05-01T10:11:12");
        assert_eq!(timestamp(1_714_558_260_000, false), "2024-05-01T10:11");
        assert_eq!(timestamp(951_782_400_000, false), "2000-02-29T00:00");
        assert_eq!(timestamp(-1, false), "1969-12-31T23:59:59.999");
        assert_eq!(timestamp(i64::MAX, false), "+292278994-08-17T07:12:55.807");
        assert_eq!(timestamp(42, true), "42");
    }

    #[test]
    fn binary_round_trips_through_to_bytes_binary() {
        let raw = b"a\x00\xffb\\x";
        assert_eq!(binary(raw), "a\\x00\\xFFb\\x5Cx");
        assert_eq!(from_binary(binary(raw).as_bytes()), raw);
        assert_eq!(from_binary(b"\\x4"), b"\\x4");
    }

    #[test]
    fn converters_read_big_endian_numbers() {
        assert_eq!(convert(&7i64.to_be_bytes(), Some("toLong")), "7");
        assert_eq!(convert(&(-2i32).to_be_bytes(), Some("toInt")), "-2");
        assert_eq!(convert(b"ab", Some("toLong")), "ab");
        assert_eq!(convert(b"\x01", None), "\\x01");
    }

    #[test]
    fn rows_are_padded_only_on_a_terminal() {
        let mut out = Vec::new();
        let mut f = Formatter::new(0);
        f.header(&mut out, &["ROW", "COLUMN+CELL"]).unwrap();
        f.row2(&mut out, "r1", "column=cf:a, value=1").unwrap();
        f.footer(&mut out, None).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ROW  COLUMN+CELL\n r1 column=cf:a, value=1\n1 row(s)\n"
        );
        let mut out = Vec::new();
        let mut f = Formatter::new(40);
        f.header(&mut out, &["ROW", "COLUMN+CELL"]).unwrap();
        f.row2(&mut out, "r1", "column=cf:a, value=1").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ROW         COLUMN+CELL\n r1         column=cf:a, value=1\n"
        );
    }
}
