//! Just enough XML for HBase's REST representations: the reader (`basalt_common::xml`) turns
//! a document into a tree of elements (name, attributes, text, children), and a writer here
//! builds one with escaping. The representations are small and flat, so a tree is the simple
//! way.

pub use basalt_common::xml::parse;

pub use basalt_net::http::escape_markup as escape;

/// Builds a document: `open`/`attr`/`close` in order, as the representation nests.
#[derive(Debug, Default)]
pub struct Writer {
    out: String,
    /// Whether the last start tag is still open for attributes.
    in_tag: bool,
    open: Vec<&'static str>,
    /// Whether the element on top has content (then it needs an end tag).
    has_content: Vec<bool>,
}

impl Writer {
    pub fn new() -> Self {
        Writer {
            out: String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"),
            ..Writer::default()
        }
    }

    fn finish_tag(&mut self) {
        if self.in_tag {
            self.out.push('>');
            self.in_tag = false;
        }
    }

    pub fn open(&mut self, name: &'static str) -> &mut Self {
        self.finish_tag();
        if let Some(parent) = self.has_content.last_mut() {
            *parent = true;
        }
        self.out.push('<');
        self.out.push_str(name);
        self.in_tag = true;
        self.open.push(name);
        self.has_content.push(false);
        self
    }

    pub fn attr(&mut self, name: &str, value: impl std::fmt::Display) -> &mut Self {
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        self.out.push_str(&escape(&value.to_string()));
        self.out.push('"');
        self
    }

    pub fn text(&mut self, text: &str) -> &mut Self {
        self.finish_tag();
        if let Some(top) = self.has_content.last_mut() {
            *top = true;
        }
        self.out.push_str(&escape(text));
        self
    }

    pub fn close(&mut self) -> &mut Self {
        let name = self.open.pop().unwrap_or("");
        let had_content = self.has_content.pop().unwrap_or(false);
        if had_content {
            self.finish_tag();
            self.out.push_str("</");
            self.out.push_str(name);
            self.out.push('>');
        } else {
            self.out.push_str("/>");
            self.in_tag = false;
        }
        self
    }

    /// An element holding only text.
    pub fn leaf(&mut self, name: &'static str, text: &str) -> &mut Self {
        self.open(name).text(text).close()
    }

    pub fn finish(mut self) -> String {
        while !self.open.is_empty() {
            self.close();
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes() {
        let mut w = Writer::new();
        w.open("CellSet")
            .open("Row")
            .attr("key", "cm93MQ==")
            .open("Cell")
            .attr("column", "a<b")
            .attr("timestamp", 5)
            .text("dmFs & more")
            .close()
            .close();
        w.open("Empty").close();
        let doc = w.finish();
        assert!(doc.contains("<Empty/>"), "{doc}");
        let root = parse(doc.as_bytes()).expect("parses");
        assert_eq!(root.name, "CellSet");
        let row = root.child("Row").expect("row");
        assert_eq!(row.attr("key"), Some("cm93MQ=="));
        let cell = row.child("Cell").expect("cell");
        assert_eq!(cell.attr("column"), Some("a<b"));
        assert_eq!(cell.attr("timestamp"), Some("5"));
        assert_eq!(cell.text, "dmFs & more");
    }

    #[test]
    fn bad_documents_are_errors_not_panics() {
        for doc in [
            "",
            "<a>",
            "<a></b>",
            "</a>",
            "<a x=1/>",
            "<a>&nope;</a>",
            "\u{0}",
        ] {
            assert!(parse(doc.as_bytes()).is_err(), "{doc:?} parsed");
        }
    }
}
