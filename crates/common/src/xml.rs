//! Just enough XML to read small documents (HBase's REST representations, `hbase-site.xml`):
//! a document as a tree of elements (name, attributes, text, children), read with quick-xml.

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
