#![no_main]
//! Arbitrary text parsed as HBase's filter language: a filter or an error naming the
//! position, never a panic. A filter that parses is built and driven through HBase's
//! protocol over a few rows, in both directions, which must not panic either.

use basalt_common::Cell;
use basalt_common::filter::{Filter, ReturnCode};

fn drive(filter: &mut dyn Filter, rows: &[&[u8]]) {
    for row in rows {
        filter.reset();
        if filter.filter_all_remaining() {
            return;
        }
        if filter.filter_row_key(row) {
            let _ = filter.next_row_hint(row);
            continue;
        }
        let mut cells = Vec::new();
        for (family, qualifier, ts, value) in [
            (&b"f"[..], &b""[..], 3, &b"v"[..]),
            (b"f", b"a", 2, b"apple"),
            (b"f", b"a", 1, b""),
            (b"f", b"status", 5, b"active"),
            (b"g", b"x", 9, b"\x00\x00\x00\x00\x00\x00\x00\x07"),
        ] {
            let cell = Cell::put(row, family, qualifier, ts, value);
            let code = filter.filter_cell(&cell);
            if code.includes() {
                cells.push(filter.transform_cell(cell.clone()));
            }
            if code == ReturnCode::SeekNextUsingHint {
                let _ = filter.next_cell_hint(&cell);
            }
        }
        filter.filter_row_cells(&mut cells);
        let _ = filter.has_filter_row();
        let _ = filter.filter_row();
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(spec) = basalt_common::filter::parse_filter(text) else {
        return;
    };
    for reversed in [false, true] {
        if let Ok(mut filter) = spec.build(reversed) {
            drive(filter.as_mut(), &[b"", b"row1", b"row2", b"row20", b"\xff"]);
        }
    }
});
