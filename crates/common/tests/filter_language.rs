//! The filter-language parser, fed random token soup and mutations of real filter strings,
//! returns a filter or an error and never panics (the stable-toolchain counterpart of
//! `fuzz/fuzz_targets/filter_language.rs`).

use basalt_common::filter::parse_filter;
use proptest::prelude::*;

const REAL: &[&str] = &[
    "(PrefixFilter ('row2') AND (QualifierFilter (>=, 'binary:xyz'))) AND (TimestampsFilter ( 123, 456))",
    "SingleColumnValueFilter('f', 'q', =, 'substring:ab', true, false) OR SKIP ValueFilter(!=, 'regexstring:a.*')",
    "WHILE ColumnRangeFilter('', true, 'it''s', false)",
];

fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "(",
        ")",
        ",",
        "'",
        "''",
        " ",
        "AND",
        "OR",
        "SKIP",
        "WHILE",
        "PrefixFilter",
        "ValueFilter",
        "ColumnRangeFilter",
        "TimestampsFilter",
        "KeyOnlyFilter",
        ">=",
        "=",
        "!=",
        "'binary:a'",
        "'regexstring:x'",
        "'substring:'",
        "12",
        "-1",
        "true",
        "x",
        "\t",
        ":",
        "é",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn token_soup(tokens in prop::collection::vec(token(), 0..24)) {
        let _ = parse_filter(&tokens.concat());
    }

    #[test]
    fn mutated_real_filters(
        which in 0usize..3,
        cut in any::<prop::sample::Index>(),
        insert in token(),
        at in any::<prop::sample::Index>(),
    ) {
        let chars: Vec<char> = REAL[which].chars().collect();
        let cut = cut.index(chars.len() + 1);
        let _ = parse_filter(&chars[..cut].iter().collect::<String>());
        let at = at.index(chars.len() + 1);
        let mut mutated: String = chars[..at].iter().collect();
        mutated.push_str(insert);
        mutated.extend(&chars[at..]);
        let _ = parse_filter(&mutated);
    }
}

#[test]
fn real_filters_parse() {
    for f in REAL {
        if let Err(e) = parse_filter(f) {
            panic!("{f}: {e}");
        }
    }
}
