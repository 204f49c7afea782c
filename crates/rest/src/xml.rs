//! Just enough XML for HBase's REST representations: a reader that turns a document into a
//! tree of elements (name, attributes, text, children), and a writer that builds one with
//! escaping. The representations are small and flat, so a tree is the simple way.

use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

/// One element of a parsed document.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<Element>,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Children named `name`, in document order.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

fn start(e: &BytesStart<'_>) -> Result<Element, String> {
    let name = e.local_name().as_ref().to_owned();
    let mut attrs = Vec::new();
    for attr in e.attributes() {
        let attr = attr.map_err(|err| format!("bad XML attribute: {err}"))?;
        let key = attr.key.local_name().as_ref().to_owned();
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|err| format!("bad XML attribute {key}: {err}"))?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Element {
        name,
        attrs,
        ..Element::default()
    })
}

/// Parses a document into its root element.
pub fn parse(body: &[u8]) -> Result<Element, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the XML body is not UTF-8".to_owned())?;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("bad XML at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(e) => stack.push(start(&e)?),
            Event::Empty(e) => {
                let element = start(&e)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => return Ok(element),
                }
            }
            Event::End(_) => {
                let Some(element) = stack.pop() else {
                    return Err("bad XML: an end tag without a start".into());
                };
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => return Ok(element),
                }
            }
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml10_content());
                }
            }
            Event::CData(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    let name = r.xml10_content();
                    let ch = match name.as_ref() {
                        "lt" => '<',
                        "gt" => '>',
                        "amp" => '&',
                        "quot" => '"',
                        "apos" => '\'',
                        other => other
                            .strip_prefix("#x")
                            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                            .or_else(|| other.strip_prefix('#').and_then(|d| d.parse().ok()))
                            .and_then(char::from_u32)
                            .ok_or_else(|| format!("unknown XML entity &{other};"))?,
                    };
                    top.text.push(ch);
                }
            }
            Event::Eof => return Err("the XML body ended before its root element".into()),
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
}

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
